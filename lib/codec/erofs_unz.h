/* SPDX-License-Identifier: MIT */
/*
 * erofs_unz.h - decompressing one EROFS pcluster, whatever its
 * algorithm (lz4, lzma as MicroLZMA, raw deflate, zstd).
 *
 * Apart from the codec table because EROFS frames its data unlike
 * SquashFS: the compressed bytes end the pcluster, after zero bytes
 * that pad it to whole blocks, and an extent may use only the first
 * bytes of what its pcluster decompresses to (a deduplicated extent),
 * so decoding stops once the bytes asked for are out.
 */
#ifndef SQP_CODEC_EROFS_UNZ_H
#define SQP_CODEC_EROFS_UNZ_H

#include <stddef.h>
#include <stdint.h>

/* The algorithms, numbered as the map header numbers them. */
enum { SQP_EROFS_LZ4, SQP_EROFS_LZMA, SQP_EROFS_DEFLATE, SQP_EROFS_ZSTD,
       SQP_EROFS_ALG_MAX };

/* Decoders one thread keeps from one pcluster to the next: made on
 * first use, a zstd context and a MicroLZMA stream with its 8 MiB
 * dictionary cost more to set up than a 4 KiB pcluster takes to
 * decode. */
struct sqp_erofs_unz;

/* Exactly out_len bytes decoded from the pcluster in (in_len bytes)
 * into out. lz4_padded: lz4 data is zero-padded in front too (the
 * superblock's ZERO_PADDING feature; the other algorithms always are).
 * 0, SQP_ERR_BAD_DATA (does not decode to out_len bytes),
 * SQP_ERR_UNSUPPORTED (not built with the algorithm's library, or an
 * unknown one) or SQP_ERR_NOMEM. The caller bounds the sizes (EROFS:
 * 1 MiB in, 12 MiB out). st: the calling thread's decoders (*st NULL:
 * none yet), or NULL to set one up for this call alone. */
int sqp_erofs_unz(struct sqp_erofs_unz **st, unsigned alg,
		  const uint8_t *in, size_t in_len, uint8_t *out,
		  size_t out_len, int lz4_padded);
/* Free decoders sqp_erofs_unz kept; NULL is fine. */
void sqp_erofs_unz_free(struct sqp_erofs_unz *st);
/* Whether this build decodes alg: its library was configured. */
int sqp_erofs_unz_built(unsigned alg);
/* The algorithm's name for messages ("lz4"), "unknown" past the four. */
const char *sqp_erofs_alg_name(unsigned alg);

#endif
