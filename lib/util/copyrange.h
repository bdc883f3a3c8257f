/* SPDX-License-Identifier: MIT */
/*
 * copyrange.h - bytes copied from one file to another at given offsets
 * without passing through the caller's memory: copy_file_range(2), the
 * kernel's copy between page caches (what coreutils' cat does), which
 * saves the copy into a buffer and the copy out of it that pread and
 * pwrite cost. Where the kernel or the file systems cannot
 * (EXDEV, ENOSYS, EINVAL, EOPNOTSUPP: files on two file systems of an
 * older kernel, a file system without it), pread and pwrite through a
 * buffer of the copier's do the same, and the copier remembers not to
 * ask again. One copier per thread.
 */
#ifndef SQP_UTIL_COPYRANGE_H
#define SQP_UTIL_COPYRANGE_H

#include <stddef.h>
#include <stdint.h>

struct sqp_copier {
	int buffered;       /* copy_file_range refused once: pread/pwrite */
	uint8_t *buf;       /* the fallback's, allocated at its first use */
	size_t cap;
};

/* Copy len bytes at in_off of in to out_off of out. Returns 0, or a
 * negative sqp_error: SQP_ERR_TRUNCATED when in ends first. */
int sqp_copy_range(struct sqp_copier *c, int in, uint64_t in_off, int out,
		   uint64_t out_off, uint64_t len);

/* Free the fallback's buffer; c may be copied again. */
void sqp_copier_cleanup(struct sqp_copier *c);

#endif
