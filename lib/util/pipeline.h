/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - what the writer's, the tables' and the reader's block
 * pipelines share
 * around sqp_pool: how many workers a -j value means, how many jobs may
 * be in flight within a memory budget, and each worker's private state
 * (a codec context and one block of scratch memory).
 *
 * Both pipelines take results back in submission order (pool.h); these
 * helpers only size and equip the pool, so every -j gives the same bytes.
 */
#ifndef SQP_UTIL_PIPELINE_H
#define SQP_UTIL_PIPELINE_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/codec.h"

/* Worker threads for jobs (0: one per CPU); 1 means serial, 0 workers:
 * a single worker thread would only add hand-offs to the caller's. */
unsigned sqp_pipeline_workers(unsigned jobs);

/* Workers and jobs in flight for a -j value: depth jobs per worker, plus
 * depth for the caller's side, keep every worker busy (a serial pipeline
 * needs 2); all jobs fit in budget (job_bytes each, at least 2 jobs);
 * no worker is started that could never get a job, so memory is bounded
 * for any -j. */
void sqp_pipeline_size(unsigned jobs, unsigned depth, size_t job_bytes,
		       size_t budget, unsigned *workers, unsigned *capacity);

/* One worker's state: its own codec (codecs are not thread-safe) and a
 * scratch block (compressed input, probe tables). Settings every worker
 * shares are read from the pool's ctx, which is not written while the
 * pool runs. */
struct sqp_codec_worker {
	struct sqp_compressor *codec; /* NULL with no_codec */
	uint8_t *scratch;
	size_t scratch_size;
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

#endif
