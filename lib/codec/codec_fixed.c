/* SPDX-License-Identifier: MIT */
/*
 * codec_fixed.c - the public face (sqpack/codec_fixed.h, unstable) of
 * the codecs' fixed-output mode (codec_dest.h), so that a benchmark can
 * time the codec as the EROFS writer runs it, through the library's
 * API alone. The object is the mode's state and the configuration it
 * was made for; nothing is kept between calls but the codec's buffers.
 */
#include "config.h"

#include <stdlib.h>

#include "codec/codec_dest.h"
#include "sqpack/codec_fixed.h"
#include "sqpack/error.h"

struct sqp_fixed_compressor {
	const struct codec_dest_ops *ops;
	uint32_t pcluster;
	void *state;
};

SQP_API int sqp_fixed_compressor_create(const struct sqp_codec_config *cfg,
					uint32_t pcluster,
					struct sqp_fixed_compressor **out)
{
	struct sqp_fixed_compressor *c;
	int ret;

	if (cfg == NULL || out == NULL || pcluster == 0 || pcluster % 4096 != 0 ||
	    pcluster > (1u << 20))
		return SQP_ERR_ARG;
	*out = NULL;
	if (!sqp_codec_available(cfg->id))
		return sqp_codec_name(cfg->id) != NULL ? SQP_ERR_NO_CODEC : SQP_ERR_ARG;
	if (codec_dest_of(cfg->id) == NULL)
		return SQP_ERR_UNSUPPORTED;
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return SQP_ERR_NOMEM;
	c->ops = codec_dest_of(cfg->id);
	c->pcluster = pcluster;
	if ((ret = c->ops->create(cfg, pcluster, &c->state)) != 0) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

SQP_API void sqp_fixed_compressor_destroy(struct sqp_fixed_compressor *c)
{
	if (c == NULL)
		return;
	c->ops->destroy(c->state);
	free(c);
}

SQP_API int sqp_compress_fixed(struct sqp_fixed_compressor *c, const void *in,
			       size_t *in_len, size_t guess, void *out, size_t out_cap)
{
	if (c == NULL || in == NULL || in_len == NULL || out == NULL || out_cap == 0 ||
	    out_cap > c->pcluster || *in_len > INT32_MAX)
		return SQP_ERR_ARG;
	return c->ops->compress(c->state, in, in_len, guess, out, out_cap);
}
