/* SPDX-License-Identifier: MIT */
/*
 * fileio.h - whole-buffer positioned reads, retried on EINTR and short
 * reads, and buffers for bulk copies. Touches no shared state, so any
 * thread may call it.
 */
#ifndef SQP_UTIL_FILEIO_H
#define SQP_UTIL_FILEIO_H

#include <stddef.h>
#include <stdint.h>

/* Read exactly len bytes at off. Returns 0, SQP_ERR_TRUNCATED at end of
 * file, or another negative sqp_error (errno is kept for the message). */
int sqp_pread_full(int fd, uint64_t off, void *buf, size_t len);

/* Write exactly len bytes at off. Returns 0, SQP_ERR_NO_SPACE when the
 * file takes no more (errno ENOSPC), or another negative sqp_error
 * (errno kept for the message). */
int sqp_pwrite_full(int fd, uint64_t off, const void *buf, size_t len);

/*
 * A buffer that whole blocks are copied into or out of (read(), write(),
 * memcpy), page aligned; release it with free(). NULL when out of memory.
 *
 * Why aligned: on AMD Zen cores glibc and the kernel copy large buffers
 * with "rep movsb", which runs at a quarter of its speed or less when
 * the destination is 1 to 31 bytes past the source modulo 64. The page
 * cache and tar data are aligned; malloc's large buffers sit 16 bytes
 * into a page. tar2img read its input at 2.2 GB/s instead of 8.
 *
 * A read from an arbitrary file offset keeps the pair in step by
 * landing at buf + sqp_iobuf_skew(off): such buffers get SQP_IOBUF_SKEW
 * spare bytes.
 */
#define SQP_IOBUF_SKEW 64
void *sqp_iobuf_alloc(size_t size);

static inline size_t sqp_iobuf_skew(uint64_t off)
{
	return (size_t)(off % SQP_IOBUF_SKEW);
}

#endif
