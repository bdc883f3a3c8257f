/* SPDX-License-Identifier: MIT */
/*
 * codec_dest.c - compression to a fixed output size (codec_dest.h) for
 * the codecs that have no call for it, zstd and deflate: the longest
 * prefix of the input that compresses into the cluster, found by
 * compressing prefixes of it.
 *
 * Why a search of its own: every try compresses its whole prefix again,
 * so the codec's time is the sum of the lengths tried, and that sum is
 * what this file keeps small. The first search stepped towards the cut
 * from below in fixed fractions of the range it knew: zstd level 3 in
 * 4 KiB clusters of rootfs-small tried 7.4 times the input it took (7.4
 * tries a cluster). Here each length is read off the two tries nearest
 * the cut, as a line through their sizes (the input that one more byte
 * of output holds grows along a file as the history fills, so a ratio
 * from the start of the prefix aims short), aimed so that it fits with
 * room left for 3/8 of the tolerance; a try that fits with room for at
 * most 3/4 of it ends the search, with no try past it to prove it. The
 * caller's guess (the cluster before in the same segment) opens the
 * search where the last one ended. The tries read no further than the
 * lengths they compress, so the codecs take all of a segment's rest at
 * once (reads_what_fits): offered a window at a time, a cluster that
 * took a whole window searched again from the start, a tenth of the
 * lengths tried.
 *
 * Invariant: the lengths tried depend only on the input, out_cap, span,
 * grain and the guess, so the result does too; it is within the
 * tolerance (1/grain of a share of the input: codec_dest.h) of the
 * longest prefix that fits where the codec's sizes grow evenly.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "sqpack/error.h"

/* What the search knows: the longest length known to fit and the
 * shortest known not to, with their sizes (0: not measured: a length
 * assumed, or a try over 4 clusters), and the fit before lo, whose
 * slope to lo is the best guess until a try fails. */
struct dest_search {
	size_t all, cap, share;
	size_t lo, lo_n, hi, hi_n, prev, prev_n;
};

static uint64_t tolerance(const struct dest_search *s)
{
	return s->lo / s->share + 1;
}

/* Input bytes per byte of output near the cut, as num / den: between
 * the tries either side of it, else between the last two fits, else
 * the ratio of the try nearest to it. */
static void slope(const struct dest_search *s, uint64_t *num, uint64_t *den)
{
	if (s->lo_n > 0 && s->hi_n > s->lo_n) {
		*num = s->hi - s->lo;
		*den = s->hi_n - s->lo_n;
	} else if (s->prev_n > 0 && s->lo_n > s->prev_n) {
		*num = s->lo - s->prev;
		*den = s->lo_n - s->prev_n;
	} else if (s->lo_n > 0) {
		*num = s->lo;
		*den = s->lo_n;
	} else {
		*num = s->hi;
		*den = s->hi_n > 0 ? s->hi_n : 4 * s->cap;
	}
}

/* Whether lo is long enough: all of the input, within the tolerance
 * of a length that does not fit, or with room for at most three
 * quarters of the tolerance at the slope. */
static int done(const struct dest_search *s)
{
	uint64_t num, den, tol = tolerance(s);

	if (s->lo == s->all || s->hi - s->lo <= tol)
		return 1;
	if (s->lo_n == 0)
		return 0;
	slope(s, &num, &den);
	return 4 * (s->cap - s->lo_n) * num <= 3 * tol * den;
}

/* The next length: where the line through the nearest tries reaches
 * the cluster less the room 3/8 of the tolerance takes (so that the
 * try both fits and ends the search despite the codec's sizes not
 * growing quite evenly), a real step inside a range known at both ends
 * (at an end it would move it by little), past the tolerance above lo
 * while nothing has failed. */
static size_t next_len(const struct dest_search *s)
{
	uint64_t num, den, tol = tolerance(s), aim, t, g;

	slope(s, &num, &den);
	aim = 3 * tol * den / (8 * num);
	t = s->cap > aim ? s->cap - aim : 1;
	if (s->lo_n > 0)
		g = s->lo + (t > s->lo_n ? (t - s->lo_n) * num / den : 0);
	else
		g = s->hi * t / (s->hi_n > 0 ? s->hi_n : 4 * s->cap);
	if (s->hi <= s->all && s->lo_n > 0) {
		uint64_t step = (s->hi - s->lo) / 8;

		if (g < s->lo + step + 1)
			g = s->lo + step + 1;
		if (g > s->hi - step - 1)
			g = s->hi - step - 1;
	} else if (s->hi <= s->all) {
		if (g >= s->hi)
			g = s->hi - 1;
	} else if (g < s->lo + tol + 1) {
		g = s->lo + tol + 1;
	}
	return g > s->all ? s->all : (size_t)g;
}

int codec_dest_search(codec_dest_try try, void *state, const uint8_t *in,
		      size_t *in_len, size_t guess, uint8_t *out, size_t out_cap,
		      unsigned span, unsigned grain, uint8_t **scratchp, size_t *scratch_cap)
{
	size_t shares = out_cap / CODEC_DEST_BLOCK / span;
	struct dest_search s = {
		.all = *in_len, .cap = out_cap,
		.share = (size_t)grain * (shares > 1 ? shares : 1),
		.lo = *in_len > out_cap ? out_cap : 0, .hi = *in_len + 1,
	};
	size_t len, best = 0;
	uint8_t *scratch;

	if (*scratch_cap < 4 * out_cap) {
		free(*scratchp);
		*scratch_cap = 0;
		if ((*scratchp = malloc(4 * out_cap)) == NULL)
			return SQP_ERR_NOMEM;
		*scratch_cap = 4 * out_cap;
	}
	scratch = *scratchp;
	/* A guess is aimed a quarter of the tolerance short, to fit. */
	guess -= guess / s.share / 4;
	len = guess > s.lo ? guess : 2 * out_cap;
	if (len > s.all)
		len = s.all;
	for (int round = 0; round < 40 && len > s.lo && len < s.hi; round++) {
		int n = try(state, in, len, scratch, 4 * out_cap);

		if (n < 0)
			return n;
		if (n > 0 && (size_t)n <= out_cap) {
			s.prev = s.lo;
			s.prev_n = s.lo_n;
			s.lo = len;
			s.lo_n = (size_t)n;
			best = (size_t)n;
			*in_len = len;
			memcpy(out, scratch, best);
		} else if (n == 0 || (size_t)n < len) {
			s.hi = len;
			s.hi_n = (size_t)n;
		} else {
			break;
		}
		if (done(&s))
			break;
		len = next_len(&s);
	}
	return (int)best;
}
