/* SPDX-License-Identifier: MIT */
/*
 * rd_walk.h - the one walk of an image's tree (walk.c): depth first, in
 * directory order, a directory before its entries and its "leave" after
 * them. img2tar, img2dir, the checker and the public sqp_walk (reader.h)
 * all walk through it, so the guard against a hostile tree is written
 * once: each inode number is marked when met, a directory met a second
 * time (a loop, or two parents) is never entered, and the depth is
 * bounded, so a walk always ends after at most inode_count directories.
 */
#ifndef SQP_READ_RD_WALK_H
#define SQP_READ_RD_WALK_H

#include "read/rd_image.h"

/* Directories are entered only below this depth; with names of at most
 * 256 bytes it bounds a path too. */
#define RD_WALK_DEPTH_MAX 1024

enum rd_walk_event {
	RD_WALK_ENTRY = 1,      /* an entry (its directory's LEAVE follows) */
	RD_WALK_LEAVE = 2,      /* all entries below a directory done */
};

/* What rd_walk_next() returns; valid until the next call. */
struct rd_walk_node {
	const char *path;       /* normalised, no leading '/'; "" = root */
	const char *name;       /* last component ("" for the root) */
	unsigned depth;         /* 0: a start path (or the root) */
	uint64_t ref;
	struct rd_inode *ino;   /* the caller may take ino->target */
	/* ENTRY below a start: the listing entry and the inode number of
	 * the directory listing it; NULL and 0 for a start path. */
	const struct rd_dirent *de;
	uint32_t parent;
	/* ENTRY: the inode number was met before in this walk (a hard
	 * link: never a directory, which would be refused). */
	int again;
	/* LEAVE: the listing's entries, and how many were directories
	 * (entered or not). */
	uint32_t entries, subdirs;
};

/*
 * A problem of the image met by the walk (an inode that does not read,
 * a broken listing, a directory reached twice or too deep, an inode
 * number out of range), latched in the image with its message. table
 * says where ("inode", "directory"), inode which one (0 when unknown),
 * path whose. Return 0 after clearing the image's error to go on (the
 * entry is skipped, the listing left), or the error to end the walk.
 */
typedef int (*rd_walk_problem_fn)(void *user, const char *table,
				  uint32_t inode, const char *path);

struct rd_walk_desc {
	struct sqp_image *img;
	/* Subtrees, walked in this order (one inside another or given twice
	 * is left out: its entries come with the other); NULL/0: the root. */
	const char *const *paths;
	size_t path_count;
	unsigned max_depth;     /* 0: all; else enter directories above it */
	rd_walk_problem_fn problem;  /* NULL: every problem ends the walk */
	void *user;
};

struct rd_walk;

/* 0, or an error latched in the image (*out is then NULL). */
int rd_walk_create(const struct rd_walk_desc *desc, struct rd_walk **out);
/* RD_WALK_ENTRY or RD_WALK_LEAVE with *n filled, 0 at the end, or an
 * error latched in the image. */
int rd_walk_next(struct rd_walk *w, struct rd_walk_node *n);
/* The path the walk is at (of the last entry, or where it failed). */
const char *rd_walk_path(const struct rd_walk *w);
/* Do not enter the directory the last ENTRY returned. */
void rd_walk_skip(struct rd_walk *w);
void rd_walk_destroy(struct rd_walk *w);

#endif
