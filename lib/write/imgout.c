/* SPDX-License-Identifier: MIT */
/*
 * imgout.c - buffered append-only output with read-back.
 *
 * Data blocks are appended in 4 KiB..1 MiB pieces and metadata in many tiny
 * ones; a 256 KiB buffer turns them into few write() calls. Not larger:
 * Linux 6.18 copies a 1 MiB write() into the page cache 3 to 4 times
 * slower per byte than 256 KiB ones (and the buffer stays in cache). A read-back
 * flushes first, so what is compared is what the kernel holds, never our
 * buffer. Short writes are retried; ENOSPC/EFBIG become SQP_ERR_NO_SPACE.
 * Ranges of other files (imgout_copy) wait, joined while they follow each
 * other, until anything else is appended or read: then one copy in the
 * kernel writes them, made by the writer thread when there is one.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/fileio.h"
#include "write/imgout.h"

#define IMGOUT_BUF_SIZE (256u << 10)

int imgout_init(struct imgout *o, int fd, uint64_t start, struct sqp_errbuf *err)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->pos = start;
	o->flushed = start;
	o->err = err;
	o->cap = IMGOUT_BUF_SIZE;
	o->buf = sqp_iobuf_alloc(o->cap);
	if (o->buf == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

void imgout_cleanup(struct imgout *o)
{
	free(o->buf);
	o->buf = NULL;
	sqp_copier_cleanup(&o->copier);
}

int imgout_copy_failed(struct imgout *o, int err, uint64_t len, uint64_t src,
		       uint64_t off)
{
	return sqp_err(o->err, err, "copying %llu bytes at %llu of a base image to "
		       "the image at offset %llu: %s", (unsigned long long)len,
		       (unsigned long long)src, (unsigned long long)off, sqp_strerror(err));
}

/* The pending range of imgout_copy, copied (the buffer is empty): by
 * the writer thread when there is one. */
static int run_copy(struct imgout *o)
{
	int ret = o->async != NULL ? imgout_queue_copy(o, o->copy_fd, o->copy_src,
						       o->copy_len) : 1;

	if (ret == 1)
		ret = sqp_copy_range(&o->copier, o->copy_fd, o->copy_src, o->fd,
				     o->base + o->flushed, o->copy_len);
	else if (ret != 0)
		return ret;   /* latched */
	if (ret != 0)
		return imgout_copy_failed(o, ret, o->copy_len, o->copy_src, o->flushed);
	o->flushed += o->copy_len;
	o->copy_len = 0;
	return 0;
}

int imgout_copy(struct imgout *o, int fd, uint64_t off, uint64_t len)
{
	int ret;

	if (o->err->code != 0)
		return o->err->code;
	if (o->tap.feed != NULL)
		return sqp_err(o->err, SQP_ERR_INTERNAL, "a copy the image's tap cannot see");
	if (o->copy_len > 0 && fd == o->copy_fd && off == o->copy_src + o->copy_len) {
		o->copy_len += len;
		o->pos += len;
		return 0;
	}
	/* Not waiting for the writer thread: its chunks and copies lie
	 * below this one, and it keeps to their order. */
	if ((ret = imgout_flush_buffer(o)) != 0)
		return ret;
	o->copy_fd = fd;
	o->copy_src = off;
	o->copy_len = len;
	o->pos += len;
	return 0;
}

static int write_at(struct imgout *o, uint64_t off, const uint8_t *data, size_t len)
{
	int r = sqp_pwrite_full(o->fd, o->base + off, data, len);

	return r == 0 ? 0 : sqp_err(o->err, r, "writing the image at offset %llu: %s",
				    (unsigned long long)off, strerror(errno));
}

int imgout_flush(struct imgout *o)
{
	int ret = imgout_flush_buffer(o);

	return ret != 0 ? ret : imgout_wait_written(o, UINT64_MAX);
}

int imgout_flush_buffer(struct imgout *o)
{
	size_t pending = (size_t)(o->pos - o->flushed);
	int ret;

	if (o->err->code != 0)
		return o->err->code;
	if (o->copy_len > 0)
		return run_copy(o);
	if (pending == 0)
		return 0;
	ret = write_at(o, o->flushed, o->buf, pending);
	if (ret == 0)
		o->flushed = o->pos;
	return ret;
}

int imgout_append(struct imgout *o, const void *data, size_t len)
{
	size_t pending;
	int ret;

	if (o->err->code != 0)
		return o->err->code;
	if (o->copy_len > 0 && (ret = run_copy(o)) != 0)
		return ret;
	pending = (size_t)(o->pos - o->flushed);
	/* The tap latches its own errors. */
	if (o->tap.feed != NULL && (ret = o->tap.feed(o->tap.ctx, data, len)) != 0)
		return ret;
	if (pending + len > o->cap) {
		ret = imgout_flush_buffer(o);
		if (ret != 0)
			return ret;
		pending = 0;
		if (len >= o->cap) {
			ret = write_at(o, o->pos, data, len);
			if (ret == 0) {
				o->pos += len;
				o->flushed = o->pos;
			}
			return ret;
		}
	}
	memcpy(o->buf + pending, data, len);
	o->pos += len;
	return 0;
}

uint8_t *imgout_room(struct imgout *o, size_t want, size_t *room)
{
	size_t pending;

	*room = 0;
	if (o->err->code != 0 || (o->copy_len > 0 && run_copy(o) != 0))
		return NULL;
	if (want > o->cap)
		want = o->cap;
	pending = (size_t)(o->pos - o->flushed);
	if (o->cap - pending < want) {
		if (imgout_flush_buffer(o) != 0)
			return NULL;
		pending = 0;
	}
	*room = o->cap - pending;
	return o->buf + pending;
}

int imgout_commit(struct imgout *o, size_t len)
{
	size_t pending = (size_t)(o->pos - o->flushed);
	int ret;

	if (len > o->cap - pending)
		return sqp_err(o->err, SQP_ERR_INTERNAL, "more committed than the room given");
	if (o->tap.feed != NULL && (ret = o->tap.feed(o->tap.ctx, o->buf + pending, len)) != 0)
		return ret;
	o->pos += len;
	return 0;
}

int imgout_append_zeros(struct imgout *o, size_t len)
{
	static const uint8_t zeros[4096];
	size_t n;
	int ret;

	while (len > 0) {
		n = len < sizeof(zeros) ? len : sizeof(zeros);
		ret = imgout_append(o, zeros, n);
		if (ret != 0)
			return ret;
		len -= n;
	}
	return 0;
}

int imgout_pread(struct imgout *o, uint64_t off, void *buf, size_t len)
{
	int ret;

	if (off + len > o->flushed)
		return SQP_ERR_INTERNAL;
	ret = imgout_wait_written(o, off + len);
	return ret != 0 ? ret : sqp_pread_full(o->fd, o->base + off, buf, len);
}

int imgout_pwrite(struct imgout *o, uint64_t off, const void *data, size_t len)
{
	int ret;

	if (off + len > o->flushed)
		return sqp_err(o->err, SQP_ERR_INTERNAL,
			       "positioned write past flushed data");
	ret = imgout_wait_written(o, off + len);
	return ret != 0 ? ret : write_at(o, off, data, len);
}
