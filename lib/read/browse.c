/* SPDX-License-Identifier: MIT */
/*
 * browse.c - the public browsing API of reader.h: stat, lookup, links,
 * xattrs and directory listings, as thin checked wrappers over the
 * reader's internals (inode.c, lookup.c).
 *
 * Why a separate layer: the internals latch every corruption in the
 * image and assume the caller checked types; here each entry point first
 * returns a latched error (a failed image stays failed), and asks for a
 * directory, a link or a file explicitly, answering SQP_ERR_ARG without
 * latching when the inode is of another type.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "sqpack/error.h"
#include "sqpack/image_info.h"
#include "util/abi.h"

struct sqp_dir {
	struct sqp_image *img;
	struct rd_dir it;
};

static const uint32_t dirent_types[8] = {
	0, S_IFDIR, S_IFREG, S_IFLNK, S_IFBLK, S_IFCHR, S_IFIFO, S_IFSOCK,
};

SQP_API uint64_t sqp_image_root(const struct sqp_image *img)
{
	return img->root;
}

/* The library's own struct, whole; sqp_image_stat copies it out. */
int rd_stat(struct sqp_image *img, uint64_t ref, struct sqp_inode_info *info)
{
	struct rd_inode ino;
	int ret;

	if (img->err.code != 0)
		return img->err.code;
	if ((ret = rd_inode_read(img, ref, &ino)) != 0)
		return ret;
	memset(info, 0, sizeof(*info));
	info->struct_size = sizeof(*info);
	info->ref = ref;
	info->inode_number = ino.inode_number;
	info->nlink = ino.nlink;
	info->mode = ino.mode;
	info->uid = ino.uid;
	info->gid = ino.gid;
	info->mtime = ino.mtime;
	info->has_xattrs = ino.has_xattrs;
	info->size = S_ISREG(ino.mode) || S_ISLNK(ino.mode) ||
		     S_ISDIR(ino.mode) ? ino.size : 0;
	info->dev_major = ino.dev_major;
	info->dev_minor = ino.dev_minor;
	if (S_ISDIR(ino.mode) &&
	    (ret = img->fmt->parent(img, &ino, &info->parent)) != 0)
		return ret;
	rd_inode_free(&ino);
	return 0;
}

SQP_API int sqp_image_stat(struct sqp_image *img, uint64_t ref,
			   struct sqp_inode_info *info)
{
	const size_t v0 = SQP_SIZE_TO(struct sqp_inode_info, has_xattrs);
	struct sqp_inode_info all = { .struct_size = sizeof(all) };
	int ret = sqp_abi_out(NULL, "sqp_inode_info", info, &all, sizeof(all), v0);

	if (ret == 0)
		ret = rd_stat(img, ref, &all);
	return ret != 0 ? ret : sqp_abi_out(NULL, "sqp_inode_info", info, &all,
					    sizeof(all), v0);
}

SQP_API int sqp_image_lookup(struct sqp_image *img, const char *path,
			     uint64_t *ref)
{
	if (img->err.code != 0)
		return img->err.code;
	if (path == NULL || ref == NULL)
		return SQP_ERR_ARG;
	return rd_path_lookup(img, path, ref);
}

SQP_API int sqp_image_inode_ref(struct sqp_image *img, uint32_t n,
				uint64_t *ref)
{
	if (img->err.code != 0)
		return img->err.code;
	return rd_export_ref(img, n, ref);
}

SQP_API int sqp_image_readlink(struct sqp_image *img, uint64_t ref,
			       char *buf, size_t size)
{
	struct rd_inode ino;
	size_t len;
	int ret;

	if (img->err.code != 0)
		return img->err.code;
	if ((ret = rd_inode_read(img, ref, &ino)) != 0)
		return ret;
	if (!S_ISLNK(ino.mode)) {
		rd_inode_free(&ino);
		return SQP_ERR_ARG;
	}
	len = strlen(ino.target);
	if (size > 0) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(buf, ino.target, n);
		buf[n] = '\0';
	}
	rd_inode_free(&ino);
	return (int)len;
}

SQP_API int sqp_image_xattrs(struct sqp_image *img, uint64_t ref,
			     const struct sqp_xattr **xattrs, size_t *count)
{
	struct rd_inode ino;
	int ret;

	*xattrs = NULL;
	*count = 0;
	if (img->err.code != 0)
		return img->err.code;
	if ((ret = rd_inode_read(img, ref, &ino)) != 0)
		return ret;
	ret = rd_xattrs_of(img, &ino, &img->xscratch);
	rd_inode_free(&ino);
	if (ret != 0)
		return ret;
	*xattrs = img->xscratch.items;
	*count = img->xscratch.count;
	return 0;
}

SQP_API int sqp_dir_open(struct sqp_image *img, uint64_t ref,
			 struct sqp_dir **out)
{
	struct rd_inode ino;
	struct sqp_dir *d;
	int ret;

	*out = NULL;
	if (img->err.code != 0)
		return img->err.code;
	if ((ret = rd_inode_read(img, ref, &ino)) != 0)
		return ret;
	if (!S_ISDIR(ino.mode)) {
		rd_inode_free(&ino);
		return SQP_ERR_ARG;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		rd_inode_free(&ino);
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	}
	d->img = img;
	ret = rd_dir_open(img, &ino, &d->it);
	rd_inode_free(&ino);
	if (ret != 0) {
		free(d);
		return ret;
	}
	*out = d;
	return 0;
}

SQP_API int sqp_dir_next(struct sqp_dir *dir, struct sqp_dirent *e)
{
	struct sqp_dirent all;
	struct rd_dirent de;
	int ret;

	if (dir->img->err.code != 0)
		return dir->img->err.code;
	ret = rd_dir_next(dir->img, &dir->it, &de);
	if (ret != 1)
		return ret;
	if (de.type == 0 || de.type > RD_T_SOCKET)
		return rd_err(dir->img, SQP_ERR_CORRUPT, "%s: directory entry "
			      "'%s' has type %u", dir->img->name, de.name,
			      de.type);
	memcpy(all.name, de.name, sizeof(all.name));
	all.ref = de.inode_ref;
	all.inode_number = de.inode_number;
	all.type = dirent_types[de.type];
	ret = sqp_abi_out(NULL, "sqp_dirent", e, &all, sizeof(all),
			  SQP_SIZE_TO(struct sqp_dirent, type));
	return ret != 0 ? ret : 1;
}

SQP_API void sqp_dir_close(struct sqp_dir *dir)
{
	free(dir);
}

SQP_API int sqp_file_open(struct sqp_image *img, uint64_t ref,
			  struct sqp_file **out)
{
	struct sqp_file *f;
	int ret;

	*out = NULL;
	if (img->err.code != 0)
		return img->err.code;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	f->img = img;
	if ((ret = rd_inode_read(img, ref, &f->ino)) != 0) {
		free(f);
		return ret;
	}
	if (!S_ISREG(f->ino.mode)) {
		sqp_file_close(f);
		return SQP_ERR_ARG;
	}
	if ((ret = img->fmt->file_open(f)) != 0) {
		sqp_file_close(f);
		return ret;
	}
	*out = f;
	return 0;
}

SQP_API void sqp_file_close(struct sqp_file *f)
{
	if (f == NULL)
		return;
	f->img->fmt->file_close(f);
	rd_inode_free(&f->ino);
	free(f);
}

SQP_API int sqp_file_pread(struct sqp_file *f, void *buf, size_t n,
			   uint64_t off, size_t *got)
{
	int ret;

	*got = 0;
	if (f->img->err.code != 0)
		return f->img->err.code;
	if (off >= f->ino.size)
		return 0;
	if (n > f->ino.size - off)
		n = (size_t)(f->ino.size - off);
	if ((ret = f->img->fmt->file_pread(f, buf, n, off)) == 0)
		*got = n;
	return ret;
}

/* image_info.h: the layout queries, answered by the back end. */
SQP_API int sqp_image_get_layout(struct sqp_image *img,
				 struct sqp_image_layout *o)
{
	memset(o, 0, sizeof(*o));
	if (img->err.code != 0)
		return img->err.code;
	return img->fmt->layout(img, o);
}

SQP_API int sqp_image_file_layout(struct sqp_image *img, uint64_t ref,
				  struct sqp_file_layout *o)
{
	struct rd_inode ino;
	int ret;

	memset(o, 0, sizeof(*o));
	if (img->err.code != 0)
		return img->err.code;
	if ((ret = rd_inode_read(img, ref, &ino)) != 0)
		return ret;
	ret = S_ISREG(ino.mode) ? img->fmt->file_layout(img, &ino, o) :
	      SQP_ERR_ARG;
	rd_inode_free(&ino);
	return ret;
}

/* sqp_file_seek's walk: the first piece past off of the kind wanted. */
struct seek_walk {
	uint64_t off;
	int data;
	uint64_t found;
};

static int seek_piece(void *user, uint64_t off, uint64_t len, int hole)
{
	struct seek_walk *w = user;

	if (off + len <= w->off || !hole == !w->data)
		return 0;
	w->found = off > w->off ? off : w->off;
	return 1;
}

SQP_API int sqp_file_seek(struct sqp_file *f, uint64_t off, int data,
			  uint64_t *out)
{
	struct seek_walk w = { .off = off, .data = data };
	int ret;

	*out = 0;
	if (f->img->err.code != 0)
		return f->img->err.code;
	if (off >= f->ino.size)
		return SQP_ERR_NOT_FOUND;
	ret = rd_file_pieces(f->img, &f->ino, seek_piece, &w);
	if (ret < 0)
		return ret;
	if (ret == 0 && data)
		return SQP_ERR_NOT_FOUND;
	*out = ret == 0 ? f->ino.size : w.found;
	return 0;
}

SQP_API int sqp_file_span(struct sqp_file *f, uint64_t off, uint64_t max,
			  struct sqp_file_span *out)
{
	memset(out, 0, sizeof(*out));
	if (f->img->err.code != 0)
		return f->img->err.code;
	if (off >= f->ino.size || max == 0)
		return rd_err(f->img, SQP_ERR_ARG, "%s: a span at %llu of a "
			      "file of %llu bytes", f->img->name,
			      (unsigned long long)off,
			      (unsigned long long)f->ino.size);
	out->kind = SQP_SPAN_DECODE;
	out->len = f->ino.size - off < max ? f->ino.size - off : max;
	if (f->img->fmt->file_span == NULL)
		return 0;
	return f->img->fmt->file_span(f, off, out->len, out);
}

SQP_API int sqp_image_fragment(struct sqp_image *img, uint32_t index,
			       void *buf, size_t cap, size_t *len)
{
	*len = 0;
	if (img->err.code != 0)
		return img->err.code;
	if (img->fmt->fragment == NULL)
		return rd_err(img, SQP_ERR_ARG, "%s: the format has no "
			      "fragment blocks", img->name);
	return img->fmt->fragment(img, index, buf, cap, len);
}
