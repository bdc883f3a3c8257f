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
 *
 * Where the image is a regular file, it is mapped and a run decodes
 * its stored bytes from the page cache where they lie: a pread copied
 * each of them once more (lz4hc at 4 KiB: 17% of img2dir's CPU). The
 * price: an image file cut short while it is read ends the process
 * (SIGBUS) where a pread would have reported a short read; the image's
 * size was checked when it was opened.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "read/blockrd_impl.h"
#include "sqpack/error.h"
#include "util/fileio.h"

/* Decoded bytes past which a run takes no more extents (RUN_OUT,
 * blockrd_impl.h); stored bytes and extents likewise. A run of 256 KiB
 * keeps two workers busy with the 64 MiB (ZMEMORY) of decoded bytes in
 * flight, and is 2 to 30 clusters of 4 KiB at the usual ratios. */
#define RUN_IN (1u << 20)
#define RUN_PARTS 512u
/* A run's one buffer, its decoded bytes then (unless the image is
 * mapped) its stored ones, is kept for the next runs: a buffer
 * malloc'ed and freed per run came from memory the heap had just given
 * back, so the decoder faulted its pages in again, 20,000 faults for
 * small.tar's zstd image at 4 KiB clusters (img2tar -j 2), where
 * fsck.erofs takes 1,300. A run of one big extent (1 MiB pclusters)
 * takes more than RUN_BUF; such buffers are kept too, up to
 * RUN_KEEP_BYTES in all, and one too small is grown, not kept beside a
 * new one: at 1 MiB lz4hc clusters the malloc per run took 25,000
 * faults where fsck.erofs takes 4,100. Only the pages a run uses are
 * touched. */
#define RUN_BUF (RUN_OUT + RUN_IN)
#define RUN_KEEP_BYTES (ZMEMORY / 4)

/* Buffer (p, size) kept for a later run, or freed: a smaller kept one
 * leaves first when there is no room. */
static void buf_keep(struct rd_blockrd *b, uint8_t *p, size_t size)
{
	while (b->run_bufs_count > 0 &&
	       (b->run_bufs_count == b->run_bufs_max ||
		b->run_bufs_bytes + size > RUN_KEEP_BYTES)) {
		unsigned least = 0;

		for (unsigned i = 1; i < b->run_bufs_count; i++)
			if (b->run_bufs[i].size < b->run_bufs[least].size)
				least = i;
		if (b->run_bufs[least].size >= size)
			break;
		free(b->run_bufs[least].p);
		b->run_bufs_bytes -= b->run_bufs[least].size;
		b->run_bufs[least] = b->run_bufs[--b->run_bufs_count];
	}
	if (b->run_bufs_count == b->run_bufs_max ||
	    b->run_bufs_bytes + size > RUN_KEEP_BYTES) {
		free(p);
		return;
	}
	b->run_bufs[b->run_bufs_count++] = (struct run_buf){ p, size };
	b->run_bufs_bytes += size;
}

/* The mapping's pages a retired run read (len bytes), let go in
 * batches: the page cache keeps them, but mapped they counted in the
 * process's resident size, which grew to the image's (img2tar of a
 * 106 MB image: 13 MB before the mapping, 108 MB with it). Dropping
 * them costs a TLB shootdown across the cores each time, not each page:
 * once per run it was 6% of img2dir's CPU (lz4hc at 4 KiB, mostly
 * inter-processor interrupts under the hypervisor), so the whole
 * mapping goes once UNMAP_EVERY bytes were read since the last time. A
 * page a run in flight is still reading faults back in from the cache. */
#define UNMAP_EVERY (8u << 20)

static void unmap_read(struct rd_blockrd *b, uint64_t len)
{
	b->map_read += len;
	if (b->map_read < UNMAP_EVERY)
		return;
	madvise((void *)b->map, b->map_len, MADV_DONTNEED);
	b->map_read = 0;
}

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
	if (r->out != NULL)
		buf_keep(b, r->out, r->size);
	if (r->in != NULL)
		unmap_read(b, r->plen);
	free(r);
}

void rd_blockrd_runs_free(struct rd_blockrd *b)
{
	while (b->runs != NULL)
		run_free(b, b->runs);
	while (b->run_bufs_count > 0)
		free(b->run_bufs[--b->run_bufs_count].p);
	free(b->run_bufs);
	b->run_bufs = NULL;
	if (b->map != NULL)
		munmap((void *)b->map, b->map_len);
	b->map = NULL;
}

void rd_blockrd_map_image(struct rd_blockrd *b)
{
	struct stat st;
	void *m;

	if (fstat(b->img->fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size <= 0 || (uint64_t)st.st_size > SIZE_MAX)
		return;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, b->img->fd, 0);
	if (m == MAP_FAILED)
		return;
	b->map = m;
	b->map_len = (size_t)st.st_size;
}

/* Where run r's stored bytes are: in the mapping when it holds them
 * (not past the image's own file, in an extra device), else NULL. */
static const uint8_t *mapped(const struct rd_blockrd *b, const struct brun *r)
{
	const struct sqp_image *img = b->img;
	uint64_t at = img->base + r->pa;

	if (b->map == NULL || r->plen == 0 || at < img->base ||
	    at > b->map_len || r->plen > b->map_len - at ||
	    (img->dev_fd >= 0 && r->pa + r->plen > img->dev_at))
		return NULL;
	return b->map + at;
}

/* Run r's buffer: the smallest kept one that holds its decoded bytes
 * (and stored ones, to be read: r->in NULL), else the largest kept one
 * grown, else a new one; RUN_BUF at least. */
static int run_buffer(struct rd_blockrd *b, struct brun *r)
{
	size_t need;
	unsigned best = UINT32_MAX;

	r->in = mapped(b, r);
	if (r->out_len + r->plen > SIZE_MAX - RUN_BUF)
		return SQP_ERR_NOMEM;
	need = (size_t)r->out_len + (r->in != NULL ? 0 : (size_t)r->plen);
	if (b->run_bufs == NULL) {
		b->run_bufs = calloc(b->capacity + 1, sizeof(*b->run_bufs));
		if (b->run_bufs == NULL)
			return SQP_ERR_NOMEM;
		b->run_bufs_max = b->capacity + 1;
	}
	for (unsigned i = 0; i < b->run_bufs_count; i++) {
		size_t size = b->run_bufs[i].size;
		size_t best_size = best != UINT32_MAX ? b->run_bufs[best].size : 0;

		if (best == UINT32_MAX ||
		    (size >= need && (best_size < need || size < best_size)) ||
		    (size < need && best_size < need && size > best_size))
			best = i;
	}
	r->out = NULL;
	r->size = 0;
	if (best != UINT32_MAX) {
		r->out = b->run_bufs[best].p;
		r->size = b->run_bufs[best].size;
		b->run_bufs_bytes -= r->size;
		b->run_bufs[best] = b->run_bufs[--b->run_bufs_count];
	}
	if (r->size < need) {
		/* The largest kept one grown, rather than one more kept. */
		size_t size = need > RUN_BUF ? need : RUN_BUF;
		uint8_t *p = realloc(r->out, size);

		if (p == NULL) {
			free(r->out);
			r->out = NULL;
			return SQP_ERR_NOMEM;
		}
		r->out = p;
		r->size = size;
	}
	return 0;
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

/* Raw bytes in a row that go to put() from the mapping, where they
 * lie, rather than copied into the run's buffer first: fewer than this
 * cost a pwrite of their own between the decoded clusters around them,
 * more than the copy they save (a 4 KiB cluster: about 1 us against
 * 0.3 us). lz4hc at 4 KiB, rootfs-small: 4% of img2dir's CPU was the
 * copy of raw clusters. */
#define AS_IS_MIN (32u << 10)

/* A span of one file's bytes in a row, from one place in memory: the
 * run's buffer or the mapping. */
struct span {
	struct bjob *first;      /* NULL: none open */
	const uint8_t *from;
	uint64_t len;
	int mapped;
};

/* Hand put() span s; a failure is its first part's to report. */
static void put_span(struct rd_blockrd *b, struct span *s)
{
	struct bjob *first = s->first;

	s->first = NULL;
	if (first == NULL || b->ops->put == NULL)
		return;
	if ((first->put_err = b->ops->put(b->user, first->owner, first->pos,
					  s->from, (uint32_t)s->len)) != 0)
		first->pj.status = SQP_ERR_IO;
}

/* Whether part q goes on from p as they lie in the mapping: raw, of
 * the same file, next in it and on disk. */
static int as_is_next(const struct bjob *p, const struct bjob *q)
{
	return q != NULL && q->zx.as_is && q->zin == NULL &&
	       q->owner == p->owner && q->pos == p->pos + p->out_len &&
	       q->zx.pa == p->zx.pa + p->out_len;
}

/* Whether raw part p (and the ones after it that go on from it) is
 * handed on from the mapping: put() takes bytes from anywhere, and
 * they are AS_IS_MIN at least. prev: the part before p, when its bytes
 * went so (then p goes on with them). */
static int from_map(const struct rd_blockrd *b, const struct brun *r,
		    const struct bjob *p, const struct bjob *prev)
{
	uint64_t n = p->out_len;

	if (b->ops->put == NULL || r->in == NULL || !p->zx.as_is ||
	    p->zin != NULL)
		return 0;
	if (prev != NULL && as_is_next(prev, p))
		return 1;
	for (const struct bjob *q = p; n < AS_IS_MIN && as_is_next(q, q->rnext);
	     q = q->rnext)
		n += q->rnext->out_len;
	return n >= AS_IS_MIN;
}

/* Where run r decodes on worker w: into w's own buffer when put()
 * takes its bytes (nothing reads them after the run), else into the
 * run's, which this thread hands on in order. The run's buffers are
 * kept and reused by whichever worker takes the next run, so each
 * decode wrote into memory the other core had just written: at -j 2,
 * img2dir spent 66% more time in LZ4's decoder than at -j 1 (big.tar's
 * tree, lz4hc at 64 KiB: 4,400 samples against 2,650); in the worker's
 * own buffer, 2,600. The buffer grows to twice its size at least, in
 * place where it can (realloc: a big one is moved by its page tables,
 * its pages kept): grown to each new largest run, as big pclusters
 * decode to anything from 1 to 4 MiB, it was a new buffer a dozen times
 * a worker, each faulted in page by page. A buffer that cannot grow
 * leaves the run's. */
static uint8_t *decode_to(const struct rd_blockrd *b, struct brun *r,
			  struct sqp_codec_worker *w)
{
	size_t size = r->out_len > RUN_OUT ? r->out_len : RUN_OUT;
	uint8_t *p;

	if (b->ops->put == NULL)
		return r->out;
	if (w->run_out_size < r->out_len) {
		if (size / 2 < w->run_out_size)
			size = w->run_out_size * 2;
		if ((p = realloc(w->run_out, size)) == NULL)
			return r->out;
		w->run_out = p;
		w->run_out_size = size;
	}
	return w->run_out;
}

/* On a worker: read the run's stored bytes, decode each part into its
 * place (decode_to); a part that fails fails alone (its status), a read
 * all. The parts of one file that follow one another go to put() as
 * one piece: one pwrite for a run's share of a file, not one per
 * cluster; long runs of raw clusters go from the mapping (from_map). */
int rd_blockrd_run_exec(struct rd_blockrd *b, struct brun *r,
			struct sqp_codec_worker *w)
{
	uint8_t *out = decode_to(b, r, w);
	uint8_t *read_to = r->out + r->out_len;
	const uint8_t *in = r->in != NULL ? r->in : read_to;
	int rd = 0;
	struct span s = { NULL, NULL, 0, 0 };
	const struct bjob *mapped_prev = NULL;

	if (r->plen != 0 && r->in == NULL)
		rd = rd_pread(b->img, r->pa, read_to, r->plen);
	for (struct bjob *p = r->first; p != NULL; p = p->rnext) {
		const uint8_t *from = out + p->zoff;
		int ret = rd, mapped = from_map(b, r, p, mapped_prev);

		if (mapped) {
			from = in + (p->zx.pa - r->pa);
			mapped_prev = p;
		} else {
			mapped_prev = NULL;
			if (p->zin != NULL || rd == 0)
				ret = b->img->fmt->zdecode(b->img, &p->zx,
							   p->zin != NULL ? p->zin :
							   in + (p->zx.pa - r->pa),
							   out + p->zoff, &w->unz);
		}
		free(p->zin);
		p->zin = NULL;
		p->pj.status = ret == SQP_ERR_BAD_DATA ? SQP_ERR_CORRUPT : ret;
		if (s.first != NULL && (ret != 0 || p->owner != s.first->owner ||
					p->pos != s.first->pos + s.len ||
					mapped != s.mapped || from != s.from + s.len ||
					s.len + p->out_len > UINT32_MAX))
			put_span(b, &s);
		if (ret == 0 && s.first == NULL)
			s = (struct span){ p, from, 0, mapped };
		if (ret == 0)
			s.len += p->out_len;
	}
	put_span(b, &s);
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

/* With put(), the bytes went to put() from the worker's buffer
 * (decode_to): this is where they would have been, and is not read. */
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
