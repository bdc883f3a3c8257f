/* SPDX-License-Identifier: MIT */
/*
 * erofs_unz.c - the four EROFS decompressors (erofs_unz.h), each built
 * only when configure found its library, else a refusal that names it.
 *
 * A call sets up its decoder and frees it, unless the caller keeps the
 * decoders of its thread (struct sqp_erofs_unz): with 4 KiB pclusters
 * the setup (a zstd context, MicroLZMA's dictionary) cost as much as
 * the decoding. Every
 * decoder is given exactly out_len bytes of room and must fill them;
 * input past what those bytes need is allowed (a deduplicated extent
 * refers to a prefix), input that ends before is corrupt.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#ifdef WITH_LZ4
#include <lz4.h>
#endif
#ifdef WITH_LZMA
#include <lzma.h>
#endif
#ifdef WITH_GZIP
#include <zlib.h>
#endif
#ifdef WITH_LIBDEFLATE
#include <libdeflate.h>
#endif
#ifdef WITH_ZSTD
#include <zstd.h>
#endif

#include "codec/erofs_unz.h"
#include "sqpack/error.h"

/* MicroLZMA's dictionary: EROFS allows up to 8 pclusters' worth. */
#define LZMA_DICT_MAX (8u << 20)

struct sqp_erofs_unz {
#ifdef WITH_ZSTD
	ZSTD_DCtx *zstd;
#endif
#ifdef WITH_LZMA
	lzma_stream lzma;     /* a MicroLZMA decoder once lzma_live */
	int lzma_live;
#endif
#if defined(WITH_GZIP) && defined(WITH_LIBDEFLATE)
	struct libdeflate_decompressor *inflate;
#endif
	int unused;           /* a member whatever was configured */
};

#if defined(WITH_ZSTD) || defined(WITH_LZMA) || \
    (defined(WITH_GZIP) && defined(WITH_LIBDEFLATE))
/* The thread's decoders, made on first use (NULL: none kept). */
static struct sqp_erofs_unz *state(struct sqp_erofs_unz **st)
{
	if (st == NULL)
		return NULL;
	if (*st == NULL && (*st = calloc(1, sizeof(**st))) != NULL) {
#ifdef WITH_LZMA
		lzma_stream init = LZMA_STREAM_INIT;

		(*st)->lzma = init;
#endif
	}
	return *st;
}
#endif

void sqp_erofs_unz_free(struct sqp_erofs_unz *st)
{
	if (st == NULL)
		return;
#ifdef WITH_ZSTD
	ZSTD_freeDCtx(st->zstd);
#endif
#ifdef WITH_LZMA
	if (st->lzma_live)
		lzma_end(&st->lzma);
#endif
#if defined(WITH_GZIP) && defined(WITH_LIBDEFLATE)
	libdeflate_free_decompressor(st->inflate);
#endif
	free(st);
}

/* The zero bytes in front of the data: how many. The padding is up to
 * a block in front of every pcluster, and a byte loop over it was 1.1%
 * of img2dir's CPU samples at lz4: 8 bytes at a time (a memcpy load,
 * any alignment), then the last few byte by byte. (256-byte memcmp()s
 * against zeros took no fewer samples: what is left is the first
 * touch of the bytes.) */
static size_t padding(const uint8_t *in, size_t len)
{
	uint64_t w;
	size_t n = 0;

	while (len - n >= sizeof(w)) {
		memcpy(&w, in + n, sizeof(w));
		if (w != 0)
			break;
		n += sizeof(w);
	}
	while (n < len && in[n] == 0)
		n++;
	return n;
}

#ifdef WITH_LZ4
/* liblz4's partial decoding (1.9.4) copies a match that overlaps itself
 * and ends near the output's end byte by byte: a pcluster of zeros is
 * one such match, and imginfo cat of a 4 GiB sparse file spent 99.6% of
 * its samples on that one byte loop (430 MB/s). A whole decode copies
 * it 8 bytes a step, but fails on a stream that holds more than the
 * extent asks (a partial reference, valid in EROFS: mkfs.erofs
 * -Ededupe makes many), which would then be decoded twice. So only a
 * pcluster that decodes to LZ4_RUNS times its size or more, where such
 * matches are, is decoded whole first; a partial decode follows where
 * that fails, and is the only one for the others. */
#define LZ4_RUNS 8
static int unz_lz4(const uint8_t *in, size_t in_len, uint8_t *out,
		   size_t out_len)
{
	int n;

	if (out_len / LZ4_RUNS >= in_len &&
	    (n = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_len,
				     (int)out_len)) >= 0 && (size_t)n == out_len)
		return 0;
	n = LZ4_decompress_safe_partial((const char *)in, (char *)out,
					(int)in_len, (int)out_len, (int)out_len);

	return n >= 0 && (size_t)n == out_len ? 0 : SQP_ERR_BAD_DATA;
}
#endif

#ifdef WITH_LZMA
static int unz_lzma(struct sqp_erofs_unz *k, const uint8_t *in,
		    size_t in_len, uint8_t *out, size_t out_len)
{
	lzma_stream own = LZMA_STREAM_INIT, *s = k != NULL ? &k->lzma : &own;
	lzma_ret r;

	/* Not exact: the pcluster may decode to more than is asked. A
	 * kept stream is set up again in place, its dictionary reused. */
	r = lzma_microlzma_decoder(s, in_len, out_len, 0, LZMA_DICT_MAX);
	if (k != NULL)
		k->lzma_live = 1;
	if (r != LZMA_OK) {
		if (k == NULL)
			lzma_end(s);
		return r == LZMA_MEM_ERROR ? SQP_ERR_NOMEM : SQP_ERR_BAD_DATA;
	}
	s->next_in = in;
	s->avail_in = in_len;
	s->next_out = out;
	s->avail_out = out_len;
	r = lzma_code(s, LZMA_FINISH);
	if (k == NULL)
		lzma_end(s);
	if (r == LZMA_MEM_ERROR)
		return SQP_ERR_NOMEM;
	return r == LZMA_STREAM_END && s->avail_out == 0 ? 0 : SQP_ERR_BAD_DATA;
}
#endif

#ifdef WITH_GZIP
static int unz_inflate(const uint8_t *in, size_t in_len, uint8_t *out,
		       size_t out_len)
{
	z_stream s = { 0 };
	int r;

	/* Raw deflate: negative window bits, no zlib header. */
	if ((r = inflateInit2(&s, -15)) != Z_OK)
		return r == Z_MEM_ERROR ? SQP_ERR_NOMEM : SQP_ERR_BAD_DATA;
	s.next_in = (Bytef *)in;
	s.avail_in = (uInt)in_len;
	s.next_out = out;
	s.avail_out = (uInt)out_len;
	r = inflate(&s, Z_SYNC_FLUSH);
	inflateEnd(&s);
	if (r == Z_MEM_ERROR)
		return SQP_ERR_NOMEM;
	return (r == Z_OK || r == Z_STREAM_END) && s.avail_out == 0 ?
	       0 : SQP_ERR_BAD_DATA;
}

/* libdeflate decodes a whole pcluster two to three times as fast as
 * zlib, but only whole: one that decodes to more than the extent (a
 * deduplicated prefix), or that it refuses, goes to zlib, which stops
 * where the extent does and has the last word on what is corrupt. */
static int unz_deflate(struct sqp_erofs_unz *k, const uint8_t *in,
		       size_t in_len, uint8_t *out, size_t out_len)
{
#ifdef WITH_LIBDEFLATE
	size_t got;

	if (k != NULL && k->inflate == NULL)
		k->inflate = libdeflate_alloc_decompressor();
	if (k != NULL && k->inflate != NULL &&
	    libdeflate_deflate_decompress(k->inflate, in, in_len, out, out_len,
					  &got) == LIBDEFLATE_SUCCESS &&
	    got == out_len)
		return 0;
#else
	(void)k;
#endif
	return unz_inflate(in, in_len, out, out_len);
}
#endif

#ifdef WITH_ZSTD
#define ZSTD_WINDOWLOG_MAX_EROFS 24

static int unz_zstd(struct sqp_erofs_unz *k, const uint8_t *in,
		    size_t in_len, uint8_t *out, size_t out_len)
{
	ZSTD_DCtx *d = k != NULL ? k->zstd : NULL;
	ZSTD_inBuffer ib = { in, in_len, 0 };
	ZSTD_outBuffer ob = { out, out_len, 0 };
	size_t r = 0;

	if (d != NULL) {
		/* The window limit set below stays. */
		ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
	} else if ((d = ZSTD_createDCtx()) == NULL) {
		return SQP_ERR_NOMEM;
	} else if (ZSTD_isError(ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax,
							ZSTD_WINDOWLOG_MAX_EROFS))) {
		/* A frame may claim any window; an extent is at most 12
		 * MiB, so more than 16 MiB is refused rather than
		 * allocated. A libzstd older than the parameter (1.4)
		 * cannot say so. */
		ZSTD_freeDCtx(d);
		return SQP_ERR_UNSUPPORTED;
	} else if (k != NULL) {
		k->zstd = d;
	}
	/* One pass straight into out, when the frame decodes to exactly
	 * out_len bytes: the stream below goes through the context's
	 * window and copies every byte once more. A frame that decodes to
	 * more (a deduplicated prefix) fails here and streams. */
	r = ZSTD_decompressDCtx(d, out, out_len, in, in_len);
	if (!ZSTD_isError(r) && r == out_len) {
		if (k == NULL)
			ZSTD_freeDCtx(d);
		return 0;
	}
	ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
	r = 0;
	/* Stops when the output is full or the input brings no more. */
	while (ob.pos < ob.size) {
		size_t before = ob.pos + ib.pos;

		r = ZSTD_decompressStream(d, &ob, &ib);
		if (ZSTD_isError(r) || r == 0 || ob.pos + ib.pos == before)
			break;
	}
	if (k == NULL)
		ZSTD_freeDCtx(d);
	return !ZSTD_isError(r) && ob.pos == out_len ? 0 : SQP_ERR_BAD_DATA;
}
#endif

int sqp_erofs_unz(struct sqp_erofs_unz **st, unsigned alg,
		  const uint8_t *in, size_t in_len, uint8_t *out,
		  size_t out_len, int lz4_padded)
{
	size_t pad = alg != SQP_EROFS_LZ4 || lz4_padded ? padding(in, in_len) : 0;

	(void)st;
	if (pad == in_len || in_len > INT_MAX || out_len > INT_MAX)
		return SQP_ERR_BAD_DATA;
	in += pad;
	in_len -= pad;
	switch (alg) {
#ifdef WITH_LZ4
	case SQP_EROFS_LZ4: return unz_lz4(in, in_len, out, out_len);
#endif
#ifdef WITH_LZMA
	case SQP_EROFS_LZMA: return unz_lzma(state(st), in, in_len, out, out_len);
#endif
#ifdef WITH_GZIP
	case SQP_EROFS_DEFLATE: return unz_deflate(state(st), in, in_len, out, out_len);
#endif
#ifdef WITH_ZSTD
	case SQP_EROFS_ZSTD: return unz_zstd(state(st), in, in_len, out, out_len);
#endif
	default: return SQP_ERR_UNSUPPORTED;
	}
}

const char *sqp_erofs_alg_name(unsigned alg)
{
	static const char *const names[] = { "lz4", "lzma", "deflate", "zstd" };

	return alg < SQP_EROFS_ALG_MAX ? names[alg] : "unknown";
}

int sqp_erofs_unz_built(unsigned alg)
{
	switch (alg) {
#ifdef WITH_LZ4
	case SQP_EROFS_LZ4:
#endif
#ifdef WITH_LZMA
	case SQP_EROFS_LZMA:
#endif
#ifdef WITH_GZIP
	case SQP_EROFS_DEFLATE:
#endif
#ifdef WITH_ZSTD
	case SQP_EROFS_ZSTD:
#endif
		return 1;
	default:
		return 0;
	}
}
