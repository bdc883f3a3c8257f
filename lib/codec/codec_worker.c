/* SPDX-License-Identifier: MIT */
/*
 * codec_worker.c - the worker_init/worker_fini pair that gives each pool
 * worker its own compressor and scratch block, written once for the
 * writer's pipelines and the reader's block reader.
 *
 * Codec contexts are not thread-safe, so every worker owns one for the
 * pool's whole life; the shared settings (ctx) are only read. A worker
 * that failed to start owns nothing: init frees what it made before
 * returning the error, and the pool never calls fini for it.
 */
#include "config.h"

#include <stdlib.h>

#include "codec/codec_worker.h"
#include "sqpack/error.h"
#include "util/fileio.h"

int sqp_codec_worker_init(void *ctx, void **state)
{
	const struct sqp_codec_worker_desc *d = ctx;
	struct sqp_codec_worker *w = calloc(1, sizeof(*w));
	int ret = SQP_ERR_NOMEM;

	if (w == NULL)
		return ret;
	w->scratch_size = d->scratch_size;
	if (d->scratch_size == 0 || (w->scratch = sqp_iobuf_alloc(d->scratch_size)))
		ret = d->no_codec ? 0 : sqp_compressor_create(&d->cfg, &w->codec);
	if (ret != 0) {
		free(w->scratch);
		free(w);
		return ret;
	}
	*state = w;
	return 0;
}

void sqp_codec_worker_fini(void *ctx, void *state)
{
	struct sqp_codec_worker *w = state;

	(void)ctx;
	sqp_erofs_unz_free(w->unz);
	sqp_compressor_destroy(w->other);
	sqp_compressor_destroy(w->codec);
	free(w->run_out);
	free(w->scratch);
	free(w);
}

int sqp_codec_worker_decoder(struct sqp_codec_worker *w,
			     const struct sqp_codec_config *cfg,
			     struct sqp_compressor **out)
{
	const struct sqp_codec_config *o = &w->other_cfg;
	int ret;

	if (w->other == NULL || o->id != cfg->id || o->block_size != cfg->block_size ||
	    o->level != cfg->level || o->window != cfg->window ||
	    o->strategies != cfg->strategies || o->filters != cfg->filters ||
	    o->dict_size != cfg->dict_size || o->algorithm != cfg->algorithm ||
	    o->flags != cfg->flags) {
		sqp_compressor_destroy(w->other);
		w->other = NULL;
		if ((ret = sqp_compressor_create(cfg, &w->other)) != 0)
			return ret;
		w->other_cfg = *cfg;
	}
	*out = w->other;
	return 0;
}
