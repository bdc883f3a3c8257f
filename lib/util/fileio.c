/* SPDX-License-Identifier: MIT */
/*
 * fileio.c - pread that always reads the whole buffer or says why not;
 * buffers aligned for bulk copies.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/errbuf.h"
#include "util/fileio.h"

int sqp_pread_full(int fd, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sqp_errno_code(errno);
		if (n == 0)
			return SQP_ERR_TRUNCATED;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

int sqp_pwrite_full(int fd, uint64_t off, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len > 0) {
		n = pwrite(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sqp_errno_code(errno);
		if (n == 0) { /* a file that takes no more: say so in errno too */
			errno = ENOSPC;
			return SQP_ERR_NO_SPACE;
		}
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

void *sqp_iobuf_alloc(size_t size)
{
	void *p;

	if (posix_memalign(&p, 4096, size > 0 ? size : 1) != 0)
		return NULL;
	return p;
}
