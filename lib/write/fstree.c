/* SPDX-License-Identifier: MIT */
/*
 * fstree.c - building the tree from entries that arrive in any order.
 *
 * The rules mirror what extracting the tar would leave on disk: a later
 * entry for the same path wins; a directory entry over an existing
 * directory only changes its attributes; a hard link points at whatever
 * inode its target named when the link arrived.
 *
 * A path names the same node for the life of the tree: the table maps
 * (parent node, name) to a node and nothing is ever removed from it. When
 * a directory is replaced, the nodes below it are marked dead and its
 * child list emptied; a dead node whose path comes back is revived in
 * place (same index, same stored name) and linked into its parent's
 * current list. So a node is in at most one live child list, and every
 * live node is reachable from the root.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "sqpack/error.h"
#include "util/spill.h"
#include "write/fstree.h"
#include "write/words.h"

/* A new file's tail word says "none" to both back ends (fstree.h). */
_Static_assert(WR_NO_FRAGMENT == FS_NONE, "no fragment and no EROFS tail differ");

/* Records per chunk: a few hundred KiB each. */
#define NODE_CHUNK_SHIFT 14
#define INODE_CHUNK_SHIFT 12
#define NAME_CHUNK_SHIFT 18
#define BLOCKS_CHUNK_SHIFT 12

static int nomem(struct fstree *t)
{
	return sqp_err(t->err, SQP_ERR_NOMEM, "out of memory");
}

static uint64_t name_hash(uint32_t parent, const char *name, size_t len)
{
	return XXH3_64bits_withSeed(name, len, parent);
}

/* A slot's tag: the top byte of the hash, never 0 (0 marks an empty
 * slot). */
static uint8_t map_tag(uint64_t hash)
{
	uint8_t tag = (uint8_t)(hash >> 56);

	return tag != 0 ? tag : 1;
}

/* Slot of (parent, name) in the map: its node, or the empty slot where
 * it belongs. Only a slot whose tag matches costs a look at its node and
 * name: with a million entries those are cache misses, and a new name
 * (every entry of a tar is one) would otherwise pay them for each slot
 * it probes. */
static size_t map_slot(const struct fstree *t, uint32_t parent, const char *name,
		       size_t len, uint64_t hash)
{
	size_t mask = t->map_size - 1, i = (size_t)hash & mask;
	uint8_t tag = map_tag(hash);

	while (t->map_tags[i] != 0) {
		if (t->map_tags[i] == tag) {
			const struct fs_node *n = fstree_node(t, t->map[i] - 1);
			const char *s = fstree_name(t, n);

			if (n->parent == parent && strncmp(s, name, len) == 0 &&
			    s[len] == '\0')
				return i;
		}
		i = (i + 1) & mask;
	}
	return i;
}

static void map_set(struct fstree *t, size_t slot, uint32_t node, uint64_t hash)
{
	t->map[slot] = node + 1;
	t->map_tags[slot] = map_tag(hash);
}

static void map_free(struct sqp_spill *spill, uint32_t *map, uint8_t *tags, size_t size)
{
	sqp_spill_free(spill, map, size * sizeof(*map));
	sqp_spill_free(spill, tags, size);
}

static int map_grow(struct fstree *t)
{
	uint32_t *old = t->map;
	uint8_t *old_tags = t->map_tags;
	size_t old_size = t->map_size, i;

	t->map_size = old_size ? old_size * 2 : 1024;
	t->map = sqp_spill_alloc_hot(t->spill, t->map_size * sizeof(t->map[0]));
	t->map_tags = sqp_spill_alloc_hot(t->spill, t->map_size);
	if (t->map == NULL || t->map_tags == NULL) {
		sqp_spill_free(t->spill, t->map, t->map_size * sizeof(t->map[0]));
		sqp_spill_free(t->spill, t->map_tags, t->map_size);
		t->map = old;
		t->map_tags = old_tags;
		t->map_size = old_size;
		return SQP_ERR_NOMEM;
	}
	for (i = 0; i < old_size; ++i) {
		const struct fs_node *n;
		const char *s;
		uint64_t hash;
		size_t len;

		sqp_spill_tick(t->spill);
		if (old[i] == 0)
			continue;
		n = fstree_node(t, old[i] - 1);
		s = fstree_name(t, n);
		len = strlen(s);
		hash = name_hash(n->parent, s, len);
		map_set(t, map_slot(t, n->parent, s, len, hash), old[i] - 1, hash);
	}
	map_free(t->spill, old, old_tags, old_size);
	return 0;
}

/* Whether name[0..len) sorts after the NUL-terminated s (byte order). */
static int sorts_after(const char *name, size_t len, const char *s)
{
	size_t slen = strlen(s);
	int c = memcmp(name, s, len < slen ? len : slen);

	return c > 0 || (c == 0 && len > slen);
}

static struct fs_irec *dir_of(const struct fstree *t, uint32_t node)
{
	return fstree_inode(t, fstree_node(t, node)->inode);
}

/* Put every child of directory node parent into the path table: a lookup
 * in it could not be answered from its sorted list alone. */
static int index_dir(struct fstree *t, uint32_t parent)
{
	struct fs_irec *dir = dir_of(t, parent);
	uint32_t c;

	for (c = dir->u.dir.first; c != FS_NONE; c = fstree_node(t, c)->next) {
		const char *s = fstree_name(t, fstree_node(t, c));
		size_t len = strlen(s), slot;
		uint64_t hash = name_hash(parent, s, len);

		if ((t->map_used + 1) * 2 > t->map_size && map_grow(t) != 0)
			return nomem(t);
		slot = map_slot(t, parent, s, len, hash);
		if (t->map[slot] == 0) {
			map_set(t, slot, c, hash);
			t->map_used++;
		}
		sqp_spill_tick(t->spill);
	}
	dir->u.dir.indexed = 1;
	return 0;
}

/* The node (live or dead) named name under directory node parent, or
 * FS_NONE, in *out. A directory not yet indexed lists its children in
 * sorted order: a name after its last child is new. */
int fstree_child(struct fstree *t, uint32_t parent, const char *name,
		 size_t len, uint32_t *out)
{
	const struct fs_irec *dir = dir_of(t, parent);
	uint64_t hash = name_hash(parent, name, len);
	size_t slot = map_slot(t, parent, name, len, hash);
	int ret;

	*out = t->map[slot] - 1; /* 0 - 1 is FS_NONE */
	if (*out != FS_NONE || dir->u.dir.indexed || dir->u.dir.last == FS_NONE ||
	    sorts_after(name, len, fstree_name(t, fstree_node(t, dir->u.dir.last))))
		return 0;
	ret = index_dir(t, parent);
	if (ret != 0)
		return ret;
	slot = map_slot(t, parent, name, len, hash); /* the table may have grown */
	*out = t->map[slot] - 1;
	return 0;
}

void fstree_set_attr(struct fs_irec *ino, const struct fs_attr *attr)
{
	ino->mode = (uint16_t)attr->mode;
	ino->uid = attr->uid;
	ino->gid = attr->gid;
	ino->mtime = attr->mtime;
	ino->mtime_nsec = attr->mtime_nsec;
	ino->xattr_set = attr->xattr_set;
}

/* A new inode with attr, at *index; NULL on failure (latched). */
static struct fs_irec *new_inode(struct fstree *t, const struct fs_attr *attr,
				  uint32_t *index)
{
	struct fs_irec *ino;

	if (chunkarr_add(&t->inodes, 1, index) != 0) {
		nomem(t);
		return NULL;
	}
	ino = fstree_inode(t, *index);
	fstree_set_attr(ino, attr);
	if (S_ISDIR(attr->mode)) {
		ino->u.dir.first = ino->u.dir.last = FS_NONE;
		ino->u.dir.pending = FS_NONE;
	} else if (S_ISREG(attr->mode)) {
		/* no tail, in either back end's words (ero_rec FS_NONE:
		 * asserted above) */
		ino->u.file.frag_index = WR_NO_FRAGMENT;
		ino->u.file.blocks = FS_NONE;
	}
	return ino;
}

/* Append node i to the child list of dir. */
static void link_child(struct fstree *t, struct fs_irec *dir, uint32_t i)
{
	fstree_node(t, i)->next = FS_NONE;
	if (dir->u.dir.last == FS_NONE)
		dir->u.dir.first = i;
	else
		fstree_node(t, dir->u.dir.last)->next = i;
	dir->u.dir.last = i;
}

int fstree_add_node(struct fstree *t, uint32_t parent, const char *name,
		    size_t len, int link, uint32_t *out)
{
	uint64_t hash = name_hash(parent, name, len);
	struct fs_irec *dir = parent != FS_NONE ? dir_of(t, parent) : NULL;
	struct fs_node *n;
	uint32_t i, off;
	size_t slot;

	/* An unlinked node is found only through the table. */
	if (!link && dir != NULL && !dir->u.dir.indexed && index_dir(t, parent) != 0)
		return t->err->code;
	if ((t->map_used + 1) * 2 > t->map_size && map_grow(t) != 0)
		return nomem(t);
	slot = map_slot(t, parent, name, len, hash);
	if (t->map[slot] != 0) {
		/* Revived at the end of the list: keep the list sorted or
		 * the directory indexed. */
		i = t->map[slot] - 1;
		if (dir != NULL && !dir->u.dir.indexed && index_dir(t, parent) != 0)
			return t->err->code;
	} else {
		if (chunkarr_add(&t->names, (uint32_t)len + 1, &off) != 0 ||
		    chunkarr_add(&t->nodes, 1, &i) != 0)
			return sqp_err(t->err, SQP_ERR_NOMEM,
				       "out of memory (or more than 4 GiB of names)");
		if (t->layered && fstree_layer_node(t, i) != 0)
			return t->err->code;
		memcpy(chunkarr_at(&t->names, off), name, len);
		n = fstree_node(t, i);
		n->name = off;
		n->parent = parent;
		if (dir == NULL || dir->u.dir.indexed) {
			map_set(t, slot, i, hash);
			t->map_used++;
		}
	}
	n = fstree_node(t, i);
	n->inode = FS_NONE;
	if (dir != NULL && link)
		link_child(t, dir, i);
	*out = i;
	return 0;
}

int fstree_init(struct fstree *t, struct sqp_errbuf *err,
		sqp_warn_fn warn, void *warn_user, struct sqp_spill *spill)
{
	struct fs_attr attr = { .mode = S_IFDIR | 0755, .xattr_set = WR_NO_XATTR };
	struct fs_irec *ino;
	uint32_t root, ino_index;

	memset(t, 0, sizeof(*t));
	t->err = err;
	t->warn = warn;
	t->warn_user = warn_user;
	t->spill = spill;
	chunkarr_init(&t->nodes, sizeof(struct fs_node), NODE_CHUNK_SHIFT, spill);
	chunkarr_init(&t->inodes, sizeof(struct fs_irec), INODE_CHUNK_SHIFT, spill);
	chunkarr_init(&t->names, 1, NAME_CHUNK_SHIFT, spill);
	chunkarr_init(&t->blocks, sizeof(struct fs_blocks), BLOCKS_CHUNK_SHIFT, spill);
	chunkarr_init(&t->lrecs, sizeof(struct fs_lrec), NODE_CHUNK_SHIFT, spill);
	t->bare_start = FS_BARE_UNSET;
	t->last_node = FS_NONE;
	if (map_grow(t) != 0)
		return nomem(t);
	ino = new_inode(t, &attr, &ino_index);
	if (ino == NULL)
		return t->err->code;
	ino->implied = 1;
	if (fstree_add_node(t, FS_NONE, "", 0, 0, &root) != 0)
		return t->err->code;
	fstree_node(t, root)->inode = ino_index;
	return 0;
}

/* A node is made after its parent (as_dir makes the parents first), so
 * one pass in node order sees every parent settled before its child. */
void fstree_imply_from_parents(struct fstree *t)
{
	uint32_t i;

	for (i = 0; i < t->nodes.count; i++) {
		const struct fs_node *n = fstree_node(t, i);
		const struct fs_irec *up;
		struct fs_irec *ino;

		sqp_spill_tick(t->spill);
		if (n->inode >= FS_DEAD)
			continue;
		ino = fstree_inode(t, n->inode);
		if (!ino->implied || !S_ISDIR(ino->mode))
			continue;
		if (n->parent == FS_NONE) {
			ino->mode = S_IFDIR | 0777;
			continue;
		}
		up = fstree_inode(t, fstree_node(t, n->parent)->inode);
		ino->mode = (uint16_t)(S_IFDIR | 0755 | (up->mode & 022));
		ino->uid = up->uid;
		ino->gid = up->gid;
	}
}

void fstree_drop_lookups(struct fstree *t)
{
	map_free(t->spill, t->map, t->map_tags, t->map_size);
	t->map = NULL;
	t->map_tags = NULL;
	t->map_size = t->map_used = 0;
	t->last_node = FS_NONE;
}

void fstree_cleanup(struct fstree *t)
{
	uint32_t i;

	for (i = 0; i < t->blocks.count; ++i)
		free(((struct fs_blocks *)chunkarr_at(&t->blocks, i))->block_sizes);
	chunkarr_cleanup(&t->nodes);
	chunkarr_cleanup(&t->inodes);
	chunkarr_cleanup(&t->names);
	chunkarr_cleanup(&t->blocks);
	chunkarr_cleanup(&t->lrecs);
	map_free(t->spill, t->map, t->map_tags, t->map_size);
	free(t->last_path);
	memset(t, 0, sizeof(*t));
}

static void warnf(struct fstree *t, const char *fmt, const char *path)
{
	char msg[600];

	if (t->warn == NULL)
		return;
	snprintf(msg, sizeof(msg), fmt, path);
	t->warn(t->warn_user, msg);
}

/* The directory at node top is replaced: every node below it dies. The
 * walk needs no stack: it goes down through child lists and back up
 * through parent links. */
static void kill_subtree(struct fstree *t, uint32_t top)
{
	struct fs_irec *dir = fstree_inode(t, fstree_node(t, top)->inode);
	uint32_t i = dir->u.dir.first;

	dir->u.dir.first = dir->u.dir.last = FS_NONE;
	while (i != FS_NONE) {
		struct fs_node *n = fstree_node(t, i);
		struct fs_irec *ino = n->inode == FS_NONE ? NULL : fstree_inode(t, n->inode);

		n->inode = FS_DEAD;
		if (ino != NULL && S_ISDIR(ino->mode) && ino->u.dir.first != FS_NONE) {
			i = ino->u.dir.first;
			continue;
		}
		while (n->next == FS_NONE && n->parent != top)
			n = fstree_node(t, n->parent);
		i = n->next;
	}
}

/* Remember dir (at path[0..len)) as the directory found last. */
static void remember_dir(struct fstree *t, const char *path, size_t len, uint32_t dir)
{
	if (len + 1 > t->last_cap) {
		char *p = realloc(t->last_path, len + 1);

		if (p == NULL) {
			t->last_node = FS_NONE; /* only a shortcut: go without */
			return;
		}
		t->last_path = p;
		t->last_cap = len + 1;
	}
	memcpy(t->last_path, path, len);
	t->last_len = len;
	t->last_node = dir;
}

/* Node i as a directory: live, with a directory inode; one made up for it
 * (an implied directory) if it has none. */
static int as_dir(struct fstree *t, uint32_t i, const char *path, size_t len,
		  const char *entry)
{
	struct fs_attr attr = { .mode = S_IFDIR | 0755, .xattr_set = WR_NO_XATTR };
	struct fs_node *n = fstree_node(t, i);
	struct fs_irec *ino;

	if (n->inode == FS_NONE) {
		ino = new_inode(t, &attr, &n->inode);
		if (ino == NULL)
			return t->err->code;
		ino->implied = 1;
		return 0;
	}
	if (!S_ISDIR(fstree_inode(t, n->inode)->mode))
		return sqp_err(t->err, SQP_ERR_BAD_TAR,
			       "entry '%s': parent '%.*s' is not a directory",
			       entry, (int)len, path);
	return 0;
}

/* The directory node for path[0..len), implied (with its own parents) if
 * missing. Walks one component at a time from the root, unless it is the
 * directory found last. */
int fstree_dir(struct fstree *t, const char *path, size_t len,
	       const char *entry, uint32_t *out)
{
	uint32_t dir = 0, i;
	size_t start = 0, end;
	int ret;

	if (len == t->last_len && t->last_node != FS_NONE &&
	    memcmp(path, t->last_path, len) == 0) {
		const struct fs_node *n = fstree_node(t, t->last_node);

		/* Still this path's node, but maybe dead or replaced since. */
		if (n->inode < FS_DEAD &&
		    S_ISDIR(fstree_inode(t, n->inode)->mode)) {
			*out = t->last_node;
			return 0;
		}
	}
	while (start < len) {
		const char *slash = memchr(path + start, '/', len - start);

		end = slash ? (size_t)(slash - path) : len;
		ret = fstree_child(t, dir, path + start, end - start, &i);
		if (ret != 0)
			return ret;
		if (i == FS_NONE || fstree_node(t, i)->inode == FS_DEAD) {
			ret = fstree_add_node(t, dir, path + start, end - start, 1, &i);
			if (ret != 0)
				return ret;
		}
		ret = as_dir(t, i, path, end, entry);
		if (ret != 0)
			return ret;
		dir = i;
		start = end + 1;
	}
	remember_dir(t, path, len, dir);
	*out = dir;
	return 0;
}

/* Find or create the node at path, ready to take a new inode. */
static int prepare_node(struct fstree *t, const char *path, uint32_t *out)
{
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	size_t name_len = len - (size_t)(name - path);
	uint32_t dir, i;
	int ret;

	if (name_len > WR_NAME_MAX)
		return sqp_err(t->err, SQP_ERR_LIMIT,
			       "entry '%s': name longer than %d bytes", path, WR_NAME_MAX);
	if (len == 0) {
		*out = 0;
		return 0;
	}
	ret = fstree_dir(t, path, slash ? (size_t)(slash - path) : 0, path, &dir);
	if (ret != 0)
		return ret;
	ret = fstree_child(t, dir, name, name_len, &i);
	if (ret != 0)
		return ret;
	if (i == FS_NONE || fstree_node(t, i)->inode == FS_DEAD) {
		ret = fstree_add_node(t, dir, name, name_len, 1, &i);
		if (ret != 0)
			return ret;
	}
	*out = i;
	return 0;
}

/* Node n (at path) is about to point at another inode. */
static void replace_inode(struct fstree *t, uint32_t n, const char *path)
{
	uint32_t old = fstree_node(t, n)->inode;

	if (old == FS_NONE)
		return;
	if (!fstree_inode(t, old)->implied)
		warnf(t, "'%s' appears again; the later entry replaces the earlier one", path);
	if (S_ISDIR(fstree_inode(t, old)->mode))
		kill_subtree(t, n);
}

int fstree_add(struct fstree *t, const char *path, const struct fs_attr *attr,
	       struct fs_irec **out)
{
	struct fs_irec *old = NULL, *ino;
	struct fs_node *node;
	uint32_t n;
	int ret = prepare_node(t, path, &n);

	sqp_spill_tick(t->spill);
	if (ret != 0)
		return ret;
	node = fstree_node(t, n);
	if (node->inode != FS_NONE)
		old = fstree_inode(t, node->inode);
	if (old != NULL && S_ISDIR(old->mode) && S_ISDIR(attr->mode)) {
		old->implied = 0;
		*out = old;
		fstree_set_attr(old, attr);
		return 0;
	}
	replace_inode(t, n, path);
	ino = new_inode(t, attr, &node->inode);
	if (ino == NULL) {
		node->inode = FS_NONE;
		return t->err->code;
	}
	if (n == 0 && !S_ISDIR(attr->mode))
		return sqp_err(t->err, SQP_ERR_BAD_TAR, "the root entry is not a directory");
	*out = ino;
	return 0;
}

struct fs_node *fstree_lookup(struct fstree *t, const char *path)
{
	size_t start = 0, end, len = strlen(path);
	uint32_t i = 0;

	if (t->map == NULL)
		return NULL; /* finalized */
	while (start < len) {
		const char *slash = memchr(path + start, '/', len - start);
		const struct fs_node *n = fstree_node(t, i);

		end = slash ? (size_t)(slash - path) : len;
		if (n->inode == FS_NONE || !S_ISDIR(fstree_inode(t, n->inode)->mode))
			return NULL;
		if (fstree_child(t, i, path + start, end - start, &i) != 0 ||
		    i == FS_NONE || fstree_node(t, i)->inode == FS_DEAD)
			return NULL;
		start = end + 1;
	}
	return fstree_node(t, i);
}

struct fs_irec *fstree_find(struct fstree *t, const char *path)
{
	struct fs_node *n = fstree_lookup(t, path);

	if (n == NULL || n->inode == FS_NONE || n->inode == FS_DEAD)
		return NULL;
	return fstree_inode(t, n->inode);
}


int fstree_link(struct fstree *t, const char *path, const char *target)
{
	struct fs_node *tn = fstree_lookup(t, target);
	uint32_t n;
	int ret;

	if (tn == NULL || tn->inode == FS_NONE)
		return sqp_err(t->err, SQP_ERR_BAD_TAR,
			       "hard link '%s' -> '%s': the target is not an earlier entry",
			       path, target);
	if (S_ISDIR(fstree_inode(t, tn->inode)->mode))
		return sqp_err(t->err, SQP_ERR_BAD_TAR,
			       "hard link '%s' -> '%s': the target is a directory",
			       path, target);
	if (strcmp(path, target) == 0)
		return 0;
	ret = prepare_node(t, path, &n);
	if (ret != 0)
		return ret;
	replace_inode(t, n, path);
	fstree_node(t, n)->inode = tn->inode;
	return 0;
}
