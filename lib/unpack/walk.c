/* SPDX-License-Identifier: MIT */
/*
 * walk.c - unp_walk(): the image's tree (or the subtrees asked for),
 * depth first in directory order, parents before children, for the
 * conversions of lib/unpack, as entry and leave callbacks.
 *
 * The walk itself, with its guard against a hostile tree (no directory
 * entered twice, the depth bounded, subtrees each once), is the reader's
 * rd_walk; what is added here is what a conversion needs beyond it: the
 * first path of a hard-linked inode, found by inode number, for later
 * names to link to.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_walk.h"
#include "sqpack/error.h"
#include "unpack/walk.h"

/* An open-addressing map of inode numbers to the path each was first
 * met at (hard-linked inodes only). */
struct keyset {
	uint64_t *keys;
	char **vals;
	size_t cap, count;
};

static char **keyset_slot(struct keyset *s, uint64_t key, int *found)
{
	size_t i = (size_t)((key + 1) * 0x9e3779b97f4a7c15ull) & (s->cap - 1);

	while (s->vals[i] != NULL || s->keys[i] != 0) {
		if (s->keys[i] == key + 1) {
			*found = 1;
			return &s->vals[i];
		}
		i = (i + 1) & (s->cap - 1);
	}
	*found = 0;
	s->keys[i] = key + 1;
	s->count++;
	return &s->vals[i];
}

static int keyset_grow(struct keyset *s)
{
	struct keyset n = { 0 };

	if (s->cap != 0 && (s->count + 1) * 2 < s->cap)
		return 0;
	n.cap = s->cap ? s->cap * 2 : 1024;
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (n.keys == NULL || n.vals == NULL) {
		free(n.keys);
		free(n.vals);
		return SQP_ERR_NOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		int found;

		if (s->keys[i] != 0)
			*keyset_slot(&n, s->keys[i] - 1, &found) = s->vals[i];
	}
	free(s->keys);
	free(s->vals);
	*s = n;
	return 0;
}

static void keyset_free(struct keyset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->vals[i]);
	free(s->keys);
	free(s->vals);
}

/* The first path of n's inode when it has more links and was met
 * before; else NULL, and its path is kept when it has more links. */
static int first_path(struct sqp_image *img, struct keyset *links,
		      struct unp_node *n)
{
	char **slot;
	int found;

	if (S_ISDIR(n->ino->mode) || n->ino->nlink <= 1)
		return 0;
	if (keyset_grow(links) != 0)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	slot = keyset_slot(links, n->ino->inode_number, &found);
	if (found)
		n->first_path = *slot;
	else if ((*slot = strdup(n->path)) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

int unp_walk(const struct unp_walk_desc *desc)
{
	struct rd_walk_desc wd = { desc->img, desc->paths, desc->path_count,
				   0, NULL, NULL };
	struct keyset links = { 0 };
	struct rd_walk_node rn;
	struct rd_walk *w;
	int ret;

	if (desc->img->err.code != 0)
		return desc->img->err.code;
	if ((ret = rd_walk_create(&wd, &w)) != 0)
		return ret;
	while ((ret = rd_walk_next(w, &rn)) > 0) {
		struct unp_node n = { rn.path, rn.name, rn.depth, rn.ino,
				      rn.ref, NULL };

		if (ret == RD_WALK_LEAVE)
			ret = desc->ops->leave != NULL ?
				desc->ops->leave(desc->user, &n) : 0;
		else if ((ret = first_path(desc->img, &links, &n)) == 0)
			ret = desc->ops->entry(desc->user, &n);
		if (ret != 0)
			break;
	}
	rd_walk_destroy(w);
	keyset_free(&links);
	return ret;
}
