/* SPDX-License-Identifier: MIT */
/*
 * writer_add.c - taking one entry into the image.
 *
 * Attributes are checked against what SquashFS can hold (32-bit owners,
 * unsigned 32-bit times, 12-bit major and 20-bit minor device numbers)
 * before anything is stored, so a bad entry fails with its own name in the
 * message. Times outside 1970..2106 are clamped with a warning rather than
 * refused: the rest of the entry is still worth keeping.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/sqfs_format.h"
#include "sqpack/error.h"
#include "write/writer_impl.h"

static void warn(struct sqp_writer *w, const char *fmt, const char *path)
{
	char msg[600];

	if (w->desc.warn == NULL)
		return;
	snprintf(msg, sizeof(msg), fmt, path);
	w->desc.warn(w->desc.warn_user, msg);
}

static int convert_attrs(struct sqp_writer *w, const struct sqp_entry *e,
			 struct fs_attr *a)
{
	int64_t t = e->mtime;

	if (e->uid > UINT32_MAX || e->gid > UINT32_MAX)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': uid/gid %llu/%llu does not fit "
				   "in 32 bits", e->path, (unsigned long long)e->uid,
				   (unsigned long long)e->gid);
	if (t < 0 || t > (int64_t)UINT32_MAX) {
		warn(w, "'%s': modification time outside 1970..2106, clamped", e->path);
		t = t < 0 ? 0 : (int64_t)UINT32_MAX;
	}
	a->mode = e->mode;
	a->uid = (uint32_t)e->uid;
	a->gid = (uint32_t)e->gid;
	a->mtime = (uint32_t)t;
	a->xattr_set = SQFS_NO_XATTR;
	if (a->mtime > w->newest_mtime)
		w->newest_mtime = a->mtime;
	if (e->xattr_count > 0 && !(w->desc.flags & SQP_WRITE_NO_XATTRS))
		return xattr_store_intern(&w->xattrs, e->path, e->xattrs,
					  e->xattr_count, &a->xattr_set);
	return 0;
}

static int fill_special(struct sqp_writer *w, const struct sqp_entry *e,
			struct fs_irec *ino)
{
	switch (e->mode & S_IFMT) {
	case S_IFLNK:
		if (e->link_target == NULL || e->link_target[0] == '\0')
			return writer_fail(w, SQP_ERR_BAD_TAR, "'%s': symlink without a target",
					   e->path);
		return fstree_set_target(&w->tree, ino, e->link_target);
	case S_IFBLK:
	case S_IFCHR:
		if (e->dev_major > 0xFFF || e->dev_minor > 0xFFFFF)
			return writer_fail(w, SQP_ERR_LIMIT, "'%s': device %u:%u does not fit "
					   "SquashFS's 12-bit major, 20-bit minor", e->path,
					   e->dev_major, e->dev_minor);
		ino->u.dev.rdev = sqfs_encode_rdev(e->dev_major, e->dev_minor);
		return 0;
	case S_IFDIR:
	case S_IFIFO:
	case S_IFSOCK:
		return 0;
	default:
		return writer_fail(w, SQP_ERR_UNSUPPORTED, "'%s': unknown file type 0%o",
				   e->path, (unsigned)(e->mode & S_IFMT));
	}
}

int sqp_writer_add(struct sqp_writer *w, const struct sqp_entry *e,
		   const struct sqp_data_source *data)
{
	struct fs_irec *ino;
	struct fs_inode file;
	struct fs_attr attr;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (w->finished)
		return writer_fail(w, SQP_ERR_SEQUENCE, "entry added after finish");
	if (e->path == NULL)
		return writer_fail(w, SQP_ERR_ARG, "entry without a path");
	if (e->is_hardlink)
		return fstree_link(&w->tree, e->path, e->link_target ? e->link_target : "");

	ret = convert_attrs(w, e, &attr);
	if (ret == 0)
		ret = fstree_add(&w->tree, e->path, &attr, &ino);
	if (ret != 0)
		return w->err.code ? w->err.code : writer_fail(w, ret, "'%s': %s",
							      e->path, sqp_strerror(ret));
	if (!S_ISREG(e->mode))
		return fill_special(w, e, ino);

	if (e->size > 0 && (data == NULL || data->read == NULL))
		return writer_fail(w, SQP_ERR_ARG, "'%s': no data source", e->path);
	/* The pipe fills in the full record; the tree keeps it packed. */
	memset(&file, 0, sizeof(file));
	ret = datapipe_add_file(&w->pipe, &file, e->size, data);
	if (fstree_file_set(&w->tree, ino, &file) != 0 && ret == 0)
		ret = w->err.code;
	if (ret != 0 && w->err.code == 0)
		writer_fail(w, ret, "'%s': reading the file's data: %s", e->path,
			    sqp_strerror(ret));
	return ret != 0 ? w->err.code : 0;
}
