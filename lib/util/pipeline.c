/* SPDX-License-Identifier: MIT */
/*
 * pipeline.c - pool sizing and per-worker codec state, written once for
 * the writer's compression pipelines (data blocks, metadata blocks) and
 * the reader's decompression one.
 *
 * Sizing rule: a worker needs a few jobs queued to never wait for the
 * orchestrator, but every job holds block-sized buffers, so the count is
 * capped by a memory budget, and the workers by the count: a worker that
 * can never hold a job would only cost its codec context.
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "util/fileio.h"
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

int sqp_codec_worker_init(void *ctx, void **state)
{
	const struct sqp_codec_worker_desc *d = ctx;
	struct sqp_codec_worker *w = calloc(1, sizeof(*w));
	int ret = SQP_ERR_NOMEM;

	if (w == NULL)
		return ret;
	w->scratch_size = d->scratch_size;
	if (d->scratch_size == 0 || (w->scratch = sqp_iobuf_alloc(d->scratch_size)))
		ret = d->no_codec ? 0 : sqp_compressor_create(&d->cfg, &w->codec);
	if (ret != 0) {
		free(w->scratch);
		free(w);
		return ret;
	}
	*state = w;
	return 0;
}

void sqp_codec_worker_fini(void *ctx, void *state)
{
	struct sqp_codec_worker *w = state;

	(void)ctx;
	sqp_compressor_destroy(w->codec);
	free(w->scratch);
	free(w);
}
