/* SPDX-License-Identifier: MIT */
/*
 * compress.c - jobs, compressor workers and the in-order writer of the
 * data path (see compress.h).
 *
 * A fixed set of jobs is allocated up front (pool capacity + the open
 * fragment block + one spare); a job is either free, being filled by the
 * orchestrator, in the pool, or queued to the image writer thread (with
 * --verity, queued and in the pool again, as a background job, to hash
 * its bytes: free when both are done). When none is free the
 * orchestrator takes back finished hashes, retires the oldest job in the
 * pool, or waits for the writer thread or a hash.
 * The pool's ctx is the workers' codec description itself; what else a
 * worker reads comes with each job (blk_job.set), and none of it is
 * written while the pool runs.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_worker.h"
#include "sqpack/error.h"
#include "util/fileio.h"
#include "util/pipeline.h"
#include "write/compress.h"
#include "write/probe.h"
#include "write/words.h"

/* All job buffers (2 x block size each) fit in this, whatever -j: 24 jobs
 * of 1 MiB blocks, 192 of 128 KiB. */
#define JOB_MEMORY_BUDGET (48u << 20)
/* Jobs in flight that keep many workers fed (see compress_create). */
#define RUN_AHEAD 80u

/* What a worker reads besides its job. */
struct compress_settings {
	int probe;
	int raw_data;
	int raw_frags;
	uint64_t fail_job;
	int fd;                        /* the image, for JOB_COPY */
	uint64_t base;                 /* file offset of image position 0 */
	int (*hash)(void *span);       /* the image's tap, for a hash job */
};

struct compress_stage {
	struct sqp_codec_worker_desc wdesc; /* the pool's ctx */
	struct compress_settings set;
	struct imgout *out;
	struct sqp_errbuf *err;
	struct sqp_writer_stats *stats;
	void (*written)(void *user, const struct blk_job *job, uint64_t pos);
	void *user;
	uint32_t block_size;

	struct sqp_pool *pool;
	struct blk_job *jobs;          /* all jobs, one allocation */
	size_t job_count;
	struct blk_job *free_jobs;
};

/* A base image's block: read as it is stored (0: done), or decoded into
 * raw[] to be compressed again (1). A block that does not decode to its
 * length, or a fragment block to at most raw_len bytes, is corrupt. */
static int base_job(struct blk_job *job, struct sqp_codec_worker *w)
{
	uint32_t len = job->size_word & WR_BLOCK_SIZE_MASK;
	struct sqp_compressor *dec;
	int n, ret = sqp_pread_full(job->copy_fd, job->copy_from, job->out, len);

	if (ret != 0 || job->recode == NULL)
		return ret;
	if (job->size_word & WR_BLOCK_RAW) {
		memcpy(job->raw, job->out, len);
		n = (int)len;
	} else {
		if ((ret = sqp_codec_worker_decoder(w, job->recode, &dec)) != 0)
			return ret;
		n = sqp_decompress(dec, job->out, len, job->raw, job->raw_len);
	}
	if (n <= 0 || (job->kind == JOB_BASE_BLOCK && (uint32_t)n != job->raw_len))
		return SQP_ERR_CORRUPT;
	job->raw_len = (uint32_t)n;
	return 1;
}

static int run_job(void *ctx, void *state, struct sqp_pool_job *base)
{
	struct blk_job *job = (struct blk_job *)base;
	const struct compress_settings *s = job->set;
	struct sqp_codec_worker *w = state;
	int n, frag;

	(void)ctx;
	if (s->fail_job != 0 && base->nth + 1 == s->fail_job)
		return SQP_ERR_COMPRESSOR;
	if (job->hashing)
		return s->hash(job->span);
	if (job->kind == JOB_COPY)
		return sqp_pread_full(s->fd, s->base + job->copy_from,
				      job->out, job->size_word & WR_BLOCK_SIZE_MASK);
	if (job->kind == JOB_BASE_BLOCK || job->kind == JOB_BASE_FRAGMENT) {
		n = base_job(job, w);
		if (n <= 0)
			return n;
	}
	frag = job->kind == JOB_FRAGMENT || job->kind == JOB_BASE_FRAGMENT;
	if (frag ? s->raw_frags : s->raw_data) {
		job->probed_raw = 0;
		job->size_word = job->raw_len | WR_BLOCK_RAW;
		return 0;
	}
	job->probed_raw = s->probe && probe_incompressible(job->raw, job->raw_len,
							   (struct probe_scratch *)w->scratch);
	if (job->probed_raw) {
		job->size_word = job->raw_len | WR_BLOCK_RAW;
		return 0;
	}
	n = sqp_compress(w->codec, job->raw, job->raw_len, job->out, job->raw_len);
	if (n < 0)
		return sqp_compress_status(n);
	job->size_word = n > 0 ? (uint32_t)n : (job->raw_len | WR_BLOCK_RAW);
	return 0;
}

static int alloc_jobs(struct compress_stage *c, size_t count)
{
	size_t i;

	c->jobs = calloc(count, sizeof(c->jobs[0]));
	if (c->jobs == NULL)
		return SQP_ERR_NOMEM;
	c->job_count = count;
	/* The buffers come with a job's first use (compress_get_job): a
	 * merge whose blocks are all copied in the kernel (compress_copy)
	 * uses few jobs, and mapping and unmapping all 100 buffers of 128
	 * KiB at -j 2 was a tenth of the CPU of merging a 0.5 MB shard
	 * (mmap and munmap calls: 192 and 134 then, 92 and 33 now). */
	for (i = 0; i < count; ++i) {
		c->jobs[i].set = &c->set;
		if (c->set.hash != NULL &&
		    (c->jobs[i].span = malloc(c->out->tap.span_size)) == NULL)
			return SQP_ERR_NOMEM;
		c->jobs[i].next_free = c->free_jobs;
		c->free_jobs = &c->jobs[i];
	}
	return 0;
}

int compress_create(const struct compress_desc *desc, struct compress_stage **out)
{
	struct compress_stage *c = calloc(1, sizeof(*c));
	struct sqp_pool_desc pd = { .run = run_job, .worker_init = sqp_codec_worker_init,
				    .worker_fini = sqp_codec_worker_fini };
	unsigned w, depth;
	int ret;

	*out = c;
	if (c == NULL)
		return SQP_ERR_NOMEM;
	c->wdesc.cfg = *desc->codec;
	c->wdesc.scratch_size = sizeof(struct probe_scratch);
	c->set = (struct compress_settings){
		.probe = desc->probe, .raw_data = desc->raw_data,
		.raw_frags = desc->raw_frags, .fail_job = desc->fail_job,
		.fd = desc->out->fd, .base = desc->out->base,
		.hash = desc->out->tap.hash,
	};
	c->out = desc->out;
	c->err = desc->err;
	c->stats = desc->stats;
	c->written = desc->written;
	c->user = desc->user;
	c->block_size = desc->codec->block_size;
	pd.ctx = &c->wdesc;
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
	sqp_pipeline_size(desc->jobs, depth, 2 * (size_t)c->block_size,
			  JOB_MEMORY_BUDGET - 4 * (size_t)c->block_size,
			  &pd.workers, &pd.capacity);
	ret = alloc_jobs(c, pd.capacity + 2);
	if (ret == 0)
		ret = sqp_pool_create(&pd, &c->pool);
	if (ret == 0)
		ret = imgout_start_async(c->out, c->job_count);
	return ret;
}

void compress_destroy(struct compress_stage *c)
{
	size_t i;

	if (c == NULL)
		return;
	sqp_pool_destroy(c->pool);
	imgout_stop_async(c->out);
	for (i = 0; c->jobs != NULL && i < c->job_count; ++i) {
		free(c->jobs[i].raw);
		free(c->jobs[i].out);
		free(c->jobs[i].span);
	}
	free(c->jobs);
	free(c);
}

unsigned compress_workers(const struct compress_stage *c)
{
	return sqp_pool_workers(c->pool);
}

size_t compress_job_count(const struct compress_stage *c)
{
	return c->job_count;
}

/* Queue a finished job's bytes to the image and tell its owner where. */
static int write_job(struct compress_stage *c, struct blk_job *job)
{
	uint32_t disk_len = job->size_word & WR_BLOCK_SIZE_MASK;
	const uint8_t *bytes = job->out;
	uint64_t pos = c->out->pos;
	int ret, placed;

	/* A block stored raw by the codec here (compressed or converted) is
	 * in raw[]; a base block copied as it is, raw or not, in out[]. */
	if ((job->size_word & WR_BLOCK_RAW) &&
	    (job->kind == JOB_BLOCK || job->kind == JOB_FRAGMENT ||
	     (job->kind >= JOB_BASE_BLOCK && job->recode != NULL))) {
		bytes = job->raw;
		c->stats->blocks_raw++;
		c->stats->blocks_probed_raw += job->probed_raw;
	}
	/* In image order: the tap sees these bytes where they will lie. */
	placed = job->span != NULL ? c->out->tap.place(c->out->tap.ctx, bytes, disk_len,
							job->span) : 0;
	ret = placed < 0 ? placed : imgout_queue(c->out, bytes, disk_len, job);
	if (ret != 0)
		return ret;
	/* Back to the pool to hash what the tap placed, in the background:
	 * a worker takes it when no block waits to be compressed, so the
	 * hash fills the gaps of the ordered work (and the serial finish)
	 * instead of queueing before the next blocks. */
	job->holds = 1 + placed;
	job->hashing = placed;
	if (placed > 0)
		sqp_pool_submit_background(c->pool, &job->base);
	if (job->kind == JOB_FRAGMENT || job->kind == JOB_BASE_FRAGMENT)
		c->stats->fragment_blocks++;
	else
		c->stats->blocks_written++;
	c->written(c->user, job, pos);
	return 0;
}

/* The writer thread or the hash is done with job: free once both are. */
static void release(struct compress_stage *c, struct blk_job *job)
{
	if (--job->holds == 0)
		compress_put_job(c, job);
}

/* Take back the hashes that are done, after waiting for the first one
 * (HASHES_ONE) or for all (HASHES_ALL) when any is left: 0, or the first
 * one's error, latched. */
enum { HASHES_DONE, HASHES_ONE, HASHES_ALL };
static int reap_hashes(struct compress_stage *c, int wait)
{
	struct blk_job *job;
	int ret = 0;

	while ((job = (struct blk_job *)sqp_pool_reap_background(c->pool, wait != HASHES_DONE)) != NULL) {
		if (wait == HASHES_ONE)
			wait = HASHES_DONE;
		job->hashing = 0;
		if (job->base.status != 0 && ret == 0)
			ret = sqp_err(c->err, job->base.status, "hashing the image for dm-verity: %s",
				      sqp_strerror(job->base.status));
		release(c, job);
	}
	return ret != 0 ? ret : c->err->code;
}

int compress_retire_one(struct compress_stage *c)
{
	struct blk_job *job = (struct blk_job *)sqp_pool_wait(c->pool);
	int ret;

	if (job == NULL)
		return sqp_err(c->err, SQP_ERR_INTERNAL, "nothing to retire");
	ret = job->base.status;
	if (ret != 0 && job->kind == JOB_COPY) {
		sqp_err(c->err, ret, "reading back a block: %s", sqp_strerror(ret));
	} else if (ret != 0 && job->kind >= JOB_BASE_BLOCK) {
		sqp_err(c->err, ret, "%s a block of the base image at %llu: %s",
			job->recode != NULL ? "converting" : "reading",
			(unsigned long long)job->copy_from, sqp_strerror(ret));
	} else if (ret != 0) {
		sqp_err(c->err, ret, "compressing a block: %s", sqp_strerror(ret));
	} else if (c->err->code == 0) {
		ret = write_job(c, job);
		if (ret == 0)
			return 0; /* the writer thread hands it back */
	}
	compress_put_job(c, job);
	return ret != 0 ? ret : c->err->code;
}

/* Get one job back: written by the writer thread if one is, else retire
 * the oldest in the pool, else wait for the writer. */
static int reclaim(struct compress_stage *c)
{
	void *token;
	int ret = reap_hashes(c, HASHES_DONE);

	if (ret != 0 || c->free_jobs != NULL)
		return ret;
	ret = imgout_reap(c->out, 0, &token);
	if (ret == 0 && sqp_pool_in_flight(c->pool) > 0)
		return compress_retire_one(c);
	if (ret == 0)
		ret = imgout_reap(c->out, 1, &token);
	/* Every job left waits for its hash. */
	if (ret == 0 && (ret = reap_hashes(c, HASHES_ONE)) == 0 && c->free_jobs == NULL)
		ret = sqp_err(c->err, SQP_ERR_INTERNAL, "no job to reclaim");
	if (ret <= 0)
		return ret;
	release(c, token);
	return 0;
}

struct blk_job *compress_get_job(struct compress_stage *c)
{
	struct blk_job *job;

	while (c->free_jobs == NULL) {
		if (reclaim(c) != 0)
			return NULL;
	}
	job = c->free_jobs;
	if (job->raw == NULL)
		job->raw = sqp_iobuf_alloc(c->block_size);
	if (job->out == NULL)
		job->out = sqp_iobuf_alloc(c->block_size);
	if (job->raw == NULL || job->out == NULL) {
		sqp_err(c->err, SQP_ERR_NOMEM, "out of memory");
		return NULL;
	}
	c->free_jobs = job->next_free;
	job->next_free = NULL;
	return job;
}

void compress_put_job(struct compress_stage *c, struct blk_job *job)
{
	job->next_free = c->free_jobs;
	c->free_jobs = job;
}

int compress_submit(struct compress_stage *c, struct blk_job *job)
{
	int ret;

	while (sqp_pool_full(c->pool)) {
		ret = compress_retire_one(c);
		if (ret != 0) {
			compress_put_job(c, job);
			return ret;
		}
	}
	sqp_pool_submit(c->pool, &job->base);
	return 0;
}

int compress_flush(struct compress_stage *c)
{
	int ret;

	while (sqp_pool_in_flight(c->pool) > 0) {
		ret = compress_retire_one(c);
		if (ret != 0)
			return ret;
	}
	/* The digests are all in before finish reads them. */
	if ((ret = reap_hashes(c, HASHES_ALL)) != 0)
		return ret;
	return imgout_wait_written(c->out, UINT64_MAX);
}

int compress_can_copy(const struct compress_stage *c)
{
	return c->out->tap.feed == NULL;
}

int compress_copy(struct compress_stage *c, int kind, uint32_t index, uint32_t word,
		  int fd, uint64_t from)
{
	/* What the written callback reads of a job. */
	struct blk_job job = { .kind = kind, .index = index, .size_word = word };
	uint64_t pos;
	int ret;

	/* The image's order is the submission order: every job before
	 * this block goes first. */
	while (sqp_pool_in_flight(c->pool) > 0) {
		if ((ret = compress_retire_one(c)) != 0)
			return ret;
	}
	pos = c->out->pos;
	if ((ret = imgout_copy(c->out, fd, from, word & WR_BLOCK_SIZE_MASK)) != 0)
		return ret;
	if (kind == JOB_BASE_FRAGMENT)
		c->stats->fragment_blocks++;
	else
		c->stats->blocks_written++;
	c->written(c->user, &job, pos);
	return 0;
}
