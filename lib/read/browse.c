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

#include "read/rd_erofs.h"
#include "read/rd_image.h"
#include "sqpack/error.h"
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
	return img->sb.root_inode;
}

/* The library's own struct, whole; sqp_image_stat copies it out. */
int rd_stat(struct sqp_image *img, uint64_t ref, struct sqp_inode_info *info)
{
	const struct sqfs_inode *r;
	struct rd_inode ino;
	int ret;

	if (img->err.code != 0)
		return img->err.code;
	if ((ret = rd_inode_read(img, ref, &ino)) != 0)
		return ret;
	r = &ino.raw;
	memset(info, 0, sizeof(*info));
	info->struct_size = sizeof(*info);
	info->ref = ref;
	info->inode_number = r->inode_number;
	info->nlink = r->nlink;
	info->mode = ino.mode;
	info->uid = ino.uid;
	info->gid = ino.gid;
	info->mtime = ino.mtime;
	info->has_xattrs = r->xattr_idx != SQFS_NO_XATTR;
	if (S_ISREG(ino.mode))
		info->size = r->u.file.size;
	else if (S_ISLNK(ino.mode))
		info->size = r->u.symlink.target_size;
	else if (S_ISDIR(ino.mode)) {
		info->size = r->u.dir.size - SQFS_DIR_SIZE_BIAS;
		info->parent = r->u.dir.parent;
		if (img->ero != NULL &&
		    (ret = rd_erofs_parent(img, &ino, &info->parent)) != 0)
			return ret;
	} else if (S_ISCHR(ino.mode) || S_ISBLK(ino.mode))
		sqfs_decode_rdev(r->u.dev.rdev, &info->dev_major,
				 &info->dev_minor);
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
	if (de.type == 0 || de.type > SQFS_SOCKET)
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
