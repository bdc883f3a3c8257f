/* SPDX-License-Identifier: MIT */
/*
 * fstree.c - building the tree from entries that arrive in any order.
 *
 * The rules mirror what extracting the tar would leave on disk: a later
 * entry for the same path wins; a directory entry over an existing
 * directory only changes its attributes; a hard link points at whatever
 * inode its target named when the link arrived. The path table holds every
 * live node; nodes of a replaced directory's subtree are marked dead and
 * their slots reused when the path comes back.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "format/sqfs_format.h"
#include "sqpack/error.h"
#include "write/fstree.h"

#define GROW(arr, count, cap) grow_array((void **)&(arr), &(cap), (count) + 1, sizeof(*(arr)))

static int grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (p == NULL)
		return SQP_ERR_NOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static uint64_t path_hash(const char *path, size_t len)
{
	return XXH3_64bits(path, len);
}

/* Slot of path in the map: the live or dead node with that path, or the
 * empty slot where it belongs. */
static size_t map_slot(const struct fstree *t, const char *path, size_t len,
		       uint64_t hash)
{
	size_t mask = t->map_size - 1, i = (size_t)hash & mask;
	struct fs_node *n;

	while ((n = t->map[i]) != NULL) {
		if (n->hash == hash && strncmp(n->path, path, len) == 0 &&
		    n->path[len] == '\0')
			return i;
		i = (i + 1) & mask;
	}
	return i;
}

static int map_grow(struct fstree *t)
{
	struct fs_node **old = t->map;
	size_t old_size = t->map_size, i;

	t->map_size = old_size ? old_size * 2 : 1024;
	t->map = calloc(t->map_size, sizeof(t->map[0]));
	if (t->map == NULL) {
		t->map = old;
		t->map_size = old_size;
		return SQP_ERR_NOMEM;
	}
	for (i = 0; i < old_size; ++i) {
		struct fs_node *n = old[i];

		if (n != NULL)
			t->map[map_slot(t, n->path, strlen(n->path), n->hash)] = n;
	}
	free(old);
	return 0;
}

static struct fs_node *lookup(const struct fstree *t, const char *path, size_t len)
{
	struct fs_node *n = t->map[map_slot(t, path, len, path_hash(path, len))];

	return (n != NULL && !n->dead) ? n : NULL;
}

struct fs_inode *fstree_find(const struct fstree *t, const char *path)
{
	struct fs_node *n = lookup(t, path, strlen(path));

	return n ? n->inode : NULL;
}

static struct fs_inode *new_inode(struct fstree *t, const struct fs_attr *attr)
{
	struct fs_inode *ino;

	if (GROW(t->inodes, t->inode_count, t->inode_cap) != 0)
		return NULL;
	ino = calloc(1, sizeof(*ino));
	if (ino == NULL)
		return NULL;
	ino->mode = attr->mode;
	ino->uid = attr->uid;
	ino->gid = attr->gid;
	ino->mtime = attr->mtime;
	ino->xattr_set = attr->xattr_set;
	ino->u.file.frag_index = SQFS_NO_FRAGMENT;
	t->inodes[t->inode_count++] = ino;
	return ino;
}

static int add_child(struct fs_inode *dir, struct fs_node *child)
{
	if (GROW(dir->u.dir.children, dir->u.dir.count, dir->u.dir.cap) != 0)
		return SQP_ERR_NOMEM;
	dir->u.dir.children[dir->u.dir.count++] = child;
	return 0;
}

/* Insert a node for path[0..len) under parent (NULL for the root). */
static struct fs_node *new_node(struct fstree *t, struct fs_node *parent,
				const char *path, size_t len, struct fs_inode *ino)
{
	struct fs_node *n;
	size_t slot;

	if ((t->map_used + 1) * 2 > t->map_size && map_grow(t) != 0)
		return NULL;
	if (GROW(t->nodes, t->node_count, t->node_cap) != 0)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (n == NULL)
		return NULL;
	n->path = strndup(path, len);
	if (n->path == NULL) {
		free(n);
		return NULL;
	}
	n->name = strrchr(n->path, '/') ? strrchr(n->path, '/') + 1 : n->path;
	n->hash = path_hash(path, len);
	n->parent = parent;
	n->inode = ino;
	t->nodes[t->node_count++] = n;
	if (parent != NULL && add_child(parent->inode, n) != 0)
		return NULL;

	slot = map_slot(t, path, len, n->hash);
	if (t->map[slot] == NULL)
		t->map_used++;
	t->map[slot] = n; /* a dead node's slot is taken over */
	return n;
}

int fstree_init(struct fstree *t, struct sqp_errbuf *err,
		sqp_warn_fn warn, void *warn_user)
{
	struct fs_attr attr = { .mode = S_IFDIR | 0755, .xattr_set = SQFS_NO_XATTR };
	struct fs_inode *ino;

	memset(t, 0, sizeof(*t));
	t->err = err;
	t->warn = warn;
	t->warn_user = warn_user;
	if (map_grow(t) != 0 || (ino = new_inode(t, &attr)) == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	ino->implied = 1;
	t->root = new_node(t, NULL, "", 0, ino);
	if (t->root == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

void fstree_cleanup(struct fstree *t)
{
	size_t i;

	for (i = 0; i < t->inode_count; ++i) {
		struct fs_inode *ino = t->inodes[i];

		if (S_ISDIR(ino->mode))
			free(ino->u.dir.children);
		else if (S_ISREG(ino->mode))
			free(ino->u.file.block_sizes);
		else if (S_ISLNK(ino->mode))
			free(ino->u.symlink.target);
		free(ino);
	}
	for (i = 0; i < t->node_count; ++i) {
		free(t->nodes[i]->path);
		free(t->nodes[i]);
	}
	free(t->inodes);
	free(t->nodes);
	free(t->map);
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

/* Mark a directory's subtree dead: its paths are gone from the image. */
static void kill_subtree(struct fs_inode *dir)
{
	size_t i;

	for (i = 0; i < dir->u.dir.count; ++i) {
		struct fs_node *c = dir->u.dir.children[i];

		c->dead = 1;
		if (S_ISDIR(c->inode->mode))
			kill_subtree(c->inode);
	}
	dir->u.dir.count = 0;
}

/* The directory node for path[0..len), implied (with its own parents) if
 * missing. */
static int get_dir(struct fstree *t, const char *path, size_t len,
		   const char *entry, struct fs_node **out)
{
	struct fs_attr attr = { .mode = S_IFDIR | 0755, .xattr_set = SQFS_NO_XATTR };
	struct fs_node *n, *parent;
	const char *slash;
	struct fs_inode *ino;
	int ret;

	if (len == 0) {
		*out = t->root;
		return 0;
	}
	n = lookup(t, path, len);
	if (n != NULL) {
		if (!S_ISDIR(n->inode->mode))
			return sqp_err(t->err, SQP_ERR_BAD_TAR,
				       "entry '%s': parent '%.*s' is not a directory",
				       entry, (int)len, path);
		*out = n;
		return 0;
	}
	slash = memrchr(path, '/', len);
	ret = get_dir(t, path, slash ? (size_t)(slash - path) : 0, entry, &parent);
	if (ret != 0)
		return ret;
	ino = new_inode(t, &attr);
	if (ino == NULL || (n = new_node(t, parent, path, len, ino)) == NULL)
		return sqp_err(t->err, SQP_ERR_NOMEM, "out of memory");
	ino->implied = 1;
	*out = n;
	return 0;
}

/* Find or create the node at path, ready to take a new inode. */
static int prepare_node(struct fstree *t, const char *path, struct fs_node **out)
{
	size_t len = strlen(path);
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	struct fs_node *n, *parent;
	int ret;

	if (strlen(name) > SQFS_NAME_MAX)
		return sqp_err(t->err, SQP_ERR_LIMIT,
			       "entry '%s': name longer than %d bytes", path, SQFS_NAME_MAX);
	n = len == 0 ? t->root : lookup(t, path, len);
	if (n == NULL) {
		ret = get_dir(t, path, slash ? (size_t)(slash - path) : 0, path, &parent);
		if (ret != 0)
			return ret;
		n = new_node(t, parent, path, len, NULL);
		if (n == NULL)
			return sqp_err(t->err, SQP_ERR_NOMEM, "out of memory");
	}
	*out = n;
	return 0;
}

int fstree_add(struct fstree *t, const char *path, const struct fs_attr *attr,
	       struct fs_inode **out)
{
	struct fs_node *n;
	struct fs_inode *old;
	int ret = prepare_node(t, path, &n);

	if (ret != 0)
		return ret;
	old = n->inode;
	if (old != NULL && S_ISDIR(old->mode) && S_ISDIR(attr->mode)) {
		old->mode = attr->mode;
		old->uid = attr->uid;
		old->gid = attr->gid;
		old->mtime = attr->mtime;
		old->xattr_set = attr->xattr_set;
		old->implied = 0;
		*out = old;
		return 0;
	}
	if (old != NULL) {
		if (!old->implied)
			warnf(t, "'%s' appears again; the later entry replaces the earlier one", path);
		if (S_ISDIR(old->mode))
			kill_subtree(old);
	}
	n->inode = new_inode(t, attr);
	if (n->inode == NULL)
		return sqp_err(t->err, SQP_ERR_NOMEM, "out of memory");
	if (n == t->root && !S_ISDIR(attr->mode))
		return sqp_err(t->err, SQP_ERR_BAD_TAR, "the root entry is not a directory");
	*out = n->inode;
	return 0;
}

int fstree_link(struct fstree *t, const char *path, const char *target)
{
	struct fs_node *n, *tn = lookup(t, target, strlen(target));
	int ret;

	if (tn == NULL)
		return sqp_err(t->err, SQP_ERR_BAD_TAR,
			       "hard link '%s' -> '%s': the target is not an earlier entry",
			       path, target);
	if (S_ISDIR(tn->inode->mode))
		return sqp_err(t->err, SQP_ERR_BAD_TAR,
			       "hard link '%s' -> '%s': the target is a directory",
			       path, target);
	if (strcmp(path, target) == 0)
		return 0;
	ret = prepare_node(t, path, &n);
	if (ret != 0)
		return ret;
	if (n->inode != NULL) {
		if (!n->inode->implied)
			warnf(t, "'%s' appears again; the later entry replaces the earlier one", path);
		if (S_ISDIR(n->inode->mode))
			kill_subtree(n->inode);
	}
	n->inode = tn->inode;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	const struct fs_node *x = *(const struct fs_node *const *)a;
	const struct fs_node *y = *(const struct fs_node *const *)b;

	return strcmp(x->name, y->name);
}

void fstree_finalize(struct fstree *t, uint32_t implied_mtime)
{
	size_t i;

	for (i = 0; i < t->inode_count; ++i) {
		struct fs_inode *ino = t->inodes[i];

		ino->nlink = 0;
		if (ino->implied)
			ino->mtime = implied_mtime;
		if (S_ISDIR(ino->mode) && ino->u.dir.count > 1) {
			qsort(ino->u.dir.children, ino->u.dir.count,
			      sizeof(ino->u.dir.children[0]), cmp_names);
		}
	}
	/* Links: every live node counts for its inode; a directory also
	 * gets "." and one ".." from each subdirectory. */
	for (i = 0; i < t->node_count; ++i) {
		struct fs_node *n = t->nodes[i];

		if (n->dead || n->inode == NULL)
			continue;
		n->inode->nlink++;
		if (S_ISDIR(n->inode->mode)) {
			n->inode->nlink++;
			if (n->parent != NULL)
				n->parent->inode->nlink++;
		}
	}
}
