/* SPDX-License-Identifier: MIT */
/*
 * writer_links.c - hard links across layers.
 *
 * An OCI layer may hold a hard link whose target only a lower layer has.
 * Layers come topmost first, so such a link arrives before its target:
 * it takes its path at once (a node without an inode, so lower layers'
 * entries there are hidden as for any entry) and waits in a table keyed
 * by the target's path. The first entry for that path from a layer below
 * the link's gives the inode, whether or not an upper layer hides the
 * path itself: the data is then stored for the link, under its name, and
 * never for the hidden path. finish fails while a link still waits.
 *
 * A link whose target earlier in its own layer was hidden by an upper
 * layer finds that file's data skipped before anything asked for it: a
 * tar layer keeps such files within reach (writer_kept.c), and the link
 * takes one from there. Other layers cannot: the paths of the files
 * skipped in the current layer are remembered (a 64-bit hash each) to
 * say so by name rather than bind the link to a wrong, lower file.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "sqpack/error.h"
#include "write/words.h"
#include "write/writer_impl.h"

struct wait_link {
	char *target;          /* the path the link names */
	char *path;            /* the link's own path */
	struct fs_node *node;  /* its node: inode FS_NONE while it waits */
	uint32_t layer;        /* only lower layers' entries resolve it */
	uint32_t next;         /* the next link waiting for the same target */
};

struct writer_links {
	struct wait_link *rec;
	size_t count, cap;
	uint32_t *heads;       /* by target: first record + 1; 0 = empty */
	size_t heads_size;     /* a power of two, or 0 */
	size_t waiting;        /* links not resolved yet */
	uint64_t *skipped;     /* hashes of files skipped in this layer */
	size_t skipped_size, skipped_used;
};

static int nomem(struct sqp_writer *w)
{
	return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
}

static struct writer_links *links_of(struct sqp_writer *w)
{
	if (w->links == NULL)
		w->links = calloc(1, sizeof(*w->links));
	if (w->links == NULL)
		nomem(w);
	return w->links;
}

void writer_links_free(struct sqp_writer *w)
{
	struct writer_links *l = w->links;
	size_t i;

	writer_kept_clear(w);
	if (l == NULL)
		return;
	for (i = 0; i < l->count; i++) {
		free(l->rec[i].target);
		free(l->rec[i].path);
	}
	free(l->rec);
	free(l->heads);
	free(l->skipped);
	free(l);
	w->links = NULL;
}

/* The slot of target in heads: its chain, or the empty slot for it. */
static size_t head_slot(const struct writer_links *l, const char *target)
{
	size_t mask = l->heads_size - 1;
	size_t i = (size_t)XXH3_64bits(target, strlen(target)) & mask;

	while (l->heads[i] != 0 && strcmp(l->rec[l->heads[i] - 1].target, target) != 0)
		i = (i + 1) & mask;
	return i;
}

static int grow_heads(struct writer_links *l)
{
	size_t old_size = l->heads_size, i, s;
	uint32_t *old = l->heads;

	l->heads_size = old_size ? old_size * 2 : 64;
	l->heads = calloc(l->heads_size, sizeof(*l->heads));
	if (l->heads == NULL) {
		l->heads = old;
		l->heads_size = old_size;
		return SQP_ERR_NOMEM;
	}
	for (i = 0; i < old_size; i++) {
		if (old[i] == 0)
			continue;
		s = head_slot(l, l->rec[old[i] - 1].target);
		l->heads[s] = old[i];
	}
	free(old);
	return 0;
}

/* Link `path` (its node n) waits for target from the layers below
 * `layer`. */
static int wait_for(struct sqp_writer *w, const char *path, const char *target,
		    struct fs_node *n, uint32_t layer)
{
	struct writer_links *l = links_of(w);
	struct wait_link *r;
	size_t slot;

	if (l == NULL)
		return w->err.code;
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		struct wait_link *p = realloc(l->rec, cap * sizeof(*p));

		if (p == NULL)
			return nomem(w);
		l->rec = p;
		l->cap = cap;
	}
	if ((l->count + 1) * 2 > l->heads_size && grow_heads(l) != 0)
		return nomem(w);
	r = &l->rec[l->count];
	r->target = strdup(target);
	r->path = strdup(path);
	if (r->target == NULL || r->path == NULL) {
		free(r->target);
		free(r->path);
		return nomem(w);
	}
	r->node = n;
	r->layer = layer;
	slot = head_slot(l, target);
	r->next = l->heads[slot];
	l->heads[slot] = (uint32_t)++l->count;
	l->waiting++;
	return 0;
}

static uint64_t skip_hash(const char *path)
{
	uint64_t h = XXH3_64bits(path, strlen(path));

	return h != 0 ? h : 1;
}

static int skipped_has(const struct writer_links *l, const char *path)
{
	uint64_t h = skip_hash(path);
	size_t i;

	if (l == NULL || l->skipped_size == 0)
		return 0;
	for (i = (size_t)h & (l->skipped_size - 1); l->skipped[i] != 0;
	     i = (i + 1) & (l->skipped_size - 1))
		if (l->skipped[i] == h)
			return 1;
	return 0;
}

static void skipped_put(struct writer_links *l, uint64_t h)
{
	size_t i = (size_t)h & (l->skipped_size - 1);

	while (l->skipped[i] != 0 && l->skipped[i] != h)
		i = (i + 1) & (l->skipped_size - 1);
	if (l->skipped[i] == 0)
		l->skipped_used++;
	l->skipped[i] = h;
}

int writer_links_skipped(struct sqp_writer *w, const char *path)
{
	struct writer_links *l = links_of(w);
	uint64_t *old;
	size_t old_size, i;

	if (l == NULL)
		return w->err.code;
	if ((l->skipped_used + 1) * 2 > l->skipped_size) {
		old = l->skipped;
		old_size = l->skipped_size;
		l->skipped_size = old_size ? old_size * 2 : 1024;
		l->skipped = calloc(l->skipped_size, sizeof(*l->skipped));
		if (l->skipped == NULL) {
			l->skipped = old;
			l->skipped_size = old_size;
			return nomem(w);
		}
		l->skipped_used = 0;
		for (i = 0; i < old_size; i++)
			if (old[i] != 0)
				skipped_put(l, old[i]);
		free(old);
	}
	skipped_put(l, skip_hash(path));
	return 0;
}

void writer_links_next_layer(struct sqp_writer *w)
{
	struct writer_links *l = w->links;

	if (l != NULL && l->skipped_used > 0) {
		memset(l->skipped, 0, l->skipped_size * sizeof(*l->skipped));
		l->skipped_used = 0;
	}
	writer_kept_clear(w);
}

/* The first link waiting for target that an entry of the current layer
 * resolves, or NULL. */
static struct wait_link *first_waiting(struct sqp_writer *w, const char *target)
{
	struct writer_links *l = w->links;
	uint32_t i;

	if (l == NULL || l->waiting == 0)
		return NULL;
	for (i = l->heads[head_slot(l, target)]; i != 0; i = l->rec[i - 1].next) {
		struct wait_link *r = &l->rec[i - 1];

		if (r->node != NULL && r->layer < w->tree.layer) {
			if (r->node->inode == FS_NONE)
				return r;
			r->node = NULL;   /* replaced in its own layer: no longer waits */
			l->waiting--;
		}
	}
	return NULL;
}

int writer_links_wanted(struct sqp_writer *w, const char *path)
{
	return first_waiting(w, path) != NULL;
}

/* Every link waiting for target (from above the current layer) shares
 * inode ino, or, when ino is FS_NONE, waits for new_target instead. */
static int resolve(struct sqp_writer *w, const char *target, uint32_t ino,
		   const char *new_target)
{
	struct wait_link *r;
	int ret = 0;

	while (ret == 0 && (r = first_waiting(w, target)) != NULL) {
		struct fs_node *n = r->node;

		r->node = NULL;
		w->links->waiting--;
		if (ino != FS_NONE)
			n->inode = ino;
		else
			ret = wait_for(w, r->path, new_target, n, w->tree.layer);
	}
	return ret;
}

/* The links waiting for wanted, a hidden link of this layer to the kept
 * file k, share k's data: stored under the first one's path at, unless
 * a link of this layer took it already. */
static int link_kept(struct sqp_writer *w, const char *wanted, const char *at,
		     struct kept_file *k)
{
	struct fs_node *n;
	int ret = writer_kept_store(w, k, at);

	n = ret == 0 ? fstree_lookup(&w->tree, writer_kept_linked(k)) : NULL;
	if (n == NULL || n->inode >= FS_DEAD)
		return ret != 0 ? ret : writer_fail(w, SQP_ERR_INTERNAL, "'%s': lost "
						    "while linking", at);
	return resolve(w, wanted, n->inode, NULL);
}

int writer_add_wanted(struct sqp_writer *w, const struct sqp_entry *e,
		      const struct sqp_data_source *data, int shadowed)
{
	struct wait_link *first = first_waiting(w, e->path);
	struct sqp_entry copy = *e;
	struct kept_file *kept;
	struct fs_node *n;
	int ret = 0;

	if (S_ISDIR(e->mode) && !e->is_hardlink)
		return writer_fail(w, SQP_ERR_BAD_TAR, "hard link '%s' -> '%s': the target "
				   "is a directory", first->path, e->path);
	if (e->is_hardlink) {
		/* Followed: the links share what this one names. */
		if (!shadowed)
			ret = writer_add_entry(w, e, NULL);
		n = ret == 0 ? fstree_current(&w->tree, e->link_target) : NULL;
		/* One that took a hidden file's data holds it itself; one
		 * hidden itself leaves that data to the first link waiting. */
		if (n == NULL && ret == 0 && !shadowed)
			n = fstree_current(&w->tree, e->path);
		else if (n == NULL && ret == 0 && (kept = writer_kept_find(w, e->link_target)))
			return link_kept(w, e->path, first->path, kept);
		if (ret != 0 || w->err.code != 0)
			return ret != 0 ? ret : w->err.code;
		return resolve(w, e->path, n != NULL ? n->inode : FS_NONE, e->link_target);
	}
	/* Hidden here: stored under the first link's name instead. */
	if (shadowed)
		copy.path = first->path;
	ret = writer_add_entry(w, &copy, data);
	if (ret != 0)
		return ret;
	n = fstree_lookup(&w->tree, copy.path);
	if (n == NULL || n->inode >= FS_DEAD)
		return writer_fail(w, SQP_ERR_INTERNAL, "'%s': lost while linking", copy.path);
	return resolve(w, e->path, n->inode, NULL);
}

/* The waiting link whose node is n, or NULL. */
static struct wait_link *waiting_at(struct writer_links *l, const struct fs_node *n)
{
	size_t i;

	for (i = 0; l != NULL && i < l->count; i++)
		if (l->rec[i].node == n)
			return &l->rec[i];
	return NULL;
}

int writer_link(struct sqp_writer *w, const struct sqp_entry *e)
{
	const char *target = e->link_target ? e->link_target : "";
	struct fs_node *tn = fstree_current(&w->tree, target);
	struct fs_attr attr = { .mode = S_IFREG, .xattr_set = WR_NO_XATTR };
	struct wait_link *chain = NULL;
	struct kept_file *kept;
	struct fs_irec *ino;
	struct fs_node *n;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (tn != NULL && (tn->inode != FS_NONE || (chain = waiting_at(w->links, tn)) == NULL))
		return fstree_link(&w->tree, e->path, target);
	if (tn == NULL && (kept = writer_kept_find(w, target)) != NULL)
		return writer_kept_link(w, e, kept);
	if (tn == NULL && skipped_has(w->links, target))
		return writer_fail(w, SQP_ERR_UNSUPPORTED, "hard link '%s' -> '%s': an upper "
				   "layer replaces '%s', whose data this layer gave before the "
				   "link, and one pass has skipped it", e->path, target, target);
	/* The link's own path now, its inode from the layers below. */
	ret = fstree_add(&w->tree, e->path, &attr, &ino);
	n = ret == 0 ? fstree_lookup(&w->tree, e->path) : NULL;
	if (n == NULL)
		return w->err.code ? w->err.code : writer_fail(w, SQP_ERR_INTERNAL,
							      "'%s': lost while linking", e->path);
	n->inode = FS_NONE;
	if (chain != NULL)
		return wait_for(w, e->path, chain->target, n, chain->layer);
	return wait_for(w, e->path, target, n, w->tree.layer);
}

int writer_links_check(struct sqp_writer *w, const char *whiteout)
{
	struct writer_links *l = w->links;
	struct wait_link *r;
	size_t i;

	if (whiteout != NULL) {
		r = first_waiting(w, whiteout);
		return r == NULL ? 0 : writer_fail(w, SQP_ERR_BAD_TAR, "hard link '%s' -> '%s': "
						   "a lower layer deletes the target",
						   r->path, r->target);
	}
	for (i = 0; l != NULL && l->waiting > 0 && i < l->count; i++) {
		r = &l->rec[i];
		if (r->node != NULL && r->node->inode == FS_NONE)
			return writer_fail(w, SQP_ERR_BAD_TAR, "hard link '%s' -> '%s': the "
					   "target is in none of the layers below", r->path,
					   r->target);
	}
	return 0;
}
