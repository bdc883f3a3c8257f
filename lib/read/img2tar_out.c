/* SPDX-License-Identifier: MIT */
/*
 * img2tar_out.c - the ordered half of image-to-tar: a pool of workers
 * reads and decompresses data and fragment blocks ahead of the writer,
 * and this thread writes headers and data to the tar in exactly the
 * order the walk produced them, so the tar is the same for any -j.
 *
 * Entries wait in a FIFO (head..tail). The front entry's header is
 * written as soon as it is at the front; its data as its jobs come back
 * (the pool returns jobs in submission order, and jobs are submitted in
 * FIFO order, so the oldest job always belongs to the front entry). An
 * entry leaves the FIFO when its last job is written. Memory is bounded
 * by the job count (capacity x block size) and the FIFO length.
 *
 * Fragment blocks: many files share one, so decompressed fragment blocks
 * stay in a small LRU cache (FRAG_SLOTS blocks). Whether a tail hits is
 * decided when it is submitted (xout_plan_frag): a miss is a job that
 * decompresses the block and installs it in its slot when retired, a hit
 * (XJOB_FRAG_SAME) costs the workers nothing. Files in a sorted listing
 * whose tails were packed in another order (a tar that was not sorted)
 * still hit, as long as one directory's tails span few blocks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "read/img2tar_impl.h"
#include "sqpack/error.h"
#include "util/fileio.h"

#define PENDING_MAX 4096
#define JOB_MEMORY (48u << 20)

struct xworker {
	struct sqp_compressor *codec;
	uint8_t *cbuf;
};

static int worker_init(void *ctx, void **state)
{
	struct sqp_image *img = ctx;
	struct xworker *w = calloc(1, sizeof(*w));
	int ret;

	if (w == NULL)
		return SQP_ERR_NOMEM;
	w->cbuf = malloc(img->sb.block_size);
	ret = w->cbuf ? sqp_compressor_create(&img->codec_cfg, &w->codec) :
			SQP_ERR_NOMEM;
	if (ret != 0) {
		free(w->cbuf);
		free(w);
		return ret;
	}
	*state = w;
	return 0;
}

static void worker_fini(void *ctx, void *state)
{
	struct xworker *w = state;

	(void)ctx;
	sqp_compressor_destroy(w->codec);
	free(w->cbuf);
	free(w);
}

static int worker_run(void *ctx, void *state, struct sqp_pool_job *pj)
{
	struct sqp_image *img = ctx;
	struct xworker *w = state;
	struct xjob *j = (struct xjob *)pj;
	int n, ret;

	if (j->kind == XJOB_HOLE || j->kind == XJOB_FRAG_SAME)
		return 0;
	if (j->raw) {
		ret = sqp_pread_full(img->fd, j->offset, j->buf, j->disk_size);
		n = (int)j->disk_size;
	} else {
		ret = sqp_pread_full(img->fd, j->offset, w->cbuf, j->disk_size);
		n = ret ? 0 : sqp_decompress(w->codec, w->cbuf, j->disk_size,
					     j->buf, img->sb.block_size);
	}
	if (ret != 0)
		return ret;
	if (n < 0)
		return SQP_ERR_BAD_DATA;
	j->got = (uint32_t)n;
	if (j->kind == XJOB_DATA ? j->got != j->out_len :
				   j->frag_off + j->out_len > j->got)
		return SQP_ERR_CORRUPT;
	return 0;
}

int xout_init(struct xout *x, struct sqp_image *img,
	      struct sqp_tar_writer *tw, unsigned jobs, int sparse_out)
{
	uint32_t bs = img->sb.block_size;
	struct sqp_pool_desc pd = { 0 };
	unsigned workers = jobs == 0 ? sqp_cpu_count() : jobs;
	unsigned cap;
	int ret;

	memset(x, 0, sizeof(*x));
	x->img = img;
	x->tw = tw;
	x->sparse_out = (unsigned)sparse_out;
	if (workers <= 1)
		workers = 0;
	cap = workers * 4 + 4;
	if ((uint64_t)cap * bs > JOB_MEMORY)
		cap = JOB_MEMORY / bs;
	if (cap < 2)
		cap = 2;
	x->jobs = calloc(cap, sizeof(*x->jobs));
	if (x->jobs == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	for (unsigned i = 0; i < FRAG_SLOTS; i++)
		if ((x->frag[i].buf = malloc(bs)) == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	x->job_count = cap;
	for (unsigned i = 0; i < cap; i++) {
		x->jobs[i].buf = malloc(bs);
		if (x->jobs[i].buf == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		x->jobs[i].next_free = x->free_jobs;
		x->free_jobs = &x->jobs[i];
	}
	pd.workers = workers;
	pd.capacity = cap;
	pd.run = worker_run;
	pd.worker_init = worker_init;
	pd.worker_fini = worker_fini;
	pd.ctx = img;
	ret = sqp_pool_create(&pd, &x->pool);
	if (ret != 0)
		return rd_err(img, ret, "starting %u decompression threads: %s",
			      workers, sqp_strerror(ret));
	return 0;
}

void pending_free(struct pending *p)
{
	if (p == NULL)
		return;
	free(p->path);
	free(p->link);
	free(p->runs);
	rd_xattrs_free(&p->xattrs);
	free(p);
}

void xout_fini(struct xout *x)
{
	struct pending *p, *next;

	if (x->pool != NULL) {
		while (sqp_pool_in_flight(x->pool) > 0)
			sqp_pool_wait(x->pool);
		sqp_pool_destroy(x->pool);
	}
	for (unsigned i = 0; x->jobs != NULL && i < x->job_count; i++)
		free(x->jobs[i].buf);
	free(x->jobs);
	for (unsigned i = 0; i < FRAG_SLOTS; i++)
		free(x->frag[i].buf);
	for (p = x->head; p != NULL; p = next) {
		next = p->next;
		pending_free(p);
	}
	memset(x, 0, sizeof(*x));
}

/* Write the front entries' headers; drop those that are complete. */
static int drain_front(struct xout *x)
{
	int ret;

	while (x->head != NULL) {
		struct pending *p = x->head;

		if (!p->header_done) {
			if ((ret = sqp_tar_write_header(x->tw, &p->e)) != 0)
				return rd_err(x->img, ret, "%s",
					      sqp_tar_writer_error(x->tw));
			p->header_done = 1;
		}
		if (!p->all_submitted || p->jobs_done < p->jobs_total)
			break;
		x->head = p->next;
		if (x->head == NULL)
			x->tail = NULL;
		x->pending_count--;
		pending_free(p);
	}
	return 0;
}

static int job_failed(struct xout *x, struct xjob *j)
{
	const char *what = j->pj.status == SQP_ERR_CORRUPT ?
		"decompresses to the wrong size" : sqp_strerror(j->pj.status);

	return rd_err(x->img, j->pj.status == SQP_ERR_NOMEM ? SQP_ERR_NOMEM :
		      SQP_ERR_CORRUPT, "%s: '%s': %s block at offset %llu: %s",
		      x->img->name, j->owner->e.path,
		      j->kind == XJOB_DATA ? "data" : "fragment",
		      (unsigned long long)j->offset, what);
}

/* Take the oldest job back and write its bytes into the tar. */
static int retire_one(struct xout *x)
{
	struct xjob *j = (struct xjob *)sqp_pool_wait(x->pool);
	static const uint8_t zeros[4096];
	const uint8_t *data = j->buf;
	/* The owner's header goes first: a file pushed onto an empty FIFO
	 * is the front without one, and can fill the ring before it is
	 * closed. */
	int ret = drain_front(x);

	if (ret == 0 && j->pj.status != 0)
		ret = job_failed(x, j);
	else if (ret == 0 && j->owner != x->head)
		ret = rd_err(x->img, SQP_ERR_SEQUENCE, "img2tar: job order");
	else if (ret == 0 && j->kind == XJOB_FRAG) {
		/* Keep this fragment block for the tails that share it. */
		uint8_t *t = x->frag[j->slot].buf;

		x->frag[j->slot].buf = j->buf;
		j->buf = t;
		x->frag[j->slot].index = j->frag_index;
		x->frag[j->slot].len = j->got;
		x->frag[j->slot].valid = 1;
		data = x->frag[j->slot].buf + j->frag_off;
	} else if (ret == 0 && j->kind == XJOB_FRAG_SAME) {
		if (!x->frag[j->slot].valid ||
		    x->frag[j->slot].index != j->frag_index ||
		    j->frag_off + j->out_len > x->frag[j->slot].len)
			ret = rd_err(x->img, SQP_ERR_CORRUPT, "%s: '%s': tail "
				     "outside its fragment block", x->img->name,
				     j->owner->e.path);
		data = x->frag[j->slot].buf + j->frag_off;
	}
	if (ret == 0 && j->kind == XJOB_HOLE && !x->sparse_out) {
		for (uint32_t left = j->out_len; ret == 0 && left > 0;) {
			uint32_t n = left > sizeof(zeros) ? sizeof(zeros) : left;

			ret = sqp_tar_write_data(x->tw, zeros, n);
			left -= n;
		}
	} else if (ret == 0 && j->kind != XJOB_HOLE) {
		ret = sqp_tar_write_data(x->tw, data, j->out_len);
	}
	if (ret != 0 && x->img->err.code == 0)
		ret = rd_err(x->img, ret, "%s", sqp_tar_writer_error(x->tw));
	j->owner->jobs_done++;
	j->next_free = x->free_jobs;
	x->free_jobs = j;
	return ret != 0 ? ret : drain_front(x);
}

int xout_push(struct xout *x, struct pending *p)
{
	int ret;

	/* Entries without data pile up behind a file whose blocks are in
	 * flight; write some out before the queue grows long. */
	while (x->pending_count >= PENDING_MAX && sqp_pool_in_flight(x->pool) > 0)
		if ((ret = retire_one(x)) != 0) {
			pending_free(p);
			return ret;
		}
	if (x->tail != NULL)
		x->tail->next = p;
	else
		x->head = p;
	x->tail = p;
	x->pending_count++;
	return 0;
}

int xout_job(struct xout *x, struct pending *p, struct xjob **out)
{
	int ret;

	while (x->free_jobs == NULL || sqp_pool_full(x->pool))
		if ((ret = retire_one(x)) != 0)
			return ret;
	*out = x->free_jobs;
	x->free_jobs = (*out)->next_free;
	memset(&(*out)->pj, 0, sizeof((*out)->pj));
	(*out)->owner = p;
	(*out)->got = 0;
	return 0;
}

void xout_submit(struct xout *x, struct xjob *j)
{
	j->owner->jobs_total++;
	sqp_pool_submit(x->pool, &j->pj);
}

void xout_plan_frag(struct xout *x, struct xjob *j)
{
	unsigned victim = 0;

	for (unsigned i = 0; i < FRAG_SLOTS; i++) {
		if (x->plan[i].valid && x->plan[i].index == j->frag_index) {
			x->plan[i].used = ++x->plan_clock;
			j->kind = XJOB_FRAG_SAME;
			j->slot = i;
			return;
		}
		if (!x->plan[i].valid ? x->plan[victim].valid :
		    x->plan[victim].valid && x->plan[i].used < x->plan[victim].used)
			victim = i;
	}
	x->plan[victim].index = j->frag_index;
	x->plan[victim].valid = 1;
	x->plan[victim].used = ++x->plan_clock;
	j->kind = XJOB_FRAG;
	j->slot = victim;
}

int xout_close_entry(struct xout *x, struct pending *p)
{
	p->all_submitted = 1;
	return drain_front(x);
}

int xout_flush(struct xout *x)
{
	int ret;

	while (sqp_pool_in_flight(x->pool) > 0)
		if ((ret = retire_one(x)) != 0)
			return ret;
	return drain_front(x);
}
