/* SPDX-License-Identifier: MIT */
/*
 * shard_plan.h - img2img --shards --plan FILE (shard_plan.c).
 */
#ifndef IMG2IMG_SHARD_PLAN_H
#define IMG2IMG_SHARD_PLAN_H

#include <stddef.h>

#include "sqpack/reader.h"

/* img[0..n), opened from names[0..n) in the order given, are the N
 * shards of plan (what --shard-plan N printed), in order: 0, or 1 with
 * the reason on stderr. */
int img2img_check_plan(const char *plan, struct sqp_image *const *img,
		       const char *const *names, size_t n);

#endif
