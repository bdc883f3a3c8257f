/* SPDX-License-Identifier: MIT */
/*
 * blockrd_run.c - runs of extents (blockrd_impl.h): the pool's unit of
 * work for a back end whose files are extents (EROFS), so that a job is
 * a read and a decode of many clusters, not of one.
 *
 * Extents whose stored bytes follow one another on disk, of one file or
 * of the files after it, join the open run: one pread covers them all,
 * one pool job decodes each into its place in the run's one buffer. An
 * extent whose bytes the back end read already (an inline pcluster in
 * the metadata) joins whatever run is open, its bytes handed along.
 * Each extent is still a job of its own in the FIFO (BJ_ZPART, light),
 * owned by its entry and retired in order; the first one retired takes
 * the run's job back from the pool, the last one frees the run.
 *
 * The open run is submitted when the next extent does not follow it,
 * when it is full (RUN_OUT decoded bytes, RUN_IN stored, RUN_PARTS
 * extents), before any other job goes to the pool (the pool hands jobs
 * back in submission order, which must be the FIFO's), and when the
 * FIFO's head belongs to it and must be waited for.
 *
 * With 4 KiB pclusters a job used to be one cluster: 10 KiB decoded,
 * a pool hand-off, a malloc and a pread for each. A run of RUN_OUT
 * costs those once for a few dozen clusters.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "read/blockrd_impl.h"
#include "sqpack/error.h"
#include "util/fileio.h"

/* Decoded bytes past which a run takes no more extents (RUN_OUT,
 * blockrd_impl.h); stored bytes and extents likewise. A run of 256 KiB keeps two workers busy with
 * the 64 MiB (ZMEMORY) of decoded bytes in flight, and is 2 to 30
 * clusters of 4 KiB at the usual ratios. */
#define RUN_IN (1u << 20)
#define RUN_PARTS 512u
/* A run's one buffer, its decoded bytes then its stored ones, kept for
 * the next run when the run fits (most do): a buffer malloc'ed and
 * freed per run came from memory the heap had just given back, so the
 * decoder faulted its pages in again, 20,000 faults for small.tar's
 * zstd image at 4 KiB clusters (img2tar -j 2), where fsck.erofs takes
 * 1,300. Only the pages a run uses are touched. */
#define RUN_BUF (RUN_OUT + RUN_IN)

static void run_free(struct rd_blockrd *b, struct brun *r)
{
	/* Parts of a run that ran are done with (and may be reused). */
	for (struct bjob *p = r->first; !r->ran && p != NULL; p = p->rnext) {
		free(p->zin);
		p->zin = NULL;
	}
	*(r->prev != NULL ? &r->prev->next : &b->runs) = r->next;
	if (r->next != NULL)
		r->next->prev = r->prev;
	if (b->run_open == r)
		b->run_open = NULL;
	if (r->kept && b->run_bufs_count < b->run_bufs_max)
		b->run_bufs[b->run_bufs_count++] = r->out;
	else
		free(r->out);
	free(r);
}

void rd_blockrd_runs_free(struct rd_blockrd *b)
{
	while (b->runs != NULL)
		run_free(b, b->runs);
	while (b->run_bufs_count > 0)
		free(b->run_bufs[--b->run_bufs_count]);
	free(b->run_bufs);
	b->run_bufs = NULL;
}

/* Run r's buffer: a kept one when r fits RUN_BUF's halves. Buffers are
 * kept up to as many as the pool holds runs, plus the one open. */
static int run_buffer(struct rd_blockrd *b, struct brun *r)
{
	r->kept = r->out_len <= RUN_OUT && r->plen <= RUN_IN;
	if (!r->kept) {
		r->out = malloc(r->out_len + r->plen ? r->out_len + r->plen : 1);
		return r->out == NULL ? SQP_ERR_NOMEM : 0;
	}
	if (b->run_bufs == NULL) {
		b->run_bufs = calloc(b->capacity + 1, sizeof(*b->run_bufs));
		if (b->run_bufs == NULL)
			return SQP_ERR_NOMEM;
		b->run_bufs_max = b->capacity + 1;
	}
	if (b->run_bufs_count > 0)
		r->out = b->run_bufs[--b->run_bufs_count];
	else
		r->out = malloc(RUN_BUF);
	return r->out == NULL ? SQP_ERR_NOMEM : 0;
}

int rd_blockrd_run_close(struct rd_blockrd *b)
{
	struct brun *r = b->run_open;
	int ret;

	if (r == NULL)
		return 0;
	/* Nothing older than the open run waits for the pool unless the
	 * pool holds it, so retiring makes room without reaching r. */
	while (sqp_pool_full(b->pool))
		if ((ret = rd_blockrd_retire_head(b, 1)) < 0)
			return ret;
	if (run_buffer(b, r) != 0)
		return rd_err(b->img, SQP_ERR_NOMEM, "out of memory");
	b->run_open = NULL;
	r->submitted = 1;
	sqp_pool_submit(b->pool, &r->carrier->pj);
	return 0;
}

/* Whether x (read already: pre) may join r: a stored extent must
 * follow r's stored bytes, when r has any. */
static int joins(const struct brun *r, const struct rd_extent *x, int pre)
{
	if (r->parts >= RUN_PARTS || r->out_len + x->llen > RUN_OUT)
		return 0;
	return pre || r->plen == 0 ||
	       (x->pa == r->pa + r->plen && r->plen + x->plen <= RUN_IN);
}

static int run_open(struct rd_blockrd *b, struct rd_bentry *e)
{
	struct brun *r = calloc(1, sizeof(*r));
	int ret;

	if (r == NULL)
		return rd_err(b->img, SQP_ERR_NOMEM, "out of memory");
	if ((ret = rd_blockrd_take_job(b, e, 0, &r->carrier)) != 0) {
		free(r);
		return ret;
	}
	r->carrier->kind = BJ_RUN;
	r->carrier->run = r;
	r->next = b->runs;
	if (b->runs != NULL)
		b->runs->prev = r;
	b->runs = r;
	b->run_open = r;
	return 0;
}

int rd_blockrd_zext(struct rd_blockrd *b, struct rd_bentry *e,
		    const struct rd_extent *x, uint8_t *pre)
{
	struct brun *r;
	struct bjob *j;
	int ret;

	/* The part's job first: waiting for one may retire the open
	 * run's parts, and so submit it. */
	if ((ret = rd_blockrd_take_job(b, e, 0, &j)) != 0) {
		free(pre);
		return ret;
	}
	if (b->run_open != NULL && !joins(b->run_open, x, pre != NULL))
		ret = rd_blockrd_run_close(b);
	if (ret == 0 && b->run_open == NULL)
		ret = run_open(b, e);
	if (ret != 0) {
		free(pre);
		j->next = b->free_light;
		b->free_light = j;
		return ret;
	}
	r = b->run_open;
	j->zin = pre;
	j->kind = BJ_ZPART;
	j->run = r;
	j->zx = *x;
	j->offset = x->pa;
	j->out_len = (uint32_t)x->llen;
	j->pos = x->la;
	j->zoff = (uint32_t)r->out_len;
	j->rnext = NULL;
	if (pre == NULL) {
		if (r->plen == 0)
			r->pa = x->pa;
		r->plen += x->plen;
	}
	*(r->last != NULL ? &r->last->rnext : &r->first) = j;
	r->last = j;
	r->parts++;
	r->refs++;
	r->out_len += x->llen;
	b->zbytes += x->llen;
	rd_blockrd_submit(b, j);
	return 0;
}

/* Hand put() the span of one file's bytes that parts first .. made
 * in a row; a failure is first's to report. */
static void put_span(struct rd_blockrd *b, struct brun *r, struct bjob *first,
		     uint64_t len)
{
	if (first == NULL || b->ops->put == NULL)
		return;
	if ((first->put_err = b->ops->put(b->user, first->owner, first->pos,
					  r->out + first->zoff,
					  (uint32_t)len)) != 0)
		first->pj.status = SQP_ERR_IO;
}

/* On a worker: read the run's stored bytes, decode each part into its
 * place; a part that fails fails alone (its status), a read all. The
 * parts of one file that follow one another go to put() as one piece:
 * one pwrite for a run's share of a file, not one per cluster. */
int rd_blockrd_run_exec(struct rd_blockrd *b, struct brun *r,
			struct sqp_erofs_unz **unz)
{
	uint8_t *in = r->kept ? r->out + RUN_OUT : r->out + r->out_len;
	int rd = 0;
	struct bjob *span = NULL;
	uint64_t span_len = 0;

	if (rd == 0 && r->plen != 0)
		rd = rd_pread(b->img, r->pa, in, r->plen);
	for (struct bjob *p = r->first; p != NULL; p = p->rnext) {
		int ret = rd;

		if (p->zin != NULL || rd == 0)
			ret = b->img->fmt->zdecode(b->img, &p->zx, p->zin != NULL ?
						   p->zin : in + (p->zx.pa - r->pa),
						   r->out + p->zoff, unz);
		free(p->zin);
		p->zin = NULL;
		p->pj.status = ret == SQP_ERR_BAD_DATA ? SQP_ERR_CORRUPT : ret;
		if (span != NULL && (ret != 0 || p->owner != span->owner ||
				     p->pos != span->pos + span_len ||
				     span_len + p->out_len > UINT32_MAX)) {
			put_span(b, r, span, span_len);
			span = NULL;
		}
		if (ret == 0 && span == NULL) {
			span = p;
			span_len = 0;
		}
		if (ret == 0)
			span_len += p->out_len;
	}
	put_span(b, r, span, span_len);
	r->ran = 1;
	return 0;
}

int rd_blockrd_run_wait(struct rd_blockrd *b, struct bjob *j, int block)
{
	struct brun *r = j->run;
	struct sqp_pool_job *pj;
	struct bjob *c;
	int ret;

	if (r->taken)
		return 1;
	if (!r->submitted) {
		if (!block)
			return 0;
		if ((ret = rd_blockrd_run_close(b)) != 0)
			return ret;
	}
	pj = block ? sqp_pool_wait(b->pool) : sqp_pool_poll(b->pool);
	if (pj == NULL)
		return 0;
	c = r->carrier;
	if (pj != &c->pj)
		return rd_err(b->img, SQP_ERR_SEQUENCE, "block reader: job order");
	r->taken = 1;
	r->carrier = NULL;
	c->run = NULL;
	c->next = b->free_light;
	b->free_light = c;
	return 1;
}

const uint8_t *rd_blockrd_part_bytes(const struct bjob *j)
{
	return j->run->out + j->zoff;
}

void rd_blockrd_part_done(struct rd_blockrd *b, struct bjob *j)
{
	struct brun *r = j->run;

	j->run = NULL;
	b->zbytes -= j->out_len;
	if (--r->refs == 0)
		run_free(b, r);
}
