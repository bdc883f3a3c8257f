/* SPDX-License-Identifier: MIT */
/*
 * tcodec_bzip2.c - bzip2 tar streams through libbz2, input only: one
 * stream at a time (pbzip2 writes many).
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "tar/tcodec.h"

/* "BZh" must be followed by a block size digit. */
static int bz_magic_ok(const uint8_t *buf, size_t len)
{
	return len >= 4 && buf[3] >= '1' && buf[3] <= '9';
}

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
#endif

const struct tar_codec tar_codec_bzip2 = {
	.name = "bzip2", .magic = { 'B', 'Z', 'h' }, .magic_len = 3,
	.magic_ok = bz_magic_ok,
#ifdef WITH_BZIP2
	.dec_create = bz_create, .dec_run = bz_run, .dec_destroy = bz_destroy,
#endif
};
