/* SPDX-License-Identifier: MIT */
/*
 * blockrd.c - the ordered parallel block reader (blockrd.h).
 *
 * Every piece of file data is a job; jobs are kept in one FIFO in the
 * order they were made, and retired (delivered) strictly from its head.
 * Only jobs with work - reading and decompressing a data block or a
 * fragment block - go to the pool, which returns them in submission
 * order, so the oldest pooled job is always the oldest pooled job of the
 * FIFO. Jobs without work (a hole; a tail whose fragment block is already
 * in the cache) never touch the pool: they are retired on this thread as
 * soon as they reach the head. That keeps a million small files from
 * costing a million thread hand-offs; the pool only sees fragment blocks.
 *
 * Memory: HEAVY jobs with a block buffer each (sized by util/pipeline,
 * within JOB_MEMORY with the workers' scratch and decoders: 6 jobs of
 * 1 MiB blocks, 24 of 128 KiB at -j 2; see size_pool()),
 * LIGHT_JOBS without, frag_slots cached fragment blocks (FRAG_MEMORY, at
 * least 8 and at most FRAG_SLOTS_MAX), and at most max_entries
 * (ENTRIES_MAX) entries waiting; nothing grows with the image but the
 * plan of shared blocks, which has its own caps (blockrd_share.c).
 *
 * Each format's back end makes a file's jobs (rd_format.jobs:
 * blockrd_sqfs.c, blockrd_erofs.c); an extent job is decoded by the
 * back end's zdecode on the worker. A data block several files share is
 * decompressed once, where the back end plans it (rd_format.share_plan,
 * blockrd_share.c).
 *
 * With the consumer's put(), a worker hands a data block on itself
 * right after decompressing it; the job is still retired in order, so
 * the consumer's end(e) still comes after every piece of e is placed.
 *
 * Fragment blocks: many files share one, so decompressed fragment blocks
 * stay in a small LRU cache. Whether a tail hits is decided when its job
 * is made (plan_frag), from the plan: the cache as it will be when that
 * job is retired; retiring applies the same decisions in the same order,
 * so a tail always finds the block it was promised.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_worker.h"
#include "read/blockrd.h"
#include "read/blockrd_impl.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "util/fileio.h"
#include "util/pipeline.h"
#include "util/pool.h"


/* Whether j waits for the pool (decompression), not only for its turn. */
static int pooled(const struct bjob *j)
{
	if (j->kind == BJ_ZPART)
		return !j->run->taken;
	return j->kind == BJ_DATA || j->kind == BJ_FRAG;
}

static int worker_run(void *ctx, void *state, struct sqp_pool_job *pj)
{
	struct rd_blockrd *b = ctx;
	struct sqp_codec_worker *w = state;
	struct bjob *j = (struct bjob *)pj;
	uint32_t bs = b->img->block_size;
	int n, ret;

	if (j->kind == BJ_RUN)
		return rd_blockrd_run_exec(b, j->run, w);
	if (j->raw) {
		ret = rd_pread(b->img, j->offset, j->buf, j->disk_size);
		n = (int)j->disk_size;
	} else {
		uint8_t *in = w->scratch + sqp_iobuf_skew(b->img->base + j->offset);

		ret = rd_pread(b->img, j->offset, in, j->disk_size);
		n = ret ? 0 : sqp_decompress(w->codec, in, j->disk_size, j->buf, bs);
	}
	if (ret != 0)
		return ret;
	if (n < 0)
		return SQP_ERR_BAD_DATA;
	j->got = (uint32_t)n;
	if (j->kind == BJ_DATA ? j->got != j->out_len :
				 j->frag_off + j->out_len > j->got)
		return SQP_ERR_CORRUPT;
	if (j->kind == BJ_DATA && b->ops->put != NULL &&
	    (j->put_err = b->ops->put(b->user, j->owner, j->pos, j->buf,
				      j->out_len)) != 0)
		return SQP_ERR_IO;
	return 0;
}

/* Workers and jobs within JOB_MEMORY, the workers' own memory counted:
 * each holds a scratch block and a decoder (xz's dictionary is as large
 * as a block), about two blocks, and is worth starting only with two
 * jobs of its own. At -j 16 on 1 MiB blocks the job budget alone let 16
 * workers add 30 MiB on top of it; now that is 8 workers and 16 jobs.
 * DEPTH_BYTES of decoded blocks per worker (and as much more for this
 * thread's side), 2 to DEPTH_MAX jobs: every job's buffer is touched,
 * so each is 32 page faults at 128 KiB blocks, which is what the queue
 * cost at a fast codec: 48 jobs per worker made img2tar -j 2 of
 * small.tar at lz4 take 8,200 faults where -j 1 takes 3,250, and more
 * CPU than sqfs2tar. 8 jobs of 128 KiB per worker take 4,300 with no
 * less speed at lz4, gzip or xz (blockrd.c's commit has the figures). */
#define DEPTH_BYTES (1u << 20)
#define DEPTH_MAX 48u
/* Runs of extents (blockrd_run.c) per worker: each is a job of RUN_OUT
 * decoded bytes or more (one 1 MiB pcluster is a run of its own), and
 * its buffer's pages are faulted in once kept. Four (DEPTH_BYTES of
 * RUN_OUT) held 12 runs in flight at -j 2: rootfs-small's zstd image at
 * 1 MiB clusters took 14,400 faults where fsck.erofs takes 8,000; two
 * take 9,000, and img2dir's time is no longer (blockrd.c's commit has
 * the figures). */
#define RUN_DEPTH 2u

/* The pool for jobs of a block each, or for runs (RUN_DEPTH per
 * worker, whatever their size). */
static void size_pool(unsigned jobs, uint32_t bs, int runs,
		      unsigned *workers, unsigned *capacity)
{
	unsigned w = sqp_pipeline_workers(jobs);
	size_t worker_bytes = 2 * (size_t)bs;
	size_t most = JOB_MEMORY / (worker_bytes + 2 * (size_t)bs);
	unsigned depth = runs ? RUN_DEPTH : DEPTH_BYTES / bs;

	if (depth < 2)
		depth = 2;
	if (depth > DEPTH_MAX)
		depth = DEPTH_MAX;
	if (w == 0) {
		sqp_pipeline_size(1, depth, bs, JOB_MEMORY, workers, capacity);
		return;
	}
	if (w > most)
		w = (unsigned)most;
	sqp_pipeline_size(w, depth, bs, JOB_MEMORY - w * worker_bytes, workers,
			  capacity);
}

static int alloc_jobs(struct rd_blockrd *b, unsigned heavy)
{
	uint32_t bs = b->img->block_size;

	b->heavy = heavy;
	b->job_count = heavy + LIGHT_JOBS;
	b->jobs = calloc(b->job_count, sizeof(*b->jobs));
	if (b->jobs == NULL)
		return SQP_ERR_NOMEM;
	for (unsigned i = 0; i < b->job_count; i++) {
		struct bjob *j = &b->jobs[i];

		if (i < heavy && (j->buf = sqp_iobuf_alloc(bs)) == NULL)
			return SQP_ERR_NOMEM;
		j->next = i < heavy ? b->free_heavy : b->free_light;
		*(i < heavy ? &b->free_heavy : &b->free_light) = j;
	}
	b->frag_slots = FRAG_MEMORY / bs;
	if (b->frag_slots < 8)
		b->frag_slots = 8;
	if (b->frag_slots > FRAG_SLOTS_MAX)
		b->frag_slots = FRAG_SLOTS_MAX;
	for (unsigned i = 0; i < b->frag_slots; i++)
		if ((b->frag[i].buf = sqp_iobuf_alloc(bs)) == NULL)
			return SQP_ERR_NOMEM;
	return 0;
}

int rd_blockrd_create(const struct rd_blockrd_desc *desc,
		      struct rd_blockrd **out)
{
	struct sqp_image *img = desc->img;
	struct rd_blockrd *b = calloc(1, sizeof(*b));
	struct sqp_pool_desc pd = { 0 };
	int ret = SQP_ERR_NOMEM;

	*out = NULL;
	if (b == NULL)
		return rd_err(img, ret, "out of memory");
	b->img = img;
	b->ops = desc->ops;
	b->user = desc->user;
	b->max_entries = desc->max_entries ? desc->max_entries : ENTRIES_MAX;
	b->spans = desc->spans;
	b->wdesc.cfg = img->codec_cfg;
	b->wdesc.scratch_size = img->block_size + SQP_IOBUF_SKEW;
	b->wdesc.no_codec = img->fmt->own_codec;
	/* An EROFS job is a run of extents (blockrd_run.c), RUN_OUT
	 * decoded or more: at 4 KiB blocks, 48 of them per worker held 36
	 * MiB in flight, faulted in page by page. */
	size_pool(desc->jobs, img->block_size,
		  img->fmt->zdecode != NULL && img->block_size < RUN_OUT,
		  &pd.workers, &pd.capacity);
	b->capacity = pd.capacity;
	/* This thread waits for a quarter of the pool (retire_batch); the
	 * workers, idle when it is the slower side, for as much work. */
	pd.wake_batch = pd.capacity / 4;
	pd.run = worker_run;
	pd.worker_init = sqp_codec_worker_init;
	pd.worker_fini = sqp_codec_worker_fini;
	if ((ret = alloc_jobs(b, pd.capacity)) != 0) {
		rd_blockrd_destroy(b);
		return rd_err(img, ret, "out of memory");
	}
	if (img->fmt->zdecode != NULL)
		rd_blockrd_map_image(b);
	if (img->fmt->share_plan != NULL &&
	    (ret = img->fmt->share_plan(b)) != 0) {
		rd_blockrd_destroy(b);
		return ret;
	}
	pd.ctx = b;
	ret = sqp_pool_create(&pd, &b->pool);
	if (ret != 0) {
		rd_blockrd_destroy(b);
		return rd_err(img, ret, "starting %u decompression threads: %s",
			      pd.workers, sqp_strerror(ret));
	}
	*out = b;
	return 0;
}

void rd_blockrd_destroy(struct rd_blockrd *b)
{
	struct rd_bentry *e, *next;

	if (b == NULL)
		return;
	/* Joins the workers first: no job buffer is in use after this. */
	sqp_pool_destroy(b->pool);
	rd_blockrd_runs_free(b);
	for (unsigned i = 0; b->jobs != NULL && i < b->job_count; i++) {
		free(b->jobs[i].buf);
		free(b->jobs[i].zbuf);
	}
	free(b->jobs);
	for (unsigned i = 0; i < FRAG_SLOTS_MAX; i++)
		free(b->frag[i].buf);
	rd_share_free(b);
	for (e = b->head; e != NULL; e = next) {
		next = e->next;
		b->ops->drop(b->user, e);
	}
	free(b);
}

/* Start the front entries; end those that have all their data. */
static int drain_front(struct rd_blockrd *b)
{
	int ret;

	while (b->head != NULL) {
		struct rd_bentry *e = b->head;

		if (!e->started) {
			e->started = 1;
			if ((ret = b->ops->start(b->user, e)) != 0)
				return ret;
		}
		if (!e->all_added || e->jobs_done < e->jobs_total)
			break;
		b->head = e->next;
		if (b->head == NULL)
			b->tail = NULL;
		b->entry_count--;
		if ((ret = b->ops->end(b->user, e)) != 0)
			return ret;
	}
	return 0;
}

/* A job that failed: the consumer's bad() decides, else it latches. */
static int job_failed(struct rd_blockrd *b, struct bjob *j, const char *why)
{
	char msg[SQP_ERRMSG_MAX];
	int code = j->pj.status == SQP_ERR_NOMEM ? SQP_ERR_NOMEM : SQP_ERR_CORRUPT;

	if (j->put_err != 0)
		return rd_err(b->img, sqp_errno_code(-j->put_err), "'%s': "
			      "writing: %s", j->owner->name, strerror(-j->put_err));
	snprintf(msg, sizeof(msg), "%s: '%s': %s block at offset %llu: %s",
		 b->img->name, j->owner->name,
		 j->kind == BJ_FRAG || j->kind == BJ_FRAG_SAME ? "fragment" : "data",
		 (unsigned long long)j->offset, why);
	if (b->ops->bad != NULL && code == SQP_ERR_CORRUPT)
		return b->ops->bad(b->user, j->owner, msg);
	return rd_err(b->img, code, "%s", msg);
}

/* The bytes job j gives, or NULL for a hole; *skip: none (failed). */
static int job_bytes(struct rd_blockrd *b, struct bjob *j,
		     const uint8_t **data, int *skip)
{
	struct frag_slot *s = &b->frag[j->slot];

	*data = j->buf;
	*skip = 0;
	if (j->keep || j->kind == BJ_DATA_SAME) {
		/* A shared block: its bytes are the keep slot's. */
		if (j->keep)
			rd_share_fill(b, j);
		else
			rd_share_take(b, j);
		*data = b->sh.keep[j->kslot].buf;
	}
	if (j->pj.status != 0) {
		*skip = 1;
		if (j->kind == BJ_FRAG) {
			s->index = j->frag_index;
			s->valid = 0;
			s->failed = 1;
		}
		return job_failed(b, j, j->pj.status == SQP_ERR_CORRUPT ?
				  "decompresses to the wrong size" :
				  sqp_strerror(j->pj.status));
	}
	if (j->kind == BJ_HOLE) {
		*data = NULL;
	} else if (j->kind == BJ_ZPART) {
		*data = rd_blockrd_part_bytes(j);
	} else if (j->kind == BJ_FILLED) {
		*data = j->zbuf;
	} else if (j->kind == BJ_FRAG) {
		/* Keep this fragment block for the tails that share it. */
		uint8_t *t = s->buf;

		s->buf = j->buf;
		j->buf = t;
		*s = (struct frag_slot){ s->buf, j->frag_index, j->got, 1, 0 };
		*data = s->buf + j->frag_off;
	} else if (j->kind == BJ_FRAG_SAME) {
		/* Its block failed and was reported already. */
		if (s->failed && s->index == j->frag_index) {
			*skip = 1;
			return 0;
		}
		if (!s->valid || s->index != j->frag_index ||
		    j->frag_off + j->out_len > s->len) {
			*skip = 1;
			return job_failed(b, j, "tail outside its fragment block");
		}
		*data = s->buf + j->frag_off;
	}
	return 0;
}

/* The parts after j at the FIFO's head that go on j's bytes: of its
 * run, decoded, and next in its file. With 4 KiB clusters a part is
 * about 10 KiB; one data() call for a run's share of a file lets
 * img2tar write it from where it lies rather than copy it into its
 * stream's buffer (lz4: half the CPU beyond the decoder). */
static unsigned part_followers(const struct bjob *j, uint32_t *len)
{
	const struct bjob *q = j;
	uint64_t n = j->out_len;
	unsigned count = 0;

	for (const struct bjob *p = j->next; p != NULL && p == q->rnext &&
	     p->owner == j->owner && p->pj.status == 0 && p->pos == j->pos + n &&
	     n + p->out_len <= UINT32_MAX; q = p, p = p->next) {
		n += p->out_len;
		count++;
	}
	*len = (uint32_t)n;
	return count;
}

/* The FIFO's head job, taken off it. */
static struct bjob *pop_head(struct rd_blockrd *b)
{
	struct bjob *j = b->qhead;

	b->qhead = j->next;
	if (b->qhead == NULL)
		b->qtail = NULL;
	return j;
}

/* Job j is delivered (or failed): counted done for its owner, its
 * bytes released and the job back on its free list. The bytes a job
 * holds are one of: j->buf (a heavy job's block, kept with the job), a
 * run's (BJ_ZPART: the run's buffer, freed with its last part), or
 * j->zbuf (only BJ_FILLED jobs, read on this thread, own one). So the
 * parts retired after the one that delivered their bytes
 * (part_followers) free nothing of their own here. */
static void retire_job(struct rd_blockrd *b, struct bjob *j)
{
	j->owner->jobs_done++;
	if (j->kind == BJ_ZPART)
		rd_blockrd_part_done(b, j);
	if (j->zbuf != NULL) {
		free(j->zbuf);
		j->zbuf = NULL;
		b->zbytes -= j->out_len;
	}
	j->next = j->buf != NULL ? b->free_heavy : b->free_light;
	*(j->buf != NULL ? &b->free_heavy : &b->free_light) = j;
}

/* Deliver the FIFO's head job; wait for it when block is set. Returns
 * 1 when one was retired, 0 when the head is not ready, or an error. */
int rd_blockrd_retire_head(struct rd_blockrd *b, int block)
{
	struct bjob *j = b->qhead;
	const uint8_t *data;
	int skip, ret;

	if (j == NULL)
		return 0;
	if (j->kind == BJ_ZPART) {
		if ((ret = rd_blockrd_run_wait(b, j, block)) != 1)
			return ret;
	} else if (pooled(j)) {
		struct sqp_pool_job *pj = block ? sqp_pool_wait(b->pool) :
						  sqp_pool_poll(b->pool);

		if (pj == NULL)
			return 0;
		if (pj != &j->pj)
			return rd_err(b->img, SQP_ERR_SEQUENCE, "block reader: "
				      "job order");
	}
	pop_head(b);
	/* The owner is the front entry: start it before its data. */
	ret = drain_front(b);
	if (ret == 0 && j->owner != b->head)
		ret = rd_err(b->img, SQP_ERR_SEQUENCE, "block reader: entry order");
	if (ret == 0)
		ret = job_bytes(b, j, &data, &skip);
	/* A block a worker put() is placed already; a kept one is put()
	 * here, as a worker would have after decompressing it again. */
	if (ret == 0 && !skip && j->kind == BJ_DATA_SAME && b->ops->put != NULL &&
	    (j->put_err = b->ops->put(b->user, j->owner, j->pos, data,
				      j->out_len)) != 0)
		ret = job_failed(b, j, "");
	else if (ret == 0 && !skip && j->kind == BJ_ZPART && b->spans &&
		 b->ops->put == NULL) {
		uint32_t len;
		unsigned more = part_followers(j, &len);

		ret = b->ops->data(b->user, j->owner, j->pos, data, len);
		/* The later parts' bytes went with j's: they only retire. */
		while (more-- > 0)
			retire_job(b, pop_head(b));
	} else if (ret == 0 && !skip && !((j->kind == BJ_DATA || j->kind == BJ_ZPART ||
				       j->kind == BJ_DATA_SAME) && b->ops->put != NULL))
		ret = b->ops->data(b->user, j->owner, j->pos, data, j->out_len);
	retire_job(b, j);
	if (ret == 0)
		ret = drain_front(b);
	return ret < 0 ? ret : 1;
}

/* Deliver what is ready without waiting. Taking a done job back locks
 * the pool against its workers, so that is only tried once the pool is
 * half full: one try then retires a run of jobs, rather than one try
 * (and often a lock handed over between threads) per entry added. */
static int pump(struct rd_blockrd *b)
{
	int ret = 0;

	while (b->qhead != NULL && (!pooled(b->qhead) ||
	       sqp_pool_in_flight(b->pool) * 2 >= b->capacity))
		if ((ret = rd_blockrd_retire_head(b, 0)) != 1)
			break;
	return ret < 0 ? ret : drain_front(b);
}

/* Make room: retire what is done; when nothing is, sleep until a
 * quarter of the pool's jobs are, then retire all that are. Waking for
 * each job instead put this thread on a core once per block, taking it
 * from a worker each time (with xz, thousands of switches per
 * extraction); a batch still leaves the workers three quarters of a
 * pool of work while this thread runs. Done work is never waited past:
 * with a fast codec this thread is the slower side. */
static int retire_batch(struct rd_blockrd *b)
{
	int ret = rd_blockrd_retire_head(b, 0);

	/* A head in the open run waits for nothing until it is submitted. */
	if (ret == 0 && b->qhead != NULL && b->qhead->kind == BJ_ZPART &&
	    !b->qhead->run->submitted)
		ret = rd_blockrd_run_close(b);
	if (ret == 0) {
		if (b->qhead != NULL && pooled(b->qhead))
			sqp_pool_wait_ahead(b->pool, b->capacity / 4);
		ret = rd_blockrd_retire_head(b, 1);
	}
	while (ret == 1)
		ret = rd_blockrd_retire_head(b, 0);
	return ret;
}

/* A free job, with a buffer when heavy, owned by e. */
int rd_blockrd_take_job(struct rd_blockrd *b, struct rd_bentry *e, int heavy,
		    struct bjob **out)
{
	struct bjob **list = heavy ? &b->free_heavy : &b->free_light;
	int ret;

	/* Jobs reach the pool in the FIFO's order: an open run first. */
	if (heavy && (ret = rd_blockrd_run_close(b)) != 0)
		return ret;
	while (*list == NULL || (heavy && sqp_pool_full(b->pool)))
		if ((ret = retire_batch(b)) < 0)
			return ret;
	*out = *list;
	*list = (*out)->next;
	memset(&(*out)->pj, 0, sizeof((*out)->pj));
	(*out)->owner = e;
	(*out)->got = 0;
	(*out)->put_err = 0;
	(*out)->keep = 0;
	(*out)->next = NULL;
	return 0;
}

void rd_blockrd_submit(struct rd_blockrd *b, struct bjob *j)
{
	j->owner->jobs_total++;
	if (b->qtail != NULL)
		b->qtail->next = j;
	else
		b->qhead = j;
	b->qtail = j;
	/* A part of a run goes to the pool with its run. */
	if (pooled(j) && j->kind != BJ_ZPART)
		sqp_pool_submit(b->pool, &j->pj);
}

/* Which cache slot to replace first: one whose block no tail still
 * needs, then an empty one, then the least recently used. A slot used
 * before goes first because its buffer is in memory already: filling
 * the empty ones first touched all 64 buffers (8 MiB, 2,000 page
 * faults) on an image whose tails need one or two at a time, 5% of
 * img2tar's CPU at lz4. */
static int frag_rank(const struct rd_blockrd *b, unsigned i)
{
	if (!b->plan[i].valid)
		return 1;
	return rd_share_frag_left(b, b->plan[i].index) == 0 ? 0 : 2;
}

int rd_blockrd_plan_frag(struct rd_blockrd *b, uint32_t index,
			 unsigned *slot)
{
	unsigned victim = 0;

	rd_share_frag_ref(b, index);
	for (unsigned i = 0; i < b->frag_slots; i++) {
		int r = frag_rank(b, i), v = frag_rank(b, victim);

		if (b->plan[i].valid && b->plan[i].index == index) {
			b->plan[i].used = ++b->plan_clock;
			*slot = i;
			return 1;
		}
		if (r < v || (r == v && b->plan[i].used < b->plan[victim].used))
			victim = i;
	}
	b->plan[victim].index = index;
	b->plan[victim].valid = 1;
	b->plan[victim].used = ++b->plan_clock;
	*slot = victim;
	return 0;
}

int rd_blockrd_add(struct rd_blockrd *b, struct rd_bentry *e,
		   const struct rd_inode *ino)
{
	int ret = 0;

	e->jobs_total = e->jobs_done = 0;
	e->all_added = e->started = 0;
	e->next = NULL;
	/* Entries without data pile up behind a file whose blocks are in
	 * flight; deliver some before the queue grows long. */
	while (ret >= 0 && b->entry_count >= b->max_entries && b->qhead != NULL)
		ret = retire_batch(b);
	if (b->tail != NULL)
		b->tail->next = e;
	else
		b->head = e;
	b->tail = e;
	b->entry_count++;
	if (ret < 0)
		return ret;
	if (ino != NULL && (ret = b->img->fmt->jobs(b, e, ino)) != 0)
		return ret;
	e->all_added = 1;
	return pump(b);
}

int rd_blockrd_flush(struct rd_blockrd *b)
{
	int ret;

	while ((ret = rd_blockrd_retire_head(b, 1)) == 1)
		;
	return ret < 0 ? ret : drain_front(b);
}
