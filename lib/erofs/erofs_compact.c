/* SPDX-License-Identifier: MIT */
/*
 * erofs_compact.c - EROFS's compact logical cluster indexes, made from
 * the full ones.
 *
 * Why: a full index takes 8 bytes per 4 KiB of file, a compact one 2
 * (4 at the edges); on an 830 MB tree that was the 0.2% by which our
 * lz4 images were larger than mkfs.erofs's. The writer keeps full
 * indexes while it stores clusters (simple to fill in order) and this
 * file packs them when the inode is written. In a pack, each entry is a
 * 2-bit type above 12 bits: a head's offset in its logical cluster, a
 * NONHEAD's distance back to its head, except the pack's last entry,
 * whose NONHEAD distance is forward to the next head; a head's block is
 * the pack's base plus one plus the heads before it in the pack, so the
 * heads' blocks must be consecutive. With big pclusters the first
 * NONHEAD after a head says its pcluster's blocks (CBLKCNT), and the
 * kernel adds those up from the base instead. Bits are little-endian.
 */
#include "config.h"

#include <string.h>

#include "erofs/erofs_format.h"
#include "util/endian.h"

#define LC_BITS 12u

/* Entries before the 2-byte packs, and how many of those there are. */
static void regions(uint64_t nlc, unsigned mod32, uint64_t *first4, uint64_t *two)
{
	*first4 = (32 - mod32 % 32) / 4 % 8;
	if (*first4 > nlc)
		*first4 = nlc;
	*two = nlc > *first4 ? (nlc - *first4) / 16 * 16 : 0;
}

uint64_t erofs_z_compact_size(uint64_t nlc, unsigned mod32)
{
	uint64_t first4, two, rest;

	regions(nlc, mod32, &first4, &two);
	rest = nlc - first4 - two;
	return (first4 + 1) / 2 * 8 + two * 2 + (rest + 1) / 2 * 8;
}

uint64_t erofs_z_compact_pack(uint64_t nlc, unsigned mod32, uint64_t lcn)
{
	uint64_t first4, two;

	regions(nlc, mod32, &first4, &two);
	if (lcn < first4)
		return lcn / 2;
	if (lcn < first4 + two)
		return (first4 + 1) / 2 + (lcn - first4) / 16;
	return (first4 + 1) / 2 + two / 16 + (lcn - first4 - two) / 2;
}

static void put_bits(uint8_t *p, unsigned pos, uint32_t v)
{
	uint32_t w = sqp_get32(p + pos / 8) | v << (pos % 8);

	sqp_put32(p + pos / 8, w);
}

/* Blocks before entry i that the kernel adds to a big-pcluster pack's
 * base for the head at i, scanning back as it does: a CBLKCNT entry
 * gives its pcluster's blocks (and stands for the head before it), any
 * other NONHEAD jumps back to its head's CBLKCNT entry, a head without
 * one counts one block. */
static uint32_t big_before(const uint16_t *lo, const uint8_t *type, int i)
{
	uint32_t n = 0;

	while (i > 0) {
		--i;
		if (type[i] != EROFS_LC_NONHEAD) {
			n++;
		} else if (lo[i] & EROFS_Z_D0_CBLKCNT) {
			n += lo[i] & ~EROFS_Z_D0_CBLKCNT;
			--i;
		} else {
			i -= lo[i] - 2;
		}
	}
	return n;
}

/* One pack of vcnt entries from full[0..n) (n < vcnt: the rest padded
 * as NONHEADs that point on past the file) into out. Heads count their
 * blocks from the base: one each, or with big pclusters (big) as
 * big_before says. */
static int pack(const uint8_t *full, uint64_t n, unsigned vcnt, int big, uint8_t *out)
{
	unsigned bits = (vcnt * (vcnt == 2 ? 4u : 2u) - 4) * 8 / vcnt, i;
	uint32_t base = 0, heads = 0, back = 0, blk[16];
	uint16_t lo[16];
	uint8_t type[16];
	int have_base = 0;

	memset(out, 0, vcnt == 2 ? 8 : 32);
	for (i = 0; i < vcnt; i++) {
		const uint8_t *e = full + (uint64_t)i * EROFS_Z_INDEX_SIZE;

		type[i] = (uint8_t)(i < n ? sqp_get16(e) & 3u : EROFS_LC_NONHEAD);
		if (type[i] != EROFS_LC_NONHEAD) {
			blk[i] = sqp_get32(e + 4);
			lo[i] = sqp_get16(e + 2);
			back = 0;
		} else if (i < n) {
			back = sqp_get16(e + 4);
			/* The last entry says the distance on, unless it is a
			 * CBLKCNT, which the kernel reads first. */
			lo[i] = i + 1 == vcnt && !(back & EROFS_Z_D0_CBLKCNT) ?
				sqp_get16(e + 6) : (uint16_t)back;
			if (back & EROFS_Z_D0_CBLKCNT)
				back = 1;
		} else {
			lo[i] = (uint16_t)(i + 1 == vcnt ? 1 : ++back);
		}
	}
	for (i = 0; i < vcnt; i++) {
		uint32_t want;

		if (type[i] != EROFS_LC_NONHEAD) {
			want = big ? big_before(lo, type, (int)i) : 1 + heads++;
			if (!have_base) {
				base = blk[i] - want;
				have_base = 1;
			}
			if (blk[i] != base + want)
				return -1;
		}
		put_bits(out, bits * i, (lo[i] & ((1u << LC_BITS) - 1)) | (uint32_t)type[i] << LC_BITS);
	}
	sqp_put32(out + (vcnt == 2 ? 8 : 32) - 4, base);
	return 0;
}

int erofs_z_compact_encode(const uint8_t *full, uint64_t nlc, unsigned mod32,
			   int big, uint8_t *out)
{
	uint64_t first4, two, k = 0;

	regions(nlc, mod32, &first4, &two);
	for (; k < first4; k += 2, out += 8)
		if (pack(full + k * EROFS_Z_INDEX_SIZE, first4 - k < 2 ? first4 - k : 2, 2, big, out))
			return -1;
	for (; k < first4 + two; k += 16, out += 32)
		if (pack(full + k * EROFS_Z_INDEX_SIZE, 16, 16, big, out))
			return -1;
	for (; k < nlc; k += 2, out += 8)
		if (pack(full + k * EROFS_Z_INDEX_SIZE, nlc - k < 2 ? nlc - k : 2, 2, big, out))
			return -1;
	return 0;
}
