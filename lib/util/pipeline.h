/* SPDX-License-Identifier: MIT */
/*
 * pipeline.h - what the writer's, the tables' and the reader's block
 * pipelines share around sqp_pool: how many workers a -j value means and
 * how many jobs may be in flight within a memory budget. Each worker's
 * codec state is lib/codec's (codec/codec_worker.h): util knows no codec.
 *
 * Both pipelines take results back in submission order (pool.h); these
 * helpers only size the pool, so every -j gives the same bytes.
 */
#ifndef SQP_UTIL_PIPELINE_H
#define SQP_UTIL_PIPELINE_H

#include <stddef.h>

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

#endif
