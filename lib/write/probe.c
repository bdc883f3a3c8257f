/* SPDX-License-Identifier: MIT */
/*
 * probe.c - spotting blocks that no codec will shrink, before a codec
 * spends its time on them.
 *
 * Root file systems carry a lot of already-compressed data (.gz, .xz,
 * .deb, images): about a quarter of the full blocks of a Debian tree. A
 * strong codec (xz, zstd -15) works hardest on exactly those blocks and
 * then stores them raw anyway. A codec can only win through repeats (LZ
 * matches) or a skewed byte distribution (entropy coding), so a block is
 * declared incompressible only when both are absent:
 *
 *  1. its byte histogram is nearly flat: order-0 entropy above ~7.97 bits
 *     per byte, which caps what entropy coding alone could save at ~0.4%,
 *     about what any codec's own framing costs. The test is a chi-square
 *     in integers (entropy deficit ~ chi2 / (2 ln 2 * len)), so the
 *     decision is the same on every machine; and
 *  2. few 4-byte sequences repeat: LZ codecs match from 3 or 4 bytes on.
 *     Chance alone repeats about one 4-byte sequence per 128 KiB of random
 *     bytes; a fragment block of small .gz files repeats 9 to 20 per KiB
 *     (the gzip headers, deflate's own short patterns) and zstd -15 takes
 *     1-3% off it, while on a Debian tree 99% of the blocks that no codec
 *     shrinks stay under 5 per KiB. The line is drawn at 4.
 *
 * Repeats are counted twice and the larger count taken. A table of the
 * last position of each hash sees repeats at short distances (periodic
 * data, deflate's own patterns) but forgets a position after about as
 * many bytes as it has slots, so alone it misses a repeat tens of KiB
 * away (a block of random bytes followed by a copy of its start). The
 * second table sees every distance: it holds only the positions whose
 * 4 bytes hash into a fixed fraction of the hash space, chosen by
 * content, not by position, so a repeated sequence is sampled at its
 * copy exactly when it was sampled at its source, and the fraction
 * shrinks with the block so that the table never fills. Its count
 * scaled by that fraction estimates all repeats at any distance.
 *
 * The probe is deterministic and depends only on the block, so images stay
 * byte-identical; it errs towards "compress": a block it lets through is
 * compressed exactly as before.
 */
#include "config.h"

#include <string.h>

#include "write/probe.h"

/* A chi-square above len / PROBE_CHI2_DIV means an entropy deficit above
 * ~0.03 bits per byte: entropy coders may win, so compress. */
#define PROBE_CHI2_DIV 24
/* 4-byte repeats, per 1024 bytes of block, that make a block worth
 * compressing. */
#define PROBE_MAX_REPEATS_PER_KIB 4

/* The histogram is close to uniform (see the top of the file). */
static int flat_histogram(const uint8_t *buf, size_t len, struct probe_scratch *s)
{
	uint32_t *h0 = s->hist[0], *h1 = s->hist[1], *h2 = s->hist[2], *h3 = s->hist[3];
	uint64_t sum = 0;
	size_t i;

	memset(s->hist, 0, sizeof(s->hist));
	/* Four tables break the store-to-load dependency on repeated bytes. */
	for (i = 0; i + 4 <= len; i += 4) {
		h0[buf[i]]++;
		h1[buf[i + 1]]++;
		h2[buf[i + 2]]++;
		h3[buf[i + 3]]++;
	}
	for (; i < len; ++i)
		h0[buf[i]]++;
	/* chi2 = sum((256 c - len)^2) / (256 len); compare without dividing.
	 * Each term is below 2^56 for len <= 2^20, the sum below 2^64. */
	for (i = 0; i < 256; ++i) {
		int64_t d = 256 * (int64_t)(h0[i] + h1[i] + h2[i] + h3[i]) - (int64_t)len;

		sum += (uint64_t)(d * d);
	}
	return sum <= (uint64_t)len * len * 256 / PROBE_CHI2_DIV;
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* 4-byte repeats an LZ coder could use: the larger of the near table's
 * count and the far table's scaled estimate (see the top of the file).
 * The loop has no data-dependent branch (a sampling branch, taken at
 * random, halved the probe's speed): an empty slot holds position 0,
 * whose bytes are as good a repeat candidate as any, and positions not
 * sampled go through the far table's spare last slot, whose count is
 * masked off. */
static size_t repeats(const uint8_t *buf, size_t len, struct probe_scratch *s)
{
	const uint32_t far_mask = (UINT32_C(1) << PROBE_FAR_BITS) - 1;
	const uint32_t spare = far_mask + 1;
	size_t i, near = 0, far = 0;
	unsigned shift = 0;
	uint32_t skip;

	while ((len >> shift) > ((size_t)1 << PROBE_FAR_SAMPLES_LOG))
		shift++;
	skip = (UINT32_C(1) << shift) - 1;
	memset(s->near, 0, sizeof(s->near));
	memset(s->far, 0, sizeof(s->far));
	for (i = 1; i + 4 <= len; ++i) {
		uint32_t v = load32(buf + i);
		/* Bits 50-63 pick the near slot, 38-52 the far slot and
		 * 32-37 decide the sample: each of those depends on all of v
		 * (a block is at most 1 MiB, so shift stays under 7). */
		uint64_t h = v * UINT64_C(0x9E3779B97F4A7C15);
		uint32_t *slot = &s->near[h >> (64 - PROBE_NEAR_BITS)];
		uint32_t sampled = (((uint32_t)(h >> 32) & skip) == 0);
		uint32_t f = spare ^ ((((uint32_t)(h >> 38) & far_mask) ^ spare) & -sampled);

		near += load32(buf + *slot) == v;
		*slot = (uint32_t)i;
		far += sampled & (load32(buf + s->far[f]) == v);
		s->far[f] = (uint32_t)i;
	}
	far <<= shift;
	return far > near ? far : near;
}

int probe_incompressible(const uint8_t *buf, size_t len, struct probe_scratch *s)
{
	if (len < 4096)
		return 0; /* small blocks are cheap to compress anyway */
	if (!flat_histogram(buf, len, s))
		return 0;
	return repeats(buf, len, s) * 1024 < len * PROBE_MAX_REPEATS_PER_KIB;
}
