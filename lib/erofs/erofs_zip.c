/* SPDX-License-Identifier: MIT */
/*
 * erofs_zip.c - compressed EROFS files: physical clusters of one block
 * or, with big pclusters, up to the writer's pcluster size, compressed
 * on the pool, stored in submission order.
 *
 * Why this shape: EROFS compresses to a fixed output size (a cluster is
 * one block, filled with as much input as the codec fits), so where a
 * cluster ends depends on the data before it. A file is cut into
 * segments (erofs_w_segment: 8 MiB, lz4's 16, more for big pclusters),
 * each a job that cuts its own clusters, so the result depends on the
 * segment size alone, never on -j (erofs_seam.c then re-cuts
 * across each seam, on the data alone too). A cluster of n blocks that
 * does not take more than n blocks of input is stored as it is (PLAIN,
 * one block), so every logical cluster holds at most one cluster's
 * start, as the index needs, and a cluster of two blocks or more spans
 * the logical cluster after its head, whose index says its blocks
 * (CBLKCNT). Compressed data sits at the end of its last block, behind
 * zeros in its first (0padding), where the kernel finds its length.
 * A try that gains no block stores its first block as it is, and the
 * blocks of the input it covered follow as they are, untried
 * (erofs_zip_cut): incompressible data costs the codec one pass, as in
 * mkfs.erofs 1.9. The caller's thread
 * takes jobs back in order, appends the blocks and writes the file's
 * full logical cluster indexes into an arena (spilled with the tree)
 * that finish packs behind the inode (erofs_zidx.c). A segment that
 * did not gain a block is stored as it is (PLAIN clusters, one per
 * block), and a file none of whose segments did is stored uncompressed
 * after all, its tail inline.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "codec/codec_dest.h"
#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "erofs/erofs_zip.h"
#include "sqpack/error.h"
#include "util/pool.h"
#include "write/writer_impl.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)
#define ZIDX_SHIFT 20
/* Jobs in flight beyond the big sets (big_sets), with small
 * buffers of their own: a long file on one worker no longer idles the
 * other while the caller's thread waits for the oldest job. */
#define ZIP_MORE_JOBS 12

static int zworker_init(void *ctx, void **state)
{
	struct erofs_zcodec *z = calloc(1, sizeof(*z));
	int ret;

	if (z == NULL)
		return SQP_ERR_NOMEM;
	if ((ret = erofs_zcodec_create(ctx, z)) != 0) {
		erofs_zcodec_destroy(ctx, z);
		free(z);
		return ret;
	}
	*state = z;
	return 0;
}

static void zworker_fini(void *ctx, void *state)
{
	erofs_zcodec_destroy(ctx, state);
	free(state);
}

/* The bytes of a compressed file's inode record (isize bytes of inode,
 * xsize of xattrs), indexes included, as erofs_finish.c places them:
 * the map header at 8 after the xattrs, the compact indexes after it. */
static uint64_t record_bytes(uint32_t isize, uint32_t xsize, uint64_t nlc)
{
	uint64_t idx = ((isize + xsize + 7) & ~7u) + EROFS_Z_HEADER_SIZE;

	return idx + erofs_z_compact_size(nlc, (unsigned)(idx % 32));
}

uint32_t erofs_frag_max(const struct erofs_wstate *e)
{
	return e->pcluster > EROFS_FRAG_TRY ? e->pcluster : EROFS_FRAG_TRY;
}

static int zjob_run(void *ctx, void *state, struct sqp_pool_job *pj)
{
	struct erofs_zjob *j = (struct erofs_zjob *)pj;
	const struct erofs_wstate *e = ctx;
	uint32_t pos = 0, until = 0;
	struct erofs_pcl *p;
	int ret;

	j->npcl = 0;
	j->nblk = 0;
	j->guess_in = 0;
	j->guess_out = 0;
	/* The codec in the seed: a file nominates only files that the same
	 * codec decodes. */
	if (e->dd.on && j->first)
		j->key = XXH3_64bits_withSeed(j->in, j->len, j->size ^ (uint64_t)j->zc << 63);
	while (pos < j->len) {
		p = &j->pcl[j->npcl++];
		ret = erofs_zip_cut(e, state, j, pos, until, j->out + (size_t)j->nblk * BS, p);
		if (ret != 0)
			return ret;
		until = erofs_zip_until(p, until);
		pos += p->len;
		j->nblk += p->blocks;
	}
	return 0;
}

#define ZBUF_HUGE ((size_t)2 << 20)

/* n bytes for a buffer of a set: from 2 MiB on, on 2 MiB and in huge
 * pages where the system gives them on request (madvise mode). Each set
 * is filled from fresh pages the first time it is used: at -j2 six big
 * sets, about 100 MB, one fault per 4 KiB page where huge pages take
 * one per 2 MiB. On rootfs-small at -j2, runs without and with in turn
 * (load 13 to 17 on 2 cores), median CPU: lz4 0.56 s and 0.535 s at 64
 * KiB (with ahead in 10 pairs of 10), 0.535 s and 0.51 s at 1 MiB (9 of
 * 10), 29,000 faults and 13,000; lz4hc 4.84 s and 4.88 s at 64 KiB
 * (without ahead in 6 of 6: more system time, compaction on a busy
 * host), 4.93 s and 4.95 s at 1 MiB (4 of 6). lz4 gains 4 to 5%, lz4hc
 * loses under 1%, about as many seconds. Huge pages off for the process
 * (PR_SET_THP_DISABLE, in madvise mode the same as no advice) once
 * looked faster on this VM, whose host takes freed 2 MiB pages back;
 * runs in turn did not confirm it. */
static void *zbuf_mem(size_t n)
{
#ifdef MADV_HUGEPAGE
	void *p;

	if (n >= ZBUF_HUGE) {
		if (posix_memalign(&p, ZBUF_HUGE, n) != 0)
			return NULL;
		/* only advice: without huge pages the buffer works as well */
		(void)madvise(p, n & ~(ZBUF_HUGE - 1), MADV_HUGEPAGE);
		return p;
	}
#endif
	return malloc(n);
}

/* Buffers for segments of up to len bytes, hold bytes before the input. */
static int zbuf_alloc(const struct erofs_wstate *e, struct erofs_zbuf *b, size_t hold,
		      uint32_t len, uint32_t pcluster)
{
	b->in_buf = zbuf_mem(hold + len);
	b->in = b->in_buf != NULL ? b->in_buf + hold : NULL;
	b->out = zbuf_mem((size_t)len + pcluster);
	b->pcl = malloc(len / BS * sizeof(*b->pcl));
	return b->in == NULL || b->out == NULL || b->pcl == NULL ? SQP_ERR_NOMEM : 0;
}

static void zbuf_free(struct erofs_zbuf *b)
{
	free(b->in_buf);
	free(b->out);
	free(b->pcl);
}

static void zbuf_use(struct erofs_zjob *j, const struct erofs_zbuf *b)
{
	j->in = b->in;
	j->out = b->out;
	j->pcl = b->pcl;
}

/* The big buffer sets for segments of seg bytes with workers workers
 * (0: serial): 2 per worker + 2 of EROFS_W_SEGMENT, and of larger
 * segments (lz4's, big pclusters) as many as that memory holds, but
 * never fewer than one per worker and one for the caller's thread to
 * fill, so that no worker waits for a set: of lz4's 16 MiB segments
 * n + 1 (on rootfs-small at -j 2 peak RSS 95 to 188 MiB, where 8 MiB
 * ones took 108 to 197; 2n + 2 of them took 10% more with lz4hc in
 * 64 KiB clusters, for no wall time measurable on the shared machine);
 * at 1 MiB pclusters (32 MiB segments) 3 at -j2, 17 at -j16. */
static unsigned big_sets(unsigned workers, uint32_t seg)
{
	unsigned n = workers ? workers : 1;
	uint64_t budget = (2 * (uint64_t)n + 2) * EROFS_W_SEGMENT;

	return budget / seg > n + 1 ? (unsigned)(budget / seg) : n + 1;
}

/* The codecs (desc.codec, then desc.erofs_codec2 if any), the hints,
 * the pcluster sizes. */
static int zip_codecs(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	const struct sqp_codec_config *c[EROFS_W_CODECS] = {
		&w->desc.codec, &w->desc.erofs_codec2,
	};
	unsigned i;

	for (i = 0; i < EROFS_W_CODECS && c[i]->id != 0; i++) {
		e->zdest[i] = codec_dest_of(c[i]->id);
		if (e->zdest[i] == NULL)
			return writer_fail(w, SQP_ERR_UNSUPPORTED, "EROFS: codec %s cannot "
					   "compress to a fixed size", sqp_codec_name(c[i]->id));
		e->zcfg[i] = *c[i];
		/* A codec's block is 4 KiB whatever the image's: lzma's
		 * least dictionary is 8 of them, mkfs.erofs's 32 KiB. */
		e->zcfg[i].block_size = EROFS_W_BLOCK;
		e->ncodec = i + 1;
	}
	e->dest = e->zdest[0];
	e->pcluster = e->pcl_def = w->desc.erofs_pcluster_size > BS ?
				   w->desc.erofs_pcluster_size : BS;
	/* The metabox's pclusters count among the image's. */
	e->frag.mbox = w->desc.erofs_metabox_pcluster != 0;
	if (w->desc.erofs_metabox_pcluster > e->pcluster)
		e->pcluster = w->desc.erofs_metabox_pcluster;
	if (w->desc.erofs_hints != NULL && erofs_hints_load(w, w->desc.erofs_hints) != 0)
		return w->err.code;
	erofs_hints_pick(e, NULL);
	return 0;
}

int erofs_zip_init(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	unsigned workers = w->desc.jobs > 1 ? w->desc.jobs : 0, i;
	struct sqp_pool_desc pd;

	if (w->desc.codec.id == 0)
		return 0;
	if (zip_codecs(w) != 0)
		return w->err.code;
	e->frag.on = (w->desc.flags & SQP_WRITE_EROFS_FRAGMENTS) != 0;
	e->max_extent = w->desc.erofs_max_extent ? w->desc.erofs_max_extent : UINT32_MAX;
	chunkarr_init(&e->zidx, EROFS_Z_INDEX_SIZE, ZIDX_SHIFT, w->spill);
	for (i = 0; i < e->ncodec; i++) {
		uint32_t seg = erofs_w_segment(e->pcluster, e->zdest[i]->erofs_alg);

		e->seg = seg > e->seg ? seg : e->seg;
	}
	e->nbig = big_sets(workers, e->seg);
	e->njobs = e->nbig + ZIP_MORE_JOBS;
	e->jobs = calloc(e->njobs, sizeof(*e->jobs));
	e->bigs = calloc(e->nbig, sizeof(*e->bigs));
	if (e->jobs == NULL || e->bigs == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; i < e->njobs; i++) {
		struct erofs_zjob *j = &e->jobs[i];

		if (zbuf_alloc(e, &j->small, 0, EROFS_ZIP_SMALL, e->pcluster) != 0)
			return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
		zbuf_use(j, &j->small);
	}
	for (i = 0; i < e->nbig; i++) {
		if (zbuf_alloc(e, &e->bigs[i], EROFS_SEAM_HOLD, e->seg, e->pcluster) != 0)
			return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
		e->bigs[i].next = e->free_bigs;
		e->free_bigs = &e->bigs[i];
	}
	pd = (struct sqp_pool_desc){
		.workers = workers, .capacity = e->njobs, .run = zjob_run,
		.worker_init = zworker_init, .worker_fini = zworker_fini, .ctx = e,
	};
	if (sqp_pool_create(&pd, &e->pool) != 0)
		return writer_fail(w, SQP_ERR_NOMEM, "starting the compression workers");
	return erofs_seam_init(w) != 0 ? w->err.code : erofs_xdedup_init(w);
}

void erofs_zip_cleanup(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	unsigned i;

	erofs_hints_cleanup(e);
	if (e->dest == NULL)
		return;
	sqp_pool_destroy(e->pool);
	e->pool = NULL;
	erofs_seam_cleanup(w);
	erofs_xdedup_cleanup(w);
	for (i = 0; e->jobs != NULL && i < e->njobs; i++)
		zbuf_free(&e->jobs[i].small);
	for (i = 0; e->bigs != NULL && i < e->nbig; i++)
		zbuf_free(&e->bigs[i]);
	free(e->jobs);
	free(e->bigs);
	e->jobs = NULL;
	e->bigs = e->free_bigs = NULL;
	chunkarr_cleanup(&e->zidx);
}

int erofs_zip_fits(const struct sqp_writer *w, uint64_t size)
{
	/* With ztailpacking a file of a block or less may compress inline
	 * (no_gain decides); without, it cannot gain a block. Its indexes
	 * (a chunk holds 4 GiB's) must have 32-bit numbers, as an image's
	 * blocks do. */
	const struct erofs_wstate *e = erofs_of(w);
	uint64_t least = w->desc.flags & SQP_WRITE_EROFS_ZTAILPACKING ? 0 : BS;

	return size > least && (size + BS - 1) / BS + ZREC_INDEXES < UINT32_MAX;
}

/* With ztailpacking, the bytes free after a compressed file's record in
 * the block where it ends, with the extended inode; 0 without
 * ztailpacking. Which inode a file gets is known only at finish; the
 * compact one is 32 bytes shorter, so the tail fits after it too unless
 * that moves it across a block boundary, and then finish gives the file
 * the extended inode (shape_of). A record of more than a block starts a
 * run of blocks of its own (erofs_fit.c), so its tail goes where its
 * indexes end, as mkfs.erofs puts it: the kernel asks only that the
 * tail stay in one block. */
uint32_t erofs_zip_tail_room(const struct sqp_writer *w, uint64_t nlc, uint32_t xsize)
{
	const struct erofs_wstate *e = erofs_of(w);

	if (!(w->desc.flags & SQP_WRITE_EROFS_ZTAILPACKING) || (e->frag.on && !e->frag.packing))
		return 0;
	return BS - (uint32_t)(record_bytes(64, xsize, nlc) % BS);
}

/* With ztailpacking, the bytes of the file's last pcluster that go
 * inline after its indexes (the whole record in one block: tail_room);
 * 0 when they do not fit or the option is off. */
static uint32_t inline_tail(const struct erofs_zjob *j)
{
	const struct erofs_pcl *p = &j->pcl[j->npcl - 1];

	return j->last && j->npcl > 0 ? erofs_pcl_inline(p, j->room) : 0;
}

/* Whether a file takes no fewer bytes compressed (its blocks, indexes
 * and inline tail) than as it is (full blocks, the tail inline where it
 * fits, else a block of its own): asked of its last segment when it has
 * one, or when every segment before was stored as it is (their blocks
 * cost the same either way). With the tail inline after a long record,
 * a .deb of 4,705 blocks would otherwise save 5 bytes of its tail and
 * pay 9 KiB of indexes. */
static int no_gain(const struct erofs_wstate *e, const struct erofs_zjob *j, uint32_t inl)
{
	uint64_t tail = j->len % BS, nlc = (j->size + BS - 1) / BS;
	uint64_t flat = j->len / BS * BS +
			(tail > 0 && 64 + j->xsize + tail > BS ? BS : tail);
	uint64_t zip = (uint64_t)j->nblk * BS + EROFS_Z_HEADER_SIZE + 8 +
		       nlc * EROFS_Z_INDEX_SIZE;

	if (inl > 0)
		zip = zip - (uint64_t)j->pcl[j->npcl - 1].blocks * BS + inl;
	return j->last && (j->first || e->cur.raw) && zip >= flat;
}

/* store_flat's file with a chunk size (mkfs.erofs --chunksize): chunk
 * based. A file of one segment is cut into chunks from memory (holes,
 * shared chunks); one of several has its earlier blocks from start,
 * and the job's follow them, the tail in a block of its own. */
static int store_chunked(struct sqp_writer *w, struct erofs_zjob *j, uint64_t start,
			 struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	uint32_t full = j->len / BS, tail = j->len % BS;
	int ret;

	if (j->first)
		return erofs_chunk_mem(w, j->in, j->size, f);
	if ((ret = erofs_w_append(w, j->in, (size_t)full * BS)) != 0)
		return ret;
	if (tail > 0) {
		memcpy(e->block, j->in + (size_t)full * BS, tail);
		memset(e->block + tail, 0, BS - tail);
		if ((ret = erofs_w_append(w, e->block, BS)) != 0)
			return ret;
	}
	w->stats.blocks_written += full + (tail > 0);
	w->stats.blocks_raw += full + (tail > 0);
	return erofs_chunk_run(w, start, j->size, f);
}

/* A file stored as it is after all: the job's full blocks appended
 * after the start-th block (with the file's earlier segments there
 * already, when it has several), its tail inline where it fits; chunk
 * based with a chunk size. */
static int store_flat(struct sqp_writer *w, struct erofs_zjob *j, uint64_t start)
{
	struct erofs_wstate *e = erofs_of(w);
	struct fs_inode f;
	uint32_t full = j->len / BS, tail = j->len % BS;
	int ret;

	memset(&f, 0, sizeof(f));
	if (e->chunks.bits != 0 && !e->frag.packing) {
		ret = store_chunked(w, j, start, &f);
		if (ret == 0 && fstree_file_set(&w->tree, j->ino, &f) != 0)
			ret = w->err.code;
		return ret;
	}
	f.u.file.size = j->size;
	f.u.file.ero_rec = FS_NONE;
	/* As erofs_w_add_file: the first block if any is appended (with
	 * ztailpacking a file of less than a block comes here too, its tail
	 * a block of its own when it does not fit beside the inode). */
	if (j->size >= BS || (tail > 0 && 64 + j->xsize + tail > BS))
		f.u.file.blocks_start = start;
	/* Dedup: a file of one segment whose blocks an earlier one holds. */
	if (f.u.file.blocks_start != 0 && e->dd.on && j->first &&
	    (ret = erofs_dedup_flat_mem(w, j->in, j->size, j->xsize, &f.u.file.blocks_start)) != 0) {
		if (ret < 0)
			return ret;
		full = 0;
		tail = 64 + j->xsize + tail > BS ? 0 : tail;
	}
	if ((ret = erofs_w_append(w, j->in, (size_t)full * BS)) != 0)
		return ret;
	w->stats.blocks_written += full;
	w->stats.blocks_raw += full;
	ret = erofs_w_put_tail(w, j->in + j->len / BS * BS, tail, j->xsize, &f);
	if (ret == 0 && fstree_file_set(&w->tree, j->ino, &f) != 0)
		ret = w->err.code;
	return ret;
}

/* After the file's last cluster: its end, when a fragment already holds
 * it (j->cut), the last head, then the indexes to the end. */
static int zip_end(struct sqp_writer *w, const struct erofs_zjob *j)
{
	struct erofs_pcl p = { .off = j->len, .len = (uint32_t)j->cut, .frag = 1 };
	int ret;

	if (j->cut != 0) {
		if ((ret = erofs_zip_head_last(w, j->off + j->len, &p)) != 0)
			return ret;
		erofs_frag_cut_mark(erofs_zip_rec(erofs_of(w), 0), j->cut_off);
	}
	return erofs_zip_finish(w);
}

/* A segment (of a file of several) that gains no block compressed is
 * stored as it is: its blocks in order, each a PLAIN cluster at its own
 * logical cluster (segments start on block boundaries), the last one
 * zero padded. When every segment of the file was, the file is stored
 * uncompressed after all, its tail inline where it fits, as mkfs.erofs
 * stores a file that gains no block: no indexes, no padded last block
 * (rootfs-big's four .deb files over 8 MiB were 1 to 2 blocks and some
 * 10 KiB of indexes each larger than mkfs.erofs's). */
static int store_raw(struct sqp_writer *w, struct erofs_zjob *j)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_pcl one = { .blocks = 1, .plain = 1 };
	uint32_t n = (j->len + BS - 1) / BS, b, used;
	uint64_t lcn = j->off / BS;
	int ret;

	/* Stored flat, the file's blocks are one run from its start: what
	 * its earlier segments shared (dedup) is copied first. */
	if (j->last && e->cur.raw && j->cut == 0)
		return e->cur.dedup && (ret = erofs_dedup_zip_unshare(w)) != 0 ? ret :
		       store_flat(w, j, e->cur.start);
	for (b = 0; b < n; b++, lcn++) {
		used = b + 1 < n ? BS : j->len - b * BS;
		if (used < BS) {
			memcpy(e->block, j->in + (size_t)b * BS, used);
			memset(e->block + used, 0, BS - used);
		}
		one.len = used;
		ret = erofs_zip_put(w, lcn * BS, &one, j->in + (size_t)b * BS,
				    used < BS ? e->block : j->in + (size_t)b * BS);
		if (ret != 0)
			return ret;
	}
	return j->last ? zip_end(w, j) : 0;
}

static int retire(struct sqp_writer *w, struct erofs_zjob *j)
{
	struct erofs_wstate *e = erofs_of(w);
	uint32_t i, at_blk, inl;
	int ret;

	if (j->pj.status != 0)
		return writer_fail(w, j->pj.status, "EROFS: compressing: %s",
				   sqp_strerror(j->pj.status));
	inl = inline_tail(j);
	/* A file with a fragment is kept so: the packed inode compresses
	 * its end with the others'. */
	if (!j->pcl[j->npcl - 1].frag && j->cut == 0 && no_gain(e, j, inl))
		return j->first ? store_flat(w, j, w->out.pos / BS) :
		       (ret = erofs_seam_flush(w)) != 0 ? ret : store_raw(w, j);
	if (j->first) {
		e->cur.rec = j->rec;
		e->cur.nlc = (j->size + BS - 1) / BS;
		e->cur.blocks = 0;
		e->cur.raw = 1;
		e->cur.start = w->out.pos / BS;
		e->cur.size = j->size;
		/* (not a split file: its end is not its own) */
		e->cur.dedup = e->dd.on && !e->frag.packing && j->cut == 0;
		e->cur.key = j->key;
		e->cur.like = FS_NONE;
		erofs_xdedup_begin(e, j->xsize);
		e->compressed = 1;
	}
	if (inl == 0 && j->nblk >= (j->len + BS - 1) / BS)
		return (ret = erofs_seam_flush(w)) != 0 ? ret : store_raw(w, j);
	e->cur.raw = 0;
	if ((ret = erofs_seam_join(w, j, &i, &at_blk)) != 0)
		return ret;
	for (; i < j->npcl; i++) {
		const struct erofs_pcl *p = &j->pcl[i];
		uint64_t at = j->off + p->off;

		if (inl > 0 && i + 1 == j->npcl)
			return (ret = erofs_zip_inline(w, at, p, j->out + (size_t)at_blk * BS, inl)) != 0 ?
			       ret : erofs_zip_finish(w);
		if (p->frag) {
			if ((ret = erofs_zip_head_last(w, at, p)) != 0)
				return ret;
			ret = erofs_frag_tail(w, j->in + p->off, p->len, at == 0, erofs_zip_rec(e, 0),
					      e->cur.like == FS_NONE ? NULL : chunkarr_at(&e->zidx, e->cur.like));
			return ret != 0 ? w->err.code : erofs_zip_finish(w);
		}
		if (!j->last && i + 1 == j->npcl && erofs_seam_hold(w, j, at_blk))
			return 0;
		if ((ret = erofs_zip_put(w, at, p, j->in + p->off, j->out + (size_t)at_blk * BS)) != 0)
			return ret;
		at_blk += p->blocks;
	}
	return j->last ? zip_end(w, j) : 0;
}

/* Take the oldest job back and store it; its big set, if it had one,
 * is free again. */
static int retire_oldest(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_zjob *j = (struct erofs_zjob *)sqp_pool_wait(e->pool);
	int ret = retire(w, j);

	if (j->big != NULL) {
		j->big->next = e->free_bigs;
		e->free_bigs = j->big;
		j->big = NULL;
		zbuf_use(j, &j->small);
	}
	return ret;
}

/* A free job for a segment of len bytes of a file of size bytes (of
 * several segments when size is more): the
 * oldest one taken back when all are out, and as many more as it takes
 * to free a big set when the segment needs one. */
static int next_job(struct sqp_writer *w, uint64_t size, uint32_t len, struct erofs_zjob **out)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_zjob *j;
	int ret;

	if (sqp_pool_full(e->pool) && (ret = retire_oldest(w)) != 0)
		return ret;
	j = &e->jobs[e->submitted++ % e->njobs];
	/* Every segment of a file of several takes a big set: the re-cut
	 * puts up to EROFS_SEAM_HOLD bytes back in front of its input. */
	if (len > EROFS_ZIP_SMALL || size > len) {
		while (e->free_bigs == NULL)
			if ((ret = sqp_pool_in_flight(e->pool) > 0 ? retire_oldest(w) :
				   writer_fail(w, SQP_ERR_INTERNAL, "EROFS: no big buffer free")) != 0)
				return ret;
		j->big = e->free_bigs;
		e->free_bigs = j->big->next;
		zbuf_use(j, j->big);
	}
	*out = j;
	return 0;
}

int erofs_zip_record(struct sqp_writer *w, uint64_t size, struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t nlc = (size + BS - 1) / BS;
	uint32_t rec;
	int ret;

	if ((ret = chunkarr_add(&e->zidx, (uint32_t)nlc + ZREC_INDEXES, &rec)) != 0)
		return writer_fail(w, ret, "out of memory");
	memset(chunkarr_at(&e->zidx, rec), 0, 2 * EROFS_Z_INDEX_SIZE);
	((uint8_t *)chunkarr_at(&e->zidx, rec))[ZREC_CODEC] = (uint8_t)e->sel.zc;
	f->u.file.size = size;
	f->u.file.blocks_start = 0;
	f->u.file.ero_rec = rec;
	f->u.file.ero_zip = EROFS_W_ZIP;
	return 0;
}

int erofs_zip_add(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		  uint32_t xattr_size, const struct sqp_data_source *src,
		  struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	/* body: what is compressed; the rest, e->frag.cut, a fragment */
	uint64_t nlc = (size + BS - 1) / BS, off, body = size - e->frag.cut;
	uint32_t len, seg = erofs_w_segment(e->sel.cap, e->zdest[e->sel.zc]->erofs_alg);
	struct erofs_zjob *j;
	int ret;

	if ((ret = erofs_zip_record(w, size, f)) != 0)
		return ret;
	for (off = 0; off < body; off += len) {
		len = body - off < seg ? (uint32_t)(body - off) : seg;
		if ((ret = next_job(w, size, len, &j)) != 0)
			return ret;
		j->ino = ino;
		j->size = size;
		j->off = off;
		j->len = len;
		j->xsize = xattr_size;
		j->rec = f->u.file.ero_rec;
		j->zc = e->sel.zc;
		j->cap = e->sel.cap;
		j->first = off == 0;
		j->last = off + j->len == body;
		j->cut = j->last ? e->frag.cut : 0;
		j->cut_off = e->frag.cut_off;
		j->room = j->last ? erofs_zip_tail_room(w, nlc, xattr_size) : 0;
		/* Reserved by the most a tail may take, so the tail log stays
		 * under 4 GiB (a tail's offset has 32 bits) whatever each
		 * tail turns out to be: the segment, or when that no longer
		 * fits the bound of EROFS_FRAG_TRY; past that, files keep
		 * their ends. */
		j->frag = 0;
		if (j->last && e->frag.on && !e->frag.packing && j->cut == 0)
			j->frag = e->frag.reserved + j->len <= UINT32_MAX ? j->len :
				  e->frag.reserved + erofs_frag_max(e) <= UINT32_MAX ?
				  erofs_frag_max(e) : 0;
		e->frag.reserved += j->frag;
		if ((ret = writer_read_filled(src, j->in, j->len)) != 0)
			return ret;
		w->stats.bytes_in += j->len;
		sqp_pool_submit(e->pool, &j->pj);
	}
	return 0;
}

int erofs_zip_drain(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	int ret;

	if (e->pool == NULL)
		return 0;
	while (sqp_pool_in_flight(e->pool) > 0)
		if ((ret = retire_oldest(w)) != 0)
			return ret;
	return 0;
}
