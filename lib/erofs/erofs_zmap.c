/* SPDX-License-Identifier: MIT */
/*
 * erofs_zmap.c - where a compressed EROFS file's bytes are: its map
 * header, its logical cluster indexes (full or compact), and from them
 * the extent holding any byte, with its pcluster.
 *
 * An extent starts in a HEAD (or PLAIN) lcluster at its clusterofs and
 * runs to the next HEAD's start or the end of the file; the NONHEADs
 * between point back to their HEAD. A lookup goes back from the byte's
 * lcluster to its HEAD and forward to the next: both walks are bounded
 * by the most an extent may decode to (12 MiB), so a hostile index
 * (a loop, a chain of deltas of 1, a HEAD that never comes) costs a few
 * thousand index reads at most and is refused, never followed. Every
 * pcluster is checked to lie inside the image and to be at most 1 MiB
 * before anything reads it. The last extent may instead be inline, just
 * after the indexes (ztailpacking), or in the packed inode (a fragment).
 */
#include "config.h"

#include <string.h>

#include "erofs/rd_erofs.h"
#include "sqpack/error.h"
#include "util/endian.h"

static unsigned long long znum(const struct sqp_image *img,
			       const struct rd_einode *e)
{
	return (e->pos - rd_ero(img)->meta) / EROFS_SLOT_SIZE + 1;
}

int rd_erofs_zerr(struct sqp_image *img, const struct rd_einode *e,
		  const char *what)
{
	return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: compressed data "
		      "map: %s", img->name, znum(img, e), what);
}

/* Logical cluster lcn's index; *next: the byte after its entry (or
 * its pack), where an inline pcluster follows the last. */
static int load(struct sqp_image *img, const struct rd_einode *e,
		const struct rd_zmap *z, uint64_t lcn, struct erofs_lcluster *lc,
		uint64_t *next)
{
	uint64_t pos = z->index, base;
	unsigned shift = 2, vcnt, bytes;
	uint8_t pack[32];
	int ret;

	if (lcn >= z->lclusters)
		return rd_erofs_zerr(img, e, "an index past the end of the file");
	if (e->layout == EROFS_COMPRESSED_FULL) {
		pos += lcn * 8;
		if ((ret = rd_erofs_meta_read(img, pos, pack, 8,
					      "a cluster index")) != 0)
			return ret;
		erofs_lcluster_full_decode(lc, pack);
		*next = pos + 8;
	} else {
		if (lcn < z->init4) {
			pos += lcn * 4;
		} else if (lcn - z->init4 < z->n2b) {
			pos += z->init4 * 4 + (lcn - z->init4) * 2;
			shift = 1;
		} else {
			pos += z->init4 * 4 + z->n2b * 2 +
			       (lcn - z->init4 - z->n2b) * 4;
		}
		vcnt = shift == 2 ? 2 : 16;
		bytes = vcnt << shift;
		base = pos & ~(uint64_t)(bytes - 1);
		if ((ret = rd_erofs_meta_read(img, base, pack, bytes,
					      "a cluster index")) != 0)
			return ret;
		if (erofs_lcluster_compact_decode(lc, pack, vcnt, bytes,
						  z->lcbits, (z->h.advise &
						  EROFS_Z_BIG_PCLUSTER_1) != 0,
						  (unsigned)((pos - base) >> shift)))
			return rd_erofs_zerr(img, e, "an inconsistent compact index");
		*next = base + bytes;
	}
	if (*next > rd_erofs_end(img, e->pos))
		return rd_erofs_zerr(img, e, "indexes past the end of the image");
	if (lc->type != EROFS_LC_NONHEAD && lc->clusterofs >> z->lcbits)
		return rd_erofs_zerr(img, e, "an extent starting past its cluster");
	if (lc->cblkcnt != 0 && !(z->h.advise & (EROFS_Z_BIG_PCLUSTER_1 |
						  EROFS_Z_BIG_PCLUSTER_2)))
		return rd_erofs_zerr(img, e, "a block count without big pclusters");
	return 0;
}

/* The HEAD lcluster of the extent holding byte off; *next as load()'s
 * for off's own lcluster. */
static int head_of(struct sqp_image *img, const struct rd_einode *e,
		   const struct rd_zmap *z, uint64_t off, uint64_t *head,
		   struct erofs_lcluster *lc, uint64_t *next)
{
	uint64_t lcn = off >> z->lcbits, cur = lcn, back_max, dummy;
	uint32_t dist;
	int ret;

	back_max = (EROFS_Z_DECODED_MAX >> z->lcbits) + 1;
	if ((ret = load(img, e, z, lcn, lc, next)) != 0)
		return ret;
	if (lc->type != EROFS_LC_NONHEAD) {
		if ((off & ((1ull << z->lcbits) - 1)) >= lc->clusterofs) {
			*head = lcn;
			return 0;
		}
		dist = 1;
	} else {
		dist = lc->delta0;
	}
	do {
		if (dist == 0 || dist > cur || lcn - (cur - dist) > back_max)
			return rd_erofs_zerr(img, e, "a cluster pointing back outside "
				    "its extent");
		cur -= dist;
		if ((ret = load(img, e, z, cur, lc, &dummy)) != 0)
			return ret;
		dist = lc->delta0;
	} while (lc->type == EROFS_LC_NONHEAD);
	*head = cur;
	return 0;
}

int rd_erofs_zmap_init(struct sqp_image *img, const struct rd_einode *e,
		       struct rd_zmap *z)
{
	struct rd_erofs *ero = rd_ero(img);
	uint64_t at = (e->pos + e->data_off + 7) & ~7ull, next;
	struct erofs_lcluster lc;
	uint8_t raw[EROFS_Z_HEADER_SIZE];
	int ret;

	memset(z, 0, sizeof(*z));
	if ((ret = rd_erofs_meta_read(img, at, raw, sizeof(raw),
				      "a map header")) != 0)
		return ret;
	erofs_zheader_decode(&z->h, raw);
	if ((z->h.advise & EROFS_Z_FRAGMENT_PCLUSTER) &&
	    !(ero->sb.feature_incompat & EROFS_IN_FRAGMENTS))
		return rd_erofs_zerr(img, e, "a fragment without the feature");
	if (z->h.whole_fragment)
		return 0;
	if (e->layout == EROFS_COMPRESSED_FULL && (z->h.advise & EROFS_Z_EXTENTS))
		return rd_erofs_zenc_init(img, e, z, raw, at);
	if (z->h.alg[0] >= SQP_EROFS_ALG_MAX || z->h.alg[1] >= SQP_EROFS_ALG_MAX)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: unknown "
			      "compression algorithm %u", img->name, znum(img, e),
			      z->h.alg[z->h.alg[0] < SQP_EROFS_ALG_MAX]);
	/* mkfs.erofs makes logical clusters one block; the compact form
	 * is laid out by blocks, so other sizes are refused. */
	if (z->h.lcbits_extra != 0)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: logical "
			      "clusters larger than a block not supported",
			      img->name, znum(img, e));
	z->lcbits = ero->bits;
	z->lclusters = (e->size + ero->bs - 1) >> ero->bits;
	if (e->layout == EROFS_COMPRESSED_FULL) {
		z->index = at + EROFS_Z_HEADER_SIZE + 8;
	} else {
		z->index = at + EROFS_Z_HEADER_SIZE;
		if (!(z->h.advise & EROFS_Z_BIG_PCLUSTER_1) !=
		    !(z->h.advise & EROFS_Z_BIG_PCLUSTER_2))
			return rd_erofs_zerr(img, e, "big pclusters for one head type");
		if (z->lcbits > 14 || ((z->h.advise & EROFS_Z_COMPACTED_2B) &&
				       z->lcbits > 12))
			return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: "
				      "compact indexes for %u-byte clusters",
				      img->name, znum(img, e), 1u << z->lcbits);
		/* 4-byte entries up to a 32-byte boundary, then 2-byte
		 * ones in packs of 16, then 4-byte ones again. */
		z->init4 = ((32 - z->index % 32) / 4) & 7;
		if ((z->h.advise & EROFS_Z_COMPACTED_2B) && z->init4 < z->lclusters)
			z->n2b = (z->lclusters - z->init4) & ~15ull;
	}
	if (e->size == 0 || !(z->h.advise & (EROFS_Z_INLINE_PCLUSTER |
					      EROFS_Z_FRAGMENT_PCLUSTER)))
		return 0;
	if ((ret = head_of(img, e, z, e->size - 1, &z->tail_head, &lc,
			   &next)) != 0)
		return ret;
	/* The full form has room for the upper half of the offset. */
	if ((z->h.advise & EROFS_Z_FRAGMENT_PCLUSTER) &&
	    e->layout == EROFS_COMPRESSED_FULL)
		z->h.fragment_off |= (uint64_t)lc.blkaddr << 32;
	z->idata = next;
	if ((z->h.advise & EROFS_Z_INLINE_PCLUSTER) &&
	    (z->h.idata_size == 0 ||
	     (next & (ero->bs - 1)) + z->h.idata_size > ero->bs ||
	     next + z->h.idata_size > rd_erofs_end(img, next)))
		return rd_erofs_zerr(img, e, "a bad inline pcluster");
	return 0;
}

/* Blocks of the pcluster whose HEAD is lcn: one, or what the next
 * lcluster's CBLKCNT says for big pclusters. */
static int pcluster_blocks(struct sqp_image *img, const struct rd_einode *e,
			   const struct rd_zmap *z, uint64_t lcn, unsigned type,
			   uint32_t *blocks)
{
	unsigned big = type == EROFS_LC_HEAD1 ? EROFS_Z_BIG_PCLUSTER_1 :
					      EROFS_Z_BIG_PCLUSTER_2;
	struct erofs_lcluster lc;
	uint64_t next;
	int ret;

	*blocks = 1;
	if (!(z->h.advise & big) || lcn + 1 >= z->lclusters)
		return 0;
	if ((ret = load(img, e, z, lcn + 1, &lc, &next)) != 0)
		return ret;
	if (lc.type != EROFS_LC_NONHEAD)
		return 0;
	if (lc.cblkcnt == 0 || lc.delta0 != 1 ||
	    ((uint64_t)lc.cblkcnt << rd_ero(img)->bits) > EROFS_Z_PCLUSTER_MAX)
		return rd_erofs_zerr(img, e, "a big pcluster without a valid size");
	*blocks = lc.cblkcnt;
	return 0;
}

/* A fragment (a whole file may be one) is handed out in pieces of at
 * most RD_Z_FRAG_PIECE bytes, the one holding off: the packed inode
 * is read a piece at a time, so no buffer grows with a file's size. */
void rd_erofs_frag_piece(struct rd_extent *x, uint64_t off)
{
	uint64_t skip = (off - x->la) / RD_Z_FRAG_PIECE * RD_Z_FRAG_PIECE;

	x->la += skip;
	x->pa += skip;
	x->llen -= skip;
	if (x->llen > RD_Z_FRAG_PIECE)
		x->llen = RD_Z_FRAG_PIECE;
}

int rd_erofs_zext(struct sqp_image *img, const struct rd_einode *e,
		  struct rd_zmap *z, uint64_t off, struct rd_extent *x)
{
	struct rd_erofs *ero = rd_ero(img);
	struct erofs_lcluster lc, nl;
	uint64_t head, next, end = e->size, n;
	uint32_t blocks;
	int ret;

	if (z->recsz != 0)
		return rd_erofs_zenc_find(img, e, z, off, x);
	if (z->h.whole_fragment) {
		*x = (struct rd_extent){ 0, e->size, z->h.fragment_off, 0,
				       RD_Z_FRAGMENT, 0 };
		rd_erofs_frag_piece(x, off);
		return 0;
	}
	if ((ret = head_of(img, e, z, off, &head, &lc, &next)) != 0)
		return ret;
	x->la = (head << z->lcbits) | lc.clusterofs;
	for (n = head + 1; n < z->lclusters; n++) {
		if (((n - head) << z->lcbits) > EROFS_Z_DECODED_MAX + ero->bs)
			return rd_erofs_zerr(img, e, "an extent of more than 12 MiB");
		if ((ret = load(img, e, z, n, &nl, &next)) != 0)
			return ret;
		if (nl.type != EROFS_LC_NONHEAD) {
			end = (n << z->lcbits) | nl.clusterofs;
			break;
		}
		/* What a lookup from this lcluster would find. */
		if (nl.delta0 != n - head)
			return rd_erofs_zerr(img, e, "a cluster pointing back to another "
				    "extent's start");
	}
	/* A tail-packed file's last HEAD may start past its end. */
	end = end < e->size ? end : e->size;
	if (end <= off || x->la > off || end - x->la > EROFS_Z_DECODED_MAX)
		return rd_erofs_zerr(img, e, "an extent that does not hold its bytes");
	x->llen = end - x->la;
	if (lc.type == EROFS_LC_PLAIN)
		x->fmt = z->h.advise & EROFS_Z_INTERLACED_PCLUSTER ?
			 RD_Z_INTERLACED : RD_Z_RAW;
	else
		x->fmt = z->h.alg[lc.type == EROFS_LC_HEAD2];
	if (x->fmt < SQP_EROFS_ALG_MAX && !sqp_erofs_unz_built(x->fmt))
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: not "
			      "built with %s, which this file's data needs",
			      img->name, znum(img, e), sqp_erofs_alg_name(x->fmt));
	if ((z->h.advise & EROFS_Z_INLINE_PCLUSTER) && head == z->tail_head) {
		x->pa = z->idata;
		x->plen = z->h.idata_size;
	} else if ((z->h.advise & EROFS_Z_FRAGMENT_PCLUSTER) &&
		   head == z->tail_head) {
		x->pa = z->h.fragment_off;
		x->plen = 0;
		x->fmt = RD_Z_FRAGMENT;
		rd_erofs_frag_piece(x, off);
		return 0;
	} else {
		if ((ret = pcluster_blocks(img, e, z, head, lc.type,
					   &blocks)) != 0)
			return ret;
		x->pa = (uint64_t)lc.blkaddr << ero->bits;
		x->plen = blocks << ero->bits;
	}
	if (x->pa > rd_erofs_end(img, x->pa) || x->plen > rd_erofs_end(img, x->pa) - x->pa)
		return rd_erofs_zerr(img, e, "a pcluster past the end of the image");
	if ((x->fmt == RD_Z_RAW && x->llen > x->plen) ||
	    (x->fmt == RD_Z_INTERLACED && (x->llen > x->plen ||
					    x->plen > ero->bs)))
		return rd_erofs_zerr(img, e, "a raw pcluster shorter than its extent");
	return 0;
}

int rd_erofs_zdecode(const struct rd_erofs *ero, const struct rd_extent *x,
		     const uint8_t *in, uint8_t *out, struct sqp_erofs_unz **unz)
{
	uint32_t skip, right;

	switch (x->fmt) {
	case RD_Z_RAW:
		memcpy(out, in, x->llen);
		return 0;
	case RD_Z_INTERLACED:
		/* Stored rotated: the extent's first byte sits where it
		 * falls in its block. zext bounds llen <= plen <= bs. */
		skip = (uint32_t)(x->la & (ero->bs - 1));
		if (skip >= x->plen)
			return SQP_ERR_BAD_DATA;
		right = x->plen - skip < x->llen ? x->plen - skip :
						   (uint32_t)x->llen;
		memcpy(out, in + skip, right);
		memcpy(out + right, in, x->llen - right);
		return 0;
	default:
		return sqp_erofs_unz(unz, x->fmt, in, x->plen, out, x->llen,
				     (ero->sb.feature_incompat &
				      EROFS_IN_ZERO_PADDING) != 0);
	}
}

int rd_erofs_zwalk_init(struct sqp_image *img, const struct rd_einode *e,
			struct rd_zwalk *w)
{
	w->e = e;
	w->off = 0;
	return rd_erofs_zmap_init(img, e, &w->z);
}

int rd_erofs_zwalk_next(struct sqp_image *img, struct rd_zwalk *w,
			struct rd_extent *x)
{
	int ret;

	if (w->off >= w->e->size)
		return 0;
	if ((ret = rd_erofs_zext(img, w->e, &w->z, w->off, x)) != 0)
		return ret;
	/* zext found an extent holding off that starts before it: one the
	 * last extent already covered part of. */
	if (x->la != w->off)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: compressed "
			      "data map: extents overlap at byte %llu", img->name,
			      znum(img, w->e), (unsigned long long)w->off);
	w->off = x->la + x->llen;
	return 1;
}

int rd_erofs_zfail(struct sqp_image *img, const struct rd_einode *e,
		   const struct rd_extent *x, int code)
{
	if (code == SQP_ERR_NOMEM)
		return rd_err(img, code, "out of memory");
	return rd_err(img, code, "%s: inode %llu: the %s pcluster at %llu "
		      "does not decompress to the %llu bytes of its extent",
		      img->name, znum(img, e), sqp_erofs_alg_name(x->fmt),
		      (unsigned long long)x->pa, (unsigned long long)x->llen);
}
