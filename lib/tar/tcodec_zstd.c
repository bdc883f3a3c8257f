/* SPDX-License-Identifier: MIT */
/*
 * tcodec_zstd.c - zstd tar streams through libzstd's streaming API: one
 * frame at a time (skippable frames are dropped by istream.c before a
 * frame starts); the default level for img2tar -z zstd.
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "sqpack/tar_writer.h"
#include "tar/tcodec.h"

#ifdef WITH_ZSTD
#include <zstd.h>

static int zs_dcreate(void **state)
{
	*state = ZSTD_createDStream();
	return *state != NULL ? 0 : SQP_ERR_NOMEM;
}

static int zs_ecreate(void **state)
{
	*state = ZSTD_createCCtx();
	return *state != NULL ? 0 : SQP_ERR_NOMEM;
}

/* Advance the caller's buffers past what a zstd call used. */
static void advance(const ZSTD_inBuffer *ib, const ZSTD_outBuffer *ob,
		    const uint8_t **in, size_t *in_len, uint8_t **out,
		    size_t *out_len)
{
	*in += ib->pos;
	*in_len -= ib->pos;
	*out += ob->pos;
	*out_len -= ob->pos;
}

static int zs_drun(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int *end)
{
	ZSTD_inBuffer ib = { *in, *in_len, 0 };
	ZSTD_outBuffer ob = { *out, *out_len, 0 };
	size_t ret = ZSTD_decompressStream(state, &ob, &ib);

	if (ZSTD_isError(ret))
		return SQP_ERR_BAD_DATA;
	advance(&ib, &ob, in, in_len, out, out_len);
	if (ret == 0)
		*end = 1;
	return 0;
}

static int zs_erun(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int finish, int *end)
{
	ZSTD_inBuffer ib = { *in, *in_len, 0 };
	ZSTD_outBuffer ob = { *out, *out_len, 0 };
	size_t ret = ZSTD_compressStream2(state, &ob, &ib, finish ?
					  ZSTD_e_end : ZSTD_e_continue);

	if (ZSTD_isError(ret))
		return SQP_ERR_IO;
	advance(&ib, &ob, in, in_len, out, out_len);
	*end = finish && ret == 0;
	return 0;
}

static void zs_ddestroy(void *state)
{
	ZSTD_freeDStream(state);
}

static void zs_edestroy(void *state)
{
	ZSTD_freeCCtx(state);
}
#endif

const struct tar_codec tar_codec_zstd = {
	.name = "zstd", .magic = { 0x28, 0xb5, 0x2f, 0xfd }, .magic_len = 4,
	.out_id = SQP_TAR_ZSTD,
#ifdef WITH_ZSTD
	.dec_create = zs_dcreate, .dec_run = zs_drun, .dec_destroy = zs_ddestroy,
	.enc_create = zs_ecreate, .enc_run = zs_erun, .enc_destroy = zs_edestroy,
#endif
};
