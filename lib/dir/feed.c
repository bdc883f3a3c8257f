/* SPDX-License-Identifier: MIT */
/*
 * feed.c - entries into the writer, in feed order, with their data.
 *
 * Regular files come from the reader slots: small ones from memory, large
 * ones streamed here from the open descriptor, holes found with SEEK_DATA
 * and never read. Whether a file changed while it was read is decided by
 * the bytes actually read and by fstat before and after; by default a
 * change fails the feed naming the file, with SQP_DIRSCAN_CHANGE_WARN it
 * is stored as read: the size it had when opened, missing bytes as zeros.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "dir/dir_impl.h"
#include "sqpack/writer.h"

struct file_src {
	struct rslot *sl;
	uint64_t pos;
	int short_read;       /* the file ended before its size */
	int io_err;           /* errno of a failed read */
};

static int mem_read(void *user, void *buf, size_t n)
{
	struct file_src *f = user;

	memcpy(buf, f->sl->buf + f->pos, n);
	f->pos += n;
	return 0;
}

static int fd_read(void *user, void *buf, size_t n)
{
	struct file_src *f = user;
	uint8_t *p = buf;
	ssize_t got;

	while (n > 0 && !f->short_read) {
		got = pread(f->sl->fd, p, n, (off_t)f->pos);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			f->io_err = errno;
			return SQP_ERR_IO;
		}
		if (got == 0) {
			f->short_read = 1;
			break;
		}
		p += got;
		f->pos += (uint64_t)got;
		n -= (size_t)got;
	}
	if (n > 0) {              /* shrunk: zeros, unless that is an error */
		memset(p, 0, n);
		f->pos += n;
	}
	return 0;
}

static uint64_t fd_hole(void *user)
{
	struct file_src *f = user;
	off_t data = lseek(f->sl->fd, (off_t)f->pos, SEEK_DATA);
	uint64_t end = f->sl->size;

	if (data < 0)             /* ENXIO: only a hole until the end */
		return errno == ENXIO ? end - f->pos : 0;
	return (uint64_t)data > end ? end - f->pos : (uint64_t)data - f->pos;
}

static int fd_skip(void *user, uint64_t n)
{
	struct file_src *f = user;

	f->pos += n;
	return 0;
}

/* A file gone or unreadable at open: fail, or leave it out with a warning
 * (then 1: feed_all remembers it, so its hard links are left out too). */
static int open_failed(struct sqp_dirscan *s, const char *path, int err)
{
	int vanished = err == ENOENT;
	int skip = vanished ? (s->desc.flags & SQP_DIRSCAN_CHANGE_WARN)
		: (err == EACCES || err == EPERM) && (s->desc.flags & SQP_DIRSCAN_SKIP_UNREADABLE);

	if (skip) {
		dir_warn(s, "'%s': %s; left out", path,
			 vanished ? "vanished while the tree was packed" : strerror(err));
		return 1;
	}
	return dir_fail(s, sqp_errno_code(err), "'%s': %s", path,
			vanished ? "vanished while the tree was packed" : strerror(err));
}

/* Entries left out with a warning are rare: a short list, searched only
 * for hard links. */
static int remember_left_out(struct sqp_dirscan *s, uint32_t node)
{
	int ret = dir_grow(s, (void **)&s->left_out, &s->left_out_cap,
			   s->left_out_count + 1, sizeof(*s->left_out));

	if (ret == 0)
		s->left_out[s->left_out_count++] = node;
	return ret;
}

static int was_left_out(const struct sqp_dirscan *s, uint32_t node)
{
	size_t i;

	for (i = 0; i < s->left_out_count; i++)
		if (s->left_out[i] == node)
			return 1;
	return 0;
}

static int changed(struct sqp_dirscan *s, const char *path)
{
	if (s->desc.flags & SQP_DIRSCAN_CHANGE_WARN) {
		dir_warn(s, "'%s': changed while it was read; stored as read", path);
		return 0;
	}
	return dir_fail(s, SQP_ERR_IO, "'%s': changed while it was read "
			"(--on-change=warn stores it as read)", path);
}

static void fill_attrs(struct sqp_entry *e, const struct stat *st)
{
	e->mode = st->st_mode;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->mtime = st->st_mtim.tv_sec;
	e->mtime_nsec = (uint32_t)st->st_mtim.tv_nsec;
}

static int feed_file(struct sqp_dirscan *s, struct sqp_writer *w, const char *path,
		     struct rslot *sl)
{
	struct sqp_entry e = { .struct_size = sizeof(e), .path = path };
	struct file_src f = { .sl = sl };
	struct sqp_data_source src = { .user = &f };
	struct stat after;
	int ret;

	if (sl->err != 0)
		return open_failed(s, path, sl->err);
	if (sl->changed && (ret = changed(s, path)) != 0)
		return ret;
	fill_attrs(&e, &sl->st);
	e.size = sl->size;
	e.xattrs = sl->xa.list;
	e.xattr_count = sl->xa.count;
	src.read = sl->buf ? mem_read : fd_read;
	if (sl->buf == NULL && sl->sparse) {
		src.hole = fd_hole;
		src.skip = fd_skip;
	}
	ret = sqp_writer_add(w, &e, &src);
	if (f.io_err != 0)
		return dir_fail(s, sqp_errno_code(f.io_err), "'%s': %s", path, strerror(f.io_err));
	/* Hidden by an upper layer, not left out: a link to it must reach
	 * the writer, which says why one pass cannot keep it. */
	if (ret == SQP_ADD_SHADOWED)
		return 0;
	if (ret != 0)
		return ret;
	if (sl->buf == NULL && (f.short_read || fstat(sl->fd, &after) != 0 ||
				!(after.st_size == sl->st.st_size &&
				  after.st_mtim.tv_sec == sl->st.st_mtim.tv_sec &&
				  after.st_mtim.tv_nsec == sl->st.st_mtim.tv_nsec)))
		return changed(s, path);
	return 0;
}

/* Everything but the data of regular files: attributes read now. */
static int feed_other(struct sqp_dirscan *s, struct sqp_writer *w, const char *path,
		      const struct dnode *n)
{
	const struct droot *r = &s->roots[n->root];
	const char *disk = dnode_disk_path(s, n);
	struct sqp_entry e = { .struct_size = sizeof(e), .path = path };
	struct dxattrs xa = { 0 };
	char target[PATH_MAX + 1], abs[PATH_MAX * 2];
	struct stat st;
	ssize_t len;
	int ret;

	if (n->link != DNODE_NONE) {
		if (was_left_out(s, n->link)) {
			dir_warn(s, "'%s': hard link to '%s', which was left out; left out",
				 path, dnode_path(s, &s->nodes[n->link]));
			return 1;
		}
		e.mode = n->mode;
		e.is_hardlink = 1;
		e.link_target = dnode_path(s, &s->nodes[n->link]);
		return sqp_writer_add(w, &e, NULL);
	}
	if (fstatat(r->fd, disk, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return open_failed(s, path, errno);
	if ((st.st_mode & S_IFMT) != (n->mode & S_IFMT))
		return changed(s, path);   /* replaced by another type */
	fill_attrs(&e, &st);
	if (S_ISLNK(st.st_mode)) {
		len = readlinkat(r->fd, disk, target, sizeof(target));
		if (len < 0 || (size_t)len >= sizeof(target))
			return open_failed(s, path, len < 0 ? errno : ENAMETOOLONG);
		target[len] = '\0';
		e.link_target = target;
	} else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
		e.dev_major = major(st.st_rdev);
		e.dev_minor = minor(st.st_rdev);
	}
	if (!(s->desc.flags & SQP_DIRSCAN_NO_XATTRS)) {
		snprintf(abs, sizeof(abs), "%s/%s", r->abs, disk);
		ret = dir_read_xattrs(-1, abs, &xa);
		if (ret != 0 && ret != ENOENT) {
			dir_free_xattrs(&xa);
			return dir_fail(s, sqp_errno_code(ret), "'%s': reading xattrs: %s", path,
					strerror(ret));
		}
		e.xattrs = xa.list;
		e.xattr_count = xa.count;
	}
	ret = sqp_writer_add(w, &e, NULL);
	dir_free_xattrs(&xa);
	return ret;
}

static int feed_all(struct sqp_dirscan *s, struct sqp_writer *w)
{
	size_t k, file_no = 0;
	struct rslot *sl;
	int ret = 0;

	for (k = 0; ret == 0 && k < s->order_count; k++) {
		const struct dnode *n = &s->nodes[s->order[k]];
		const char *path = dnode_path(s, n);

		if (S_ISREG(n->mode) && n->link == DNODE_NONE) {
			sl = readers_take(s, file_no++);
			ret = feed_file(s, w, path, sl);
			readers_release(s, sl);
		} else {
			ret = feed_other(s, w, path, n);
		}
		if (ret == 1) {
			ret = remember_left_out(s, s->order[k]);
			continue;
		}
		if (ret == 0 && s->desc.on_entry != NULL)
			s->desc.on_entry(s->desc.on_entry_user, path);
	}
	return ret;
}

int sqp_dirscan_feed(struct sqp_dirscan *s, struct sqp_writer *w)
{
	int ret;

	if (s->err.code != 0)
		return s->err.code;
	ret = readers_start(s);
	if (ret == 0)
		ret = feed_all(s, w);
	readers_stop(s);
	/* The writer's fault: its message here too, so that the caller
	 * reads the object it called (doc/contributing.md). */
	if (ret != 0 && s->err.code == 0)
		ret = sqp_err_wrap(&s->err, ret, sqp_writer_error(w), "the image: ");
	return ret;
}
