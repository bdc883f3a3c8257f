/* SPDX-License-Identifier: MIT */
/*
 * ostream.c - the tar writer's output: 1 MiB buffered writes, with an
 * optional stream compressor in between. Writes are retried on EINTR and
 * short counts; a failed write is latched with the reason, so "No space
 * left on device" reaches the user.
 *
 * Invariant: in[0, in_len) holds bytes not yet compressed (or, without
 * compression, not yet written).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "sqpack/tar_writer.h"
#include "tar/ostream.h"
#include "tar/tcodec.h"
#include "util/fileio.h"

#define BUF_SIZE (1u << 20)
/* A piece of plain output this large is written from where it lies,
 * behind the buffered bytes in the same call, not copied into the
 * buffer first: img2tar hands over whole data blocks, and the copy cost
 * as much CPU as decoding them at lz4 (sqfs2tar writes them directly). */
#define DIRECT_MIN (64u << 10)

struct ostream {
	int fd;
	struct sqp_errbuf *err;
	const struct tar_codec *enc; /* NULL: plain output */
	void *state;
	uint8_t *in, *out;
	size_t in_len, out_cap;
};

/* cnt buffers at iov, all of them, in as few writev() calls as the
 * descriptor takes them. */
static int writev_all(struct ostream *s, struct iovec *iov, int cnt)
{
	while (cnt > 0) {
		ssize_t w = writev(s->fd, iov, cnt);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return sqp_err(s->err, sqp_errno_code(errno),
				       "writing the tar: %s", strerror(errno));
		if (w == 0)
			return sqp_err(s->err, SQP_ERR_IO, "writing the tar: "
				       "the output accepts no more data");
		while (cnt > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int write_all(struct ostream *s, const uint8_t *p, size_t n)
{
	struct iovec v = { (void *)p, n };

	return writev_all(s, &v, 1);
}

/* The buffered bytes, then n bytes at p. */
static int write_through(struct ostream *s, const uint8_t *p, size_t n)
{
	struct iovec v[2] = { { s->in, s->in_len }, { (void *)p, n } };
	int first = s->in_len > 0 ? 0 : 1;

	s->in_len = 0;
	return writev_all(s, v + first, 2 - first);
}

int ostream_create(int fd, int compression, struct sqp_errbuf *err,
		   struct ostream **out)
{
	const struct tar_codec *enc = tar_codec_for_output(compression);
	struct ostream *s;

	if (compression != SQP_TAR_RAW && enc == NULL)
		return sqp_err(err, SQP_ERR_NO_CODEC, "this build cannot "
			       "compress the tar that way");
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	s->fd = fd;
	s->err = err;
	/* room for the worst case of a full input buffer (lz4 needs it) */
	s->out_cap = BUF_SIZE + BUF_SIZE / 8 + 65536;
	s->in = sqp_iobuf_alloc(BUF_SIZE);
	s->out = enc != NULL ? sqp_iobuf_alloc(s->out_cap) : NULL;
	if (s->in == NULL || (enc != NULL && s->out == NULL)) {
		ostream_destroy(s);
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	}
	if (enc != NULL && enc->enc_create(&s->state) != 0) {
		ostream_destroy(s);
		return sqp_err(err, SQP_ERR_NOMEM, "setting up the tar "
			       "compressor failed");
	}
	s->enc = enc;
	*out = s;
	return 0;
}

void ostream_destroy(struct ostream *s)
{
	if (s == NULL)
		return;
	if (s->enc != NULL)
		s->enc->enc_destroy(s->state);
	free(s->in);
	free(s->out);
	free(s);
}

/* Compress in[0, in_len) (all of it) and write the result; with finish,
 * also end the stream. */
static int pump(struct ostream *s, int finish)
{
	const uint8_t *in = s->in;
	size_t in_len = s->in_len;
	int end = 0, ret;

	s->in_len = 0;
	if (s->enc == NULL)
		return write_all(s, in, in_len);
	for (;;) {
		uint8_t *out = s->out;
		size_t room = s->out_cap;

		ret = s->enc->enc_run(s->state, &in, &in_len, &out, &room,
				      finish, &end);
		if (ret != 0)
			return sqp_err(s->err, ret, "%s compression failed",
				       s->enc->name);
		if (out > s->out && (ret = write_all(s, s->out,
						     (size_t)(out - s->out))) != 0)
			return ret;
		if (finish ? end : in_len == 0)
			return 0;
	}
}

int ostream_write(struct ostream *s, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	int ret;

	if (s->err->code != 0)
		return s->err->code;
	if (s->enc == NULL && n >= DIRECT_MIN)
		return write_through(s, p, n);
	while (n > 0) {
		size_t take = BUF_SIZE - s->in_len;

		if (take > n)
			take = n;
		memcpy(s->in + s->in_len, p, take);
		s->in_len += take;
		p += take;
		n -= take;
		if (s->in_len == BUF_SIZE && (ret = pump(s, 0)) != 0)
			return ret;
	}
	return 0;
}

int ostream_finish(struct ostream *s)
{
	if (s->err->code != 0)
		return s->err->code;
	return pump(s, 1);
}
