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
 * heads' blocks must be consecutive. Bits are little-endian.
 */
#include "config.h"

#include <string.h>

#include "format/erofs_format.h"
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

static void put_bits(uint8_t *p, unsigned pos, uint32_t v)
{
	uint32_t w = sqp_get32(p + pos / 8) | v << (pos % 8);

	sqp_put32(p + pos / 8, w);
}

/* One pack of vcnt entries from full[0..n) (n < vcnt: the rest padded
 * as NONHEADs that point on past the file) into out. */
static int pack(const uint8_t *full, uint64_t n, unsigned vcnt, uint8_t *out)
{
	unsigned bits = (vcnt * (vcnt == 2 ? 4u : 2u) - 4) * 8 / vcnt, i;
	uint32_t base = 0, heads = 0, back = 0;
	int have_base = 0;

	memset(out, 0, vcnt == 2 ? 8 : 32);
	for (i = 0; i < vcnt; i++) {
		const uint8_t *e = full + (uint64_t)i * EROFS_Z_INDEX_SIZE;
		uint32_t type = i < n ? sqp_get16(e) & 3u : EROFS_LC_NONHEAD, lo;

		if (type != EROFS_LC_NONHEAD) {
			uint32_t blk = sqp_get32(e + 4);

			if (!have_base) {
				base = blk - 1;
				have_base = 1;
			}
			if (blk != base + 1 + heads++)
				return -1;
			lo = sqp_get16(e + 2);
			back = 0;
		} else if (i + 1 == vcnt) {
			lo = i < n ? sqp_get16(e + 6) : 1;   /* forward */
		} else {
			lo = i < n ? sqp_get16(e + 4) : ++back;
		}
		if (type == EROFS_LC_NONHEAD && i < n)
			back = sqp_get16(e + 4);
		put_bits(out, bits * i, (lo & ((1u << LC_BITS) - 1)) | type << LC_BITS);
	}
	sqp_put32(out + (vcnt == 2 ? 8 : 32) - 4, base);
	return 0;
}

int erofs_z_compact_encode(const uint8_t *full, uint64_t nlc, unsigned mod32,
			   uint8_t *out)
{
	uint64_t first4, two, k = 0;

	regions(nlc, mod32, &first4, &two);
	for (; k < first4; k += 2, out += 8)
		if (pack(full + k * EROFS_Z_INDEX_SIZE, first4 - k < 2 ? first4 - k : 2, 2, out))
			return -1;
	for (; k < first4 + two; k += 16, out += 32)
		if (pack(full + k * EROFS_Z_INDEX_SIZE, 16, 16, out))
			return -1;
	for (; k < nlc; k += 2, out += 8)
		if (pack(full + k * EROFS_Z_INDEX_SIZE, nlc - k < 2 ? nlc - k : 2, 2, out))
			return -1;
	return 0;
}
