/* SPDX-License-Identifier: MIT */
/*
 * copyrange.h - bytes copied from one file to another at given offsets
 * without passing through the caller's memory. Where the output's file
 * system has no copy of its own to offer (ext2/3/4, tmpfs: no server-side
 * copy, no shared extents), through a pipe of the copier's with splice(2),
 * page-cache pages lent to the pipe and written from it; elsewhere
 * copy_file_range(2), which lets NFS copy on the server and XFS or btrfs
 * share extents. Where the kernel or the file systems refuse
 * (EXDEV, ENOSYS, EINVAL, EOPNOTSUPP: files on two file systems of an
 * older kernel, a file system without it), pread and pwrite through a
 * buffer of the copier's do the same, and the copier remembers not to
 * ask again. One copier per thread and output file.
 */
#ifndef SQP_UTIL_COPYRANGE_H
#define SQP_UTIL_COPYRANGE_H

#include <stddef.h>
#include <stdint.h>

/* How a copier copies, decided at its first copy and only ever lowered
 * (a refusal moves it down one step). */
enum sqp_copy_how {
	SQP_COPY_UNDECIDED = 0,
	SQP_COPY_SPLICE,    /* splice(2) through pipe[] */
	SQP_COPY_KERNEL,    /* copy_file_range(2) */
	SQP_COPY_BUFFERED,  /* pread and pwrite through buf */
};

struct sqp_copier {
	enum sqp_copy_how how;
	int pipe[2];        /* SQP_COPY_SPLICE's: read end, write end */
	size_t pipe_size;   /* what the pipe holds at most */
	uint8_t *buf;       /* the fallback's, allocated at its first use */
	size_t cap;
};

/* Copy len bytes at in_off of in to out_off of out. Returns 0, or a
 * negative sqp_error: SQP_ERR_TRUNCATED when in ends first. A copier
 * that is all zeros is ready for its first copy. */
int sqp_copy_range(struct sqp_copier *c, int in, uint64_t in_off, int out,
		   uint64_t out_off, uint64_t len);

/* Close the pipe and free the fallback's buffer; c may be copied again,
 * and decides anew. */
void sqp_copier_cleanup(struct sqp_copier *c);

#endif
