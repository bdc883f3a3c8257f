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
 *  2. content-defined anchors (positions picked by a hash of the bytes
 *     there, so repeats are found at any distance and alignment) show no
 *     repeated 8-byte sequences beyond chance.
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
/* Repeated bytes found via anchors, per 1024 bytes of block, that make a
 * block worth compressing. */
#define PROBE_MAX_REPEAT_PERMILLE 4

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

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Bytes covered by repeats that start at anchor positions. */
static size_t repeated_bytes(const uint8_t *buf, size_t len, struct probe_scratch *s)
{
	size_t i, covered = 0, skip_to = 0;

	memset(s->anchor, 0xFF, sizeof(s->anchor));
	for (i = 0; i + 8 <= len; ++i) {
		uint64_t v = load64(buf + i);
		uint32_t h = (uint32_t)((v * UINT64_C(0x9E3779B97F4A7C15)) >> 40);
		uint32_t slot, prev;

		/* One position in 16 on average is an anchor, chosen by
		 * content: the same bytes are anchors wherever they are. */
		if ((h & 15) != 0)
			continue;
		slot = (h >> 4) & (PROBE_ANCHORS - 1);
		prev = s->anchor[slot];
		s->anchor[slot] = (uint32_t)i;
		if (prev == UINT32_MAX || i < skip_to || load64(buf + prev) != v)
			continue;
		/* Extend the repeat forward and skip over it. */
		{
			size_t n = 8;

			while (i + n < len && n < 4096 && buf[prev + n] == buf[i + n])
				n++;
			covered += n;
			skip_to = i + n;
		}
	}
	return covered;
}

int probe_incompressible(const uint8_t *buf, size_t len, struct probe_scratch *s)
{
	if (len < 4096)
		return 0; /* small blocks are cheap to compress anyway */
	if (!flat_histogram(buf, len, s))
		return 0;
	return repeated_bytes(buf, len, s) * 1024 < len * PROBE_MAX_REPEAT_PERMILLE;
}
