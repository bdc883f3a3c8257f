/* SPDX-License-Identifier: MIT */
/*
 * lz4_dest.c - lz4 and lz4hc to a fixed output size (EROFS's physical
 * clusters): liblz4's destSize functions fill the cluster with as much
 * input as they can.
 *
 * Apart from lz4.c because the block codec and this mode share only the
 * library: different calls and a different contract (the input taken is
 * an output). Both algorithms are EROFS's LZ4 (one decoder); HC only
 * searches harder. liblz4 1.9.2 or later is needed: earlier destSize
 * output could need one byte more room than it decodes to, which the
 * kernel, decoding to the exact size, would refuse.
 */
#include "config.h"

#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>

#include "codec/codec_dest.h"
#include "sqpack/error.h"

struct lz4_dest {
	int level;   /* 0: plain lz4 */
	void *hc;    /* LZ4HC state, reused per cluster */
};

static int lz4_dest_create(const struct sqp_codec_config *cfg, void **out)
{
	struct lz4_dest *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (s == NULL)
		return SQP_ERR_NOMEM;
	if (cfg->flags & SQP_LZ4_HC) {
		s->level = cfg->level;
		s->hc = malloc((size_t)LZ4_sizeofStateHC());
		if (s->hc == NULL) {
			free(s);
			return SQP_ERR_NOMEM;
		}
	}
	*out = s;
	return 0;
}

static void lz4_dest_destroy(void *p)
{
	struct lz4_dest *s = p;

	if (s != NULL)
		free(s->hc);
	free(s);
}

static int lz4_dest_compress(void *p, const uint8_t *in, size_t *in_len,
			     uint8_t *out, size_t out_cap)
{
	struct lz4_dest *s = p;
	int taken, n;

	if (*in_len > INT_MAX || out_cap > INT_MAX)
		return SQP_ERR_ARG;
	taken = (int)*in_len;
	if (s->hc != NULL)
		n = LZ4_compress_HC_destSize(s->hc, (const char *)in, (char *)out,
					     &taken, (int)out_cap, s->level);
	else
		n = LZ4_compress_destSize((const char *)in, (char *)out, &taken,
					  (int)out_cap);
	if (n <= 0)
		return SQP_ERR_COMPRESSOR;
	*in_len = (size_t)taken;
	return n;
}

const struct codec_dest_ops sqp_codec_lz4_dest_ops = {
	.erofs_alg = 0,
	.create = lz4_dest_create,
	.destroy = lz4_dest_destroy,
	.compress = lz4_dest_compress,
};
