/* SPDX-License-Identifier: MIT */
/*
 * inspect.h - looking inside an image: summary statistics, and the
 * differences between two images' trees, both on the walk of reader.h.
 *
 * Memory: both stream: nothing grows with the number of entries but the
 * paths of hard-linked inodes a diff keeps. Thread contract: as reader.h
 * (one thread per image at a time).
 */
#ifndef SQPACK_INSPECT_H
#define SQPACK_INSPECT_H

/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/inspect.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

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
