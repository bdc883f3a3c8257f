/* SPDX-License-Identifier: MIT */
/*
 * tcodec_lz4.c - lz4 frame tar streams through liblz4's frame API (the
 * decoder also skips skippable frames inside); default preferences for
 * img2tar -z lz4. The legacy format is tcodec_lz4legacy.c.
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "sqpack/tar_writer.h"
#include "tar/tcodec.h"

#ifdef WITH_LZ4
#include <lz4frame.h>

struct l4enc {
	LZ4F_cctx *c;
	int started; /* the frame header is out */
};

static int l4_dcreate(void **state)
{
	LZ4F_dctx *d;

	if (LZ4F_isError(LZ4F_createDecompressionContext(&d, LZ4F_VERSION)))
		return SQP_ERR_NOMEM;
	*state = d;
	return 0;
}

static int l4_drun(void *state, const uint8_t **in, size_t *in_len,
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

static void l4_ddestroy(void *state)
{
	LZ4F_freeDecompressionContext(state);
}

static int l4_ecreate(void **state)
{
	struct l4enc *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return SQP_ERR_NOMEM;
	if (LZ4F_isError(LZ4F_createCompressionContext(&e->c, LZ4F_VERSION))) {
		free(e);
		return SQP_ERR_NOMEM;
	}
	*state = e;
	return 0;
}

/* All the input at once: the caller's output room is the worst case. */
static int l4_erun(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int finish, int *end)
{
	struct l4enc *e = state;
	size_t r = 0;

	if (*out_len < LZ4F_compressBound(*in_len, NULL) + LZ4F_HEADER_SIZE_MAX)
		return SQP_ERR_IO;
	if (!e->started) {
		r = LZ4F_compressBegin(e->c, *out, *out_len, NULL);
		e->started = 1;
	}
	if (!LZ4F_isError(r))
		r += LZ4F_compressUpdate(e->c, *out + r, *out_len - r, *in,
					 *in_len, NULL);
	if (!LZ4F_isError(r) && finish)
		r += LZ4F_compressEnd(e->c, *out + r, *out_len - r, NULL);
	if (LZ4F_isError(r))
		return SQP_ERR_IO;
	*in += *in_len;
	*in_len = 0;
	*out += r;
	*out_len -= r;
	*end = finish;
	return 0;
}

static void l4_edestroy(void *state)
{
	struct l4enc *e = state;

	LZ4F_freeCompressionContext(e->c);
	free(e);
}
#endif

const struct tar_codec tar_codec_lz4 = {
	.name = "lz4", .magic = { 0x04, 0x22, 0x4d, 0x18 }, .magic_len = 4,
	.out_id = SQP_TAR_LZ4,
#ifdef WITH_LZ4
	.dec_create = l4_dcreate, .dec_run = l4_drun, .dec_destroy = l4_ddestroy,
	.enc_create = l4_ecreate, .enc_run = l4_erun, .enc_destroy = l4_edestroy,
#endif
};
