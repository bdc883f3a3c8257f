/* SPDX-License-Identifier: MIT */
/*
 * dest_search.c - codec_dest_search (lib/codec/codec_dest.c), the
 * fixed-output search of deflate and zstd, on a codec of known sizes:
 * what it returns fits and is within the tolerance of the longest
 * prefix that fits, and it gets there in few tries. The sizes are those
 * of data whose ratio grows along the input (text whose matches thicken
 * as the history fills), a curve on which the line through the two
 * tries either side of the cut aims short of it from one end again and
 * again. Each case is searched with no guess and from a guess (the
 * cluster before's ratio, as the EROFS writer passes it) 40% long and
 * 40% short. In 1 MiB clusters (regula falsi, codec_dest.c) a search
 * that stepped at least an eighth of the range from each end took 4 to
 * 7 tries, regula falsi with the Illinois rule takes 3 or 4; 64 KiB and
 * 4 KiB clusters keep that step (at most 7). Input that barely
 * compresses ends after one try.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "check.h"

/* codec_dest_search's scratch, grown as it needs, freed at the end. */
static uint8_t *scratch;
static size_t scratch_cap;

/* The model: input byte x costs 1000 / (r0 + (r1 - r0) * x / all)
 * bytes of output (r0 and r1: the ratio in thousandths), plus a fixed
 * head; sizes in 1/16 byte, summed exactly. */
struct model {
	size_t all;
	unsigned r0, r1, head;
	unsigned tries;
	uint64_t tried;
};

static size_t model_size(const struct model *m, size_t len)
{
	/* The integral of 1000 / (r0 + k x) from 0 to len, k = (r1 - r0) /
	 * all, in steps of 1 KiB: the ratio constant within each. */
	uint64_t out16 = 0;

	for (size_t x = 0; x < len; x += 1024) {
		size_t step = len - x < 1024 ? len - x : 1024;
		uint64_t r = m->r0 + (uint64_t)(m->r1 - m->r0) * x / m->all;

		out16 += (uint64_t)step * 16000 / r;
	}
	return m->head + (size_t)(out16 / 16);
}

static int model_try(void *state, const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	struct model *m = state;
	size_t n = model_size(m, len);

	(void)in;
	m->tries++;
	m->tried += len;
	if (n > cap)
		return 0;
	memset(out, 0xa5, n);
	return (int)n;
}

/* The longest prefix that fits cap, by bisection on the model. */
static size_t longest_fit(const struct model *m, size_t cap)
{
	size_t lo = 0, hi = m->all + 1;

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (model_size(m, mid) <= cap)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void search_case(const char *what, unsigned r0, unsigned r1, size_t cap,
			unsigned span, unsigned grain, int guess_pct, unsigned most_tries)
{
	struct model m = { .all = (size_t)2 * r0 * cap / 1000, .r0 = r0, .r1 = r1, .head = 64 };
	size_t best = longest_fit(&m, cap), in_len = m.all, guess = 0;
	size_t shares = cap / CODEC_DEST_BLOCK / span;
	size_t tol = best / ((size_t)grain * (shares > 1 ? shares : 1)) + 1;
	uint8_t *in = calloc(1, m.all), *out = malloc(cap);
	int n;

	if (guess_pct != 0)
		guess = (size_t)((int64_t)best * (100 + guess_pct) / 100);
	if (in == NULL || out == NULL) {
		CHECK(0, "%s: out of memory", what);
		free(in);
		free(out);
		return;
	}
	n = codec_dest_search(model_try, &m, in, &in_len, guess, out, cap, span, grain,
			      &scratch, &scratch_cap);
	CHECK(n > 0 && (size_t)n <= cap && (size_t)n == model_size(&m, in_len),
	      "%s: size %d for %zu bytes of input, cap %zu", what, n, in_len, cap);
	CHECK(in_len <= best && best - in_len <= tol,
	      "%s: took %zu bytes, the longest that fits %zu, tolerance %zu", what, in_len,
	      best, tol);
	CHECK(m.tries <= most_tries, "%s: %u tries (%llu bytes) for %zu, at most %u", what,
	      m.tries, (unsigned long long)m.tried, in_len, most_tries);
	free(in);
	free(out);
}

/* Input that barely compresses (0.1%), 8 MiB of it, from a guess of
 * 2.2 MB (a cluster of text before it): the miss saves under the
 * tolerance, so no fit is worth a second try. */
static void barely_case(unsigned span)
{
	size_t cap = 1u << 20, in_len = 8u << 20;
	struct model m = { .all = in_len, .r0 = 1001, .r1 = 1001, .head = 64 };
	uint8_t *in = calloc(1, in_len), *out = malloc(cap);
	int n;

	if (in == NULL || out == NULL) {
		CHECK(0, "barely: out of memory");
	} else {
		n = codec_dest_search(model_try, &m, in, &in_len, 2200000, out, cap, span, 64,
				      &scratch, &scratch_cap);
		CHECK(n == 0 && m.tries == 1, "barely, span %u: %d bytes, %u tries", span, n,
		      m.tries);
	}
	free(in);
	free(out);
}

int main(void)
{
	static const int guesses[] = { 0, 40, -40 };

	for (unsigned g = 0; g < 3; g++) {
		/* regula falsi: deflate's 1 MiB clusters, in one share
		 * (deflate_span in gzip.c) and in four */
		search_case("1 MiB, ratio 2 to 5", 2000, 5000, 1u << 20, 256, 64, guesses[g], 4);
		search_case("1 MiB, ratio 3 to 4", 3000, 4000, 1u << 20, 256, 64, guesses[g], 4);
		search_case("1 MiB in 4 shares, ratio 2 to 5", 2000, 5000, 1u << 20, 64, 64,
			    guesses[g], 4);
		/* the eighth's step: deflate at 64 KiB, zstd's 4 KiB */
		search_case("64 KiB, ratio 2 to 5", 2000, 5000, 65536, 4, 64, guesses[g], 7);
		search_case("4 KiB, ratio 2 to 6", 2000, 6000, 4096, 1, 64, guesses[g], 7);
	}
	barely_case(256);
	barely_case(64);
	free(scratch);
	return check_done();
}
