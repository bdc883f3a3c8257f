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

/* Positions whose 4 bytes equal those at the last position with the same
 * hash: a lower bound on the repeats an LZ coder could use. */
static size_t short_repeats(const uint8_t *buf, size_t len, struct probe_scratch *s)
{
	size_t i, n = 0;

	memset(s->last, 0xFF, sizeof(s->last));
	for (i = 0; i + 4 <= len; ++i) {
		uint32_t v = load32(buf + i);
		uint32_t h = (v * UINT32_C(2654435761)) >> (32 - PROBE_HASH_BITS);
		uint32_t prev = s->last[h];

		n += prev != UINT32_MAX && load32(buf + prev) == v;
		s->last[h] = (uint32_t)i;
	}
	return n;
}

int probe_incompressible(const uint8_t *buf, size_t len, struct probe_scratch *s)
{
	if (len < 4096)
		return 0; /* small blocks are cheap to compress anyway */
	if (!flat_histogram(buf, len, s))
		return 0;
	return short_repeats(buf, len, s) * 1024 < len * PROBE_MAX_REPEATS_PER_KIB;
}
