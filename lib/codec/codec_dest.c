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
 * assumed, or a try over 4 clusters), the try on the same side before
 * each (its line to lo or hi is the best guess until the other side is
 * measured), how many tries in a row landed on the side last moved
 * (side: 1 lo, 2 hi), and whether the search is regula falsi (falsi:
 * next_len). */
struct dest_search {
	size_t all, cap, share;
	size_t lo, lo_n, hi, hi_n, prev, prev_n, hprev, hprev_n;
	int side, run, falsi;
};

/* Regula falsi where the tolerance leaves a cluster 1 KiB of room or
 * more (3/4 of out_cap / share), so that the codec's sizes, uneven by
 * tens to hundreds of bytes (a Huffman table, a block split), follow
 * a line at its scale: deflate's 1 MiB clusters (deflate_span in
 * gzip.c). Where it leaves tens of bytes (4 KiB clusters: 48; deflate
 * and zstd at 64 KiB: 192) the line misleads: rootfs-small's image
 * with -Efragments grew by 94 KB (deflate, 4 KiB) and 53 KB (zstd), in
 * as many tries or more, so those keep the eighth's step. */
#define DEST_FALSI_ROOM 1024u

static uint64_t tolerance(const struct dest_search *s)
{
	return s->lo / s->share + 1;
}

/* Input bytes per byte of output near the cut, as num / den: between
 * the tries either side of it, else between the last two fits or the
 * last two misses, else the ratio of the try nearest to it. */
static void slope(const struct dest_search *s, uint64_t *num, uint64_t *den)
{
	if (s->lo_n > 0 && s->hi_n > s->lo_n) {
		*num = s->hi - s->lo;
		*den = s->hi_n - s->lo_n;
	} else if (s->prev_n > 0 && s->lo_n > s->prev_n) {
		*num = s->lo - s->prev;
		*den = s->lo_n - s->prev_n;
	} else if (s->falsi && s->lo_n == 0 && s->hi_n > 0 && s->hprev_n > s->hi_n &&
		   s->hprev > s->hi) {
		*num = s->hprev - s->hi;
		*den = s->hprev_n - s->hi_n;
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
 * quarters of the tolerance at the slope. Under regula falsi also when
 * the miss saved too little for a fit past the tolerance: a prefix
 * that fits saves its length less the cluster at least, and a longer
 * one saves about as much or more, so none is longer than the cluster
 * and hi's saving. Input that barely compresses (deflate in 1 MiB
 * clusters, after a cluster of text whose ratio aimed the first try at
 * 2.2 MB) was tried a second time a tolerance past the cluster, 1 MB
 * for nothing, in 20 of rootfs-small's clusters. */
static int done(const struct dest_search *s)
{
	uint64_t num, den, tol = tolerance(s);

	if (s->lo == s->all || s->hi - s->lo <= tol)
		return 1;
	if (s->falsi && s->hi_n > 0 && s->hi - s->hi_n + s->cap <= s->lo + tol)
		return 1;
	if (s->lo_n == 0)
		return 0;
	slope(s, &num, &den);
	return 4 * (s->cap - s->lo_n) * num <= 3 * tol * den;
}

/* The next length where the tolerance leaves little room (falsi 0):
 * on the line through the nearest tries to t, a real step inside a
 * range known at both ends (at an end it would move it by little),
 * past the tolerance above lo while nothing has failed. */
static size_t eighth_step(const struct dest_search *s, uint64_t t, uint64_t num,
			  uint64_t den)
{
	uint64_t tol = tolerance(s), g;

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

/* The next length: where the sizes reach the cluster less the room 3/8
 * of the tolerance takes (so that the try both fits and ends the search
 * despite the codec's sizes not growing quite evenly). Between two
 * measured ends, on the line through them, as regula falsi, with the
 * Illinois rule: each further try in a row on the same side halves the
 * other end's distance from the aim, so that a curved stretch (text
 * whose matches thicken along the file) does not creep up from one end.
 * The eighth's step cost a try in most clusters of 1 MiB, whose sizes
 * near the cut follow a line to a few hundred bytes. Else on the line
 * through the last two tries (or the nearest try's ratio), past the
 * tolerance above lo while nothing has failed, at least one tolerance
 * inside a known range. */
static size_t next_len(const struct dest_search *s)
{
	uint64_t num, den, tol = tolerance(s), aim, t, g;

	slope(s, &num, &den);
	aim = 3 * tol * den / (8 * num);
	t = s->cap > aim ? s->cap - aim : 1;
	if (!s->falsi)
		return eighth_step(s, t, num, den);
	if (s->lo_n > 0 && s->hi_n > s->lo_n && t > s->lo_n && s->hi_n > t) {
		uint64_t below = t - s->lo_n, above = s->hi_n - t;
		int halve = s->run > 1 ? s->run - 1 : 0;

		halve = halve > 16 ? 16 : halve;
		if (s->side == 1)
			above >>= halve;
		else
			below >>= halve;
		g = s->lo + (s->hi - s->lo) * below / (below + above + 1);
	} else if (s->lo_n > 0) {
		g = s->lo + (t > s->lo_n ? (t - s->lo_n) * num / den : 0);
	} else if (s->hi_n > t) {
		g = s->hi - (s->hi_n - t) * num / den;
		if (g > s->hi || g == 0)
			g = s->hi * t / s->hi_n;
	} else {
		g = s->hi * t / (s->hi_n > 0 ? s->hi_n : 4 * s->cap);
	}
	if (s->hi <= s->all) {
		uint64_t m = s->hi - s->lo > 2 * tol ? tol : (s->hi - s->lo) / 2;

		if (g < s->lo + m)
			g = s->lo + m;
		if (g > s->hi - m)
			g = s->hi - m;
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

	s.falsi = 3 * out_cap / s.share / 4 >= DEST_FALSI_ROOM;
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
			s.run = s.side == 1 ? s.run + 1 : 1;
			s.side = 1;
			s.prev = s.lo;
			s.prev_n = s.lo_n;
			s.lo = len;
			s.lo_n = (size_t)n;
			best = (size_t)n;
			*in_len = len;
			memcpy(out, scratch, best);
		} else if (n == 0 || (size_t)n < len) {
			s.run = s.side == 2 ? s.run + 1 : 1;
			s.side = 2;
			s.hprev = s.hi;
			s.hprev_n = s.hi_n;
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
