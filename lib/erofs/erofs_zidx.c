/* SPDX-License-Identifier: MIT */
/*
 * erofs_zidx.c - a compressed EROFS file's index record as its clusters
 * are stored, on the caller's thread, in file order: each cluster's
 * head (and the NONHEAD indexes before it), its blocks appended, or,
 * with dedup, named where an equal earlier file stored them; the inline
 * tail; the indexes to the file's end. And for finish, the map
 * header and full indexes written from that record.
 *
 * Why apart from erofs_zip.c (cutting and taking segments back) and
 * erofs_seam.c (the re-cut at a seam): all three store clusters, and
 * every cluster goes through erofs_zip_put here, so what dedup compares
 * is always what is stored, whoever cut it. The invariant: while the
 * file shares (e->cur.like), every head names the other file's block at
 * the same place (like_base + blocks so far), so the two maps compare
 * equal exactly when the files were cut alike.
 */
#include "config.h"

#include <string.h>

#include "codec/codec_dest.h"
#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "erofs/erofs_zip.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/writer_impl.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)

void erofs_zidx_header(const struct sqp_writer *w, int compact, uint32_t inl,
		       const uint8_t *zr, uint8_t *out)
{
	uint64_t off;
	unsigned kind = erofs_frag_of(erofs_of(w), zr, &off);

	if (kind >= EROFS_FRAG_WHOLE_T) {
		/* The offset's top bit says the whole file is one. */
		sqp_put64(out, off | (uint64_t)1 << 63);
		return;
	}
	erofs_z_map_header_encode((compact ? EROFS_Z_COMPACTED_2B : 0) |
				  (erofs_w_big_pclusters(w) ?
				   EROFS_Z_BIG_PCLUSTER_1 | EROFS_Z_BIG_PCLUSTER_2 : 0) |
				  (inl > 0 ? EROFS_Z_INLINE_PCLUSTER : 0) |
				  (kind != 0 ? EROFS_Z_FRAGMENT_PCLUSTER : 0), (uint16_t)inl,
				  (uint8_t)erofs_of(w)->zdest[zr[ZREC_CODEC]]->erofs_alg, 0, out);
	/* A tail's offset (under 4 GiB) where an inline size goes. */
	if (kind != 0)
		sqp_put32(out, (uint32_t)off);
}

/* With a tail fragment, the last head's block is the upper half of the
 * fragment's offset in the full form (the kernel reads it so): 0, as
 * tails stay under 4 GiB. */
void erofs_zidx_full(const struct sqp_writer *w, uint64_t nlc, uint32_t rec,
		     const uint8_t *idx, uint8_t *out)
{
	uint64_t off, k = nlc;

	memcpy(out, idx, nlc * EROFS_Z_INDEX_SIZE);
	if (erofs_frag_of(erofs_of(w), chunkarr_at(&erofs_of(w)->zidx, rec), &off) == 0)
		return;
	while (k > 0 && (sqp_get16(out + --k * EROFS_Z_INDEX_SIZE) & 3u) == EROFS_LC_NONHEAD)
		;
	sqp_put32(out + k * EROFS_Z_INDEX_SIZE + 4, 0);
}

uint8_t *erofs_zip_rec(const struct erofs_wstate *e, uint64_t k)
{
	return chunkarr_at(&e->zidx, e->cur.rec + (uint32_t)k);
}

/* NONHEAD indexes for the logical clusters after the last head up to
 * (not including) next; with big pclusters, the first after a
 * compressed head says its blocks instead of 1. */
static void fill_nonheads(struct erofs_wstate *e, uint64_t next)
{
	uint64_t k;
	uint16_t back;

	for (k = e->cur.prev + 1; k < next; k++) {
		back = (uint16_t)(k - e->cur.prev);
		if (back == 1 && e->pcluster > BS && !e->cur.prev_plain)
			back = (uint16_t)(EROFS_Z_D0_CBLKCNT | e->cur.prev_blocks);
		erofs_z_nonhead_encode(back, (uint16_t)(next - k), erofs_zip_rec(e, ZREC_INDEXES + k));
	}
}

/* After a file's last cluster: the indexes to its end, its blocks;
 * with dedup, shared or recorded. */
int erofs_zip_finish(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);

	fill_nonheads(e, e->cur.nlc);
	sqp_put32(erofs_zip_rec(e, 0), e->cur.blocks);
	if (e->cur.xp.full)
		sqp_put16(erofs_zip_rec(e, 0) + 4,
			  (uint16_t)(sqp_get16(erofs_zip_rec(e, 0) + 4) | EROFS_W_ZFULL));
	return e->cur.dedup ? erofs_dedup_zip_end(w) : 0;
}

/* Extent dedupe, for this file's clusters (the packed inode's are
 * not). */
static int xdedupe(const struct erofs_wstate *e)
{
	return e->xd.on && e->cur.dedup;
}

/* A cluster's index at byte at of the current file: the NONHEAD ones
 * since the last head, then its own, naming blocks of a pcluster stored
 * as it is (plain) or not: x, an earlier one (extent dedupe), or else
 * the next block appended, or while the file shares (dedup) the other
 * file's at the same place. */
static int zip_head(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		    const struct erofs_xrec *x)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t lcn = at / BS, blk = w->out.pos / BS;
	uint32_t blocks = x != NULL ? x->blocks : p->blocks;
	int plain = x != NULL ? x->plain : p->plain;

	if (x != NULL)
		blk = x->blk;
	else if (e->cur.like != FS_NONE)
		blk = e->cur.like_base + e->cur.blocks;
	if (lcn > 0)
		fill_nonheads(e, lcn);
	if (blk > UINT32_MAX)
		return writer_fail(w, SQP_ERR_LIMIT, "EROFS: more than 2^32 blocks");
	erofs_z_head_encode(plain ? EROFS_LC_PLAIN : EROFS_LC_HEAD1, (uint16_t)(at % BS),
			    (uint32_t)blk, erofs_zip_rec(e, ZREC_INDEXES + lcn));
	e->cur.prev = lcn;
	e->cur.prev_blocks = blocks;
	e->cur.prev_plain = plain;
	if (xdedupe(e))
		erofs_xdedup_head(e, lcn, x != NULL, blk, blocks);
	return 0;
}

/* The index of the file's last cluster, at byte at, whose bytes go
 * elsewhere (inline, or into the packed inode): dedup's run of shared
 * blocks ends there. */
int erofs_zip_head_last(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p)
{
	int ret = erofs_of(w)->cur.dedup ? erofs_dedup_zip_put(w, 0, NULL) : 0;

	return ret < 0 ? ret : zip_head(w, at, p, NULL);
}

/* The last pcluster (at byte at of the file) inline: its index, its
 * inl bytes (data is its blocks) into the tail arena, and their place
 * and size into the file's record. */
int erofs_zip_inline(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		     const uint8_t *data, uint32_t inl)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t blk = e->cur.like != FS_NONE ? e->cur.like_base + e->cur.blocks : w->out.pos / BS;
	uint32_t index;
	int ret;

	/* With full indexes (extent dedupe), 6 bytes more per logical
	 * cluster: where the tail no longer fits beside them in one block,
	 * its pcluster is stored as the others are (data holds it whole). */
	if (xdedupe(e) && erofs_xdedup_full(e, at / BS, blk) &&
	    inl > BS - (((64 + e->cur.xp.xsize + 7) & ~7u) + EROFS_Z_HEADER_SIZE + 8 +
			e->cur.nlc * EROFS_Z_INDEX_SIZE) % BS)
		return erofs_zip_put(w, at, p, NULL, data);
	if ((ret = erofs_zip_head_last(w, at, p)) != 0)
		return ret;
	ret = chunkarr_add(&e->tails, (inl + EROFS_W_TAIL_UNIT - 1) / EROFS_W_TAIL_UNIT, &index);
	if (ret != 0)
		return writer_fail(w, ret, "out of memory");
	memcpy(chunkarr_at(&e->tails, index),
	       p->plain ? data : data + (size_t)p->blocks * BS - inl, inl);
	sqp_put16(erofs_zip_rec(e, 0) + 4, (uint16_t)inl);
	sqp_put32(erofs_zip_rec(e, 1), index);
	e->ztail = 1;
	return 0;
}

int erofs_zip_put(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		  const uint8_t *in, const uint8_t *blk)
{
	struct erofs_wstate *e = erofs_of(w);
	int shared = e->cur.dedup ? erofs_dedup_zip_put(w, p->blocks, blk) : 0, ret;
	uint64_t own;
	struct erofs_xrec x;

	/* Not while the whole file shares: its heads name the other's. */
	if (shared == 0 && xdedupe(e)) {
		if ((shared = erofs_xdedup_put(w, at, p, in, &x)) == 1) {
			e->cur.blocks += x.blocks;
			return zip_head(w, at, p, &x);
		}
	}
	if (shared < 0)
		return shared;
	own = w->out.pos / BS;
	if ((ret = zip_head(w, at, p, NULL)) != 0)
		return ret;
	e->cur.blocks += p->blocks;
	if (shared)
		return 0;
	if ((ret = erofs_w_append(w, blk, (size_t)p->blocks * BS)) != 0 ||
	    (xdedupe(e) && (ret = erofs_xdedup_add(w, p, in, own)) != 0))
		return ret;
	w->stats.blocks_written += p->blocks;
	w->stats.blocks_raw += p->plain;
	w->stats.blocks_probed_raw += (unsigned)p->untried;
	return 0;
}

int erofs_zip_put_copy(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		       const uint8_t *id, int fd, uint64_t off)
{
	struct erofs_wstate *e = erofs_of(w);
	int ret;

	if ((ret = zip_head(w, at, p, NULL)) != 0)
		return ret;
	e->cur.blocks += p->blocks;
	if ((ret = erofs_w_copy(w, id, fd, off, (uint64_t)p->blocks * BS)) != 0)
		return ret;
	w->stats.blocks_written += p->blocks;
	w->stats.blocks_raw += p->plain;
	return 0;
}
