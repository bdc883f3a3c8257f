/* SPDX-License-Identifier: MIT */
/*
 * proof.c - the proof ring: dedup proofs on worker threads (see proof.h).
 *
 * A proof is submitted only once its candidates are retired (queued to
 * the image writer thread), so their offsets are known and the worker
 * only waits for the writer thread, never for the orchestrator: no
 * cycle. Workers read the image with pread() on its descriptor and touch
 * nothing but the job and their own scratch; the decisions are the
 * orchestrator's alone. The pool's ctx is the workers' codec
 * description; what else a worker reads comes with each job.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_worker.h"
#include "sqpack/error.h"
#include "util/fileio.h"
#include "util/pipeline.h"
#include "util/pool.h"
#include "write/proof.h"
#include "write/words.h"

/* Proofs in flight: a long run that reroutes submits one per block. */
#define PROOF_JOBS 64
/* Decompressing is several times cheaper than compressing, and each
 * worker holds two blocks of scratch: a few keep up with any -j. */
#define PROOF_WORKERS_MAX 4

#define PROOF_FETCH (PROOF_SAME + 1) /* decompress into dst, no answer */

/* The image as the workers read it; not written while they run. */
struct proof_io {
	struct imgout_async *async;    /* the image writer thread */
	int fd;
	uint64_t base;                 /* file offset of image position 0 */
	uint32_t block_size;
};

struct proof_job {
	struct sqp_pool_job base;
	const struct proof_io *io;
	int kind;
	int equal;             /* the answer, set by the worker */
	uint64_t decision;     /* the decision it belongs to */
	uint64_t off_a, off_b; /* image offsets */
	uint32_t size_a;       /* on-disk size words (PROOF_SAME: equal) */
	uint32_t len;          /* PROOF_BLOCK: bytes at raw; FETCH: out */
	const uint8_t *raw;
	uint8_t *dst;          /* FETCH: block_size bytes */
};

/* One block's decision, made before its proofs were back. */
struct proof_decision {
	uint32_t block;        /* block number in the file */
	uint32_t open;         /* proofs not back yet */
	int failed;            /* a proof came back unequal */
	int held;              /* the caller keeps job (the run broke here) */
	void *job;             /* the block's bytes */
	struct proof_undo undo;
};

struct proof_ring {
	struct sqp_codec_worker_desc wdesc; /* the pool's ctx */
	struct proof_io io;
	struct imgout *out;
	struct sqp_errbuf *err;
	struct sqp_writer_stats *stats;
	void (*release)(void *user, void *job);
	void *user;

	struct sqp_pool *pool;
	struct proof_job *jobs;
	uint64_t submitted, returned;

	struct proof_decision *dec;    /* ring, oldest first */
	size_t dec_cap;
	uint64_t dec_first, dec_end;
	int active;                    /* a decision is open */

	int fetch_out;                 /* a fetch is not back yet */
	uint32_t fetch_len;            /* the last fetch's length */
};

/* The uncompressed bytes of the stored block read into disk: disk itself
 * when it was stored raw, else decompressed into out (block_size bytes).
 * Returns their length or a negative error. */
static int plain_bytes(const struct proof_io *io, struct sqp_codec_worker *w,
		       uint32_t size_word, const uint8_t *disk, uint8_t *out,
		       const uint8_t **plain)
{
	uint32_t disk_len = size_word & WR_BLOCK_SIZE_MASK;

	if (size_word & WR_BLOCK_RAW) {
		*plain = disk;
		return (int)disk_len;
	}
	*plain = out;
	return sqp_decompress(w->codec, disk, disk_len, out, io->block_size);
}

static int run_proof(void *ctx, void *state, struct sqp_pool_job *base)
{
	struct proof_job *j = (struct proof_job *)base;
	const struct proof_io *io = j->io;
	struct sqp_codec_worker *w = state;
	uint32_t disk_len = j->size_a & WR_BLOCK_SIZE_MASK;
	uint64_t end = j->off_a + disk_len;
	uint8_t *disk = w->scratch + sqp_iobuf_skew(io->base + j->off_a);
	uint8_t *other = w->scratch + io->block_size + SQP_IOBUF_SKEW;
	const uint8_t *plain;
	int n, ret;

	(void)ctx;
	j->equal = 0;
	if (j->kind == PROOF_SAME && j->off_b + disk_len > end)
		end = j->off_b + disk_len;
	ret = imgout_wait_durable(io->async, end);
	if (ret == 0)
		ret = sqp_pread_full(io->fd, io->base + j->off_a, disk, disk_len);
	if (ret != 0)
		return ret;
	if (j->kind == PROOF_SAME) {
		other += sqp_iobuf_skew(io->base + j->off_b);
		ret = sqp_pread_full(io->fd, io->base + j->off_b, other, disk_len);
		j->equal = ret == 0 && memcmp(disk, other, disk_len) == 0;
		return ret;
	}
	n = plain_bytes(io, w, j->size_a, disk,
			j->kind == PROOF_FETCH ? j->dst : other, &plain);
	if (n < 0)
		return n;
	if (j->kind == PROOF_FETCH) {
		if (plain != j->dst)
			memcpy(j->dst, plain, (size_t)n);
		j->len = (uint32_t)n;
		return 0;
	}
	j->equal = (uint32_t)n == j->len && memcmp(plain, j->raw, j->len) == 0;
	return 0;
}

int proof_ring_create(const struct proof_ring_desc *desc, struct proof_ring **out)
{
	struct proof_ring *r;
	struct sqp_pool_desc pd = {
		.workers = desc->workers < PROOF_WORKERS_MAX ? desc->workers : PROOF_WORKERS_MAX,
		.capacity = PROOF_JOBS, .run = run_proof,
		.worker_init = sqp_codec_worker_init,
		.worker_fini = sqp_codec_worker_fini,
	};
	size_t i;

	*out = NULL;
	if (desc->workers == 0 || desc->max_decisions == 0)
		return 0;
	r = calloc(1, sizeof(*r));
	*out = r;
	if (r == NULL)
		return SQP_ERR_NOMEM;
	r->wdesc.cfg = *desc->codec;
	/* Two blocks, each at any offset's skew (util/fileio.h). */
	r->wdesc.scratch_size = 2 * ((size_t)desc->codec->block_size + SQP_IOBUF_SKEW);
	pd.ctx = &r->wdesc;
	r->io = (struct proof_io){
		.async = desc->out->async, .fd = desc->out->fd,
		.base = desc->out->base, .block_size = desc->codec->block_size,
	};
	r->out = desc->out;
	r->err = desc->err;
	r->stats = desc->stats;
	r->release = desc->release;
	r->user = desc->user;
	r->dec_cap = desc->max_decisions;
	r->jobs = calloc(PROOF_JOBS, sizeof(r->jobs[0]));
	r->dec = calloc(r->dec_cap, sizeof(r->dec[0]));
	if (r->jobs == NULL || r->dec == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < PROOF_JOBS; ++i)
		r->jobs[i].io = &r->io;
	return sqp_pool_create(&pd, &r->pool);
}

void proof_ring_destroy(struct proof_ring *r)
{
	if (r == NULL)
		return;
	sqp_pool_destroy(r->pool);
	free(r->jobs);
	free(r->dec);
	free(r);
}

void proof_begin(struct proof_ring *r, uint32_t block, void *job,
		 const struct proof_undo *undo)
{
	struct proof_decision *d = &r->dec[r->dec_end++ % r->dec_cap];

	memset(d, 0, sizeof(*d));
	d->block = block;
	d->job = job;
	d->undo = *undo;
	r->active = 1;
}

void proof_end(struct proof_ring *r, int held)
{
	r->dec[(r->dec_end - 1) % r->dec_cap].held = held;
	r->active = 0;
}

int proof_deciding(const struct proof_ring *r)
{
	return r->active;
}

int proof_full(const struct proof_ring *r)
{
	return r->dec_end - r->dec_first >= r->dec_cap;
}

/* Take the oldest proof back and note its answer. */
static int take_back(struct proof_ring *r)
{
	struct proof_job *j = (struct proof_job *)sqp_pool_wait(r->pool);
	struct proof_decision *d;

	if (j == NULL)
		return sqp_err(r->err, SQP_ERR_INTERNAL, "no proof to take back");
	r->returned++;
	if (j->base.status != 0) {
		/* A failed image write stops the proofs that wait for it:
		 * report the write, as a synchronous read-back would. */
		int ret = imgout_wait_written(r->out, 0);

		return ret != 0 ? ret : sqp_err(r->err, j->base.status,
						 "reading back a block: %s",
						 sqp_strerror(j->base.status));
	}
	if (j->kind == PROOF_FETCH) {
		r->fetch_len = j->len;
		r->fetch_out = 0;
		return 0;
	}
	d = &r->dec[j->decision % r->dec_cap];
	d->open--;
	if (!j->equal)
		d->failed = 1;
	return 0;
}

/* The next free proof job (waits for the oldest while the pool is full). */
static struct proof_job *next_job(struct proof_ring *r)
{
	struct proof_job *j;

	while (sqp_pool_full(r->pool)) {
		if (take_back(r) != 0)
			return NULL;
	}
	j = &r->jobs[r->submitted++ % PROOF_JOBS];
	memset(j, 0, sizeof(*j));
	j->io = &r->io;
	return j;
}

int proof_submit(struct proof_ring *r, int kind, uint64_t off_a, uint32_t size_a,
		 uint64_t off_b, const uint8_t *raw, uint32_t len)
{
	struct proof_job *j = next_job(r);

	if (j == NULL)
		return r->err->code;
	j->kind = kind;
	j->decision = r->dec_end - 1;
	j->off_a = off_a;
	j->size_a = size_a;
	j->off_b = off_b;
	j->raw = raw;
	j->len = len;
	r->dec[j->decision % r->dec_cap].open++;
	sqp_pool_submit(r->pool, &j->base);
	r->stats->proofs_on_workers++;
	return 0;
}

int proof_fetch(struct proof_ring *r, uint64_t off, uint32_t size_word, uint8_t *dst)
{
	struct proof_job *j;

	if (r->fetch_out)
		return sqp_err(r->err, SQP_ERR_INTERNAL, "a fragment fetch is out already");
	j = next_job(r);
	if (j == NULL)
		return r->err->code;
	j->kind = PROOF_FETCH;
	j->off_a = off;
	j->size_a = size_word;
	j->dst = dst;
	r->fetch_out = 1;
	sqp_pool_submit(r->pool, &j->base);
	return 0;
}

int proof_fetch_busy(const struct proof_ring *r)
{
	return r->fetch_out;
}

int proof_fetch_wait(struct proof_ring *r, uint32_t *len)
{
	int ret;

	while (r->fetch_out) {
		ret = take_back(r);
		if (ret != 0)
			return ret;
	}
	*len = r->fetch_len;
	return 0;
}

int proof_settle(struct proof_ring *r, int all)
{
	struct proof_decision *d;
	int ret;

	while (r->dec_first < r->dec_end) {
		d = &r->dec[r->dec_first % r->dec_cap];
		while (d->open > 0) {
			ret = take_back(r);
			if (ret != 0)
				return ret;
		}
		if (d->failed)
			return 0;
		if (!d->held)
			r->release(r->user, d->job);
		r->dec_first++;
		if (!all)
			break;
	}
	return 0;
}

int proof_failed(const struct proof_ring *r, uint32_t *block, struct proof_undo *undo)
{
	const struct proof_decision *d = &r->dec[r->dec_first % r->dec_cap];

	if (r->dec_first == r->dec_end || !d->failed)
		return 0;
	*block = d->block;
	*undo = d->undo;
	return 1;
}

int proof_drain(struct proof_ring *r)
{
	int ret;

	while (r->returned < r->submitted) {
		ret = take_back(r);
		if (ret != 0)
			return ret;
	}
	return 0;
}

int proof_pop(struct proof_ring *r, uint32_t *block, void **job)
{
	const struct proof_decision *d;

	if (r->dec_first == r->dec_end)
		return 0;
	d = &r->dec[r->dec_first++ % r->dec_cap];
	*block = d->block;
	*job = d->job;
	return 1;
}
