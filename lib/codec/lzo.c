/* SPDX-License-Identifier: MIT */
/*
 * lzo.c - the lzo codec (SquashFS id 3), any of the five LZO1X variants
 * squashfs-tools offers; lzo1x_999 at level 8 is the default.
 *
 * LZO has no output limit, so a block is compressed into a worst-case
 * sized scratch buffer and copied out only when it shrank. The options
 * block (algorithm, level) is written unless both are the defaults.
 */
#include "config.h"

#include <lzo/lzo1x.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_impl.h"

#define LZO_ALGORITHMS 5
#define LZO_DEFAULT_LEVEL 8

/* Both indexed by enum sqp_lzo_algorithm, the options block's number. */
static const char *const lzo_algorithm_names[LZO_ALGORITHMS + 1] = {
	[SQP_LZO1X_1] = "lzo1x_1",
	[SQP_LZO1X_1_11] = "lzo1x_1_11",
	[SQP_LZO1X_1_12] = "lzo1x_1_12",
	[SQP_LZO1X_1_15] = "lzo1x_1_15",
	[SQP_LZO1X_999] = "lzo1x_999",
	[LZO_ALGORITHMS] = NULL,
};
static const size_t lzo_work_size[LZO_ALGORITHMS] = {
	[SQP_LZO1X_1] = LZO1X_1_MEM_COMPRESS,
	[SQP_LZO1X_1_11] = LZO1X_1_11_MEM_COMPRESS,
	[SQP_LZO1X_1_12] = LZO1X_1_12_MEM_COMPRESS,
	[SQP_LZO1X_1_15] = LZO1X_1_15_MEM_COMPRESS,
	[SQP_LZO1X_999] = LZO1X_999_MEM_COMPRESS,
};

struct lzo_state {
	unsigned algorithm;
	int level;
	void *work;
	uint8_t *scratch;
};

static void lzo_defaults(struct sqp_codec_config *cfg)
{
	cfg->algorithm = SQP_LZO1X_999;
	cfg->level = LZO_DEFAULT_LEVEL;
}

static const struct codec_opt lzo_opts[] = {
	{ .key = "level", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_LEVEL,
	  .lo = 1, .hi = 9 },
	{ .key = "algorithm", .kind = CODEC_OPT_ENUM,
	  .field = CODEC_FIELD_ALGORITHM, .names = lzo_algorithm_names,
	  .why = "unknown algorithm" },
	{ .key = NULL },
};

static int lzo_encode(const struct sqp_codec_config *cfg, uint8_t *buf,
		      size_t *len)
{
	if (cfg->algorithm == SQP_LZO1X_999 && cfg->level == LZO_DEFAULT_LEVEL)
		return 0;
	sqp_put32(buf, cfg->algorithm);
	sqp_put32(buf + 4, cfg->algorithm == SQP_LZO1X_999 ?
				   (uint32_t)cfg->level : 0);
	*len = 8;
	return 0;
}

static int lzo_decode(struct sqp_codec_config *cfg, const uint8_t *buf,
		      size_t len)
{
	uint32_t algorithm, level;

	if (len == 0)
		return 0;
	if (len < 8)
		return SQP_ERR_CORRUPT;
	algorithm = sqp_get32(buf);
	level = sqp_get32(buf + 4);
	if (algorithm >= LZO_ALGORITHMS)
		return SQP_ERR_CORRUPT;
	if (algorithm == SQP_LZO1X_999 ? (level < 1 || level > 9) : level != 0)
		return SQP_ERR_CORRUPT;
	cfg->algorithm = algorithm;
	cfg->level = algorithm == SQP_LZO1X_999 ? (int)level : 0;
	return 0;
}

static void lzo_destroy(void *p)
{
	struct lzo_state *s = p;

	if (s == NULL)
		return;
	free(s->work);
	free(s->scratch);
	free(s);
}

static int lzo_create(const struct sqp_codec_config *cfg, void **out)
{
	struct lzo_state *s;

	if (lzo_init() != LZO_E_OK || cfg->algorithm >= LZO_ALGORITHMS)
		return SQP_ERR_ARG;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->algorithm = cfg->algorithm;
	s->level = cfg->level;
	s->work = malloc(lzo_work_size[cfg->algorithm]);
	/* LZO's documented worst case for incompressible input. */
	s->scratch = malloc(codec_max_input(cfg) + codec_max_input(cfg) / 16 +
			    64 + 3);
	if (s->work == NULL || s->scratch == NULL) {
		lzo_destroy(s);
		return SQP_ERR_NOMEM;
	}
	*out = s;
	return 0;
}

static int lzo_compress(void *p, const uint8_t *in, size_t in_len,
			uint8_t *out, size_t out_cap)
{
	struct lzo_state *s = p;
	lzo_uint n = 0;
	int ret;

	switch (s->algorithm) {
	case SQP_LZO1X_1:
		ret = lzo1x_1_compress(in, in_len, s->scratch, &n, s->work);
		break;
	case SQP_LZO1X_1_11:
		ret = lzo1x_1_11_compress(in, in_len, s->scratch, &n, s->work);
		break;
	case SQP_LZO1X_1_12:
		ret = lzo1x_1_12_compress(in, in_len, s->scratch, &n, s->work);
		break;
	case SQP_LZO1X_1_15:
		ret = lzo1x_1_15_compress(in, in_len, s->scratch, &n, s->work);
		break;
	default:
		ret = lzo1x_999_compress_level(in, in_len, s->scratch, &n,
					       s->work, NULL, 0, NULL,
					       s->level);
		break;
	}
	if (ret != LZO_E_OK)
		return SQP_ERR_BAD_DATA;
	if (n > out_cap)
		return 0;
	memcpy(out, s->scratch, n);
	return (int)n;
}

static int lzo_decompress(void *p, const uint8_t *in, size_t in_len,
			  uint8_t *out, size_t out_cap)
{
	lzo_uint n = out_cap;

	(void)p;
	if (lzo1x_decompress_safe(in, in_len, out, &n, NULL) != LZO_E_OK)
		return SQP_ERR_BAD_DATA;
	return (int)n;
}

static void lzo_library(char *buf, size_t size)
{
	snprintf(buf, size, "lzo %s", lzo_version_string());
}

const struct sqp_codec_ops sqp_codec_lzo_ops = {
	.id = SQP_CODEC_LZO,
	.name = "lzo",
	.help = "    algorithm=A  lzo1x_1, lzo1x_1_11, lzo1x_1_12, lzo1x_1_15 or\n"
		"                 lzo1x_999 (default)\n"
		"    level=N      lzo1x_999 level 1..9 (default 8)\n",
	.opts = lzo_opts,
	.defaults = lzo_defaults,
	.encode = lzo_encode,
	.decode = lzo_decode,
	.create = lzo_create,
	.destroy = lzo_destroy,
	.compress = lzo_compress,
	.decompress = lzo_decompress,
	.library = lzo_library,
};
