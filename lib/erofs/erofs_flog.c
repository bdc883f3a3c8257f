/* SPDX-License-Identifier: MIT */
/*
 * erofs_flog.c - the fragment logs (erofs_frag.c): bytes appended in
 * order, read back at any offset, cut back to an earlier length.
 *
 * They hold every byte that becomes a fragment: with -E all-fragments
 * the whole tree. In memory (1 MiB chunks of the spill arena, which
 * spills only past --mem, a quarter of RAM by default) they were the
 * build's peak RSS: 450 MB on rootfs-small with CoreOS's mkfs.erofs
 * line, where mkfs.erofs, which keeps its packed inode's data in a
 * temporary file, took 273 MB. So a log is an unlinked temporary file,
 * where the spill arena makes its own, written through a small buffer
 * and read back with pread: its bytes sit in the page cache, which the
 * kernel writes back and reclaims as it needs, and this process holds
 * the buffer alone whatever the budget. A log that never fills its
 * buffer never makes a file.
 *
 * Invariant: bytes [0, base) are in the file, [base, len) in buf; the
 * file may hold stale bytes past base (a cut), never read.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/spill.h"
#include "write/writer_impl.h"

/* The write buffer: a pwrite per 256 KiB, and all this process holds
 * of a log but the pieces compared. */
#define FLOG_BUF ((size_t)256 << 10)
/* What is read back per pread to compare with: two such pieces follow
 * the buffer. */
#define FLOG_CMP ((size_t)64 << 10)

static int io_fail(struct sqp_writer *w, int errnum, const char *what)
{
	return writer_fail(w, sqp_errno_code(errnum), "EROFS: fragments: %s their "
			   "temporary file: %s", what, strerror(errnum));
}

/* The buffer's bytes into the file: base catches up with len. */
static int flush(struct sqp_writer *w, struct erofs_flog *l)
{
	const uint8_t *p = l->buf;
	size_t left = (size_t)(l->len - l->base);
	uint64_t at = l->base;
	ssize_t n;

	if (l->fd < 0 && (l->fd = sqp_spill_tmpfile(w->spill, &w->err)) < 0) {
		l->fd = -1;
		return w->err.code;
	}
	while (left > 0) {
		n = pwrite(l->fd, p, left, (off_t)at);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return io_fail(w, errno, "writing");
		if (n == 0)
			return io_fail(w, ENOSPC, "writing");
		p += n;
		left -= (size_t)n;
		at += (uint64_t)n;
	}
	l->base = l->len;
	return 0;
}

uint8_t *erofs_flog_room(struct sqp_writer *w, struct erofs_flog *l, size_t *room)
{
	if (l->buf == NULL) {
		l->fd = -1;
		if ((l->buf = malloc(FLOG_BUF + 2 * FLOG_CMP)) == NULL) {
			writer_fail(w, SQP_ERR_NOMEM, "out of memory");
			return NULL;
		}
	}
	if (l->len - l->base == FLOG_BUF && flush(w, l) != 0)
		return NULL;
	*room = FLOG_BUF - (size_t)(l->len - l->base);
	return l->buf + (l->len - l->base);
}

int erofs_flog_append(struct sqp_writer *w, struct erofs_flog *l, const uint8_t *p,
		      size_t n)
{
	uint8_t *to;
	size_t k;

	while (n > 0) {
		if ((to = erofs_flog_room(w, l, &k)) == NULL)
			return w->err.code;
		if (k > n)
			k = n;
		memcpy(to, p, k);
		l->len += k;
		p += k;
		n -= k;
	}
	return 0;
}

void erofs_flog_cut(struct erofs_flog *l, uint64_t len)
{
	if (len < l->base)
		l->base = len;
	l->len = len;
}

int erofs_flog_has(const struct erofs_flog *l, uint64_t off, uint64_t len)
{
	return off <= l->len && len <= l->len - off;
}

/* n bytes at off, all below base, from the file. */
static int pread_all(struct sqp_writer *w, const struct erofs_flog *l, uint64_t off,
		     uint8_t *p, size_t n)
{
	struct erofs_frag *fr = &erofs_of(w)->frag;
	ssize_t k;

	if (fr->fail_read != 0 && ++fr->reads == fr->fail_read)
		return io_fail(w, EIO, "reading");
	while (n > 0) {
		k = pread(l->fd, p, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return io_fail(w, errno, "reading");
		if (k == 0)
			return writer_fail(w, SQP_ERR_IO, "EROFS: fragments: their temporary "
					   "file ends early");
		p += k;
		off += (uint64_t)k;
		n -= (size_t)k;
	}
	return 0;
}

int erofs_flog_read(struct sqp_writer *w, const struct erofs_flog *l, uint64_t off,
		    void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t k;
	int ret;

	if (!erofs_flog_has(l, off, len))
		return writer_fail(w, SQP_ERR_INTERNAL, "EROFS: fragments: bytes read "
				   "past their log");
	if (off < l->base) {
		k = l->base - off < len ? (size_t)(l->base - off) : len;
		if ((ret = pread_all(w, l, off, p, k)) != 0)
			return ret;
		p += k;
		off += k;
		len -= k;
	}
	if (len > 0)
		memcpy(p, l->buf + (off - l->base), len);
	return 0;
}

/* Up to len bytes at off (in the log), as many as lie on one side of
 * base and FLOG_CMP at most (*k of them): where they are in buf, or
 * read into the scratch piece cmp (0 or 1); NULL on a failed read. */
static const uint8_t *view(struct sqp_writer *w, const struct erofs_flog *l, uint64_t off,
			   size_t len, unsigned cmp, size_t *k)
{
	uint8_t *to = l->buf + FLOG_BUF + cmp * FLOG_CMP;

	*k = len < FLOG_CMP ? len : FLOG_CMP;
	if (off >= l->base)
		return l->buf + (off - l->base);
	if (l->base - off < *k)
		*k = (size_t)(l->base - off);
	return pread_all(w, l, off, to, *k) == 0 ? to : NULL;
}

int erofs_flog_same(struct sqp_writer *w, const struct erofs_flog *l, uint64_t off,
		    const uint8_t *p, size_t len)
{
	const uint8_t *q;
	size_t k;

	if (!erofs_flog_has(l, off, len))
		return 0;
	for (; len > 0; off += k, p += k, len -= k) {
		if ((q = view(w, l, off, len, 0, &k)) == NULL)
			return w->err.code;
		if (memcmp(q, p, k) != 0)
			return 0;
	}
	return 1;
}

int erofs_flog_equal(struct sqp_writer *w, const struct erofs_flog *l, uint64_t a,
		     uint64_t b, uint64_t len)
{
	const uint8_t *p, *q;
	size_t k, kb;

	if (!erofs_flog_has(l, a, len) || !erofs_flog_has(l, b, len))
		return 0;
	for (; len > 0; a += k, b += k, len -= k) {
		if ((p = view(w, l, a, len < FLOG_CMP ? (size_t)len : FLOG_CMP, 0, &k)) == NULL ||
		    (q = view(w, l, b, k, 1, &kb)) == NULL)
			return w->err.code;
		k = kb; /* as far as both pieces reach */
		if (memcmp(p, q, k) != 0)
			return 0;
	}
	return 1;
}

void erofs_flog_free(struct erofs_flog *l)
{
	if (l->buf != NULL && l->fd >= 0)
		close(l->fd);
	free(l->buf);
	memset(l, 0, sizeof(*l));
}
