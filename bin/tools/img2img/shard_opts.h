/* SPDX-License-Identifier: MIT */
/*
 * shard_opts.h - img2img --shards of EROFS images: the options the merge
 * takes from what the shards show (shard_opts.c).
 */
#ifndef IMG2IMG_SHARD_OPTS_H
#define IMG2IMG_SHARD_OPTS_H

#include "sqpack/reader.h"
#include "../common/tool_options.h"

/* What the shards show: the codec of the first that names one (0: none
 * does), the largest pcluster they show, every EROFS feature any shows
 * (SQP_EROFS_SHOWS_*). */
struct shards_shown {
	int codec;
	uint32_t pcluster;
	unsigned features;
};

/* What base (the first shard) and the n other shards show, all open. */
void img2img_shards_shown(struct sqp_image *base, struct sqp_image *const *shards,
			  size_t n, struct shards_shown *out);
/* Into opt->desc, when the user gives none of the EROFS layout options
 * (--pcluster-size, --ztailpacking, --erofs-fragments, --erofs-dedupe,
 * --max-extent-bytes): the pcluster size and features s shows. */
void img2img_shards_layout(struct tool_options *opt, const struct shards_shown *s);

#endif
