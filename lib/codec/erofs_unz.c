/* SPDX-License-Identifier: MIT */
/*
 * erofs_unz.c - the four EROFS decompressors (erofs_unz.h), each built
 * only when configure found its library, else a refusal that names it.
 *
 * Each call sets up its decoder and frees it: a pcluster is up to 1 MiB
 * in and 12 MiB out, so the setup is small beside the work, and a call
 * keeps no state, which lets any thread decompress any pcluster. Every
 * decoder is given exactly out_len bytes of room and must fill them;
 * input past what those bytes need is allowed (a deduplicated extent
 * refers to a prefix), input that ends before is corrupt.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#ifdef WITH_LZ4
#include <lz4.h>
#endif
#ifdef WITH_LZMA
#include <lzma.h>
#endif
#ifdef WITH_GZIP
#include <zlib.h>
#endif
#ifdef WITH_ZSTD
#include <zstd.h>
#endif

#include "codec/erofs_unz.h"
#include "sqpack/error.h"

/* MicroLZMA's dictionary: EROFS allows up to 8 pclusters' worth. */
#define LZMA_DICT_MAX (8u << 20)

/* The zero bytes in front of the data: how many. */
static size_t padding(const uint8_t *in, size_t len)
{
	size_t n = 0;

	while (n < len && in[n] == 0)
		n++;
	return n;
}

#ifdef WITH_LZ4
static int unz_lz4(const uint8_t *in, size_t in_len, uint8_t *out,
		   size_t out_len)
{
	int n = LZ4_decompress_safe_partial((const char *)in, (char *)out,
					    (int)in_len, (int)out_len,
					    (int)out_len);

	return n >= 0 && (size_t)n == out_len ? 0 : SQP_ERR_BAD_DATA;
}
#endif

#ifdef WITH_LZMA
static int unz_lzma(const uint8_t *in, size_t in_len, uint8_t *out,
		    size_t out_len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret r;

	/* Not exact: the pcluster may decode to more than is asked. */
	r = lzma_microlzma_decoder(&s, in_len, out_len, 0, LZMA_DICT_MAX);
	if (r != LZMA_OK)
		return r == LZMA_MEM_ERROR ? SQP_ERR_NOMEM : SQP_ERR_BAD_DATA;
	s.next_in = in;
	s.avail_in = in_len;
	s.next_out = out;
	s.avail_out = out_len;
	r = lzma_code(&s, LZMA_FINISH);
	lzma_end(&s);
	if (r == LZMA_MEM_ERROR)
		return SQP_ERR_NOMEM;
	return r == LZMA_STREAM_END && s.avail_out == 0 ? 0 : SQP_ERR_BAD_DATA;
}
#endif

#ifdef WITH_GZIP
static int unz_deflate(const uint8_t *in, size_t in_len, uint8_t *out,
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
#endif

#ifdef WITH_ZSTD
#define ZSTD_WINDOWLOG_MAX_EROFS 24

static int unz_zstd(const uint8_t *in, size_t in_len, uint8_t *out,
		    size_t out_len)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	ZSTD_inBuffer ib = { in, in_len, 0 };
	ZSTD_outBuffer ob = { out, out_len, 0 };
	size_t r = 0;

	if (d == NULL)
		return SQP_ERR_NOMEM;
	/* A frame may claim any window; an extent is at most 12 MiB, so
	 * more than 16 MiB is refused rather than allocated. */
	if (ZSTD_isError(ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax,
						 ZSTD_WINDOWLOG_MAX_EROFS))) {
		/* A libzstd older than the parameter (1.4). */
		ZSTD_freeDCtx(d);
		return SQP_ERR_UNSUPPORTED;
	}
	/* Stops when the output is full or the input brings no more. */
	while (ob.pos < ob.size) {
		size_t before = ob.pos + ib.pos;

		r = ZSTD_decompressStream(d, &ob, &ib);
		if (ZSTD_isError(r) || r == 0 || ob.pos + ib.pos == before)
			break;
	}
	ZSTD_freeDCtx(d);
	return !ZSTD_isError(r) && ob.pos == out_len ? 0 : SQP_ERR_BAD_DATA;
}
#endif

int sqp_erofs_unz(unsigned alg, const uint8_t *in, size_t in_len,
		  uint8_t *out, size_t out_len, int lz4_padded)
{
	size_t pad = alg != SQP_EROFS_LZ4 || lz4_padded ? padding(in, in_len) : 0;

	if (pad == in_len || in_len > INT_MAX || out_len > INT_MAX)
		return SQP_ERR_BAD_DATA;
	in += pad;
	in_len -= pad;
	switch (alg) {
#ifdef WITH_LZ4
	case SQP_EROFS_LZ4: return unz_lz4(in, in_len, out, out_len);
#endif
#ifdef WITH_LZMA
	case SQP_EROFS_LZMA: return unz_lzma(in, in_len, out, out_len);
#endif
#ifdef WITH_GZIP
	case SQP_EROFS_DEFLATE: return unz_deflate(in, in_len, out, out_len);
#endif
#ifdef WITH_ZSTD
	case SQP_EROFS_ZSTD: return unz_zstd(in, in_len, out, out_len);
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
