/* SPDX-License-Identifier: MIT */
/*
 * tailhash.c - the census's tails hashed (tails.h): every fragment
 * block that holds one decoded once, a job per block on a pool of the
 * writer's -j workers.
 *
 * Why a pool: decoding is most of what the census of a merge costs,
 * and before the first block is copied nothing else runs. Where names
 * and mtimes nominate few tails (expect.c's narrow; big.tar's 4 zstd
 * shards: 135 fragment blocks, 16 ms of CPU on the merging thread)
 * the pool costs 3 ms more for its threads and its wall went either
 * way on a loaded machine (small.tar: 21 ms against 36; big.tar: 69
 * against 43); where they nominate
 * many (every tail of a size in two shards, as when a build clamps
 * every mtime: 850 blocks, 110-113 ms of CPU) it took the census from
 * 460 to 149 ms of wall at -j 2, at the same CPU (load 28). The
 * blocks are independent: a job writes only the tails of its own block,
 * a range of the list that no other job touches, and jobs are taken
 * back in the order they were submitted, so the error reported is the
 * same for any -j. The jobs' buffers fit in TAIL_BUDGET whatever -j and
 * the block size are.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_worker.h"
#include "read/rd_image.h"
#include "rebuild/tails.h"
#include "sqpack/error.h"
#include "util/pipeline.h"
#include "util/pool.h"
#include "write/words.h"

/* All jobs' buffers (2 x the block size each) within this. */
#define TAIL_BUDGET (8u << 20)
/* Jobs in flight per worker. */
#define TAIL_DEPTH 4u

struct tail_job {
	struct sqp_pool_job base;
	const struct sqp_image *img;
	struct tail *tails;       /* count tails, all of one fragment block */
	size_t count;
	uint8_t *in, *raw;        /* the largest block size each */
	int past_end;             /* failed on a tail past the block's end */
};

/* The fragment block of the job's tails read and decoded, the tails'
 * hashes taken. */
static int run_job(void *ctx, void *state, struct sqp_pool_job *base)
{
	struct tail_job *j = (struct tail_job *)base;
	const struct sqp_image *img = j->img;
	const struct tail *t = j->tails;
	uint32_t stored = t->word & WR_BLOCK_SIZE_MASK, bs = img->block_size, len, n;
	struct sqp_compressor *dec;
	int got;

	(void)ctx;
	if (stored == 0 || stored > bs || t->start > img->end ||
	    stored > img->end - t->start || rd_pread(img, t->start, j->in, stored) != 0)
		return SQP_ERR_CORRUPT;
	if (t->word & WR_BLOCK_RAW) {
		memcpy(j->raw, j->in, stored);
		got = (int)stored;
	} else if ((got = sqp_codec_worker_decoder(state, &img->codec_cfg, &dec)) == 0) {
		got = sqp_decompress(dec, j->in, stored, j->raw, bs);
	}
	if (got == SQP_ERR_NOMEM)
		return got;
	if (got <= 0)
		return SQP_ERR_CORRUPT;
	len = (uint32_t)got;
	for (size_t i = 0; i < j->count; i++) {
		struct tail *x = &j->tails[i];

		n = (uint32_t)(x->size % bs);
		if (x->offset > len || n > len - x->offset) {
			j->past_end = 1;
			return SQP_ERR_CORRUPT;
		}
		x->hash = XXH3_128bits(j->raw + x->offset, n);
		x->len = n;
		x->block_len = len;
	}
	return 0;
}

/* The oldest job back: 0, or its failure latched. */
static int take_back(struct sqp_writer *w, struct sqp_pool *pool)
{
	const struct tail_job *j = (const struct tail_job *)sqp_pool_wait(pool);

	if (j->base.status == 0)
		return 0;
	if (j->base.status == SQP_ERR_NOMEM)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	if (j->past_end)
		return writer_fail(w, SQP_ERR_CORRUPT, "a tail past the end of "
				   "fragment block %u of an image", j->tails->index);
	return writer_fail(w, SQP_ERR_CORRUPT, "fragment block %u of an image "
			   "does not decode", j->tails->index);
}

static int same_block(const struct tail *a, const struct tail *b)
{
	return a->img == b->img && a->index == b->index;
}

int tails_hash(struct sqp_writer *w, struct tails *t)
{
	struct sqp_codec_worker_desc wd = { .no_codec = 1 };
	struct sqp_pool_desc pd = { .run = run_job, .worker_init = sqp_codec_worker_init,
				    .worker_fini = sqp_codec_worker_fini, .ctx = &wd };
	struct sqp_pool *pool = NULL;
	struct tail_job *jobs = NULL, *job;
	uint32_t bs = 0;
	size_t i, j, k;
	int ret = 0;

	if (t->n == 0)
		return 0;
	for (i = 0; i < w->expect_count; i++)
		if (w->expect[i].img->block_size > bs)
			bs = w->expect[i].img->block_size;
	sqp_pipeline_size(w->desc.jobs, TAIL_DEPTH, 2 * (size_t)bs, TAIL_BUDGET,
			  &pd.workers, &pd.capacity);
	if ((jobs = calloc(pd.capacity, sizeof(*jobs))) == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	for (k = 0; k < pd.capacity && ret == 0; k++)
		if ((jobs[k].in = malloc(bs)) == NULL || (jobs[k].raw = malloc(bs)) == NULL)
			ret = writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0 && sqp_pool_create(&pd, &pool) != 0)
		ret = writer_fail(w, SQP_ERR_NOMEM, "cannot start the census's workers");
	/* job k in slot k % capacity: the pool is full when job k - capacity,
	 * the oldest, still holds that slot */
	for (i = 0, k = 0; i < t->n && ret == 0; i = j, k++) {
		for (j = i + 1; j < t->n && same_block(&t->v[j], &t->v[i]); j++)
			;
		if (sqp_pool_full(pool) && (ret = take_back(w, pool)) != 0)
			break;
		job = &jobs[k % pd.capacity];
		job->img = w->expect[t->v[i].img].img;
		job->tails = &t->v[i];
		job->count = j - i;
		job->past_end = 0;
		sqp_pool_submit(pool, &job->base);
	}
	while (ret == 0 && sqp_pool_in_flight(pool) > 0)
		ret = take_back(w, pool);
	sqp_pool_destroy(pool);
	for (k = 0; k < pd.capacity; k++) {
		free(jobs[k].in);
		free(jobs[k].raw);
	}
	free(jobs);
	return ret;
}
