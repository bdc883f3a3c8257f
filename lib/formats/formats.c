/* SPDX-License-Identifier: MIT */
/*
 * formats.c - sqp_image_create(): the one place that knows the back
 * ends. The image file is checked by the core (rd_image_new), then each
 * back end's probe looks for its magic at its place, and the first that
 * claims the image opens it; its table (struct rd_format) is all the
 * core and everything above it will ever call. An image no probe claims
 * goes to the first back end, whose check says why it is not one
 * (SquashFS's: bad magic).
 */
#include "config.h"

#include "erofs/rd_erofs.h"
#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"

/* The back ends, each tried in turn by the magic at its place; an image
 * no probe claims goes to the first, whose check says why not. */
static const struct {
	const struct rd_format *fmt;
	int (*probe)(struct sqp_image *img);
	int (*open)(struct sqp_image *img);
} backs[] = {
	{ &rd_sqfs_format, rd_sqfs_probe, rd_sqfs_open },
	{ &rd_erofs_format, rd_erofs_probe, rd_erofs_open },
};

static int open_back(struct sqp_image *img)
{
	size_t n = sizeof(backs) / sizeof(backs[0]), i;
	int ret = 0;

	for (i = 0; i < n; i++)
		if ((ret = backs[i].probe(img)) != 0)
			break;
	if (ret < 0)
		return ret;
	i = i < n ? i : 0;
	img->fmt = backs[i].fmt;
	return backs[i].open(img);
}

SQP_API int sqp_image_create(const struct sqp_image_desc *desc,
			     struct sqp_image **out)
{
	int ret = rd_image_new(desc, out);

	if (ret == 0)
		ret = open_back(*out);
	if (ret == 0 && (*out)->dev_fd >= 0 && (*out)->dev_at == UINT64_MAX)
		return rd_err(*out, SQP_ERR_ARG, "%s: a device was given, and the "
			      "image has no extra device to read from it", (*out)->name);
	return ret;
}
