/* SPDX-License-Identifier: MIT */
/*
 * check.h - a SquashFS and EROFS fsck: verify an image from superblock
 * to the last data block, reporting every problem with where it is.
 */
#ifndef SQPACK_CHECK_H
#define SQPACK_CHECK_H

/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/check.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stdint.h>
#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_check_problem {
	const char *table;      /* "superblock", "inode", "directory",
				   "fragment", "data", "export", "xattr",
				   "links" */
	uint32_t inode_number;  /* 0 when the problem has none */
	const char *path;       /* in the image; NULL when not known */
	const char *msg;        /* what is wrong, with offsets */
};

typedef void (*sqp_check_fn)(void *user, const struct sqp_check_problem *p);

struct sqp_check_desc {
	int fd;                 /* the image; borrowed, read with pread */
	const char *name;       /* for messages */
	unsigned jobs;          /* decompression threads; 0 = CPUs */
	sqp_check_fn report;    /* called on this thread for each problem */
	void *user;
	uint64_t offset;        /* the superblock's position in fd */
};

struct sqp_check_stats {
	uint64_t inodes, directories, files, blocks, fragments_used;
	uint64_t problems;
};

/*
 * Check the superblock and tables (bounds, order, every fragment and
 * export entry), every inode reachable from the root and that no other
 * is counted, every directory (sorted, no duplicate or illegal names,
 * headers, index entries pointing at the run they name), link counts
 * against references, parent numbers, xattrs, and decompress every data
 * block and fragment, checking sizes. For EROFS: the superblock, every
 * inode and listing reachable from the root, '..' entries, link counts,
 * xattrs, each file's block map or compressed extents followed to the
 * end and its data decoded. Goes on after a problem wherever that is
 * safe (a bad directory is skipped, not its siblings; a file whose map
 * breaks, not the next file).
 *
 * Returns 0 (no problem), SQP_ERR_CORRUPT (problems were reported), or
 * another error when the check itself could not run (memory, I/O).
 */
SQP_API int sqp_image_check(const struct sqp_check_desc *desc,
			    struct sqp_check_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
