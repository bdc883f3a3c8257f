/* SPDX-License-Identifier: MIT */
/*
 * probe_rules.c - the incompressibility probe lets a block skip the codec
 * only when the codec would not shrink it: random bytes are skipped;
 * text, bytes from half the alphabet, short repeats that an 8-byte test
 * misses (fragment blocks of small .gz files), repeats far apart in a
 * block (which a table of last positions forgets), and random bytes next
 * to text or zeros are compressed, in 128 KiB and 1 MiB blocks. Each
 * verdict is checked against a real codec, so the test also fails if the
 * probe's claim about the data is wrong.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/codec.h"
#include "write/probe.h"
#include "check.h"

#define BS 131072
#define BIG (1u << 20)

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

/* Random bytes whose last quarter repeats the first quarter. */
static void fill_far_copy(uint8_t *b, size_t n)
{
	fill_random(b, n - n / 4);
	memcpy(b + n - n / 4, b, n / 4);
}

/* Random bytes, and every 4 KiB a 512-byte run copied from 64 KiB back. */
static void fill_far_runs(uint8_t *b, size_t n)
{
	fill_random(b, n);
	for (size_t at = 65536; at + 512 <= n; at += 4096)
		memcpy(b + at, b + at - 65536, 512);
}

static void fill_zeros_then_random(uint8_t *b, size_t n)
{
	memset(b, 0, n / 4);
	fill_random(b + n / 4, n - n / 4);
}

static void fill_random_then_text(uint8_t *b, size_t n)
{
	fill_random(b, n - n / 4);
	fill_text(b + n - n / 4, n / 4);
}

/* The first codec built that compresses hard. */
static struct sqp_compressor *pick_codec(uint32_t block_size)
{
	static const int ids[] = { SQP_CODEC_ZSTD, SQP_CODEC_XZ, SQP_CODEC_GZIP,
				   SQP_CODEC_LZMA };
	struct sqp_codec_config cfg;
	struct sqp_compressor *c;

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (sqp_codec_config_init(&cfg, ids[i], block_size) == 0 &&
		    sqp_compressor_create(&cfg, &c) == 0)
			return c;
	return NULL;
}

struct probe_case {
	const char *name;
	void (*fill)(uint8_t *, size_t);
	uint32_t size;
	int incompressible;
};

/* The probe's verdict on one case, and the codec's on the same bytes. */
static void check_case(const struct probe_case *c, struct probe_scratch *scratch,
		       uint8_t *in, uint8_t *out)
{
	struct sqp_compressor *codec = pick_codec(c->size);
	int verdict, n;

	c->fill(in, c->size);
	verdict = probe_incompressible(in, c->size, scratch);
	CHECK(verdict == c->incompressible, "%s (%u bytes): probe says %d",
	      c->name, c->size, verdict);
	if (codec == NULL)
		return;
	n = sqp_compress(codec, in, c->size, out, c->size);
	if (c->incompressible)
		CHECK(n == 0 || n > (int)(c->size - c->size / 200),
		      "%s: the codec took it to %d bytes", c->name, n);
	else
		CHECK(n > 0 && n < (int)(c->size - c->size / 200),
		      "%s: the codec took it only to %d bytes", c->name, n);
	sqp_compressor_destroy(codec);
}

int main(void)
{
	static const struct probe_case cases[] = {
		{ "random bytes", fill_random, BS, 1 },
		{ "random bytes", fill_random, BIG, 1 },
		{ "text", fill_text, BS, 0 },
		{ "bytes below 0x80", fill_half_alphabet, BS, 0 },
		{ "5-byte tokens from a set of 2048", fill_short_repeats, BS, 0 },
		{ "5-byte tokens from a set of 2048", fill_short_repeats, BIG, 0 },
		{ "random, last quarter copies the first", fill_far_copy, BS, 0 },
		{ "random, last quarter copies the first", fill_far_copy, BIG, 0 },
		{ "random with runs copied from 64 KiB back", fill_far_runs, BS, 0 },
		{ "random with runs copied from 64 KiB back", fill_far_runs, BIG, 0 },
		{ "zeros, then random", fill_zeros_then_random, BS, 0 },
		{ "random, then text", fill_random_then_text, BS, 0 },
	};
	struct probe_scratch *scratch = malloc(sizeof(*scratch));
	uint8_t *in = malloc(BIG), *out = malloc(BIG);
	struct sqp_compressor *codec = pick_codec(BS);

	if (scratch == NULL || in == NULL || out == NULL) {
		fprintf(stderr, "out of memory\n");
		return 99;
	}
	if (codec == NULL)
		printf("# no gzip, xz, lzma or zstd built: verdicts not cross-checked\n");
	sqp_compressor_destroy(codec);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i], scratch, in, out);
	/* Blocks under 4 KiB always go to the codec. */
	fill_random(in, 4000);
	CHECK(probe_incompressible(in, 4000, scratch) == 0, "short block skipped");
	free(scratch);
	free(in);
	free(out);
	return check_done();
}
