/* SPDX-License-Identifier: MIT */
/*
 * datapipe.c - jobs, workers and the in-order writer of the data path.
 *
 * A fixed set of jobs is allocated up front (pool capacity + the open
 * fragment block + one spare); a job is either free, being filled by the
 * orchestrator, or in the pool. When none is free the orchestrator retires
 * the oldest job in the pool: waits for it, appends its bytes to the image
 * and records where they went. That is the only place block data reaches
 * the image, so the on-disk order is the submission order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "format/sqfs_format.h"
#include "sqpack/error.h"
#include "util/fileio.h"
#include "util/spill.h"
#include "write/datapipe.h"
#include "write/probe.h"

/* All job buffers (2 x block size each) fit in this, whatever -j: 24 jobs
 * of 1 MiB blocks, 192 of 128 KiB. */
#define JOB_MEMORY_BUDGET (48u << 20)
/* Jobs in flight that keep many workers fed (see datapipe_init). */
#define RUN_AHEAD 80u

/* Runs on a worker: touches only the job and the worker's own state, and
 * reads settings of the compress stage that stay as datapipe_init left
 * them while the pool runs. */
static int run_job(void *ctx, void *state, struct sqp_pool_job *base)
{
	const struct compress_stage *c = ctx;
	struct blk_job *job = (struct blk_job *)base;
	struct sqp_codec_worker *w = state;
	int n;

	if (c->fail_job != 0 && base->seq + 1 == c->fail_job)
		return SQP_ERR_COMPRESSOR;
	if (job->kind == JOB_COPY)
		return sqp_pread_full(c->fd, c->base + job->copy_from,
				      job->out, job->size_word & SQFS_BLOCK_SIZE_MASK);

	if (job->kind == JOB_BLOCK ? c->raw_data : c->raw_frags) {
		job->probed_raw = 0;
		job->size_word = job->raw_len | SQFS_BLOCK_UNCOMPRESSED;
		return 0;
	}
	job->probed_raw = c->probe && probe_incompressible(job->raw, job->raw_len,
							   (struct probe_scratch *)w->scratch);
	if (job->probed_raw) {
		job->size_word = job->raw_len | SQFS_BLOCK_UNCOMPRESSED;
		return 0;
	}
	n = sqp_compress(w->codec, job->raw, job->raw_len, job->out, job->raw_len);
	if (n < 0)
		return sqp_compress_status(n);
	job->size_word = n > 0 ? (uint32_t)n : (job->raw_len | SQFS_BLOCK_UNCOMPRESSED);
	return 0;
}

static int alloc_jobs(struct datapipe *p, size_t count)
{
	size_t i;

	p->comp.jobs = calloc(count, sizeof(p->comp.jobs[0]));
	if (p->comp.jobs == NULL)
		return SQP_ERR_NOMEM;
	p->comp.job_count = count;
	for (i = 0; i < count; ++i) {
		p->comp.jobs[i].raw = sqp_iobuf_alloc(p->block_size);
		p->comp.jobs[i].out = sqp_iobuf_alloc(p->block_size);
		if (p->comp.jobs[i].raw == NULL || p->comp.jobs[i].out == NULL)
			return SQP_ERR_NOMEM;
		p->comp.jobs[i].next_free = p->comp.free_jobs;
		p->comp.free_jobs = &p->comp.jobs[i];
	}
	return 0;
}

static int alloc_buffers(struct datapipe *p)
{
	size_t i;

	p->zeros = calloc(1, p->block_size);
	p->pack.tail_buf = sqp_iobuf_alloc(p->block_size);
	p->store.verify_disk = sqp_iobuf_alloc(p->block_size);
	p->store.verify_raw = sqp_iobuf_alloc(p->block_size);
	if (p->zeros == NULL || p->pack.tail_buf == NULL || p->store.verify_disk == NULL ||
	    p->store.verify_raw == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		p->store.cache[i].index = PHYS_NONE;
		p->store.cache[i].data = sqp_iobuf_alloc(p->block_size);
		if (p->store.cache[i].data == NULL)
			return SQP_ERR_NOMEM;
	}
	return 0;
}

int datapipe_init(struct datapipe *p, const struct datapipe_desc *desc)
{
	struct sqp_pool_desc pd = {
		.run = run_job, .worker_init = sqp_codec_worker_init,
		.worker_fini = sqp_codec_worker_fini, .ctx = &p->comp,
	};
	unsigned w, depth;
	int ret;

	memset(p, 0, sizeof(*p));
	p->block_size = desc->codec->block_size;
	p->fragment_mode = desc->fragment_mode;
	p->dedup = desc->dedup;
	p->comp.probe = desc->probe;
	p->comp.raw_data = desc->raw_data;
	p->comp.raw_frags = desc->raw_frags;
	p->store.hash_bits = desc->hash_bits;
	p->comp.fail_job = desc->fail_job;
	p->comp.wdesc.cfg = *desc->codec;
	p->comp.wdesc.scratch_size = sizeof(struct probe_scratch);
	p->out = desc->out;
	p->comp.fd = desc->out->fd;
	p->comp.base = desc->out->base;
	p->err = desc->err;
	p->stats = desc->stats;
	p->spill = desc->spill;
	/* 16 jobs per worker, so the orchestrator can run ahead of a worker
	 * that was scheduled out for a while (with 4, it waited for the
	 * oldest job most of the time at lz4 -j 2); with many workers,
	 * about RUN_AHEAD in all but at least 4 each: more would only be
	 * memory (16 each at -j 16 held 44 MiB of job buffers). All jobs
	 * (the pool's, the open fragment block and a spare; 2 x block size
	 * each) fit in JOB_MEMORY_BUDGET whatever -j is. */
	w = sqp_pipeline_workers(desc->jobs);
	depth = RUN_AHEAD / (w + 1);
	depth = depth > 16 ? 16 : depth < 4 ? 4 : depth;
	sqp_pipeline_size(desc->jobs, depth, 2 * (size_t)p->block_size,
			  JOB_MEMORY_BUDGET - 4 * (size_t)p->block_size,
			  &pd.workers, &pd.capacity);

	ret = sqp_compressor_create(&p->comp.wdesc.cfg, &p->codec);
	if (ret == 0)
		ret = alloc_buffers(p);
	if (ret == 0)
		ret = alloc_jobs(p, pd.capacity + 2);
	if (ret == 0)
		ret = hchain_init(&p->store.phys_index, p->spill);
	if (ret == 0)
		ret = hchain_init(&p->store.tail_index, p->spill);
	if (ret == 0)
		ret = sqp_pool_create(&pd, &p->comp.pool);
	if (ret == 0)
		ret = imgout_start_async(p->out, p->comp.job_count);
	/* Up to half the jobs may wait for their proofs: the rest keep the
	 * compressors and the writer going (and serve copy_matched). */
	if (ret == 0)
		ret = proof_stage_init(p, pd.workers, p->comp.job_count / 2);
	if (ret != 0)
		return sqp_err(p->err, ret, "starting the compressors: %s",
			       sqp_strerror(ret));
	return 0;
}

void datapipe_release(struct datapipe *p)
{
	size_t i;

	/* Joins the workers and the writer thread first: no job buffer is
	 * in use after this. Proof workers may wait for the writer thread,
	 * so they go before it. */
	proof_stage_cleanup(&p->proofs);
	sqp_pool_destroy(p->comp.pool);
	p->comp.pool = NULL;
	imgout_stop_async(p->out);
	for (i = 0; i < p->comp.job_count; ++i) {
		free(p->comp.jobs[i].raw);
		free(p->comp.jobs[i].out);
	}
	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		free(p->store.cache[i].data);
		p->store.cache[i].data = NULL;
	}
	free(p->comp.jobs);
	p->comp.jobs = NULL;
	p->comp.job_count = 0;
	p->comp.free_jobs = NULL;
	p->pack.open_frag = NULL;
	sqp_spill_free(p->spill, p->store.phys, p->store.phys_cap * sizeof(*p->store.phys));
	sqp_spill_free(p->spill, p->store.tails, p->store.tail_cap * sizeof(*p->store.tails));
	free(p->zeros);
	free(p->pack.tail_buf);
	free(p->store.verify_disk);
	free(p->store.verify_raw);
	p->store.phys = NULL;
	p->store.tails = NULL;
	p->zeros = p->pack.tail_buf = p->store.verify_disk = p->store.verify_raw = NULL;
	p->store.phys_count = p->store.phys_cap = p->store.tail_count = p->store.tail_cap = 0;
	hchain_cleanup(&p->store.phys_index);
	hchain_cleanup(&p->store.tail_index);
}

void datapipe_cleanup(struct datapipe *p)
{
	datapipe_release(p);
	free(p->pack.frags);
	sqp_compressor_destroy(p->codec);
	memset(p, 0, sizeof(*p));
}

/* Append a finished job's bytes and note where they went. */
static int write_job(struct datapipe *p, struct blk_job *job)
{
	uint32_t disk_len = job->size_word & SQFS_BLOCK_SIZE_MASK;
	const uint8_t *bytes = job->out;
	uint64_t pos = p->out->pos;
	int ret;

	if ((job->size_word & SQFS_BLOCK_UNCOMPRESSED) && job->kind != JOB_COPY) {
		bytes = job->raw;
		p->stats->blocks_raw++;
		p->stats->blocks_probed_raw += job->probed_raw;
	}
	ret = imgout_queue(p->out, bytes, disk_len, job);
	if (ret != 0)
		return ret;

	if (job->kind == JOB_FRAGMENT) {
		p->pack.frags[job->index].start = pos;
		p->pack.frags[job->index].size_word = job->size_word;
		p->pack.frags[job->index].retired = 1;
		p->stats->fragment_blocks++;
	} else {
		p->store.phys[job->index].offset = pos;
		p->store.phys[job->index].size_word = job->size_word;
		p->store.phys[job->index].retired = 1;
		p->stats->blocks_written++;
	}
	return 0;
}

int datapipe_retire_one(struct datapipe *p)
{
	struct blk_job *job = (struct blk_job *)sqp_pool_wait(p->comp.pool);
	int ret;

	if (job == NULL)
		return sqp_err(p->err, SQP_ERR_INTERNAL, "nothing to retire");
	ret = job->base.status;
	if (ret != 0 && job->kind == JOB_COPY) {
		sqp_err(p->err, ret, "reading back a block: %s", sqp_strerror(ret));
	} else if (ret != 0) {
		sqp_err(p->err, ret, "compressing a block: %s", sqp_strerror(ret));
	} else if (p->err->code == 0) {
		ret = write_job(p, job);
		if (ret == 0)
			return 0; /* the writer thread hands it back */
	}
	datapipe_put_job(p, job);
	return ret != 0 ? ret : p->err->code;
}

/* Get one job back: written by the writer thread if one is, else retire
 * the oldest in the pool, else wait for the writer. */
static int reclaim(struct datapipe *p)
{
	void *token;
	int ret = imgout_reap(p->out, 0, &token);

	if (ret == 0 && sqp_pool_in_flight(p->comp.pool) > 0)
		return datapipe_retire_one(p);
	if (ret == 0)
		ret = imgout_reap(p->out, 1, &token);
	if (ret == 0)
		return sqp_err(p->err, SQP_ERR_INTERNAL, "no job to reclaim");
	if (ret > 0)
		datapipe_put_job(p, token);
	return ret < 0 ? ret : 0;
}

struct blk_job *datapipe_get_job(struct datapipe *p)
{
	struct blk_job *job;

	while (p->comp.free_jobs == NULL) {
		if (reclaim(p) != 0)
			return NULL;
	}
	job = p->comp.free_jobs;
	p->comp.free_jobs = job->next_free;
	job->next_free = NULL;
	return job;
}

void datapipe_put_job(struct datapipe *p, struct blk_job *job)
{
	job->next_free = p->comp.free_jobs;
	p->comp.free_jobs = job;
}

int datapipe_submit(struct datapipe *p, struct blk_job *job)
{
	int ret;

	while (sqp_pool_full(p->comp.pool)) {
		ret = datapipe_retire_one(p);
		if (ret != 0) {
			datapipe_put_job(p, job);
			return ret;
		}
	}
	sqp_pool_submit(p->comp.pool, &job->base);
	return 0;
}

int datapipe_flush(struct datapipe *p)
{
	int ret;

	if (p->pack.open_frag != NULL) {
		struct blk_job *job = p->pack.open_frag;

		p->pack.open_frag = NULL;
		job->kind = JOB_FRAGMENT;
		job->raw_len = p->pack.open_fill;
		ret = datapipe_submit(p, job);
		if (ret != 0)
			return ret;
	}
	while (sqp_pool_in_flight(p->comp.pool) > 0) {
		ret = datapipe_retire_one(p);
		if (ret != 0)
			return ret;
	}
	return imgout_wait_written(p->out, UINT64_MAX);
}

void datapipe_resolve(const struct datapipe *p, struct fs_inode *ino,
		      uint64_t data_start)
{
	uint32_t i, first = (uint32_t)ino->u.file.blocks_start;

	ino->u.file.blocks_start = first == PHYS_NONE ? data_start : p->store.phys[first].offset;
	for (i = 0; i < ino->u.file.block_count; ++i) {
		uint32_t v = ino->u.file.block_sizes[i];

		ino->u.file.block_sizes[i] = v == 0 ? 0 : p->store.phys[v - 1].size_word;
	}
}
