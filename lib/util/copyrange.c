/* SPDX-License-Identifier: MIT */
/*
 * copyrange.c - a file range copied in the kernel, or through a buffer
 * where the kernel will not (copyrange.h).
 *
 * copy_file_range may copy less than asked (a signal, a file system's
 * own chunking): the loop goes on from where it stopped. It returns 0
 * at the end of the input, which the caller sized from what the image
 * said it holds: a truncated input. The fallback takes over at the
 * offsets reached, so a refusal midway (a file system that takes some
 * ranges and not others) loses nothing.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/copyrange.h"
#include "util/errbuf.h"
#include "util/fileio.h"

/* The fallback's buffer: large enough that pread and pwrite are few. */
#define COPY_BUF_SIZE (1u << 20)

#ifdef HAVE_COPY_FILE_RANGE
/* Whether errno from copy_file_range means "not here", not a failure. */
static int refused(int e)
{
	return e == EXDEV || e == ENOSYS || e == EINVAL || e == EOPNOTSUPP;
}
#endif

static int copy_buffered(struct sqp_copier *c, int in, uint64_t in_off, int out,
			 uint64_t out_off, uint64_t len)
{
	size_t n;
	int ret;

	if (c->buf == NULL) {
		if ((c->buf = sqp_iobuf_alloc(COPY_BUF_SIZE)) == NULL)
			return SQP_ERR_NOMEM;
		c->cap = COPY_BUF_SIZE;
	}
	while (len > 0) {
		n = len < c->cap ? (size_t)len : c->cap;
		if ((ret = sqp_pread_full(in, in_off, c->buf, n)) != 0 ||
		    (ret = sqp_pwrite_full(out, out_off, c->buf, n)) != 0)
			return ret;
		in_off += n;
		out_off += n;
		len -= n;
	}
	return 0;
}

int sqp_copy_range(struct sqp_copier *c, int in, uint64_t in_off, int out,
		   uint64_t out_off, uint64_t len)
{
#ifdef HAVE_COPY_FILE_RANGE
	while (len > 0 && !c->buffered) {
		off_t i = (off_t)in_off, o = (off_t)out_off;
		size_t ask = len < ((size_t)1 << 30) ? (size_t)len : (size_t)1 << 30;
		ssize_t n = copy_file_range(in, &i, out, &o, ask, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && refused(errno)) {
			c->buffered = 1;
			break;
		}
		if (n < 0)
			return sqp_errno_code(errno);
		if (n == 0)
			return SQP_ERR_TRUNCATED;
		in_off += (uint64_t)n;
		out_off += (uint64_t)n;
		len -= (uint64_t)n;
	}
#endif
	return len > 0 ? copy_buffered(c, in, in_off, out, out_off, len) : 0;
}

void sqp_copier_cleanup(struct sqp_copier *c)
{
	free(c->buf);
	c->buf = NULL;
	c->cap = 0;
}
