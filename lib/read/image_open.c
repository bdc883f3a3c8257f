/* SPDX-License-Identifier: MIT */
/*
 * image_open.c - the image as a file, before any format is known: the
 * descriptor checked, its size, where the image starts in it; then what
 * every open image answers whatever its back end (its error, its info)
 * and its destruction. Which back end reads it is chosen above the core
 * (sqp_image_create, formats.c), once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/rd_image.h"
#include "sqpack/error.h"
#include "util/abi.h"

/* The extra device's file, placed later by the back end. */
static int open_device(struct sqp_image *img, const char *path)
{
	struct stat st;

	img->dev_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (img->dev_fd < 0 || fstat(img->dev_fd, &st) != 0)
		return rd_err(img, sqp_errno_code(errno), "%s: the device %s: %s",
			      img->name, path, strerror(errno));
	img->dev_size = (uint64_t)st.st_size;
	return 0;
}

int rd_image_new(const struct sqp_image_desc *desc, struct sqp_image **out)
{
	struct sqp_image_desc d;
	struct sqp_image *img;
	struct stat st;
	int ret;

	if (out == NULL)
		return SQP_ERR_ARG;
	*out = NULL;
	img = calloc(1, sizeof(*img));
	if (img == NULL)
		return SQP_ERR_NOMEM;
	*out = img; /* on failure too: it explains (sqpack/error.h) */
	img->dev_fd = -1;
	img->dev_at = UINT64_MAX;
	ret = sqp_abi_in(&img->err, "sqp_image_desc", &d, sizeof(d),
			 SQP_SIZE_TO(struct sqp_image_desc, offset), desc);
	if (ret != 0)
		return ret;
	desc = &d; /* the caller's struct only up to its size */
	if (desc->fd < 0)
		return rd_err(img, SQP_ERR_ARG, "no image file");
	img->fd = desc->fd;
	img->name = desc->name != NULL ? desc->name : "image";
	img->warn = desc->warn;
	img->warn_user = desc->warn_user;
	if (fstat(desc->fd, &st) != 0)
		return rd_err(img, sqp_errno_code(errno), "%s: %s", img->name,
			      strerror(errno));
	/* Its size is whatever its file system says, not EISDIR: say it. */
	if (S_ISDIR(st.st_mode))
		return rd_err(img, sqp_errno_code(EISDIR), "%s: %s", img->name,
			      strerror(EISDIR));
	if ((uint64_t)st.st_size < desc->offset)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the offset %llu lies past "
			      "the end of the file (%llu bytes)", img->name,
			      (unsigned long long)desc->offset,
			      (unsigned long long)st.st_size);
	img->base = desc->offset;
	img->file_size = (uint64_t)st.st_size - desc->offset;
	return desc->device != NULL ? open_device(img, desc->device) : 0;
}

SQP_API void sqp_image_destroy(struct sqp_image *img)
{
	if (img == NULL)
		return;
	if (img->fmt != NULL)
		img->fmt->destroy(img);
	rd_xattrs_free(&img->xscratch);
	if (img->dev_fd >= 0)
		close(img->dev_fd);
	free(img);
}

SQP_API const char *sqp_image_error(const struct sqp_image *img)
{
	return img != NULL ? sqp_errmsg(&img->err) : "";
}

SQP_API int sqp_image_get_info(const struct sqp_image *img,
			       struct sqp_image_info *info)
{
	struct sqp_image_info all = {
		.block_size = img->block_size,
		.inode_count = img->inode_count,
		.bytes_used = img->end,
	};

	if (img->fmt != NULL)
		img->fmt->info(img, &all);
	return sqp_abi_out(NULL, "sqp_image_info", info, &all, sizeof(all),
			   SQP_SIZE_TO(struct sqp_image_info, bytes_used));
}
