/* SPDX-License-Identifier: MIT */
/*
 * walk.h - the tree walk every conversion of an image shares (image to
 * tar, image to directory): the reader's rd_walk (depth first, in
 * directory order, parents before children, each directory entered
 * once) as callbacks, with hard links named.
 */
#ifndef SQP_UNPACK_WALK_H
#define SQP_UNPACK_WALK_H

#include "read/rd_walk.h"

/* Depths of nodes are at most this: directories are entered only above
 * it. */
#define UNP_DEPTH_MAX RD_WALK_DEPTH_MAX

struct unp_node {
	const char *path;       /* in the image, no leading '/'; "" = root */
	const char *name;       /* last component ("" for the root) */
	unsigned depth;         /* 0: a subtree asked for (or the root) */
	struct rd_inode *ino;   /* the callback may take ino->target */
	uint64_t ref;
	/* A non-directory with more links whose inode was met before: the
	 * path it was first met at; NULL otherwise. */
	const char *first_path;
};

struct unp_walk_ops {
	int (*entry)(void *user, struct unp_node *n);
	/* After all entries below the directory n. */
	int (*leave)(void *user, struct unp_node *n);
};

struct unp_walk_desc {
	struct sqp_image *img;
	const char *const *paths;   /* subtrees; NULL/0: the whole image */
	size_t path_count;
	const struct unp_walk_ops *ops;
	void *user;
};

/* Walk; returns 0, the first callback error, or a corrupt image's
 * error (latched in the image: a loop, too deep, bad listings, a path
 * not found). */
int unp_walk(const struct unp_walk_desc *desc);

#endif
