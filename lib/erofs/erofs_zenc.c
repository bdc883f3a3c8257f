/* SPDX-License-Identifier: MIT */
/*
 * erofs_zenc.c - compressed EROFS files mapped by encoded extents, the
 * form mkfs.erofs 1.9 writes with the 48-bit layout (erofs_format.h
 * says the records' bytes): each extent names its stored bytes by a
 * byte position and length, so pclusters need not start or end on a
 * block.
 *
 * Records of 4 and 8 bytes are one per logical cluster, found by
 * index; records of 4 only give lengths, each pcluster starting where
 * the last ended, so the position of lcluster n is a sum over the n
 * before it: the map remembers the last sum, and a walk from the start
 * reads each record once. Records of 16 and 32 bytes are one per
 * extent, found by a binary search on their start. Every extent is
 * checked as the index path's are: it holds the byte looked up,
 * decodes to at most 12 MiB from at most 1 MiB, and its stored bytes
 * lie inside the image.
 */
#include "config.h"

#include "erofs/rd_erofs.h"
#include "sqpack/error.h"
#include "util/endian.h"

static unsigned long long znum(const struct sqp_image *img,
			       const struct rd_einode *e)
{
	return (e->pos - rd_ero(img)->meta) / EROFS_SLOT_SIZE + 1;
}

/* The 64-bit start of the pcluster of records of 4 bytes' lcluster 0. */
static int first_pa(struct sqp_image *img, const struct rd_zmap *z, uint64_t *pa)
{
	uint8_t raw[8];
	int ret;

	if ((ret = rd_erofs_meta_read(img, z->index - 8, raw, 8,
				      "the extents' start")) != 0)
		return ret;
	*pa = sqp_get64(raw);
	return 0;
}

int rd_erofs_zenc_init(struct sqp_image *img, const struct rd_einode *e,
		       struct rd_zmap *z, const uint8_t *raw, uint64_t at)
{
	struct rd_erofs *ero = rd_ero(img);
	uint64_t end, count;
	int ret = 0;

	z->recsz = 4u << ((z->h.advise >> 1) & 3);
	z->index = (at + EROFS_Z_HEADER_SIZE + z->recsz - 1) & ~(uint64_t)(z->recsz - 1);
	if (z->recsz >= 16) {
		z->extents = sqp_get32(raw) | (uint64_t)sqp_get16(raw + 6) << 32;
		count = z->extents;
	} else {
		/* An lcluster is one extent: at most what one decodes to. */
		z->lcbits = ero->bits + (raw[7] & 15u);
		if ((1ull << z->lcbits) > EROFS_Z_DECODED_MAX)
			return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: "
				      "extents of %llu bytes", img->name, znum(img, e),
				      1ull << z->lcbits);
		z->lclusters = (e->size + (1ull << z->lcbits) - 1) >> z->lcbits;
		count = z->lclusters;
		if (z->recsz == 4) {
			z->index += 8;
			if (z->index > rd_erofs_end(img, z->index) ||
			    (ret = first_pa(img, z, &z->run_pa)) != 0)
				return ret < 0 ? ret : rd_erofs_zerr(img, e,
					"extents past the end of the image");
		}
	}
	/* the records follow the inode, in the metabox where it is */
	end = rd_erofs_end(img, z->index);
	if (z->index > end || count > (end - z->index) / z->recsz)
		return rd_erofs_zerr(img, e, "extents past the end of the image");
	return 0;
}

/* Record i's fields: plen, pstart, lstart (0 where the record has
 * none). */
static int record(struct sqp_image *img, const struct rd_zmap *z, uint64_t i,
		  uint32_t *plen, uint64_t *pstart, uint64_t *lstart)
{
	uint8_t r[32];
	int ret;

	if ((ret = rd_erofs_meta_read(img, z->index + i * z->recsz, r, z->recsz,
				      "an extent record")) != 0)
		return ret;
	*plen = sqp_get32(r);
	*pstart = z->recsz >= 8 ? sqp_get32(r + 4) : 0;
	*lstart = 0;
	if (z->recsz >= 16) {
		*pstart |= (uint64_t)sqp_get32(r + 8) << 32;
		*lstart = sqp_get32(r + 12);
	}
	if (z->recsz >= 32)
		*lstart |= (uint64_t)sqp_get32(r + 16) << 32;
	return 0;
}

/* Records of 4 or 8 bytes: the extent of off's lcluster; *last: it is
 * the file's last. */
static int by_lcluster(struct sqp_image *img, const struct rd_einode *e,
		       struct rd_zmap *z, uint64_t off, struct rd_extent *x,
		       uint32_t *plen, int *last)
{
	uint64_t lcn = off >> z->lcbits, pa, la;
	uint32_t n;
	int ret;

	if ((ret = record(img, z, lcn, plen, &x->pa, &la)) != 0)
		return ret;
	if (z->recsz == 4) {
		if (z->run_lcn > lcn) {
			/* A step back: sum again from the first. */
			if ((ret = first_pa(img, z, &z->run_pa)) != 0)
				return ret;
			z->run_lcn = 0;
		}
		for (; z->run_lcn < lcn; z->run_lcn++) {
			if ((ret = record(img, z, z->run_lcn, &n, &pa, &la)) != 0)
				return ret;
			z->run_pa += n & EROFS_ZE_PLEN_MASK;
		}
		x->pa = z->run_pa;
	}
	x->la = lcn << z->lcbits;
	x->llen = e->size - x->la < (1ull << z->lcbits) ? e->size - x->la :
		  1ull << z->lcbits;
	*last = lcn + 1 == z->lclusters;
	return 0;
}

/* Records of 16 or 32 bytes: the last whose start is at most off, and
 * the next one's start (or the file's end) as its end. */
static int by_search(struct sqp_image *img, const struct rd_einode *e,
		     const struct rd_zmap *z, uint64_t off, struct rd_extent *x,
		     uint32_t *plen, int *last)
{
	uint64_t l = 0, r = z->extents, mid, pa, la, end = e->size;
	uint32_t n;
	int found = 0, ret;

	while (l < r) {
		mid = l + (r - l) / 2;
		if ((ret = record(img, z, mid, &n, &pa, &la)) != 0)
			return ret;
		if (la > off) {
			r = mid;
			end = la;
		} else {
			l = mid + 1;
			found = 1;
			x->la = la;
			x->pa = pa;
			*plen = n;
		}
	}
	if (!found || end > e->size || end <= x->la)
		return rd_erofs_zerr(img, e, "extents out of order");
	x->llen = end - x->la;
	*last = l >= z->extents;
	return 0;
}

int rd_erofs_zenc_find(struct sqp_image *img, const struct rd_einode *e,
		       struct rd_zmap *z, uint64_t off, struct rd_extent *x)
{
	struct rd_erofs *ero = rd_ero(img);
	unsigned fmt;
	uint32_t plen = 0;
	int last = 0, ret;

	ret = z->recsz >= 16 ? by_search(img, e, z, off, x, &plen, &last) :
	      by_lcluster(img, e, z, off, x, &plen, &last);
	if (ret != 0)
		return ret;
	if (x->llen > EROFS_Z_DECODED_MAX)
		return rd_erofs_zerr(img, e, "an extent of more than 12 MiB");
	if (last && (z->h.advise & EROFS_Z_FRAGMENT_PCLUSTER)) {
		/* plen and pstart's low half: where in the packed inode. */
		x->pa = plen | (z->recsz >= 8 ? x->pa << 32 : 0);
		x->plen = 0;
		x->fmt = RD_Z_FRAGMENT;
		rd_erofs_frag_piece(x, off);
		return 0;
	}
	fmt = plen >> EROFS_ZE_FMT_SHIFT;
	x->plen = plen & EROFS_ZE_PLEN_MASK;
	if (x->plen == 0)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: an "
			      "extent with no stored bytes", img->name, znum(img, e));
	if (fmt > SQP_EROFS_ALG_MAX)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: unknown "
			      "compression algorithm %u", img->name, znum(img, e),
			      fmt - 1);
	if (fmt != 0)
		x->fmt = fmt - 1;
	else if ((z->h.advise & EROFS_Z_INTERLACED_PCLUSTER) &&
		 ((x->pa | x->plen) & (ero->bs - 1)) == 0)
		x->fmt = RD_Z_INTERLACED;
	else
		x->fmt = RD_Z_RAW;
	if (x->fmt < SQP_EROFS_ALG_MAX && !sqp_erofs_unz_built(x->fmt))
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: not "
			      "built with %s, which this file's data needs",
			      img->name, znum(img, e), sqp_erofs_alg_name(x->fmt));
	if (x->plen > EROFS_Z_PCLUSTER_MAX || x->pa > img->end ||
	    x->plen > img->end - x->pa)
		return rd_erofs_zerr(img, e, "a pcluster past the end of the image");
	if ((x->fmt == RD_Z_RAW && x->llen > x->plen) ||
	    (x->fmt == RD_Z_INTERLACED && (x->llen > x->plen || x->plen > ero->bs)))
		return rd_erofs_zerr(img, e, "a raw pcluster shorter than its extent");
	return 0;
}
