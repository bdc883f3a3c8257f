/* SPDX-License-Identifier: MIT */
/*
 * tcodec_gzip.c - gzip tar streams through zlib: inflate with the gzip
 * wrapper, one member at a time; deflate at level 6 for img2tar -z gzip.
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "sqpack/tar_writer.h"
#include "tar/tcodec.h"

#ifdef WITH_GZIP
#include <zlib.h>

static int gz_dcreate(void **state)
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

static int gz_ecreate(void **state)
{
	z_stream *z = calloc(1, sizeof(*z));

	if (z == NULL)
		return SQP_ERR_NOMEM;
	if (deflateInit2(z, 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		return SQP_ERR_NOMEM;
	}
	*state = z;
	return 0;
}

/* One inflate or deflate call on the caller's buffers. */
static int gz_step(z_stream *z, int deflating, int flush, const uint8_t **in,
		   size_t *in_len, uint8_t **out, size_t *out_len)
{
	int ret;

	z->next_in = (Bytef *)*in;
	z->avail_in = *in_len > 1u << 30 ? 1u << 30 : (uInt)*in_len;
	z->next_out = *out;
	z->avail_out = *out_len > 1u << 30 ? 1u << 30 : (uInt)*out_len;
	ret = deflating ? deflate(z, flush) : inflate(z, Z_NO_FLUSH);
	*in_len -= (size_t)(z->next_in - *in);
	*in = z->next_in;
	*out_len -= (size_t)(z->next_out - *out);
	*out = z->next_out;
	return ret;
}

static int gz_drun(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int *end)
{
	int ret = gz_step(state, 0, Z_NO_FLUSH, in, in_len, out, out_len);

	if (ret == Z_STREAM_END)
		*end = 1;
	else if (ret == Z_MEM_ERROR)
		return SQP_ERR_NOMEM;
	else if (ret != Z_OK && ret != Z_BUF_ERROR)
		return SQP_ERR_BAD_DATA;
	return 0;
}

static int gz_erun(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int finish, int *end)
{
	int ret = gz_step(state, 1, finish ? Z_FINISH : Z_NO_FLUSH, in, in_len,
			  out, out_len);

	if (ret == Z_STREAM_ERROR)
		return SQP_ERR_IO;
	*end = ret == Z_STREAM_END;
	return 0;
}

static void gz_ddestroy(void *state)
{
	inflateEnd(state);
	free(state);
}

static void gz_edestroy(void *state)
{
	deflateEnd(state);
	free(state);
}
#endif

const struct tar_codec tar_codec_gzip = {
	.name = "gzip", .magic = { 0x1f, 0x8b }, .magic_len = 2,
	.out_id = SQP_TAR_GZIP,
#ifdef WITH_GZIP
	.dec_create = gz_dcreate, .dec_run = gz_drun, .dec_destroy = gz_ddestroy,
	.enc_create = gz_ecreate, .enc_run = gz_erun, .enc_destroy = gz_edestroy,
#endif
};
