/* SPDX-License-Identifier: MIT */
/*
 * shard_opts.c - img2img --shards of EROFS images: the codec, pcluster
 * size and layout options the merge takes from the shards when the user
 * gives none, so that the shards' pclusters are copied as they are
 * stored (by the EROFS writer's base copier) without the shards' build
 * line repeated.
 *
 * What an EROFS image shows of its build (sqp_image_layout): its codec
 * (the superblock's algorithms), its pcluster size as far as its
 * compression record says, and ztailpacking and fragments, superblock
 * features that mark use: a shard none of whose files needed one shows
 * nothing of it. So the merge takes every feature any shard shows and
 * the largest pcluster, and the codec of the first shard that names one
 * (a shard whose files all stored better raw names none). Shards built
 * alike are then copied whole; a shard built otherwise is converted,
 * each file whose pclusters or record do not fit decoded and compressed
 * again, never refused.
 *
 * Not recorded, so not taken (the user gives them, or the writer's
 * defaults serve): deflate's pcluster size, as deflate's record holds
 * its window alone (the layout's erofs_pcluster is 0 for it; the
 * largest pcluster any file's index names bounds it only from below,
 * and reading it costs a walk of every index); --erofs-dedupe, as
 * shared blocks bear no mark (two files naming the same blocks show it
 * only where a shard had equal files); --max-extent-bytes, which no
 * field holds (extents' lengths bound it from below); the codec's
 * level, which EROFS stores nowhere (copies do not need it; what is
 * compressed again takes the codec's default). A SquashFS merge takes
 * the first shard's options block, level included (resolve_codec).
 */
#include "config.h"

#include "sqpack/image_info.h"
#include "../common/tool_mains.h"
#include "shard_opts.h"

/* What img shows, into out: a SquashFS shard's layout shows no EROFS
 * pcluster or feature (zero), its codec as any shard's. */
static void show(struct sqp_image *img, struct shards_shown *out)
{
	struct sqp_image_info ii = { .struct_size = sizeof(ii) };
	struct sqp_image_layout lay;

	if (sqp_image_get_info(img, &ii) != 0 || sqp_image_get_layout(img, &lay) != 0)
		return;
	if (out->codec == 0)
		out->codec = ii.codec;
	if (lay.erofs_pcluster > out->pcluster)
		out->pcluster = lay.erofs_pcluster;
	out->features |= lay.erofs_features;
}

void img2img_shards_shown(struct sqp_image *base, struct sqp_image *const *shards,
			  size_t n, struct shards_shown *out)
{
	*out = (struct shards_shown){ 0 };
	show(base, out);
	for (size_t i = 0; i < n; i++)
		show(shards[i], out);
}

void img2img_shards_layout(struct tool_options *opt, const struct shards_shown *s)
{
	struct sqp_writer_desc *d = &opt->desc;

	if (d->erofs_pcluster_size != 0 || d->erofs_max_extent != 0 ||
	    (d->flags & (SQP_WRITE_EROFS_ZTAILPACKING | SQP_WRITE_EROFS_FRAGMENTS |
			 SQP_WRITE_EROFS_DEDUPE)) != 0)
		return;
	d->erofs_pcluster_size = s->pcluster;
	if (s->features & SQP_EROFS_SHOWS_ZTAILPACKING)
		d->flags |= SQP_WRITE_EROFS_ZTAILPACKING;
	if (s->features & SQP_EROFS_SHOWS_FRAGMENTS)
		d->flags |= SQP_WRITE_EROFS_FRAGMENTS;
}
