/* SPDX-License-Identifier: MIT */
/*
 * records.c - the core's calls on inodes, listings and xattrs: each goes
 * to the image's back end (struct rd_format, chosen at open), and what
 * holds for every format is checked here once: a listing's names. Also
 * the image's latched error and the positioned read every back end
 * reads the image with.
 *
 * Why a file of its own: the back ends fill the core's records and the
 * core calls them through one table; nothing here knows a format.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/rd_image.h"
#include "sqpack/error.h"
#include "util/fileio.h"

int rd_err(struct sqp_image *img, int code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sqp_verr(&img->err, code, fmt, ap);
	va_end(ap);
	return ret;
}

void rd_err_clear(struct sqp_image *img)
{
	img->err.code = 0;
	img->err.msg[0] = '\0';
}

int rd_pread(const struct sqp_image *img, uint64_t off, void *buf, size_t len)
{
	size_t head;
	int ret;

	if (img->dev_fd < 0 || off + len <= img->dev_at)
		return sqp_pread_full(img->fd, img->base + off, buf, len);
	head = off < img->dev_at ? (size_t)(img->dev_at - off) : 0;
	if (head > 0 && (ret = sqp_pread_full(img->fd, img->base + off, buf, head)) != 0)
		return ret;
	return sqp_pread_full(img->dev_fd, off + head - img->dev_at, (uint8_t *)buf + head,
			      len - head);
}

int rd_read_at(struct sqp_image *img, uint64_t off, void *buf, size_t len,
		   const char *what)
{
	int ret;

	if (off > img->file_size || len > img->file_size - off)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: %s at offset %llu lies "
			      "past the end of the image", img->name, what,
			      (unsigned long long)off);
	ret = rd_pread(img, off, buf, len);
	if (ret != 0)
		return rd_err(img, ret, "%s: reading %s: %s", img->name, what,
			      ret == SQP_ERR_TRUNCATED ? "unexpected end of file" :
			      strerror(errno));
	return 0;
}

int rd_inode_read(struct sqp_image *img, uint64_t ref, struct rd_inode *ino)
{
	return img->fmt->inode_read(img, ref, ino);
}

int rd_file_pieces(struct sqp_image *img, const struct rd_inode *ino,
		   rd_piece_fn fn, void *user)
{
	return img->fmt->pieces(img, ino, fn, user);
}

void rd_inode_free(struct rd_inode *ino)
{
	free(ino->target);
	ino->target = NULL;
}

int rd_dir_open(struct sqp_image *img, const struct rd_inode *dir,
		struct rd_dir *it)
{
	return img->fmt->dir_open(img, dir, it);
}

int rd_dir_next(struct sqp_image *img, struct rd_dir *it, struct rd_dirent *e)
{
	return img->fmt->dir_next(img, it, e);
}

int rd_dir_name(struct sqp_image *img, struct rd_dir *it, const char *name)
{
	int ret;

	if (strchr(name, '/') != NULL ||
	    strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "invalid name '%s'", img->name, it->inode_number,
			      name);
	if ((ret = strcmp(name, it->prev)) <= 0)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: %s "
			      "'%s'", img->name, it->inode_number, ret == 0 ?
			      "holds twice the name" : "listing not sorted at",
			      name);
	strcpy(it->prev, name);
	return 0;
}

int rd_xattrs_of(struct sqp_image *img, const struct rd_inode *ino,
		 struct rd_xattrs *x)
{
	return img->fmt->xattrs(img, ino, x);
}

void rd_xattrs_free(struct rd_xattrs *x)
{
	free(x->items);
	free(x->blob);
	memset(x, 0, sizeof(*x));
}

void rd_check_report(struct rd_checker *k, const char *table,
		     uint32_t inode, const char *path, const char *fmt, ...)
{
	char msg[SQP_ERRMSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	k->report(k->user, table, inode, path, msg);
}
