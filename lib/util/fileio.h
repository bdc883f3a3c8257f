/* SPDX-License-Identifier: MIT */
/*
 * fileio.h - whole-buffer positioned reads, retried on EINTR and short
 * reads. Touches no shared state, so any thread may call it.
 */
#ifndef SQP_UTIL_FILEIO_H
#define SQP_UTIL_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/* Read exactly len bytes at off. Returns 0, SQP_ERR_TRUNCATED at end of
 * file, or another negative sqp_error (errno is kept for the message). */
int sqp_pread_full(int fd, uint64_t off, void *buf, size_t len);

#endif
