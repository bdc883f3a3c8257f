/* SPDX-License-Identifier: MIT */
/*
 * erofs_zformat.c - decoders of the records that say where a compressed
 * EROFS file's extents are: the map header and the logical cluster
 * indexes, full and compact.
 *
 * Why a file of its own: the compact form packs 2 or 16 indexes into
 * bit fields behind one base block address, and a HEAD's block address
 * is that base plus the pclusters of the HEADs before it in its pack;
 * that arithmetic is format knowledge, not reading. Everything here
 * works on the bytes of one record or one pack, never further: whether
 * the numbers make sense for the file is the reader's to check.
 */
#include "config.h"

#include "erofs/erofs_format.h"
#include "util/endian.h"

/* NONHEAD delta0 with this bit: the pcluster's block count instead. */
#define D0_CBLKCNT 0x0800u
#define LC_PARTIAL_REF 0x8000u
#define FRAGMENT_INODE_BIT 0x80u

void erofs_zheader_decode(struct erofs_zheader *h, const uint8_t *raw)
{
	h->whole_fragment = (raw[7] & FRAGMENT_INODE_BIT) != 0;
	if (h->whole_fragment) {
		/* All 63 other bits are the offset in the packed inode. */
		h->fragment_off = sqp_get64(raw) & ~(1ull << 63);
		h->idata_size = 0;
		h->advise = EROFS_Z_FRAGMENT_PCLUSTER;
		h->alg[0] = h->alg[1] = 0;
		h->lcbits_extra = 0;
		return;
	}
	h->fragment_off = sqp_get32(raw);
	h->idata_size = sqp_get16(raw + 2);
	h->advise = sqp_get16(raw + 4);
	h->alg[0] = raw[6] & 15;
	h->alg[1] = raw[6] >> 4;
	h->lcbits_extra = raw[7] & 7;
}

void erofs_lcluster_full_decode(struct erofs_lcluster *lc, const uint8_t *raw)
{
	uint16_t advise = sqp_get16(raw);

	*lc = (struct erofs_lcluster){ .type = advise & 3 };
	if (lc->type == EROFS_LC_NONHEAD) {
		uint16_t d0 = sqp_get16(raw + 4);

		if (d0 & D0_CBLKCNT) {
			lc->cblkcnt = d0 & ~D0_CBLKCNT;
			lc->delta0 = 1;
		} else {
			lc->delta0 = d0;
		}
		return;
	}
	lc->partial_ref = (advise & LC_PARTIAL_REF) != 0;
	lc->clusterofs = sqp_get16(raw + 2);
	lc->blkaddr = sqp_get32(raw + 4);
}

/* Entry i's low bits and type: entries are bits wide each, from the
 * pack's start, a 32-bit little-endian read always inside the pack. */
static unsigned field(const uint8_t *pack, unsigned bits, unsigned lobits,
		      unsigned i, uint8_t *type)
{
	unsigned pos = bits * i;
	uint32_t v = sqp_get32(pack + pos / 8) >> (pos & 7);

	*type = (v >> lobits) & 3;
	return v & ((1u << lobits) - 1);
}

/* Blocks taken by the pclusters of the HEADs before entry i in the
 * pack: one each, or, with big pclusters, each one's CBLKCNT. */
static int blocks_before(const uint8_t *pack, unsigned bits, unsigned lobits,
			 int big, int i, uint32_t *nblk)
{
	uint8_t type;
	unsigned lo;

	*nblk = big ? 0 : 1;
	while (i > 0) {
		lo = field(pack, bits, lobits, (unsigned)--i, &type);
		if (type != EROFS_LC_NONHEAD) {
			*nblk += 1;
			continue;
		}
		if (!big) {
			/* Skip back over the rest of this extent. */
			i -= (int)lo;
			if (i >= 0)
				*nblk += 1;
			continue;
		}
		if (lo & D0_CBLKCNT) {
			i--;
			*nblk += lo & ~D0_CBLKCNT;
		} else if (lo <= 1) {
			return -1;
		} else {
			i -= (int)lo - 2;
		}
	}
	return 0;
}

int erofs_lcluster_compact_decode(struct erofs_lcluster *lc,
				  const uint8_t *pack, unsigned vcnt,
				  unsigned pack_bytes, unsigned lcbits,
				  int big_pcluster, unsigned i)
{
	unsigned lobits = lcbits > 12 ? lcbits : 12;
	unsigned bits = (pack_bytes - 4) * 8 / vcnt;
	uint32_t nblk;
	uint8_t type;
	unsigned lo = field(pack, bits, lobits, i, &type);

	*lc = (struct erofs_lcluster){ .type = type };
	if (type == EROFS_LC_NONHEAD) {
		if (lo & D0_CBLKCNT) {
			if (!big_pcluster)
				return -1;
			lc->cblkcnt = (uint16_t)(lo & ~D0_CBLKCNT);
			lc->delta0 = 1;
		} else if (i + 1 != vcnt) {
			lc->delta0 = (uint16_t)lo;
		} else {
			/* The pack's last entry holds delta1: delta0 is one
			 * more than the entry before it says. */
			lo = field(pack, bits, lobits, i - 1, &type);
			lc->delta0 = type != EROFS_LC_NONHEAD ? 1 :
				     (lo & D0_CBLKCNT) ? 2 : (uint16_t)(lo + 1);
		}
		return 0;
	}
	lc->clusterofs = (uint16_t)lo;
	if (blocks_before(pack, bits, lobits, big_pcluster, (int)i, &nblk) != 0)
		return -1;
	lc->blkaddr = sqp_get32(pack + pack_bytes - 4) + nblk;
	return 0;
}
