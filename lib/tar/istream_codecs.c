/* SPDX-License-Identifier: MIT */
/*
 * istream_codecs.c - the stream decompressors of tar input, one small
 * adapter per library, and the magic-byte detection that picks one.
 *
 * Each adapter decodes one member (one gzip member, one xz stream, one
 * zstd or lz4 frame, one bzip2 stream) and reports its end; istream.c
 * chains members. A format whose library this build lacks is still
 * recognised, so the user is told what is missing instead of getting a
 * "bad tar header" for compressed bytes.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "tar/istream.h"

#ifdef WITH_GZIP
#include <zlib.h>

static int gz_create(void **state)
{
	z_stream *z = calloc(1, sizeof(*z));

	if (z == NULL)
		return SQP_ERR_NOMEM;
	if (inflateInit2(z, 16 + 15) != Z_OK) {
		free(z);
		return SQP_ERR_NOMEM;
	}
	*state = z;
	return 0;
}

static int gz_run(void *state, const uint8_t **in, size_t *in_len,
		  uint8_t **out, size_t *out_len, int *end)
{
	z_stream *z = state;
	int ret;

	z->next_in = (Bytef *)*in;
	z->avail_in = (uInt)*in_len;
	z->next_out = *out;
	z->avail_out = (uInt)*out_len;
	ret = inflate(z, Z_NO_FLUSH);
	*in = z->next_in;
	*in_len = z->avail_in;
	*out = z->next_out;
	*out_len = z->avail_out;
	if (ret == Z_STREAM_END)
		*end = 1;
	else if (ret == Z_MEM_ERROR)
		return SQP_ERR_NOMEM;
	else if (ret != Z_OK && ret != Z_BUF_ERROR)
		return SQP_ERR_BAD_DATA;
	return 0;
}

static void gz_destroy(void *state)
{
	inflateEnd(state);
	free(state);
}

static const struct istream_decoder dec_gzip = {
	"gzip", gz_create, gz_run, NULL, gz_destroy,
};
#endif

#if defined(WITH_XZ) || defined(WITH_LZMA)
#include <lzma.h>

static int xz_create(void **state)
{
	lzma_stream *x = malloc(sizeof(*x));
	const lzma_stream init = LZMA_STREAM_INIT;

	if (x == NULL)
		return SQP_ERR_NOMEM;
	*x = init;
	/* xz -9 needs 65 MiB; refuse headers that want absurd amounts. */
	if (lzma_stream_decoder(x, 1ull << 30, 0) != LZMA_OK) {
		free(x);
		return SQP_ERR_NOMEM;
	}
	*state = x;
	return 0;
}

static int xz_run(void *state, const uint8_t **in, size_t *in_len,
		  uint8_t **out, size_t *out_len, int *end)
{
	lzma_stream *x = state;
	lzma_ret ret;

	x->next_in = *in;
	x->avail_in = *in_len;
	x->next_out = *out;
	x->avail_out = *out_len;
	ret = lzma_code(x, LZMA_RUN);
	*in = x->next_in;
	*in_len = x->avail_in;
	*out = x->next_out;
	*out_len = x->avail_out;
	if (ret == LZMA_STREAM_END)
		*end = 1;
	else if (ret == LZMA_MEM_ERROR || ret == LZMA_MEMLIMIT_ERROR)
		return SQP_ERR_NOMEM;
	else if (ret != LZMA_OK && ret != LZMA_BUF_ERROR)
		return SQP_ERR_BAD_DATA;
	return 0;
}

static void xz_destroy(void *state)
{
	lzma_end(state);
	free(state);
}

static const struct istream_decoder dec_xz = {
	"xz", xz_create, xz_run, NULL, xz_destroy,
};
#endif

#ifdef WITH_ZSTD
#include <zstd.h>

static int zs_create(void **state)
{
	ZSTD_DStream *d = ZSTD_createDStream();

	if (d == NULL)
		return SQP_ERR_NOMEM;
	*state = d;
	return 0;
}

static int zs_run(void *state, const uint8_t **in, size_t *in_len,
		  uint8_t **out, size_t *out_len, int *end)
{
	ZSTD_inBuffer ib = { *in, *in_len, 0 };
	ZSTD_outBuffer ob = { *out, *out_len, 0 };
	size_t ret = ZSTD_decompressStream(state, &ob, &ib);

	if (ZSTD_isError(ret))
		return SQP_ERR_BAD_DATA;
	*in += ib.pos;
	*in_len -= ib.pos;
	*out += ob.pos;
	*out_len -= ob.pos;
	if (ret == 0)
		*end = 1;
	return 0;
}

static void zs_destroy(void *state)
{
	ZSTD_freeDStream(state);
}

static const struct istream_decoder dec_zstd = {
	"zstd", zs_create, zs_run, NULL, zs_destroy,
};
#endif

#ifdef WITH_LZ4
#include <lz4frame.h>

static int l4_create(void **state)
{
	LZ4F_dctx *d;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
		return SQP_ERR_NOMEM;
	*state = d;
	return 0;
}

static int l4_run(void *state, const uint8_t **in, size_t *in_len,
		  uint8_t **out, size_t *out_len, int *end)
{
	size_t src = *in_len, dst = *out_len;
	size_t ret = LZ4F_decompress(state, *out, &dst, *in, &src, NULL);

	if (LZ4F_isError(ret))
		return SQP_ERR_BAD_DATA;
	*in += src;
	*in_len -= src;
	*out += dst;
	*out_len -= dst;
	if (ret == 0)
		*end = 1;
	return 0;
}

static void l4_destroy(void *state)
{
	LZ4F_freeDecompressionContext(state);
}

static const struct istream_decoder dec_lz4 = {
	"lz4", l4_create, l4_run, NULL, l4_destroy,
};
#endif

#ifdef WITH_BZIP2
#include <bzlib.h>

static int bz_create(void **state)
{
	bz_stream *b = calloc(1, sizeof(*b));

	if (b == NULL)
		return SQP_ERR_NOMEM;
	if (BZ2_bzDecompressInit(b, 0, 0) != BZ_OK) {
		free(b);
		return SQP_ERR_NOMEM;
	}
	*state = b;
	return 0;
}

static int bz_run(void *state, const uint8_t **in, size_t *in_len,
		  uint8_t **out, size_t *out_len, int *end)
{
	bz_stream *b = state;
	unsigned in_n = *in_len > 1u << 30 ? 1u << 30 : (unsigned)*in_len;
	unsigned out_n = *out_len > 1u << 30 ? 1u << 30 : (unsigned)*out_len;
	int ret;

	b->next_in = (char *)*in;
	b->avail_in = in_n;
	b->next_out = (char *)*out;
	b->avail_out = out_n;
	ret = BZ2_bzDecompress(b);
	*in += in_n - b->avail_in;
	*in_len -= in_n - b->avail_in;
	*out += out_n - b->avail_out;
	*out_len -= out_n - b->avail_out;
	if (ret == BZ_STREAM_END)
		*end = 1;
	else if (ret == BZ_MEM_ERROR)
		return SQP_ERR_NOMEM;
	else if (ret != BZ_OK)
		return SQP_ERR_BAD_DATA;
	return 0;
}

static void bz_destroy(void *state)
{
	BZ2_bzDecompressEnd(state);
	free(state);
}

static const struct istream_decoder dec_bzip2 = {
	"bzip2", bz_create, bz_run, NULL, bz_destroy,
};
#endif

static const struct {
	const char *name;
	const uint8_t magic[6];
	size_t magic_len;
	const struct istream_decoder *dec;
} formats[] = {
	{ "gzip", { 0x1f, 0x8b }, 2,
#ifdef WITH_GZIP
	  &dec_gzip },
#else
	  NULL },
#endif
	{ "xz", { 0xfd, '7', 'z', 'X', 'Z', 0 }, 6,
#if defined(WITH_XZ) || defined(WITH_LZMA)
	  &dec_xz },
#else
	  NULL },
#endif
	{ "zstd", { 0x28, 0xb5, 0x2f, 0xfd }, 4,
#ifdef WITH_ZSTD
	  &dec_zstd },
#else
	  NULL },
#endif
	{ "lz4", { 0x04, 0x22, 0x4d, 0x18 }, 4,
#ifdef WITH_LZ4
	  &dec_lz4 },
#else
	  NULL },
#endif
	{ "lz4", { 0x02, 0x21, 0x4c, 0x18 }, 4,
#ifdef WITH_LZ4
	  &istream_dec_lz4legacy },
#else
	  NULL },
#endif
	{ "bzip2", { 'B', 'Z', 'h' }, 3,
#ifdef WITH_BZIP2
	  &dec_bzip2 },
#else
	  NULL },
#endif
	/* Recognised only to name them: no library for these. */
	{ "lzip", { 'L', 'Z', 'I', 'P' }, 4, NULL },
	{ "compress (.Z)", { 0x1f, 0x9d }, 2, NULL },
};

const struct istream_decoder *istream_detect(const uint8_t *buf, size_t len,
					     const char **name, int *missing)
{
	*missing = 0;
	*name = "none";
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (len < formats[i].magic_len ||
		    memcmp(buf, formats[i].magic, formats[i].magic_len) != 0)
			continue;
		/* "BZh" must be followed by a block size digit. */
		if (formats[i].magic[0] == 'B' &&
		    (len < 4 || buf[3] < '1' || buf[3] > '9'))
			continue;
		*name = formats[i].name;
		*missing = formats[i].dec == NULL;
		return formats[i].dec;
	}
	return NULL;
}
