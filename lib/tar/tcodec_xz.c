/* SPDX-License-Identifier: MIT */
/*
 * tcodec_xz.c - xz tar streams through liblzma: one .xz stream at a
 * time, with a memory limit no honest header exceeds; preset 6 with
 * CRC64 for img2tar -z xz.
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "sqpack/tar_writer.h"
#include "tar/tcodec.h"

#if defined(WITH_XZ) || defined(WITH_LZMA)
#include <lzma.h>

static int xz_create(void **state, int encoder)
{
	lzma_stream *x = malloc(sizeof(*x));
	const lzma_stream init = LZMA_STREAM_INIT;
	lzma_ret ret;

	if (x == NULL)
		return SQP_ERR_NOMEM;
	*x = init;
	/* xz -9 needs 65 MiB to decode; refuse headers that want absurd
	 * amounts */
	ret = encoder ? lzma_easy_encoder(x, 6, LZMA_CHECK_CRC64) :
			lzma_stream_decoder(x, 1ull << 30, 0);
	if (ret != LZMA_OK) {
		free(x);
		return SQP_ERR_NOMEM;
	}
	*state = x;
	return 0;
}

static int xz_dcreate(void **state)
{
	return xz_create(state, 0);
}

static int xz_ecreate(void **state)
{
	return xz_create(state, 1);
}

static lzma_ret xz_step(lzma_stream *x, lzma_action action,
			const uint8_t **in, size_t *in_len, uint8_t **out,
			size_t *out_len)
{
	lzma_ret ret;

	x->next_in = *in;
	x->avail_in = *in_len;
	x->next_out = *out;
	x->avail_out = *out_len;
	ret = lzma_code(x, action);
	*in = x->next_in;
	*in_len = x->avail_in;
	*out = x->next_out;
	*out_len = x->avail_out;
	return ret;
}

static int xz_drun(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int *end)
{
	lzma_ret ret = xz_step(state, LZMA_RUN, in, in_len, out, out_len);

	if (ret == LZMA_STREAM_END)
		*end = 1;
	else if (ret == LZMA_MEM_ERROR || ret == LZMA_MEMLIMIT_ERROR)
		return SQP_ERR_NOMEM;
	else if (ret != LZMA_OK && ret != LZMA_BUF_ERROR)
		return SQP_ERR_BAD_DATA;
	return 0;
}

static int xz_erun(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int finish, int *end)
{
	lzma_ret ret = xz_step(state, finish ? LZMA_FINISH : LZMA_RUN, in,
			       in_len, out, out_len);

	if (ret != LZMA_OK && ret != LZMA_STREAM_END)
		return SQP_ERR_IO;
	*end = ret == LZMA_STREAM_END;
	return 0;
}

static void xz_destroy(void *state)
{
	lzma_end(state);
	free(state);
}
#endif

const struct tar_codec tar_codec_xz = {
	.name = "xz", .magic = { 0xfd, '7', 'z', 'X', 'Z', 0 }, .magic_len = 6,
	.out_id = SQP_TAR_XZ,
#if defined(WITH_XZ) || defined(WITH_LZMA)
	.dec_create = xz_dcreate, .dec_run = xz_drun, .dec_destroy = xz_destroy,
	.enc_create = xz_ecreate, .enc_run = xz_erun, .enc_destroy = xz_destroy,
#endif
};
