/* SPDX-License-Identifier: MIT */
/*
 * lz4_trim.c - lz4's trim (codec_dest.h, lib/codec/lz4.c): a block of a
 * whole input rewritten in place as a prefix of that input that fits a
 * smaller size. Every trimmed block must fit, decode (LZ4_decompress_safe
 * and the _partial call the kernel's EROFS uses) to exactly the prefix it
 * claims, and keep lz4's end rules; where a fresh destSize pass into the
 * same size takes more input, the trim is allowed to take less, but not
 * much less (it cuts one parse short instead of making a new one).
 * Inputs: words, random bytes and runs of zeros (one long match whose
 * length takes a byte per 255: cut short, not dropped), compressed at
 * plain lz4 and at lz4hc levels 1 to 12, trimmed to sizes from 16 bytes
 * to the block's.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#ifdef WITH_LZ4
#include <lz4.h>
#include <lz4hc.h>

#include "codec/codec_dest.h"
#include "codec/codec_impl.h"

/* A test input of len bytes from seed: words, a random byte now and
 * then, and once in a while a run of zeros of up to 70,000 bytes. */
static void make_input(uint8_t *in, size_t len, unsigned seed)
{
	static const char *const words[] = { "alpha ", "beta ", "gamma ", "delta\n",
					     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" };
	size_t p = 0;

	while (p < len) {
		unsigned k;

		seed = seed * 1103515245u + 12345u;
		k = (seed >> 16) % 7;
		if (k == 5 && (seed >> 20) % 50 == 0) {
			for (size_t z = 0; z < 70000 && p < len; z++)
				in[p++] = 0;
		} else if (k >= 5) {
			in[p++] = (uint8_t)(seed >> 8);
		} else {
			for (size_t i = 0; words[k][i] != '\0' && p < len; i++)
				in[p++] = (uint8_t)words[k][i];
		}
	}
}

/* Whether block b (m bytes, decoding to t) keeps lz4's end rules: its
 * last sequence is five literals or more, and its last match starts
 * twelve bytes or more before the end (LZ4_decompress_safe does not ask
 * it; the format does, and other decoders may). */
static int end_rules(const uint8_t *b, size_t m, size_t t)
{
	size_t ip = 0, op = 0, last_match = 0, len = 0;

	while (ip < m) {
		unsigned tok = b[ip++], x;

		len = tok >> 4;
		if (len == 15)
			do {
				x = ip < m ? b[ip++] : 0;
				len += x;
			} while (x == 255 && ip < m);
		ip += len;
		op += len;
		if (ip >= m)
			break;
		ip += 2;
		last_match = op;
		len = tok & 15;
		if (len == 15)
			do {
				x = ip < m ? b[ip++] : 0;
				len += x;
			} while (x == 255 && ip < m);
		op += len + 4;
		len = 0;
	}
	return ip == m && op == t && len >= 5 && t - last_match >= 12;
}

/* The trims of one input's block to caps from 16 bytes up. */
static void trim_case(const struct codec_dest_ops *d, void *hc, int level, size_t len,
		      unsigned seed, unsigned *trims)
{
	uint8_t *in = malloc(len), *blk = malloc(len * 2 + 64), *b = malloc(len * 2 + 64);
	uint8_t *dec = malloc(len + 64), *fresh = malloc(len * 2 + 64);
	int take = (int)len, n;

	if (in == NULL || blk == NULL || b == NULL || dec == NULL || fresh == NULL) {
		CHECK(0, "out of memory");
		goto out;
	}
	make_input(in, len, seed);
	n = level > 0 ? LZ4_compress_HC_destSize(hc, (char *)in, (char *)blk, &take,
						 (int)len * 2 + 64, level) :
			LZ4_compress_destSize((char *)in, (char *)blk, &take, (int)len * 2 + 64);
	CHECK(n > 0 && take == (int)len, "level %d, %zu bytes: compressed whole", level, len);
	for (size_t cap = 16; n > 0 && cap < (size_t)n;
	     cap += cap < 200 ? 7 : cap < 20000 ? 997 : 9973) {
		size_t t = 0;
		int m, got, t2 = (int)len;

		memcpy(b, blk, (size_t)n);
		m = d->trim(in, len, b, (size_t)n, cap, &t);
		CHECK(m >= 0, "level %d, %zu bytes, cap %zu: trim %d", level, len, cap, m);
		if (m <= 0)
			continue;
		(*trims)++;
		CHECK((size_t)m <= cap && t > 0 && t < len,
		      "level %d, %zu bytes, cap %zu: %d bytes for %zu", level, len, cap, m, t);
		CHECK(end_rules(b, (size_t)m, t), "level %d, %zu bytes, cap %zu: end rules",
		      level, len, cap);
		got = LZ4_decompress_safe((const char *)b, (char *)dec, m, (int)len + 64);
		CHECK(got == (int)t && memcmp(dec, in, t) == 0,
		      "level %d, %zu bytes, cap %zu: decodes to %d of %zu", level, len, cap,
		      got, t);
		got = LZ4_decompress_safe_partial((const char *)b, (char *)dec, m, (int)t,
						  (int)t);
		CHECK(got == (int)t && memcmp(dec, in, t) == 0,
		      "level %d, %zu bytes, cap %zu: partial decode %d of %zu", level, len,
		      cap, got, t);
		/* A fresh pass into cap: the trim's prefix within 3% of it. */
		if (level > 0)
			LZ4_compress_HC_destSize(hc, (char *)in, (char *)fresh, &t2, (int)cap,
						 level);
		else
			LZ4_compress_destSize((char *)in, (char *)fresh, &t2, (int)cap);
		CHECK(t + (size_t)t2 / 32 >= (size_t)t2,
		      "level %d, %zu bytes, cap %zu: trim takes %zu, destSize %d", level, len,
		      cap, t, t2);
	}
out:
	free(in);
	free(blk);
	free(b);
	free(dec);
	free(fresh);
}

int main(void)
{
	static const size_t sizes[] = { 5000, 9000, 20000, 70000, 150000 };
	const struct codec_dest_ops *d = sqp_codec_lz4_ops.dest;
	void *hc = malloc((size_t)LZ4_sizeofStateHC());
	unsigned trims = 0;

	CHECK(d != NULL && d->trim != NULL, "lz4 has a trim");
	if (hc == NULL || d == NULL || d->trim == NULL)
		return check_done();
	for (int level = 0; level <= 12; level++)
		for (unsigned s = 0; s < 5; s++)
			trim_case(d, hc, level, sizes[s] + (size_t)(level * 37 + s * 101) % 1000,
				  (unsigned)(level * 5 + s + 1), &trims);
	CHECK(trims > 1000, "%u trims made", trims);
	free(hc);
	return check_done();
}
#else
int main(void)
{
	(void)check_passed;
	(void)check_failed;
	printf("0 passed, 0 failed, 1 skipped (built without lz4)\n");
	return 77;
}
#endif
