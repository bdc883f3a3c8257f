/* SPDX-License-Identifier: MIT */
/*
 * codec_fixed.h - compression to a fixed output size, as the EROFS
 * writer compresses each physical cluster: as much of the input as fits
 * the cluster, and how much that was.
 *
 * For benchmarks (extras/bench/erofs-baseline.c measures the codec's own
 * time for the clusters an image stores); writing an image needs none
 * of this. Same thread contract as a compressor (codec.h): one thread at
 * a time per object; the output depends only on the input, the
 * configuration, the cluster size and the guess, never on what the
 * object compressed before.
 */
#ifndef SQPACK_CODEC_FIXED_H
#define SQPACK_CODEC_FIXED_H

/* Unstable (doc/contributing.md): exported under the version node
 * SQPACK_UNSTABLE, outside the ABI promise; it may change in any
 * release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/codec_fixed.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/codec.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_fixed_compressor;

/* A compressor for clusters of at most pcluster bytes (a multiple of
 * 4 KiB up to 1 MiB; it sizes the codec's history as the EROFS writer
 * does). Returns 0, SQP_ERR_ARG (bad pcluster or configuration),
 * SQP_ERR_NO_CODEC (not built), SQP_ERR_UNSUPPORTED (the codec has no
 * fixed-output mode: lzo, xz) or SQP_ERR_NOMEM. */
SQP_API int sqp_fixed_compressor_create(const struct sqp_codec_config *cfg,
					uint32_t pcluster,
					struct sqp_fixed_compressor **out);
SQP_API void sqp_fixed_compressor_destroy(struct sqp_fixed_compressor *c);

/*
 * Compress the longest prefix of in (*in_len bytes offered) that fits
 * out_cap bytes (at most the pcluster) and set *in_len to its length.
 * guess: the input expected to fill out_cap (0: none), where codecs
 * that search for the prefix (zstd, deflate) start; SIZE_MAX: all of
 * in first, so that offered exactly a prefix that fits they compress
 * it once.
 * Returns the compressed size, 0 when nothing longer than out_cap (or
 * all of in) fits, or a negative error.
 */
SQP_API int sqp_compress_fixed(struct sqp_fixed_compressor *c, const void *in,
			       size_t *in_len, size_t guess, void *out, size_t out_cap);

#ifdef __cplusplus
}
#endif
#endif
