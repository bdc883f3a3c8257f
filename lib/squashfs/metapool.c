/* SPDX-License-Identifier: MIT */
/*
 * metapool.c - metadata blocks of the inode and directory tables
 * compressed on a pool (see metapool.h for the contract).
 *
 * A job of the window is free, waiting in its table's queue (cut, with a
 * placeholder not yet resolvable), or in the pool. Each table submits its
 * blocks in order, so the pool, which hands jobs back in submission order,
 * hands each table its blocks in order; appending one fills in the start
 * of the next (starts[done]). Block b of table t may go once every
 * placeholder in it names a block k of the other table with k <= done
 * there: the start of block k is the sum of the sizes of blocks 0..k-1.
 *
 * No deadlock: a placeholder names a block of the other table that was
 * open when it was written, so every block it depends on was cut before
 * the block holding the placeholder. When the pool is empty, the block
 * cut first among the waiting ones therefore depends only on blocks
 * already appended and can go.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "squashfs/metapool.h"
#include "squashfs/metawriter.h"
#include "util/array.h"
#include "util/endian.h"
#include "util/spill.h"

/* Blocks cut and not yet appended: 256 x 16 KiB = 4 MiB at most. */
#define META_POOL_WINDOW 256
/* Each worker's codec context can take megabytes (xz with 1 MiB blocks:
 * some 3 MiB), and the tables are a small part of the work: 8 workers
 * keep the tail short without 64 contexts at -j 64. */
#define META_POOL_WORKERS 8

struct meta_job {
	struct sqp_pool_job base;
	int table;
	uint32_t block;          /* its index in the table */
	uint32_t len;
	int n;                   /* bytes in out, header included */
	uint8_t raw[SQFS_META_SIZE];
	uint8_t out[SQFS_META_SIZE + 2];
	struct meta_job *next;   /* free list or waiting queue */
};

/* Runs on a worker: touches only the job and the worker's own state. */
static int run_job(void *ctx, void *state, struct sqp_pool_job *base)
{
	const struct meta_pool *m = ctx;
	struct meta_job *job = (struct meta_job *)base;
	struct sqp_codec_worker *w = state;

	if (m->fail_job != 0 && base->seq + 1 == m->fail_job)
		return SQP_ERR_COMPRESSOR;
	job->n = meta_encode_block(w->codec, job->raw, job->len, job->out);
	return job->n < 0 ? job->n : 0;
}

int meta_pool_init(struct meta_pool *m, const struct sqp_codec_config *codec,
		   unsigned workers, uint64_t fail_job, struct sqp_errbuf *err,
		   struct sqp_spill *spill)
{
	struct sqp_pool_desc pd = {
		.workers = workers <= 1 ? 0 : workers < META_POOL_WORKERS ? workers
					     : META_POOL_WORKERS,
		.capacity = META_POOL_WINDOW,
		.run = run_job, .worker_init = sqp_codec_worker_init,
		.worker_fini = sqp_codec_worker_fini, .ctx = m,
	};
	int t, ret;

	memset(m, 0, sizeof(*m));
	m->err = err;
	m->spill = spill;
	m->fail_job = fail_job;
	m->wdesc.no_codec = codec == NULL;
	if (codec != NULL)
		m->wdesc.cfg = *codec;
	/* Untouched until get_job hands them out: a small image's tables
	 * take a few of the window's 4 MiB, and calloc's pages of the rest
	 * are never faulted in (256 page faults a merge of small shards
	 * paid for nothing). */
	m->jobs = calloc(META_POOL_WINDOW, sizeof(m->jobs[0]));
	if (m->jobs == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	for (t = 0; t < META_TABLES; ++t) {
		m->t[t].starts_cap = 64;
		m->t[t].starts = calloc(m->t[t].starts_cap, sizeof(uint64_t));
		if (m->t[t].starts == NULL)
			return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	}
	ret = sqp_pool_create(&pd, &m->pool);
	if (ret != 0)
		return sqp_err(err, ret, "starting the metadata compressors: %s",
			       sqp_strerror(ret));
	return 0;
}

void meta_pool_cleanup(struct meta_pool *m)
{
	int t;

	/* Joins the workers first: no job is in use after this. */
	sqp_pool_destroy(m->pool);
	for (t = 0; t < META_TABLES; ++t) {
		free(m->t[t].starts);
		sqp_spill_free(m->spill, m->t[t].out, m->t[t].out_cap);
		free(m->t[t].fix);
	}
	free(m->jobs);
	memset(m, 0, sizeof(*m));
}

int meta_grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	void *p = sqp_array_grow(*arr, cap, need, elem, 64);

	if (p == NULL)
		return SQP_ERR_NOMEM;
	*arr = p;
	return 0;
}

/* A finished job: its block is the next of its table. */
static int append_result(struct meta_pool *m, struct meta_job *job)
{
	struct meta_table *t = &m->t[job->table];

	uint8_t *out = sqp_spill_grow(m->spill, t->out, &t->out_cap,
				      t->out_len + (size_t)job->n, 1, 64 << 10);

	if (out == NULL)
		return sqp_err(m->err, SQP_ERR_NOMEM, "out of memory");
	t->out = out;
	if (meta_grow((void **)&t->starts, &t->starts_cap, (size_t)t->done + 2,
		      sizeof(uint64_t)) != 0)
		return sqp_err(m->err, SQP_ERR_NOMEM, "out of memory");
	sqp_spill_tick(m->spill);
	memcpy(t->out + t->out_len, job->out, (size_t)job->n);
	t->out_len += (size_t)job->n;
	t->done++;
	t->starts[t->done] = t->out_len;
	return 0;
}

static int retire_one(struct meta_pool *m)
{
	struct meta_job *job = (struct meta_job *)sqp_pool_wait(m->pool);
	int ret;

	if (job == NULL)
		return sqp_err(m->err, SQP_ERR_INTERNAL, "no metadata block in flight");
	ret = job->base.status;
	if (ret != 0)
		sqp_err(m->err, ret, "compressing a metadata block: %s", sqp_strerror(ret));
	else if (m->err->code == 0)
		ret = append_result(m, job);
	job->next = m->free_jobs;
	m->free_jobs = job;
	return ret != 0 ? ret : m->err->code;
}

/* Whether the oldest waiting block of table t can be resolved; with
 * apply, write the physical starts into it and drop the placeholders
 * that end in it. */
static int resolve_head(struct meta_pool *m, int t, int apply)
{
	struct meta_table *tb = &m->t[t];
	const struct meta_table *other = &m->t[1 - t];
	struct meta_job *job = tb->wait_head;
	uint64_t first = (uint64_t)job->block * SQFS_META_SIZE, end = first + job->len;
	size_t i;

	for (i = tb->fix_head; i < tb->fix_count && tb->fix[i].pos < end; ++i) {
		const struct meta_fixup *f = &tb->fix[i];
		uint8_t v[4];
		int b;

		if (f->target > other->done)
			return 0;
		if (!apply)
			continue;
		sqp_put32(v, (uint32_t)other->starts[f->target]);
		for (b = 0; b < 4; ++b) {
			if (f->pos + (uint64_t)b >= first && f->pos + (uint64_t)b < end)
				job->raw[f->pos + (uint64_t)b - first] = v[b];
		}
		if (f->pos + 4 <= end)
			tb->fix_head = i + 1;
	}
	return 1;
}

/* Submit every waiting block that can be resolved, in order per table. */
static void pump(struct meta_pool *m)
{
	int t, moved = 1;

	while (moved) {
		moved = 0;
		for (t = 0; t < META_TABLES; ++t) {
			struct meta_table *tb = &m->t[t];

			while (tb->wait_head != NULL && !sqp_pool_full(m->pool) &&
			       resolve_head(m, t, 0)) {
				struct meta_job *job = tb->wait_head;

				resolve_head(m, t, 1);
				tb->wait_head = job->next;
				if (tb->wait_head == NULL)
					tb->wait_tail = NULL;
				sqp_pool_submit(m->pool, &job->base);
				moved = 1;
			}
		}
	}
}

/* A free job: retire blocks (and submit what that resolves) until one is. */
static int get_job(struct meta_pool *m, struct meta_job **out)
{
	int ret;

	while (m->free_jobs == NULL && m->jobs_used == META_POOL_WINDOW) {
		if (sqp_pool_in_flight(m->pool) == 0)
			return sqp_err(m->err, SQP_ERR_INTERNAL,
				       "metadata blocks wait for each other");
		ret = retire_one(m);
		if (ret != 0)
			return ret;
		pump(m);
	}
	if (m->free_jobs == NULL) {
		*out = &m->jobs[m->jobs_used++];
		return 0;
	}
	*out = m->free_jobs;
	m->free_jobs = (*out)->next;
	return 0;
}

/* Hand off the open block of table t (fill bytes). */
static int cut_block(struct meta_pool *m, int t)
{
	struct meta_table *tb = &m->t[t];
	struct meta_job *job = NULL;
	int ret = get_job(m, &job);

	if (ret != 0)
		return ret;
	job->table = t;
	job->block = tb->cut++;
	job->len = (uint32_t)tb->fill;
	job->next = NULL;
	memcpy(job->raw, tb->block, tb->fill);
	tb->fill = 0;
	if (tb->wait_tail == NULL)
		tb->wait_head = job;
	else
		tb->wait_tail->next = job;
	tb->wait_tail = job;
	pump(m);
	return 0;
}

int meta_pool_append(struct meta_pool *m, int t, const void *data, size_t len)
{
	struct meta_table *tb = &m->t[t];
	const uint8_t *p = data;
	int ret;

	if (m->err->code != 0)
		return m->err->code;
	/* Callers read the tree's records to make these bytes: a directory
	 * of many entries is one long pass over them. */
	sqp_spill_tick(m->spill);
	tb->total_in += len;
	while (len > 0)
		if (meta_fill_block(tb->block, &tb->fill, &p, &len) &&
		    (ret = cut_block(m, t)) != 0)
			return ret;
	return 0;
}

int meta_pool_fixup(struct meta_pool *m, int t, size_t off, uint32_t target)
{
	struct meta_table *tb = &m->t[t];

	/* Resolved placeholders are dropped from the front now and then. */
	if (tb->fix_head > 0 && tb->fix_head * 2 >= tb->fix_count) {
		memmove(tb->fix, tb->fix + tb->fix_head,
			(tb->fix_count - tb->fix_head) * sizeof(tb->fix[0]));
		tb->fix_count -= tb->fix_head;
		tb->fix_head = 0;
	}
	if (meta_grow((void **)&tb->fix, &tb->fix_cap, tb->fix_count + 1, sizeof(tb->fix[0])) != 0)
		return sqp_err(m->err, SQP_ERR_NOMEM, "out of memory");
	tb->fix[tb->fix_count++] = (struct meta_fixup){ tb->total_in + off, target };
	return 0;
}

int meta_pool_finish(struct meta_pool *m)
{
	int t, ret = 0;

	for (t = 0; t < META_TABLES && ret == 0; ++t) {
		if (m->t[t].fill > 0)
			ret = cut_block(m, t);
	}
	while (ret == 0 && (m->t[0].wait_head != NULL || m->t[1].wait_head != NULL ||
			    sqp_pool_in_flight(m->pool) > 0)) {
		if (sqp_pool_in_flight(m->pool) == 0)
			return sqp_err(m->err, SQP_ERR_INTERNAL,
				       "metadata blocks wait for each other");
		ret = retire_one(m);
		if (ret == 0)
			pump(m);
	}
	return ret != 0 ? ret : m->err->code;
}
