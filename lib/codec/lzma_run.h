/* SPDX-License-Identifier: MIT */
/*
 * lzma_run.h - drive a liblzma stream over one whole buffer; shared by
 * the xz and lzma codecs, which differ only in the container around the
 * LZMA data.
 */
#ifndef SQP_CODEC_LZMA_RUN_H
#define SQP_CODEC_LZMA_RUN_H

#include <lzma.h>

#include "sqpack/error.h"

/* Decoders refuse headers that ask for more memory than this: SquashFS
 * dictionaries never exceed the 1 MiB block size. */
#define SQP_LZMA_MEMLIMIT (64u << 20)

/*
 * Run strm (already initialised) over in with LZMA_FINISH into out.
 * Returns the output size; 0 when out filled up before the end (for an
 * encoder: "does not fit"); SQP_ERR_BAD_DATA for a corrupt stream,
 * SQP_ERR_NOMEM when liblzma ran out of memory.
 */
static inline int sqp_lzma_run(lzma_stream *strm, const uint8_t *in,
			       size_t in_len, uint8_t *out, size_t out_cap)
{
	lzma_ret ret;

	strm->next_in = in;
	strm->avail_in = in_len;
	strm->next_out = out;
	strm->avail_out = out_cap;
	/* liblzma reports LZMA_BUF_ERROR after two calls without progress,
	 * so this ends; the bound is a second guard. */
	for (int round = 0; round < 64; round++) {
		ret = lzma_code(strm, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			return (int)(out_cap - strm->avail_out);
		if (ret == LZMA_MEM_ERROR)
			return SQP_ERR_NOMEM;
		if (ret != LZMA_OK)
			break;
		if (strm->avail_out == 0 && strm->avail_in == 0)
			break;
	}
	return strm->avail_out == 0 ? 0 : SQP_ERR_BAD_DATA;
}

#endif
