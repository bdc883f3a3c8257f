/* SPDX-License-Identifier: MIT */
/*
 * inspect.h - looking inside an image: a streaming walk of its tree,
 * summary statistics, and the differences between two images' trees.
 *
 * Memory: all three stream. A walk holds one open directory per level
 * of depth and one bit per inode of the image (to tell hard links and
 * to refuse a directory reached twice, which would loop); nothing grows
 * with the number of entries. Thread contract: as reader.h (one thread
 * per image at a time). The image must outlive the objects made on it.
 */
#ifndef SQPACK_INSPECT_H
#define SQPACK_INSPECT_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Walk                                                                */
/* ------------------------------------------------------------------ */

struct sqp_walk;

struct sqp_walk_desc {
	struct sqp_image *img;  /* borrowed */
	const char *path;       /* where to start; NULL, "" or "/": the root */
	unsigned max_depth;     /* 0: everything below; 1: the start and,
				   if a directory, its entries; ... */
};

struct sqp_walk_entry {
	const char *path;       /* normalised, relative to the root ("" is
				   the root); valid until the next call */
	const char *name;       /* last component ("" for the root) */
	unsigned depth;         /* 0 for the start */
	int hardlink;           /* the inode was reached before in this walk */
	struct sqp_inode_info info;
};

/* Start a walk: SQP_ERR_NOT_FOUND when path does not exist, or another
 * error; *out is then NULL or a failed walk that sqp_walk_error()
 * explains (the convention of sqpack/error.h). */
SQP_API int sqp_walk_create(const struct sqp_walk_desc *desc,
			    struct sqp_walk **out);
/* The next entry in pre-order (a directory before its entries, entries
 * in directory order): 1 and *e filled, 0 at the end, or a negative
 * error, latched (message in sqp_walk_error()). */
SQP_API int sqp_walk_next(struct sqp_walk *w, struct sqp_walk_entry *e);
SQP_API const char *sqp_walk_error(const struct sqp_walk *w);
SQP_API void sqp_walk_destroy(struct sqp_walk *w);

/* ------------------------------------------------------------------ */
/* Summary                                                             */
/* ------------------------------------------------------------------ */

/* Counts over the tree; inodes reached through several hard links count
 * once (the links in hardlinks). */
struct sqp_image_summary {
	uint64_t entries;        /* names, the root included */
	uint64_t inodes;         /* distinct inodes reached */
	uint64_t hardlinks;      /* names of an inode already counted */
	uint64_t dirs, files, symlinks, blockdevs, chardevs, fifos, sockets;
	uint64_t xattr_inodes;   /* inodes with extended attributes */
	uint64_t file_bytes;     /* logical sizes of the regular files */
	uint64_t blocks;         /* entries of their block lists */
	uint64_t block_bytes;    /* bytes on disk those entries name (a
				    block shared by two files counts twice) */
	uint64_t hole_blocks;    /* blocks stored as holes */
	uint64_t raw_blocks;     /* blocks stored uncompressed */
	uint64_t tails;          /* files with a tail in a fragment block */
	uint64_t tail_bytes;     /* their tails' bytes */
};

/* Walk the whole tree into *out. Returns 0 or an error with a message in
 * msg (msg_size bytes) when msg is not NULL. */
SQP_API int sqp_image_summarize(struct sqp_image *img,
				struct sqp_image_summary *out,
				char *msg, size_t msg_size);

/* ------------------------------------------------------------------ */
/* Diff                                                                */
/* ------------------------------------------------------------------ */

#define SQP_DIFF_IGNORE_MTIME  0x0001
#define SQP_DIFF_IGNORE_OWNER  0x0002
#define SQP_DIFF_IGNORE_XATTRS 0x0004

/* One difference: path (relative, "" for the root) and what differs, as
 * text ("only in the first image", "mode 0644 != 0755", "contents differ
 * from byte 4096", ...). Return 0 to go on, non-zero to stop the diff.
 * Both strings are valid only during the call. */
typedef int (*sqp_diff_fn)(void *user, const char *path, const char *what);

struct sqp_diff_desc {
	struct sqp_image *a, *b;   /* borrowed; may be opened on one file */
	unsigned flags;            /* SQP_DIFF_* */
	sqp_diff_fn report;
	void *user;
};

/* Compare the two trees (names, types, modes, owners, mtimes, sizes,
 * symlink targets, device numbers, xattrs, file contents streamed a
 * chunk at a time). Returns 0 when equal, 1 when report was called,
 * or a negative error with a message in msg when msg is not NULL. */
SQP_API int sqp_image_diff(const struct sqp_diff_desc *desc, char *msg,
			   size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
