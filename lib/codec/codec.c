/* SPDX-License-Identifier: MIT */
/*
 * codec.c - the compressor plugin table and the compressor object.
 *
 * The table maps a SquashFS codec id to the ops of the file that
 * implements it, or to NULL when configure did not find the library. The
 * names are known for all six ids regardless, so a reader can say which
 * codec an image needs. Everything codec-independent is here: the option
 * string tokeniser, argument checks, and the guarantees sqp_compress()
 * gives its callers (never a result >= the input, never writing past
 * out_cap), so each codec file holds only the calls into its library.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "codec/codec_impl.h"
#include "codec/codec_worker.h"

static const char *const codec_names[SQP_CODEC_MAX + 1] = {
	NULL, "gzip", "lzma", "lzo", "xz", "lz4", "zstd",
};

static const struct sqp_codec_ops *const codec_table[SQP_CODEC_MAX + 1] = {
#ifdef WITH_GZIP
	[SQP_CODEC_GZIP] = &sqp_codec_gzip_ops,
#endif
#ifdef WITH_LZMA
	[SQP_CODEC_LZMA] = &sqp_codec_lzma_ops,
#endif
#ifdef WITH_LZO
	[SQP_CODEC_LZO] = &sqp_codec_lzo_ops,
#endif
#ifdef WITH_XZ
	[SQP_CODEC_XZ] = &sqp_codec_xz_ops,
#endif
#ifdef WITH_LZ4
	[SQP_CODEC_LZ4] = &sqp_codec_lz4_ops,
#endif
#ifdef WITH_ZSTD
	[SQP_CODEC_ZSTD] = &sqp_codec_zstd_ops,
#endif
};

struct sqp_compressor {
	const struct sqp_codec_ops *ops;
	struct sqp_codec_config cfg;
	void *state;
};

static const struct sqp_codec_ops *codec_ops(int id)
{
	if (id < 1 || id > SQP_CODEC_MAX)
		return NULL;
	return codec_table[id];
}

void codec_fastest_level(struct sqp_codec_config *cfg)
{
	const struct sqp_codec_ops *ops = codec_ops(cfg->id);
	const struct codec_opt *o;

	for (o = ops != NULL ? ops->opts : NULL; o != NULL && o->key != NULL; o++)
		if (o->field == CODEC_FIELD_LEVEL && cfg->level > (int)o->lo)
			cfg->level = (int)o->lo;
}

const struct codec_dest_ops *codec_dest_of(int id)
{
	const struct sqp_codec_ops *ops = codec_ops(id);

	return ops != NULL ? ops->dest : NULL;
}

SQP_API const char *sqp_codec_name(int id)
{
	if (id < 1 || id > SQP_CODEC_MAX)
		return NULL;
	return codec_names[id];
}

SQP_API int sqp_codec_available(int id)
{
	return codec_ops(id) != NULL;
}

SQP_API unsigned sqp_codec_formats(int id)
{
	const struct sqp_codec_ops *ops = codec_ops(id);

	if (ops == NULL)
		return 0;
	return SQP_CODEC_FOR_SQUASHFS | (ops->dest != NULL ? SQP_CODEC_FOR_EROFS : 0);
}

SQP_API int sqp_codec_by_name(const char *name)
{
	for (int id = 1; id <= SQP_CODEC_MAX; id++)
		if (name != NULL && strcmp(name, codec_names[id]) == 0)
			return id;
	return SQP_ERR_ARG;
}

SQP_API int sqp_codec_library(int id, char *buf, size_t size)
{
	const struct sqp_codec_ops *ops = codec_ops(id);

	if (size > 0)
		buf[0] = '\0';
	if (ops == NULL)
		return SQP_ERR_UNSUPPORTED;
	if (size > 0)
		ops->library(buf, size);
	return 0;
}

SQP_API const char *sqp_codec_options_help(int id)
{
	const struct sqp_codec_ops *ops = codec_ops(id);

	return ops != NULL ? ops->help : NULL;
}

static int valid_block_size(uint32_t bs)
{
	return bs >= 4096 && bs <= (1u << 20) && (bs & (bs - 1)) == 0;
}

SQP_API int sqp_codec_config_init(struct sqp_codec_config *cfg, int id,
				  uint32_t block_size)
{
	const struct sqp_codec_ops *ops = codec_ops(id);

	if (cfg == NULL || sqp_codec_name(id) == NULL ||
	    !valid_block_size(block_size))
		return SQP_ERR_ARG;
	if (ops == NULL)
		return SQP_ERR_NO_CODEC;
	memset(cfg, 0, sizeof(*cfg));
	cfg->id = id;
	cfg->block_size = block_size;
	ops->defaults(cfg);
	return 0;
}

/*
 * Options are "key[=value]" separated by commas. The one list-valued key
 * a codec may have ("filters=x86,arm") swallows the bare words after it
 * that are not flags of their own, so no quoting is needed.
 */
SQP_API int sqp_codec_config_parse(struct sqp_codec_config *cfg,
				   const char *options, char *msg,
				   size_t msg_size)
{
	const struct sqp_codec_ops *ops;
	char *copy, *tok, *save = NULL;
	const char *list_open = NULL; /* the list key whose value runs on */
	int ret = 0;

	if (msg_size > 0)
		msg[0] = '\0';
	if (cfg == NULL || (ops = codec_ops(cfg->id)) == NULL)
		return SQP_ERR_ARG;
	if (options == NULL || options[0] == '\0')
		return 0;
	copy = strdup(options);
	if (copy == NULL)
		return SQP_ERR_NOMEM;
	for (tok = strtok_r(copy, ",", &save); tok != NULL && ret == 0;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');

		if (eq != NULL) {
			*eq = '\0';
			ret = codec_opt_apply(ops, cfg, tok, eq + 1, msg,
					      msg_size);
			list_open = codec_opt_is_list(ops, tok) ? tok : NULL;
			continue;
		}
		ret = codec_opt_apply(ops, cfg, tok, NULL, msg, msg_size);
		if (ret != 0 && list_open != NULL) {
			if (msg_size > 0)
				msg[0] = '\0';
			ret = codec_opt_apply(ops, cfg, list_open, tok, msg,
					      msg_size);
		} else {
			list_open = NULL;
		}
	}
	free(copy);
	return ret;
}

SQP_API int sqp_codec_options_encode(const struct sqp_codec_config *cfg,
				     uint8_t *buf, size_t *len)
{
	const struct sqp_codec_ops *ops;

	if (cfg == NULL || buf == NULL || len == NULL)
		return SQP_ERR_ARG;
	ops = codec_ops(cfg->id);
	if (ops == NULL)
		return SQP_ERR_NO_CODEC;
	*len = 0;
	return ops->encode(cfg, buf, len);
}

SQP_API int sqp_codec_options_decode(struct sqp_codec_config *cfg, int id,
				     uint32_t block_size, const uint8_t *buf,
				     size_t len)
{
	const struct sqp_codec_ops *ops;

	if (cfg == NULL)
		return SQP_ERR_ARG;
	if (sqp_codec_name(id) == NULL)
		return SQP_ERR_UNSUPPORTED;
	if (!valid_block_size(block_size))
		return SQP_ERR_CORRUPT;
	ops = codec_ops(id);
	if (ops == NULL)
		return SQP_ERR_NO_CODEC;
	memset(cfg, 0, sizeof(*cfg));
	cfg->id = id;
	cfg->block_size = block_size;
	ops->defaults(cfg);
	if (buf == NULL)
		len = 0;
	return ops->decode(cfg, buf, len);
}

SQP_API int sqp_compressor_create(const struct sqp_codec_config *cfg,
				  struct sqp_compressor **out)
{
	struct sqp_compressor *c;
	int ret;

	if (cfg == NULL || out == NULL || !valid_block_size(cfg->block_size))
		return SQP_ERR_ARG;
	*out = NULL;
	if (codec_ops(cfg->id) == NULL)
		return sqp_codec_name(cfg->id) ? SQP_ERR_NO_CODEC :
						 SQP_ERR_ARG;
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return SQP_ERR_NOMEM;
	c->ops = codec_ops(cfg->id);
	c->cfg = *cfg;
	ret = c->ops->create(&c->cfg, &c->state);
	if (ret != 0) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

SQP_API void sqp_compressor_destroy(struct sqp_compressor *c)
{
	if (c == NULL)
		return;
	c->ops->destroy(c->state);
	free(c);
}

SQP_API int sqp_compress(struct sqp_compressor *c, const void *in,
			 size_t in_len, void *out, size_t out_cap)
{
	int ret;

	if (c == NULL || in == NULL || out == NULL ||
	    in_len > codec_max_input(&c->cfg))
		return SQP_ERR_ARG;
	/* Only a result shorter than the input is of any use, so the codec
	 * never gets more room than that: it can stop as soon as it knows. */
	if (in_len < 2)
		return 0;
	if (out_cap > in_len - 1)
		out_cap = in_len - 1;
	ret = c->ops->compress(c->state, in, in_len, out, out_cap);
	if (ret < 0 || (size_t)ret < in_len)
		return ret;
	return 0;
}

SQP_API int sqp_decompress(struct sqp_compressor *c, const void *in,
			   size_t in_len, void *out, size_t out_cap)
{
	int ret;

	if (c == NULL || in == NULL || out == NULL)
		return SQP_ERR_ARG;
	if (in_len == 0 || in_len > codec_max_input(&c->cfg) + 4096)
		return SQP_ERR_BAD_DATA;
	ret = c->ops->decompress(c->state, in, in_len, out, out_cap);
	if (ret < 0)
		return SQP_ERR_BAD_DATA;
	if ((size_t)ret > out_cap)
		return SQP_ERR_BAD_DATA;
	return ret;
}
