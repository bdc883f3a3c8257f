/* SPDX-License-Identifier: MIT */
/*
 * erofs_xdedup.c - extent dedupe (--erofs-dedupe, mkfs.erofs's
 * -E dedupe): a cluster of a compressed file whose input equals the
 * input of a pcluster stored before, in this file or another, names
 * that pcluster in its index instead of storing its own.
 *
 * Why this shape: as everywhere in sqpack, a hash only nominates. Every
 * pcluster stored is recorded by a hash of its input (the whole input,
 * its length the seed); a later cluster of that hash and length is
 * shared only once the nominee's blocks have been read back from the
 * image and decoded to exactly its bytes, which is what the kernel will
 * decode for it. The extent keeps its own length, the pcluster's whole
 * output, so no partial reference is needed and every reader of EROFS
 * (Debian's fsck.erofs 1.5 too) reads it. Decisions are made on the
 * caller's thread, in file order, from the clusters the workers cut
 * (which depend on the input alone), so the image is the same for any
 * -j.
 *
 * Compact indexes say one block per pack of logical clusters and count
 * the pack's heads on from it (erofs_compact.c): a file whose heads in
 * a pack do not follow one another's blocks (one that shares a run from
 * other than a pack's first head, or stores its own after one) gets the
 * full indexes instead, 8 bytes per 4 KiB of file against 2 (0.15%),
 * which the file's index record says (erofs_zip_finish), and an inline
 * tail that no longer fits beside them goes to a block (erofs_zidx.c).
 * A run that starts a file (dedup's near-twins, prefixes) keeps the
 * compact form. What is found is what the workers' cuts line up: twins
 * and prefixes of earlier files, and runs repeated at the same place
 * relative to the cuts; a run met at another place is not (mkfs.erofs
 * 1.9 re-cuts there).
 *
 * Memory: a record of 12 bytes and 20 of hash index per pcluster, kept
 * in the spill arena: about 8 MiB per GiB of incompressible input (4
 * KiB pclusters), less when clusters compress; at most XD_RECS records
 * (about 64 MiB), after which new pclusters are no longer recorded.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "codec/erofs_unz.h"
#include "erofs/erofs_zip.h"
#include "sqpack/error.h"
#include "write/writer_impl.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)
#define XD_RECS (1u << 21)
/* 2^14 records of 12 bytes: 192 KiB chunks. */
#define XD_SHIFT 14

int erofs_xdedup_init(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_xdedup *x = &e->xd;

	if (!erofs_dedup_shares(w))
		return 0;
	chunkarr_init(&x->recs, sizeof(struct erofs_xrec), XD_SHIFT, w->spill);
	x->back = malloc(e->pcluster > BS ? e->pcluster : BS);
	if (x->back == NULL || hchain_init(&x->idx, w->spill) != 0)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	x->on = 1;
	return 0;
}

void erofs_xdedup_cleanup(struct sqp_writer *w)
{
	struct erofs_xdedup *x = &erofs_of(w)->xd;

	if (x->back == NULL)
		return;
	hchain_cleanup(&x->idx);
	chunkarr_cleanup(&x->recs);
	sqp_erofs_unz_free(x->unz);
	free(x->back);
	free(x->out);
	memset(x, 0, sizeof(*x));
}

void erofs_xdedup_begin(struct erofs_wstate *e, uint32_t xsize)
{
	memset(&e->cur.xp, 0, sizeof(e->cur.xp));
	e->cur.xp.xsize = xsize;
	/* The map header sits at 8 after the inode (32 or 64 bytes) and
	 * its xattrs; the indexes follow its 8 bytes. */
	e->cur.xp.mod32 = (((xsize + 7) & ~7u) + EROFS_Z_HEADER_SIZE) % 32;
	e->cur.xp.id = UINT64_MAX;
}

static uint64_t pack_of(const struct erofs_wstate *e, uint64_t lcn)
{
	return erofs_z_compact_pack(e->cur.nlc, e->cur.xp.mod32, lcn);
}

void erofs_xdedup_head(struct erofs_wstate *e, uint64_t lcn, int shared, uint64_t blk,
		       uint32_t blocks)
{
	struct erofs_xpack *xp = &e->cur.xp;
	uint64_t id = pack_of(e, lcn);

	if (id != xp->id)
		xp->id = id;
	else if (blk != xp->next)
		xp->full = 1;
	xp->next = blk + blocks;
	xp->shared |= shared;
}

int erofs_xdedup_full(const struct erofs_wstate *e, uint64_t lcn, uint64_t blk)
{
	return e->cur.xp.full || (pack_of(e, lcn) == e->cur.xp.id && blk != e->cur.xp.next);
}

void erofs_xdedup_adopt(struct erofs_wstate *e)
{
	e->cur.xp.shared |= e->cur.blocks > 0;
}

/* The codec of the file being stored (compress hints give each its
 * own): a pcluster it names must be of that codec, or stored as it is,
 * since the file's map header gives one algorithm for all its heads. */
static unsigned cur_zc(const struct erofs_wstate *e)
{
	return ((const uint8_t *)chunkarr_at(&e->zidx, e->cur.rec))[ZREC_CODEC];
}

static uint64_t key_of(const struct erofs_wstate *e, const uint8_t *in, uint32_t len)
{
	return erofs_dedup_key(&e->dd, XXH3_64bits_withSeed(in, len, len));
}

/* Whether record r's pcluster, read back from the image and decoded,
 * is the len bytes at in (1), not (0), or an error. */
static int decodes_to(struct sqp_writer *w, const struct erofs_xrec *r, const uint8_t *in,
		      uint32_t len)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_xdedup *x = &e->xd;
	size_t n = (size_t)r->blocks * BS;
	uint64_t off = (uint64_t)r->blk * BS;
	uint8_t *p;
	int ret;

	if (off + n > w->out.flushed && (ret = imgout_flush(&w->out)) != 0)
		return ret;
	if ((ret = imgout_pread(&w->out, off, x->back, n)) != 0)
		return writer_fail(w, ret, "EROFS: dedupe: reading back block %u", r->blk);
	if (r->plain)
		return memcmp(x->back, in, len) == 0;
	if (len > x->out_cap) {
		if ((p = realloc(x->out, len)) == NULL)
			return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
		x->out = p;
		x->out_cap = len;
	}
	ret = sqp_erofs_unz(&x->unz, (unsigned)e->zdest[r->zc]->erofs_alg, x->back, n,
			    x->out, len, 1);
	if (ret == SQP_ERR_BAD_DATA)
		return 0;
	if (ret != 0)
		return writer_fail(w, ret, "EROFS: dedupe: decoding block %u: %s", r->blk,
				   sqp_strerror(ret));
	return memcmp(x->out, in, len) == 0;
}

/* Whether record r may be named by the cluster of len bytes at byte at
 * of the file: a pcluster of several blocks needs a NONHEAD after its
 * head to say so; a compact pack's first head counts its base back
 * from r, by at most a pcluster's blocks (one without big pclusters). */
static int fits(const struct erofs_wstate *e, const struct erofs_xrec *r, uint64_t at,
		uint32_t len)
{
	uint64_t lcn = at / BS, end = at + len >= e->cur.size ? e->cur.nlc : (at + len) / BS;

	if (r->blocks > 1 && end < lcn + 2)
		return 0;
	return r->blk >= e->pcluster / BS;
}

int erofs_xdedup_put(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		     const uint8_t *in, struct erofs_xrec *found)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t key;
	uint32_t i;
	int ret;

	if (in == NULL || p->len == 0)
		return 0;
	key = key_of(e, in, p->len);
	for (i = hchain_first(&e->xd.idx, key); i != HCHAIN_END; i = hchain_next(&e->xd.idx, i, key)) {
		*found = *(const struct erofs_xrec *)chunkarr_at(&e->xd.recs, i);
		if (found->len != p->len || !fits(e, found, at, p->len) ||
		    (!found->plain && found->zc != cur_zc(e)))
			continue;
		if ((ret = decodes_to(w, found, in, p->len)) < 0)
			return ret;
		if (ret == 1) {
			w->stats.blocks_deduped += found->blocks;
			return 1;
		}
		w->stats.dedup_rejected++;
	}
	return 0;
}

int erofs_xdedup_add(struct sqp_writer *w, const struct erofs_pcl *p, const uint8_t *in,
		     uint64_t blk)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_xdedup *x = &e->xd;
	uint32_t i;
	int ret;

	if (in == NULL || p->len == 0 || x->idx.count >= XD_RECS)
		return 0;
	if ((ret = chunkarr_add(&x->recs, 1, &i)) != 0 ||
	    (ret = hchain_insert(&x->idx, key_of(e, in, p->len))) != 0)
		return writer_fail(w, ret, "EROFS: dedupe: out of memory");
	*(struct erofs_xrec *)chunkarr_at(&x->recs, i) = (struct erofs_xrec){
		.blk = (uint32_t)blk, .len = p->len, .blocks = (uint16_t)p->blocks,
		.plain = (uint8_t)p->plain, .zc = (uint8_t)cur_zc(e) };
	return 0;
}
