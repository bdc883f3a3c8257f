/* SPDX-License-Identifier: MIT */
/*
 * codec_table.c - every built codec through the public codec API: blocks
 * round-trip at several block sizes, incompressible data is reported as
 * "does not shrink", a short output buffer is never overrun, options
 * parse and fail with the list of valid ones, the options block
 * round-trips through encode/decode, and corrupt input decompresses to
 * an error rather than a crash (the ASan build makes the last one bite).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/codec.h"
#include "sqpack/error.h"
#include "check.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint8_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint8_t)rng_state;
}

static void fill_text(uint8_t *p, size_t n)
{
	static const char *words[] = { "squash ", "block ", "inode ",
				       "fragment ", "tail\n", "zero " };
	size_t i = 0;

	while (i < n) {
		const char *w = words[rnd() % 6];
		for (size_t k = 0; w[k] && i < n; k++)
			p[i++] = (uint8_t)w[k];
	}
}

static void roundtrip(int id, const char *opts, uint32_t bs)
{
	struct sqp_codec_config cfg, back;
	struct sqp_compressor *c = NULL;
	uint8_t *in = malloc(bs), *out = malloc(bs + 64), *dec = malloc(bs);
	uint8_t ob[SQP_CODEC_OPTIONS_MAX];
	char msg[512];
	size_t olen;
	int n, m;

	CHECK(sqp_codec_config_init(&cfg, id, bs) == 0, "init %d", id);
	CHECK(sqp_codec_config_parse(&cfg, opts, msg, sizeof(msg)) == 0,
	      "%s: parse '%s': %s", sqp_codec_name(id), opts, msg);
	CHECK(sqp_compressor_create(&cfg, &c) == 0, "create %d", id);
	if (c == NULL)
		goto out;

	fill_text(in, bs);
	n = sqp_compress(c, in, bs, out, bs + 64);
	CHECK(n > 0 && (uint32_t)n < bs / 2, "%s: text %u -> %d",
	      sqp_codec_name(id), bs, n);
	m = n > 0 ? sqp_decompress(c, out, (size_t)n, dec, bs) : -1;
	CHECK(m == (int)bs && memcmp(in, dec, bs) == 0, "%s: text back %d",
	      sqp_codec_name(id), m);
	/* A too-small output buffer for the decompressed data: error. */
	if (n > 0)
		CHECK(sqp_decompress(c, out, (size_t)n, dec, bs / 4) < 0,
		      "%s: short out_cap accepted", sqp_codec_name(id));
	/* Corrupt streams must fail or at least stay inside the buffer. */
	for (int k = 0; n > 8 && k < 40; k++) {
		uint8_t save = out[k * 7 % n];
		out[k * 7 % n] ^= (uint8_t)(1u << (k % 8));
		m = sqp_decompress(c, out, (size_t)n, dec, bs);
		CHECK(m < 0 || m <= (int)bs, "%s: corrupt gave %d",
		      sqp_codec_name(id), m);
		out[k * 7 % n] = save;
	}
	CHECK(sqp_decompress(c, out, 1, dec, bs) < 0, "%s: 1-byte stream",
	      sqp_codec_name(id));

	for (uint32_t i = 0; i < bs; i++)
		in[i] = rnd();
	CHECK(sqp_compress(c, in, bs, out, bs + 64) == 0,
	      "%s: random data must not shrink", sqp_codec_name(id));
	/* A tight output buffer: "does not fit", never an overrun. */
	fill_text(in, bs);
	memset(out, 0xa5, bs + 64);
	n = sqp_compress(c, in, bs, out, 16);
	CHECK(n == 0 && out[16] == 0xa5, "%s: tight buffer gave %d",
	      sqp_codec_name(id), n);

	/* Metadata blocks are 8 KiB even when data blocks are 4 KiB. */
	if (bs < 8192) {
		uint8_t *meta = malloc(8192), *mout = malloc(8192);
		uint8_t *copy = malloc(8192);

		fill_text(meta, 8192);
		n = sqp_compress(c, meta, 8192, mout, 8192);
		m = n > 0 ? sqp_decompress(c, mout, (size_t)n, copy, 8192) : -1;
		CHECK(n > 0 && m == 8192 && memcmp(meta, copy, 8192) == 0,
		      "%s: 8 KiB metadata block with %u-byte blocks: %d, %d",
		      sqp_codec_name(id), bs, n, m);
		free(meta);
		free(mout);
		free(copy);
	}
	CHECK(sqp_codec_options_encode(&cfg, ob, &olen) == 0, "encode");
	CHECK(sqp_codec_options_decode(&back, id, bs, olen ? ob : NULL,
				       olen) == 0, "%s: decode own options",
	      sqp_codec_name(id));
out:
	sqp_compressor_destroy(c);
	free(in);
	free(out);
	free(dec);
}

static void options(void)
{
	struct sqp_codec_config cfg;
	uint8_t ob[SQP_CODEC_OPTIONS_MAX];
	char msg[512];
	size_t olen = 99;

	CHECK(sqp_codec_by_name("nope") == SQP_ERR_ARG, "unknown name");
	CHECK(sqp_codec_name(0) == NULL && sqp_codec_name(7) == NULL, "ids");
	CHECK(sqp_codec_config_init(&cfg, SQP_CODEC_ZSTD, 3000) == SQP_ERR_ARG,
	      "block size 3000 accepted");
	if (!sqp_codec_available(SQP_CODEC_ZSTD))
		return;
	sqp_codec_config_init(&cfg, SQP_CODEC_ZSTD, 131072);
	CHECK(sqp_codec_options_encode(&cfg, ob, &olen) == 0 && olen == 0,
	      "zstd default writes no options (%zu)", olen);
	CHECK(sqp_codec_config_parse(&cfg, "level=99", msg, sizeof(msg)) ==
		      SQP_ERR_ARG && strstr(msg, "level") != NULL,
	      "zstd level=99: %s", msg);
	CHECK(sqp_codec_config_parse(&cfg, "bogus", msg, sizeof(msg)) ==
		      SQP_ERR_ARG && strstr(msg, "level=N") != NULL,
	      "unknown option lists valid ones: %s", msg);
	sqp_codec_config_parse(&cfg, "level=19", msg, sizeof(msg));
	CHECK(sqp_codec_options_encode(&cfg, ob, &olen) == 0 && olen == 4,
	      "zstd level 19 writes options");
	if (sqp_codec_available(SQP_CODEC_XZ)) {
		sqp_codec_config_init(&cfg, SQP_CODEC_XZ, 131072);
		CHECK(sqp_codec_config_parse(&cfg, "filters=x86,arm,level=3", msg,
					     sizeof(msg)) == 0, "xz list: %s", msg);
		CHECK(cfg.filters == (SQP_XZ_FILTER_X86 | SQP_XZ_FILTER_ARM) &&
			      cfg.level == 3, "xz filters %x level %d",
		      cfg.filters, cfg.level);
		CHECK(sqp_codec_config_parse(&cfg, "dict-size=100K", msg,
					     sizeof(msg)) == SQP_ERR_ARG,
		      "xz dict 100K accepted");
		CHECK(sqp_codec_config_parse(&cfg, "dict-size=96K", msg,
					     sizeof(msg)) == 0, "xz dict 96K");
	}
	if (sqp_codec_available(SQP_CODEC_LZ4)) {
		sqp_codec_config_init(&cfg, SQP_CODEC_LZ4, 131072);
		CHECK(sqp_codec_options_encode(&cfg, ob, &olen) == 0 && olen == 8,
		      "lz4 always writes its options block");
	}
	if (sqp_codec_available(SQP_CODEC_GZIP)) {
		uint8_t bad[8] = { 10, 0, 0, 0, 15, 0, 0, 0 };
		CHECK(sqp_codec_options_decode(&cfg, SQP_CODEC_GZIP, 131072,
					       bad, 8) == SQP_ERR_CORRUPT,
		      "gzip level 10 options accepted");
	}
}

int main(void)
{
	static const struct {
		int id;
		const char *opts;
	} cases[] = {
		{ SQP_CODEC_GZIP, "" }, { SQP_CODEC_GZIP, "window=10" },
		{ SQP_CODEC_GZIP, "strategy=default,filtered,fixed,level=6" },
		{ SQP_CODEC_LZMA, "" }, { SQP_CODEC_LZO, "" },
		{ SQP_CODEC_LZO, "algorithm=lzo1x_1" }, { SQP_CODEC_XZ, "" },
		{ SQP_CODEC_XZ, "filters=x86,arm" }, { SQP_CODEC_LZ4, "" },
		{ SQP_CODEC_LZ4, "hc" }, { SQP_CODEC_ZSTD, "" },
		{ SQP_CODEC_ZSTD, "level=3" },
	};
	static const uint32_t sizes[] = { 4096, 131072, 1u << 20 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (!sqp_codec_available(cases[i].id)) {
			printf("# %s not built, skipped\n",
			       sqp_codec_name(cases[i].id));
			continue;
		}
		for (size_t s = 0; s < 3; s++)
			roundtrip(cases[i].id, cases[i].opts, sizes[s]);
	}
	options();
	return check_done();
}
