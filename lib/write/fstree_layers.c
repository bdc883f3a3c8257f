/* SPDX-License-Identifier: MIT */
/*
 * fstree_layers.c - a stack of layers merged into one tree, topmost first.
 *
 * The merged tree of container layers is what applying them lowest first
 * would leave on disk. Taking them the other way round, topmost first,
 * lets one pass store only what survives: once an upper layer has said
 * what a path is (an entry there, a whiteout of it, or a non-directory
 * or opaque directory above it), every lower layer's entry there can be
 * dropped before its data is read, so no byte of a replaced or deleted
 * file is ever compressed or written.
 *
 * Each node remembers the layer that made it (fs_lrec, kept only once
 * layers are used, so a plain tar pays nothing). The invariant: a node
 * made by an upper layer is never replaced by a lower one; the only thing
 * a lower layer still gives it is a directory's attributes, when the upper
 * layer merely implied the directory (it had entries below it but no entry
 * of its own). A whiteout is a dead node (FS_DEAD) that is in the path
 * table but in no child list, so it is found again and never serialised.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "write/fstree.h"

enum { W_ABSENT, W_FOUND, W_HIDDEN };

static struct fs_lrec *lrec(const struct fstree *t, uint32_t i)
{
	return chunkarr_at(&t->lrecs, i);
}

static int nomem(struct fstree *t)
{
	return sqp_err(t->err, SQP_ERR_NOMEM, "out of memory");
}

/* Start keeping records: every node so far came in the current layer. */
static int layers_on(struct fstree *t)
{
	uint32_t i, k;

	if (t->layered)
		return 0;
	for (i = 0; i < t->nodes.count; i++) {
		if (chunkarr_add(&t->lrecs, 1, &k) != 0)
			return nomem(t);
		lrec(t, k)->layer = (uint16_t)t->layer;
	}
	t->layered = 1;
	return 0;
}

int fstree_layer_node(struct fstree *t, uint32_t i)
{
	uint32_t k;

	if (chunkarr_add(&t->lrecs, 1, &k) != 0)
		return nomem(t);
	if (k != i)
		return sqp_err(t->err, SQP_ERR_INTERNAL, "layer record %u for node %u", k, i);
	lrec(t, k)->layer = (uint16_t)t->layer;
	return 0;
}

int fstree_next_layer(struct fstree *t)
{
	int ret = layers_on(t);

	if (ret != 0)
		return ret;
	if (t->layer + 1 >= FS_MAX_LAYERS)
		return sqp_err(t->err, SQP_ERR_LIMIT, "more than %d layers", FS_MAX_LAYERS);
	t->layer++;
	return 0;
}

static int live_dir(const struct fstree *t, uint32_t i)
{
	const struct fs_node *n = fstree_node(t, i);

	return n->inode < FS_DEAD && S_ISDIR(fstree_inode(t, n->inode)->mode);
}

/* Lower layers see nothing under directory node i. */
static int opaque_above(const struct fstree *t, uint32_t i)
{
	const struct fs_lrec *r = lrec(t, i);

	return r->opaque != 0 && r->opaque - 1u < t->layer;
}

/* Where the walk of path can start: the directory fstree_dir found last
 * (*start past it, *i its node), when path is in it, or the root. Entries
 * come mostly a directory at a time, and walking from the root hashed
 * every component of every entry again (1,600 instructions an entry on
 * the layers bench, 930 from here). The walk from the root would pass
 * only the directory's ancestors, which a live node's are, all live
 * directories (fstree.c): only their opaque marks can hide it. 1 when
 * that hides path. */
static int resume(const struct fstree *t, const char *path,
		  size_t *start, uint32_t *i)
{
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) : 0;
	uint32_t a;

	*start = 0;
	*i = 0;
	if (dir_len == 0 || dir_len != t->last_len || t->last_node == FS_NONE ||
	    memcmp(path, t->last_path, dir_len) != 0 || !live_dir(t, t->last_node))
		return 0;
	for (a = t->last_node; a != FS_NONE; a = fstree_node(t, a)->parent)
		if (opaque_above(t, a))
			return 1;
	*start = dir_len + 1;
	*i = t->last_node;
	return 0;
}

/* Where path stands for the current layer: hidden beneath an upper
 * layer's non-directory, whiteout or opaque directory (W_HIDDEN), absent
 * (W_ABSENT), or node *node (W_FOUND). A non-directory of the current
 * layer above it is left to fstree_add to report (or revive, when dead). */
static int walk(struct fstree *t, const char *path, uint32_t *node, int *where)
{
	size_t start, end, len = strlen(path);
	uint32_t i;
	int ret;

	if (resume(t, path, &start, &i)) {
		*where = W_HIDDEN;
		return 0;
	}
	while (start < len) {
		const char *slash = memchr(path + start, '/', len - start);
		const struct fs_lrec *r = lrec(t, i);

		if (!live_dir(t, i)) {
			*where = r->layer < t->layer ? W_HIDDEN : W_ABSENT;
			return 0;
		}
		if (opaque_above(t, i)) {
			*where = W_HIDDEN;
			return 0;
		}
		end = slash ? (size_t)(slash - path) : len;
		ret = fstree_child(t, i, path + start, end - start, &i);
		if (ret != 0)
			return ret;
		if (i == FS_NONE) {
			*where = W_ABSENT;
			return 0;
		}
		start = end + 1;
	}
	*node = i;
	*where = W_FOUND;
	return 0;
}

int fstree_shadowed(struct fstree *t, const char *path, int is_dir)
{
	uint32_t i = 0;
	int where, ret;

	if (!t->layered || t->layer == 0)
		return 0;
	ret = walk(t, path, &i, &where);
	if (ret != 0 || where != W_FOUND)
		return ret != 0 ? ret : where == W_HIDDEN;
	if (lrec(t, i)->layer >= t->layer)
		return 0;
	/* An upper layer's implied directory takes a lower one's attributes. */
	return !(is_dir && live_dir(t, i) &&
		 fstree_inode(t, fstree_node(t, i)->inode)->implied);
}

/* Lower layers see nothing under directory node i. */
static void set_opaque(struct fstree *t, uint32_t i)
{
	if (lrec(t, i)->opaque == 0)
		lrec(t, i)->opaque = (uint16_t)(t->layer + 1);
}

/* A dead node at path (absent so far) that hides lower layers' entries. */
static int add_whiteout(struct fstree *t, const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	uint32_t dir, i;
	int ret;

	/* Extracting the marker makes its directory: so do we. */
	ret = fstree_dir(t, path, slash ? (size_t)(slash - path) : 0, path, &dir);
	if (ret == 0)
		ret = fstree_add_node(t, dir, name, strlen(name), 0, &i);
	if (ret != 0)
		return ret;
	fstree_node(t, i)->inode = FS_DEAD;
	lrec(t, i)->layer = (uint16_t)t->layer;
	lrec(t, i)->opaque = 0;
	return 0;
}

int fstree_whiteout(struct fstree *t, const char *path, int opaque)
{
	uint32_t i = 0;
	int where, ret = layers_on(t);

	if (ret == 0)
		ret = walk(t, path, &i, &where);
	if (ret != 0 || where == W_HIDDEN)
		return ret;
	if (where == W_FOUND) {
		/* Whatever made the directory (this layer or one above)
		 * keeps it; what lower layers put in it is gone. */
		if (live_dir(t, i)) {
			set_opaque(t, i);
			return 0;
		}
		/* An upper layer's non-directory, or this layer's own entry,
		 * which a whiteout of its own layer does not touch. */
		if (!opaque || lrec(t, i)->layer < t->layer)
			return 0;
	}
	if (!opaque)
		return add_whiteout(t, path);
	ret = fstree_dir(t, path, strlen(path), path, &i);
	if (ret == 0)
		set_opaque(t, i);
	return ret;
}

struct fs_node *fstree_current(struct fstree *t, const char *path)
{
	struct fs_node *n;
	uint32_t i = 0;
	int where;

	if (!t->layered || walk(t, path, &i, &where) != 0 || where != W_FOUND)
		return NULL;
	n = fstree_node(t, i);
	return lrec(t, i)->layer == t->layer && n->inode != FS_DEAD ? n : NULL;
}
