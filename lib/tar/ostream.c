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
#include <unistd.h>
#ifdef WITH_GZIP
#include <zlib.h>
#endif
#if defined(WITH_XZ) || defined(WITH_LZMA)
#include <lzma.h>
#endif
#ifdef WITH_ZSTD
#include <zstd.h>
#endif
#ifdef WITH_LZ4
#include <lz4frame.h>
#endif

#include "sqpack/error.h"
#include "sqpack/tar_writer.h"
#include "tar/ostream.h"

#define BUF_SIZE (1u << 20)

struct ostream {
	int fd;
	int compression;
	struct sqp_errbuf *err;
	uint8_t *in, *out;
	size_t in_len, out_cap;
#ifdef WITH_GZIP
	z_stream gz;
#endif
#if defined(WITH_XZ) || defined(WITH_LZMA)
	lzma_stream xz;
#endif
#ifdef WITH_ZSTD
	ZSTD_CCtx *zs;
#endif
#ifdef WITH_LZ4
	LZ4F_cctx *l4;
	int l4_started;
#endif
	int ready;
};

static int write_all(struct ostream *s, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(s->fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return sqp_err(s->err, sqp_errno_code(errno),
				       "writing the tar: %s", strerror(errno));
		if (w == 0)
			return sqp_err(s->err, SQP_ERR_IO, "writing the tar: "
				       "the output accepts no more data");
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int ostream_create(int fd, int compression, struct sqp_errbuf *err,
		   struct ostream **out)
{
	struct ostream *s = calloc(1, sizeof(*s));
	int ok = 0;

	if (s == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	s->fd = fd;
	s->compression = compression;
	s->err = err;
	s->out_cap = BUF_SIZE + BUF_SIZE / 8 + 65536;
	s->in = malloc(BUF_SIZE);
	s->out = compression != SQP_TAR_RAW ? malloc(s->out_cap) : NULL;
	if (s->in == NULL || (compression != SQP_TAR_RAW && s->out == NULL)) {
		ostream_destroy(s);
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	}
	switch (compression) {
	case SQP_TAR_RAW:
		ok = 1;
		break;
#ifdef WITH_GZIP
	case SQP_TAR_GZIP:
		ok = deflateInit2(&s->gz, 6, Z_DEFLATED, 15 + 16, 8,
				  Z_DEFAULT_STRATEGY) == Z_OK;
		break;
#endif
#if defined(WITH_XZ) || defined(WITH_LZMA)
	case SQP_TAR_XZ: {
		const lzma_stream init = LZMA_STREAM_INIT;

		s->xz = init;
		ok = lzma_easy_encoder(&s->xz, 6, LZMA_CHECK_CRC64) == LZMA_OK;
		break;
	}
#endif
#ifdef WITH_ZSTD
	case SQP_TAR_ZSTD:
		s->zs = ZSTD_createCCtx();
		ok = s->zs != NULL;
		break;
#endif
#ifdef WITH_LZ4
	case SQP_TAR_LZ4:
		ok = !LZ4F_isError(LZ4F_createCompressionContext(&s->l4,
								 LZ4F_VERSION));
		break;
#endif
	default:
		free(s->in);
		free(s->out);
		free(s);
		return sqp_err(err, SQP_ERR_NO_CODEC, "this build cannot "
			       "compress the tar that way");
	}
	s->ready = ok;
	if (!ok) {
		ostream_destroy(s);
		return sqp_err(err, SQP_ERR_NOMEM, "setting up the tar "
			       "compressor failed");
	}
	*out = s;
	return 0;
}

void ostream_destroy(struct ostream *s)
{
	if (s == NULL)
		return;
	if (s->ready) {
		switch (s->compression) {
#ifdef WITH_GZIP
		case SQP_TAR_GZIP: deflateEnd(&s->gz); break;
#endif
#if defined(WITH_XZ) || defined(WITH_LZMA)
		case SQP_TAR_XZ: lzma_end(&s->xz); break;
#endif
#ifdef WITH_ZSTD
		case SQP_TAR_ZSTD: ZSTD_freeCCtx(s->zs); break;
#endif
#ifdef WITH_LZ4
		case SQP_TAR_LZ4: LZ4F_freeCompressionContext(s->l4); break;
#endif
		default: break;
		}
	}
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
	int done = 0, ret;

	if (s->compression == SQP_TAR_RAW) {
		ret = write_all(s, s->in, s->in_len);
		s->in_len = 0;
		return ret;
	}
	while (!done) {
		size_t produced = 0;

		switch (s->compression) {
#ifdef WITH_GZIP
		case SQP_TAR_GZIP: {
			int zr;

			s->gz.next_in = (Bytef *)in;
			s->gz.avail_in = (uInt)in_len;
			s->gz.next_out = s->out;
			s->gz.avail_out = (uInt)s->out_cap;
			zr = deflate(&s->gz, finish ? Z_FINISH : Z_NO_FLUSH);
			if (zr == Z_STREAM_ERROR)
				return sqp_err(s->err, SQP_ERR_IO, "gzip failed");
			in_len = s->gz.avail_in;
			in = s->gz.next_in;
			produced = s->out_cap - s->gz.avail_out;
			done = finish ? zr == Z_STREAM_END : in_len == 0;
			break;
		}
#endif
#if defined(WITH_XZ) || defined(WITH_LZMA)
		case SQP_TAR_XZ: {
			lzma_ret lr;

			s->xz.next_in = in;
			s->xz.avail_in = in_len;
			s->xz.next_out = s->out;
			s->xz.avail_out = s->out_cap;
			lr = lzma_code(&s->xz, finish ? LZMA_FINISH : LZMA_RUN);
			if (lr != LZMA_OK && lr != LZMA_STREAM_END)
				return sqp_err(s->err, SQP_ERR_IO, "xz failed");
			in = s->xz.next_in;
			in_len = s->xz.avail_in;
			produced = s->out_cap - s->xz.avail_out;
			done = finish ? lr == LZMA_STREAM_END : in_len == 0;
			break;
		}
#endif
#ifdef WITH_ZSTD
		case SQP_TAR_ZSTD: {
			ZSTD_inBuffer ib = { in, in_len, 0 };
			ZSTD_outBuffer ob = { s->out, s->out_cap, 0 };
			size_t zr = ZSTD_compressStream2(s->zs, &ob, &ib,
					finish ? ZSTD_e_end : ZSTD_e_continue);

			if (ZSTD_isError(zr))
				return sqp_err(s->err, SQP_ERR_IO, "zstd failed");
			in += ib.pos;
			in_len -= ib.pos;
			produced = ob.pos;
			done = finish ? zr == 0 : in_len == 0;
			break;
		}
#endif
#ifdef WITH_LZ4
		case SQP_TAR_LZ4: {
			size_t r = 0;

			if (!s->l4_started) {
				r = LZ4F_compressBegin(s->l4, s->out, s->out_cap, NULL);
				s->l4_started = 1;
				if (!LZ4F_isError(r))
					r += LZ4F_compressUpdate(s->l4, s->out + r,
						s->out_cap - r, in, in_len, NULL);
			} else {
				r = LZ4F_compressUpdate(s->l4, s->out, s->out_cap,
							in, in_len, NULL);
			}
			if (!LZ4F_isError(r) && finish)
				r += LZ4F_compressEnd(s->l4, s->out + r,
						      s->out_cap - r, NULL);
			if (LZ4F_isError(r))
				return sqp_err(s->err, SQP_ERR_IO, "lz4 failed");
			produced = r;
			in_len = 0;
			done = 1;
			break;
		}
#endif
		default:
			return sqp_err(s->err, SQP_ERR_ARG, "bad compression");
		}
		if (produced > 0 && (ret = write_all(s, s->out, produced)) != 0)
			return ret;
	}
	s->in_len = 0;
	return 0;
}

int ostream_write(struct ostream *s, const void *buf, size_t n)
{
	const uint8_t *p = buf;
	int ret;

	if (s->err->code != 0)
		return s->err->code;
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
