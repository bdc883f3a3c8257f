/* SPDX-License-Identifier: MIT */
/*
 * codec_worker.h - each pool worker's private codec state, shared by the
 * writer's compression pipelines (data blocks, metadata blocks, the
 * dedup proof) and the reader's decompression one.
 *
 * It lives in lib/codec, not lib/util next to the pool sizing, because it
 * creates compressors: util depends on nothing, and a worker that owns a
 * codec context belongs to the layer that provides it.
 */
#ifndef SQP_CODEC_CODEC_WORKER_H
#define SQP_CODEC_CODEC_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "codec/erofs_unz.h"
#include "sqpack/codec.h"

/* Lower cfg's level to the lowest its codec takes (a codec without
 * levels, or at its lowest, keeps it): the inode and directory tables of
 * a merge, compressed where they cost more than copying the data
 * (lib/squashfs/sqfs_finish.c). */
void codec_fastest_level(struct sqp_codec_config *cfg);

/* One worker's state: its own codec (codecs are not thread-safe) and a
 * scratch block (compressed input, probe tables). Settings every worker
 * shares are read from the pool's ctx, which is not written while the
 * pool runs. */
struct sqp_codec_worker {
	struct sqp_compressor *codec; /* NULL with no_codec */
	uint8_t *scratch;
	size_t scratch_size;
	/* sqp_codec_worker_decoder's: made on first use */
	struct sqp_compressor *other;
	struct sqp_codec_config other_cfg;
	/* EROFS pclusters' decoders (sqp_erofs_unz), made on first use */
	struct sqp_erofs_unz *unz;
	/* The block reader's runs of extents decode here when their bytes
	 * go straight to the consumer's put() (lib/read/blockrd_run.c):
	 * run_out_size bytes, grown on first use */
	uint8_t *run_out;
	size_t run_out_size;
};

/* For sqp_pool_desc.worker_init/worker_fini: ctx is a
 * struct sqp_codec_worker_desc; state a struct sqp_codec_worker. */
struct sqp_codec_worker_desc {
	struct sqp_codec_config cfg;
	size_t scratch_size;       /* 0: none */
	int no_codec;              /* workers that store data as it is */
};
int sqp_codec_worker_init(void *ctx, void **state);
void sqp_codec_worker_fini(void *ctx, void *state);

/* The worker's codec for another configuration (the writer converting a
 * base image decodes the base's blocks with it): made the first time,
 * kept while cfg stays the same. */
int sqp_codec_worker_decoder(struct sqp_codec_worker *w,
			     const struct sqp_codec_config *cfg,
			     struct sqp_compressor **out);

#endif
