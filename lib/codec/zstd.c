/* SPDX-License-Identifier: MIT */
/*
 * zstd.c - the zstd codec (SquashFS id 6). One compression and one
 * decompression context per compressor, reused for every block: setting
 * a context up costs more than compressing a small block. The options
 * block (the level) is written only when the level is not mksquashfs's
 * default of 15; readers need it for nothing but display.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "codec/codec_impl.h"

#define ZSTD_DEFAULT_LEVEL 15

struct zstd_state {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	int level;
};

static void zstd_defaults(struct sqp_codec_config *cfg)
{
	cfg->level = ZSTD_DEFAULT_LEVEL;
}

/* The highest level depends on the library zstd was built as. */
static unsigned long zstd_max_level(const struct sqp_codec_config *cfg)
{
	(void)cfg;
	return (unsigned long)ZSTD_maxCLevel();
}

static const struct codec_opt zstd_opts[] = {
	{ .key = "level", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_LEVEL,
	  .lo = 1, .hi_of = zstd_max_level },
	{ .key = NULL },
};

static int zstd_encode(const struct sqp_codec_config *cfg, uint8_t *buf,
		       size_t *len)
{
	if (cfg->level == ZSTD_DEFAULT_LEVEL)
		return 0;
	sqp_put32(buf, (uint32_t)cfg->level);
	*len = 4;
	return 0;
}

static int zstd_decode(struct sqp_codec_config *cfg, const uint8_t *buf,
		       size_t len)
{
	uint32_t level;

	if (len == 0)
		return 0;
	if (len < 4)
		return SQP_ERR_CORRUPT;
	level = sqp_get32(buf);
	if (level < 1 || level > (uint32_t)ZSTD_maxCLevel())
		return SQP_ERR_CORRUPT;
	cfg->level = (int)level;
	return 0;
}

static void zstd_destroy(void *p)
{
	struct zstd_state *s = p;

	if (s == NULL)
		return;
	ZSTD_freeCCtx(s->cctx);
	ZSTD_freeDCtx(s->dctx);
	free(s);
}

static int zstd_create(const struct sqp_codec_config *cfg, void **out)
{
	struct zstd_state *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->level = cfg->level;
	s->cctx = ZSTD_createCCtx();
	s->dctx = ZSTD_createDCtx();
	if (s->cctx == NULL || s->dctx == NULL) {
		zstd_destroy(s);
		return SQP_ERR_NOMEM;
	}
	*out = s;
	return 0;
}

static int zstd_compress(void *p, const uint8_t *in, size_t in_len,
			 uint8_t *out, size_t out_cap)
{
	struct zstd_state *s = p;
	size_t n = ZSTD_compressCCtx(s->cctx, out, out_cap, in, in_len,
				     s->level);

	if (!ZSTD_isError(n))
		return (int)n;
	if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
		return 0;
	return ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation ?
		       SQP_ERR_NOMEM : SQP_ERR_BAD_DATA;
}

static int zstd_decompress(void *p, const uint8_t *in, size_t in_len,
			   uint8_t *out, size_t out_cap)
{
	struct zstd_state *s = p;
	size_t n = ZSTD_decompressDCtx(s->dctx, out, out_cap, in, in_len);

	return ZSTD_isError(n) ? SQP_ERR_BAD_DATA : (int)n;
}

static void zstd_library(char *buf, size_t size)
{
	snprintf(buf, size, "zstd %s", ZSTD_versionString());
}

const struct sqp_codec_ops sqp_codec_zstd_ops = {
	.id = SQP_CODEC_ZSTD,
	.name = "zstd",
	.help = "    level=N      compression level 1..22 (default 15)\n",
	.opts = zstd_opts,
	.defaults = zstd_defaults,
	.encode = zstd_encode,
	.decode = zstd_decode,
	.create = zstd_create,
	.destroy = zstd_destroy,
	.compress = zstd_compress,
	.decompress = zstd_decompress,
	.library = zstd_library,
};
