/* SPDX-License-Identifier: MIT */
/*
 * pipeline.c - pool sizing, written once for the writer's compression
 * pipelines (data blocks, metadata blocks) and the reader's decompression
 * one.
 *
 * Sizing rule: a worker needs a few jobs queued to never wait for the
 * orchestrator, but every job holds block-sized buffers, so the count is
 * capped by a memory budget, and the workers by the count: a worker that
 * can never hold a job would only cost its codec context.
 */
#include "config.h"

#include "util/pipeline.h"
#include "util/pool.h"

unsigned sqp_pipeline_workers(unsigned jobs)
{
	unsigned n = jobs == 0 ? sqp_cpu_count() : jobs;

	return n <= 1 ? 0 : n;
}

void sqp_pipeline_size(unsigned jobs, unsigned depth, size_t job_bytes,
		       size_t budget, unsigned *workers, unsigned *capacity)
{
	unsigned w = sqp_pipeline_workers(jobs);
	size_t cap = w == 0 ? 2 : ((size_t)w + 1) * depth;

	if (job_bytes > 0 && cap > budget / job_bytes)
		cap = budget / job_bytes;
	if (cap < 2)
		cap = 2;
	*workers = w < cap ? w : (unsigned)cap;
	*capacity = (unsigned)cap;
}
