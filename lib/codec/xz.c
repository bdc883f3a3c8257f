/* SPDX-License-Identifier: MIT */
/*
 * xz.c - the xz codec (SquashFS id 4): one .xz stream per block with a
 * CRC32 check, the only check the kernel's decoder is sure to have.
 *
 * Defaults are mksquashfs's: preset 6 with the dictionary as large as a
 * block. Branch/call/jump filters are tried one after the other (plus
 * none) and the smallest result kept. The encoder stream is kept across
 * blocks: liblzma reuses its buffers when it is set up again with the
 * same sizes, which saves an allocation and clearing of several MiB per
 * block. The options block (dictionary size, filter set) is written only
 * when it differs from what a reader assumes without one.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_impl.h"
#include "codec/lzma_run.h"

#define XZ_FILTER_COUNT 6

/* Filter i is the bit 1 << i of cfg->filters (SQP_XZ_FILTER_*). */
static const char *const xz_filter_names[XZ_FILTER_COUNT + 1] = {
	"x86", "powerpc", "ia64", "arm", "armthumb", "sparc", NULL,
};
static const lzma_vli xz_filter_ids[XZ_FILTER_COUNT] = {
	LZMA_FILTER_X86, LZMA_FILTER_POWERPC, LZMA_FILTER_IA64,
	LZMA_FILTER_ARM, LZMA_FILTER_ARMTHUMB, LZMA_FILTER_SPARC,
};

struct xz_state {
	struct sqp_codec_config cfg;
	lzma_options_lzma lzma_opts;
	lzma_stream enc;
	lzma_stream dec;
	uint8_t *scratch; /* a second attempt, when filters are tried */
};

static void xz_defaults(struct sqp_codec_config *cfg)
{
	cfg->level = 6;
	cfg->dict_size = cfg->block_size;
	cfg->filters = 0;
}

/* Dictionary sizes both decoders accept: 2^n or 2^n + 2^(n-1). */
static int xz_dict_ok(uint32_t d)
{
	uint32_t top = 1u << 31;

	if (d < 4096)
		return 0;
	while (!(d & top))
		top >>= 1;
	return d == top || d == top + (top >> 1);
}

static int xz_dict_valid(unsigned long v)
{
	return v <= UINT32_MAX && xz_dict_ok((uint32_t)v);
}

static const struct codec_opt xz_opts[] = {
	{ .key = "level", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_LEVEL,
	  .lo = 0, .hi = 9 },
	{ .key = "dict-size", .kind = CODEC_OPT_SIZE,
	  .field = CODEC_FIELD_DICT_SIZE, .lo = 4096,
	  .hi_of = codec_opt_block_size, .valid = xz_dict_valid,
	  .why = "dictionary size must be 2^n or 2^n+2^(n-1):" },
	{ .key = "filters", .kind = CODEC_OPT_BITS, .field = CODEC_FIELD_FILTERS,
	  .names = xz_filter_names, .why = "unknown filter" },
	{ .key = NULL },
};

static int xz_encode(const struct sqp_codec_config *cfg, uint8_t *buf,
		     size_t *len)
{
	if (cfg->dict_size == cfg->block_size && cfg->filters == 0)
		return 0;
	sqp_put32(buf, cfg->dict_size);
	sqp_put32(buf + 4, cfg->filters);
	*len = 8;
	return 0;
}

static int xz_decode(struct sqp_codec_config *cfg, const uint8_t *buf,
		     size_t len)
{
	uint32_t dict, filters;

	if (len == 0)
		return 0;
	if (len < 8)
		return SQP_ERR_CORRUPT;
	dict = sqp_get32(buf);
	filters = sqp_get32(buf + 4);
	if (!xz_dict_ok(dict) || (filters & ~0x3fu) != 0)
		return SQP_ERR_CORRUPT;
	cfg->dict_size = dict;
	cfg->filters = filters;
	return 0;
}

static void xz_destroy(void *p)
{
	struct xz_state *s = p;

	if (s == NULL)
		return;
	lzma_end(&s->enc);
	lzma_end(&s->dec);
	free(s->scratch);
	free(s);
}

static int xz_create(const struct sqp_codec_config *cfg, void **out)
{
	struct xz_state *s = calloc(1, sizeof(*s));
	const lzma_stream init = LZMA_STREAM_INIT;

	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->cfg = *cfg;
	s->enc = init;
	s->dec = init;
	if (lzma_lzma_preset(&s->lzma_opts, (uint32_t)cfg->level)) {
		free(s);
		return SQP_ERR_ARG;
	}
	s->lzma_opts.dict_size = cfg->dict_size;
	if (cfg->filters != 0) {
		s->scratch = malloc(codec_max_input(cfg));
		if (s->scratch == NULL) {
			free(s);
			return SQP_ERR_NOMEM;
		}
	}
	*out = s;
	return 0;
}

/* One attempt with the BCJ filter bcj (LZMA_VLI_UNKNOWN: none). */
static int xz_try(struct xz_state *s, lzma_vli bcj, const uint8_t *in,
		  size_t in_len, uint8_t *out, size_t out_cap)
{
	lzma_filter chain[3];
	int n = 0;

	if (bcj != LZMA_VLI_UNKNOWN)
		chain[n++] = (lzma_filter){ .id = bcj, .options = NULL };
	chain[n++] = (lzma_filter){ .id = LZMA_FILTER_LZMA2,
				    .options = &s->lzma_opts };
	chain[n] = (lzma_filter){ .id = LZMA_VLI_UNKNOWN, .options = NULL };
	switch (lzma_stream_encoder(&s->enc, chain, LZMA_CHECK_CRC32)) {
	case LZMA_OK:
		break;
	case LZMA_MEM_ERROR:
		return SQP_ERR_NOMEM;
	default:
		return SQP_ERR_ARG;
	}
	return sqp_lzma_run(&s->enc, in, in_len, out, out_cap);
}

static int xz_compress(void *p, const uint8_t *in, size_t in_len,
		       uint8_t *out, size_t out_cap)
{
	struct xz_state *s = p;
	int best = xz_try(s, LZMA_VLI_UNKNOWN, in, in_len, out, out_cap);

	for (int i = 0; i < XZ_FILTER_COUNT && best >= 0; i++) {
		size_t cap = best > 0 ? (size_t)best - 1 : out_cap;
		int n;

		if (!(s->cfg.filters & (1u << i)))
			continue;
		n = xz_try(s, xz_filter_ids[i], in, in_len, s->scratch, cap);
		if (n < 0)
			return n;
		if (n > 0) {
			memcpy(out, s->scratch, (size_t)n);
			best = n;
		}
	}
	return best;
}

static int xz_decompress(void *p, const uint8_t *in, size_t in_len,
			 uint8_t *out, size_t out_cap)
{
	struct xz_state *s = p;
	int n;

	if (lzma_stream_decoder(&s->dec, SQP_LZMA_MEMLIMIT, 0) != LZMA_OK)
		return SQP_ERR_NOMEM;
	n = sqp_lzma_run(&s->dec, in, in_len, out, out_cap);
	return n > 0 ? n : SQP_ERR_BAD_DATA;
}

static void xz_library(char *buf, size_t size)
{
	snprintf(buf, size, "liblzma %s", lzma_version_string());
}

const struct sqp_codec_ops sqp_codec_xz_ops = {
	.id = SQP_CODEC_XZ,
	.name = "xz",
	.help = "    level=N      preset 0..9 (default 6)\n"
		"    dict-size=N  dictionary size, 4K..block size, 2^n or "
		"2^n+2^(n-1)\n"
		"    filters=F,.. branch filters to try, smallest result kept:\n"
		"                 x86, powerpc, ia64, arm, armthumb, sparc\n",
	.opts = xz_opts,
	.defaults = xz_defaults,
	.encode = xz_encode,
	.decode = xz_decode,
	.create = xz_create,
	.destroy = xz_destroy,
	.compress = xz_compress,
	.decompress = xz_decompress,
	.library = xz_library,
};
