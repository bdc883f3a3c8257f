/* SPDX-License-Identifier: MIT */
/*
 * proof.c - dedup proofs on worker threads (see proof.h).
 *
 * A proof is submitted only once its candidates are retired (queued to
 * the image writer thread), so their offsets are known and the worker
 * only waits for the writer thread, never for the orchestrator: no
 * cycle. Workers read the image with pread() on its descriptor and touch
 * nothing but the job and their own scratch.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "format/sqfs_format.h"
#include "sqpack/error.h"
#include "util/fileio.h"
#include "write/datapipe.h"
#include "write/proof.h"

/* Proofs in flight: a long run that reroutes submits one per block. */
#define PROOF_JOBS 64
/* Decompressing is several times cheaper than compressing, and each
 * worker holds two blocks of scratch: a few keep up with any -j. */
#define PROOF_WORKERS_MAX 4

/* The uncompressed bytes of the stored block read into disk: disk itself
 * when it was stored raw, else decompressed into out (block_size bytes).
 * Returns their length or a negative error. */
static int plain_bytes(const struct proof_stage *s, struct sqp_codec_worker *w,
		       uint32_t size_word, const uint8_t *disk, uint8_t *out,
		       const uint8_t **plain)
{
	uint32_t disk_len = size_word & SQFS_BLOCK_SIZE_MASK;

	if (size_word & SQFS_BLOCK_UNCOMPRESSED) {
		*plain = disk;
		return (int)disk_len;
	}
	*plain = out;
	return sqp_decompress(w->codec, disk, disk_len, out, s->block_size);
}

static int run_proof(void *ctx, void *state, struct sqp_pool_job *base)
{
	const struct proof_stage *s = ctx;
	struct sqp_codec_worker *w = state;
	struct proof_job *j = (struct proof_job *)base;
	uint32_t disk_len = j->size_a & SQFS_BLOCK_SIZE_MASK;
	uint64_t end = j->off_a + disk_len;
	uint8_t *disk = w->scratch + sqp_iobuf_skew(s->base + j->off_a);
	uint8_t *other = w->scratch + s->block_size + SQP_IOBUF_SKEW;
	const uint8_t *plain;
	int n, ret;

	j->equal = 0;
	if (j->kind == PROOF_SAME && j->off_b + disk_len > end)
		end = j->off_b + disk_len;
	ret = imgout_wait_durable(s->async, end);
	if (ret == 0)
		ret = sqp_pread_full(s->fd, s->base + j->off_a, disk, disk_len);
	if (ret != 0)
		return ret;
	if (j->kind == PROOF_SAME) {
		other += sqp_iobuf_skew(s->base + j->off_b);
		ret = sqp_pread_full(s->fd, s->base + j->off_b, other, disk_len);
		j->equal = ret == 0 && memcmp(disk, other, disk_len) == 0;
		return ret;
	}
	n = plain_bytes(s, w, j->size_a, disk,
			j->kind == PROOF_FRAGMENT ? j->dst : other, &plain);
	if (n < 0)
		return n;
	if (j->kind == PROOF_FRAGMENT) {
		if (plain != j->dst)
			memcpy(j->dst, plain, (size_t)n);
		j->len = (uint32_t)n;
		return 0;
	}
	j->equal = (uint32_t)n == j->len && memcmp(plain, j->raw, j->len) == 0;
	return 0;
}

int proof_stage_init(struct datapipe *p, unsigned workers, size_t max_decisions)
{
	struct proof_stage *s = &p->proofs;
	struct sqp_pool_desc pd = {
		.workers = workers < PROOF_WORKERS_MAX ? workers : PROOF_WORKERS_MAX,
		.capacity = PROOF_JOBS, .run = run_proof,
		.worker_init = sqp_codec_worker_init,
		.worker_fini = sqp_codec_worker_fini, .ctx = s,
	};

	memset(s, 0, sizeof(*s));
	if (workers == 0 || max_decisions == 0 || !p->dedup)
		return 0;
	s->wdesc.cfg = p->comp.wdesc.cfg;
	/* Two blocks, each at any offset's skew (util/fileio.h). */
	s->wdesc.scratch_size = 2 * ((size_t)p->block_size + SQP_IOBUF_SKEW);
	s->async = p->out->async;
	s->fd = p->out->fd;
	s->base = p->out->base;
	s->block_size = p->block_size;
	s->job_cap = PROOF_JOBS;
	s->dec_cap = max_decisions;
	s->jobs = calloc(s->job_cap, sizeof(s->jobs[0]));
	s->dec = calloc(s->dec_cap, sizeof(s->dec[0]));
	if (s->jobs == NULL || s->dec == NULL)
		return SQP_ERR_NOMEM;
	return sqp_pool_create(&pd, &s->pool);
}

void proof_stage_cleanup(struct proof_stage *s)
{
	sqp_pool_destroy(s->pool);
	free(s->jobs);
	free(s->dec);
	memset(s, 0, sizeof(*s));
}

void proof_begin(struct datapipe *p, uint32_t block, struct blk_job *job,
		 const struct dedup_run *run)
{
	struct proof_stage *s = &p->proofs;
	struct proof_decision *d = &s->dec[s->dec_end++ % s->dec_cap];

	memset(d, 0, sizeof(*d));
	d->block = block;
	d->job = job;
	d->run = *run;
	d->rerouted = p->stats->dedup_rerouted;
	d->hashed = p->stats->hashed;
	s->active = 1;
}

void proof_end(struct datapipe *p, int held)
{
	struct proof_stage *s = &p->proofs;

	s->dec[(s->dec_end - 1) % s->dec_cap].held = held;
	s->active = 0;
}

int proof_full(const struct datapipe *p)
{
	return p->proofs.dec_end - p->proofs.dec_first >= p->proofs.dec_cap;
}

/* Take the oldest proof back and note its answer. */
static int take_back(struct datapipe *p)
{
	struct proof_stage *s = &p->proofs;
	struct proof_job *j = (struct proof_job *)sqp_pool_wait(s->pool);
	struct proof_decision *d;

	if (j == NULL)
		return sqp_err(p->err, SQP_ERR_INTERNAL, "no proof to take back");
	s->returned++;
	if (j->base.status != 0) {
		/* A failed image write stops the proofs that wait for it:
		 * report the write, as a synchronous read-back would. */
		int ret = imgout_wait_written(p->out, 0);

		return ret != 0 ? ret : sqp_err(p->err, j->base.status,
						 "reading back a block: %s",
						 sqp_strerror(j->base.status));
	}
	if (j->kind == PROOF_FRAGMENT) {
		j->slot->len = j->len;
		j->slot->loading = 0;
		return 0;
	}
	d = &s->dec[j->decision % s->dec_cap];
	d->open--;
	if (!j->equal)
		d->failed = 1;
	return 0;
}

/* The next free proof job (waits for the oldest while the pool is full). */
static struct proof_job *next_job(struct datapipe *p)
{
	struct proof_stage *s = &p->proofs;
	struct proof_job *j;

	while (sqp_pool_full(s->pool)) {
		if (take_back(p) != 0)
			return NULL;
	}
	j = &s->jobs[s->submitted++ % s->job_cap];
	memset(j, 0, sizeof(*j));
	return j;
}

int proof_submit(struct datapipe *p, int kind, uint64_t off_a, uint32_t size_a,
		 uint64_t off_b, const uint8_t *raw, uint32_t len)
{
	struct proof_stage *s = &p->proofs;
	struct proof_job *j = next_job(p);

	if (j == NULL)
		return p->err->code;
	j->kind = kind;
	j->decision = s->dec_end - 1;
	j->off_a = off_a;
	j->size_a = size_a;
	j->off_b = off_b;
	j->raw = raw;
	j->len = len;
	s->dec[j->decision % s->dec_cap].open++;
	sqp_pool_submit(s->pool, &j->base);
	p->stats->proofs_on_workers++;
	return 0;
}

int proof_fetch_fragment(struct datapipe *p, uint64_t off, uint32_t size_word,
			 struct frag_cache_slot *slot)
{
	struct proof_job *j = next_job(p);

	if (j == NULL)
		return p->err->code;
	j->kind = PROOF_FRAGMENT;
	j->off_a = off;
	j->size_a = size_word;
	j->dst = slot->data;
	j->slot = slot;
	slot->loading = 1;
	sqp_pool_submit(p->proofs.pool, &j->base);
	return 0;
}

int proof_wait_fragment(struct datapipe *p, const struct frag_cache_slot *slot)
{
	int ret;

	while (slot->loading) {
		ret = take_back(p);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int proof_settle(struct datapipe *p, int all)
{
	struct proof_stage *s = &p->proofs;
	struct proof_decision *d;
	int ret;

	while (s->dec_first < s->dec_end) {
		d = &s->dec[s->dec_first % s->dec_cap];
		while (d->open > 0) {
			ret = take_back(p);
			if (ret != 0)
				return ret;
		}
		if (d->failed)
			return 0;
		if (!d->held)
			datapipe_put_job(p, d->job);
		s->dec_first++;
		if (!all)
			break;
	}
	return 0;
}

int proof_drain(struct datapipe *p)
{
	struct proof_stage *s = &p->proofs;
	int ret;

	while (s->returned < s->submitted) {
		ret = take_back(p);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int proof_pop(struct datapipe *p, uint32_t *block, struct blk_job **job)
{
	struct proof_stage *s = &p->proofs;
	const struct proof_decision *d;

	if (s->dec_first == s->dec_end)
		return 0;
	d = &s->dec[s->dec_first++ % s->dec_cap];
	*block = d->block;
	*job = d->job;
	return 1;
}

const struct proof_decision *proof_oldest(const struct datapipe *p)
{
	const struct proof_stage *s = &p->proofs;

	return s->dec_first < s->dec_end ? &s->dec[s->dec_first % s->dec_cap] : NULL;
}
