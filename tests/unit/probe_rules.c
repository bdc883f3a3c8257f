/* SPDX-License-Identifier: MIT */
/*
 * probe_rules.c - the incompressibility probe lets a block skip the codec
 * only when the codec would not shrink it: random bytes are skipped;
 * text, bytes from half the alphabet, and short repeats that an 8-byte
 * test misses (fragment blocks of small .gz files) are compressed.
 * Each verdict is checked against a real codec, so the test also fails
 * if the probe's claim about the data is wrong.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/codec.h"
#include "write/probe.h"
#include "check.h"

#define BS 131072

static uint64_t rng = 0x9E3779B97F4A7C15u;

static uint8_t next_byte(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint8_t)(rng >> 24);
}

static void fill_random(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = next_byte();
}

static void fill_text(uint8_t *b, size_t n)
{
	static const char *const words[] = {
		"squashfs ", "block ", "fragment ", "inode ", "table ",
		"directory ", "the ", "of ", "image\n", "tar ",
	};
	size_t i = 0;

	while (i < n) {
		const char *w = words[next_byte() % 10];

		for (; *w != '\0' && i < n; w++)
			b[i++] = (uint8_t)*w;
	}
}

static void fill_half_alphabet(uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		b[i] = next_byte() & 0x7F;
}

/* 5-byte tokens drawn from 2048 random ones: repeats too short for an
 * 8-byte test to see (as in deflate streams of similar files), and a
 * flat histogram. */
static void fill_short_repeats(uint8_t *b, size_t n)
{
	static uint8_t tokens[2048][5];

	for (size_t t = 0; t < 2048; t++)
		fill_random(tokens[t], 5);
	for (size_t i = 0; i < n;) {
		size_t t = ((size_t)next_byte() << 3 | next_byte() >> 5) % 2048;

		for (size_t k = 0; k < 5 && i < n; k++)
			b[i++] = tokens[t][k];
	}
}

/* The first codec built that compresses hard. */
static struct sqp_compressor *pick_codec(void)
{
	static const int ids[] = { SQP_CODEC_ZSTD, SQP_CODEC_XZ, SQP_CODEC_GZIP,
				   SQP_CODEC_LZMA };
	struct sqp_codec_config cfg;
	struct sqp_compressor *c;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (sqp_codec_config_init(&cfg, ids[i], BS) == 0 &&
		    sqp_compressor_create(&cfg, &c) == 0)
			return c;
	return NULL;
}

int main(void)
{
	static const struct {
		const char *name;
		void (*fill)(uint8_t *, size_t);
		int incompressible;
	} cases[] = {
		{ "random bytes", fill_random, 1 },
		{ "text", fill_text, 0 },
		{ "bytes below 0x80", fill_half_alphabet, 0 },
		{ "5-byte tokens from a set of 2048", fill_short_repeats, 0 },
	};
	struct probe_scratch *scratch = malloc(sizeof(*scratch));
	uint8_t *in = malloc(BS), *out = malloc(BS);
	struct sqp_compressor *codec = pick_codec();

	if (scratch == NULL || in == NULL || out == NULL) {
		fprintf(stderr, "out of memory\n");
		return 99;
	}
	if (codec == NULL)
		printf("# no gzip, xz, lzma or zstd built: verdicts not cross-checked\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int verdict, n;

		cases[i].fill(in, BS);
		verdict = probe_incompressible(in, BS, scratch);
		CHECK(verdict == cases[i].incompressible, "%s: probe says %d",
		      cases[i].name, verdict);
		if (codec == NULL)
			continue;
		n = sqp_compress(codec, in, BS, out, BS);
		if (cases[i].incompressible)
			CHECK(n == 0 || n > BS - BS / 200, "%s: the codec took it "
			      "to %d bytes", cases[i].name, n);
		else
			CHECK(n > 0 && n < BS - BS / 200, "%s: the codec took it "
			      "only to %d bytes", cases[i].name, n);
	}
	/* Blocks under 4 KiB always go to the codec. */
	fill_random(in, 4000);
	CHECK(probe_incompressible(in, 4000, scratch) == 0, "short block skipped");
	sqp_compressor_destroy(codec);
	free(scratch);
	free(in);
	free(out);
	return check_done();
}
