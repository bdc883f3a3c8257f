/* SPDX-License-Identifier: MIT */
/*
 * codec_dest.h - compression to a fixed output size, for the formats
 * whose physical clusters have one (EROFS): the codec takes as much of
 * the input as fits the cluster, and says how much it took.
 *
 * A codec serves EROFS exactly when its ops carry these (ops->dest);
 * the same configuration (level, hc) as for SquashFS applies.
 */
#ifndef SQP_CODEC_CODEC_DEST_H
#define SQP_CODEC_CODEC_DEST_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/codec.h"

struct codec_dest_ops {
	int erofs_alg;  /* EROFS's algorithm number (h_algorithmtype) */
	int (*create)(const struct sqp_codec_config *cfg, void **state);
	void (*destroy)(void *state);
	/* Compress a prefix of in into at most out_cap bytes: *in_len
	 * (the bytes offered) becomes the bytes taken. Returns the
	 * compressed size (1..out_cap), or < 0. The output depends only on
	 * the input, the configuration and out_cap. */
	int (*compress)(void *state, const uint8_t *in, size_t *in_len,
			uint8_t *out, size_t out_cap);
};

extern const struct codec_dest_ops sqp_codec_lz4_dest_ops;

/* Codec id's fixed-output ops: NULL when it has none or is not built. */
const struct codec_dest_ops *codec_dest_of(int id);

#endif
