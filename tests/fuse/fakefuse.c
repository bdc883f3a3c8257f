/* SPDX-License-Identifier: MIT */
/*
 * fakefuse.c - the libfuse functions fs_ops calls, over the struct
 * fuse_req of fakefuse.h: each records its reply in the request after
 * checking it, and abort()s on a reply the kernel would not take.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fakefuse.h"

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fakefuse: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

void fake_req(struct fuse_req *r, void *user, size_t asked)
{
	free(r->buf);
	memset(r, 0, sizeof(*r));
	r->user = user;
	r->asked = asked;
}

void fake_req_free(struct fuse_req *r)
{
	free(r->buf);
	r->buf = NULL;
}

void fake_answered(const struct fuse_req *r, const char *op, ...)
{
	enum fake_kind k;
	int ok = r->kind == FAKE_ERR;
	va_list ap;

	if (r->replies != 1)
		die("%s: %u replies", op, r->replies);
	va_start(ap, op);
	while ((k = (enum fake_kind)va_arg(ap, int)) != FAKE_NONE)
		ok |= k == r->kind;
	va_end(ap);
	if (!ok)
		die("%s: a reply of the wrong kind (%d)", op, (int)r->kind);
}

/* Every reply starts here: one per request. */
static void reply(struct fuse_req *r, enum fake_kind kind)
{
	if (r->replies++ != 0)
		die("a second reply (kind %d after %d)", (int)kind,
		    (int)r->kind);
	r->kind = kind;
}

/* n bytes at p (NULL: to be filled), kept NUL-terminated. */
static void keep(struct fuse_req *r, const void *p, size_t n)
{
	if (n > r->asked)
		die("a reply of %zu bytes to a request of %zu", n, r->asked);
	if ((r->buf = malloc(n + 1)) == NULL)
		die("out of memory");
	if (n > 0 && p != NULL)
		memcpy(r->buf, p, n);
	r->buf[n] = 0;
	r->len = n;
}

void *fuse_req_userdata(fuse_req_t req)
{
	return req->user;
}

int fuse_reply_err(fuse_req_t req, int err)
{
	reply(req, FAKE_ERR);
	if (err < 0 || err >= 4096)
		die("errno %d out of range", err);
	req->err = err;
	return 0;
}

/* An entry the kernel takes (fuse_invalid_attr): a positive one of a
 * known type and a size off_t holds. One naming the root is a loop of
 * a corrupt image, which the kernel meets as it meets any directory in
 * itself (ELOOP). */
static void check_entry(const struct fuse_entry_param *e)
{
	if (e->ino == 0)
		return;         /* negative: no attributes */
	switch (e->attr.st_mode & S_IFMT) {
	case S_IFREG: case S_IFDIR: case S_IFLNK: case S_IFCHR:
	case S_IFBLK: case S_IFIFO: case S_IFSOCK:
		break;
	default:
		die("an entry of mode %o", (unsigned)e->attr.st_mode);
	}
	if (e->attr.st_size < 0)
		die("an entry of size %lld", (long long)e->attr.st_size);
}

int fuse_reply_entry(fuse_req_t req, const struct fuse_entry_param *e)
{
	reply(req, FAKE_ENTRY);
	check_entry(e);
	req->entry = *e;
	return 0;
}

int fuse_reply_attr(fuse_req_t req, const struct stat *attr,
		    double attr_timeout)
{
	reply(req, FAKE_ATTR);
	if (attr_timeout < 0)
		die("a negative attribute timeout");
	req->attr = *attr;
	return 0;
}

int fuse_reply_readlink(fuse_req_t req, const char *link)
{
	reply(req, FAKE_READLINK);
	req->asked = SIZE_MAX;
	keep(req, link, strlen(link) + 1);
	return 0;
}

int fuse_reply_open(fuse_req_t req, const struct fuse_file_info *fi)
{
	reply(req, FAKE_OPEN);
	req->fi = *fi;
	return 0;
}

int fuse_reply_buf(fuse_req_t req, const char *buf, size_t size)
{
	reply(req, FAKE_BUF);
	if (buf == NULL && size > 0)
		die("%zu bytes from NULL", size);
	keep(req, buf, size);
	return 0;
}

int fuse_reply_data(fuse_req_t req, struct fuse_bufvec *bufv,
		    enum fuse_buf_copy_flags flags)
{
	size_t n = 0, at = 0;

	reply(req, FAKE_BUF);
	for (size_t i = bufv->idx; i < bufv->count; i++) {
		size_t skip = i == bufv->idx ? bufv->off : 0;

		if ((bufv->buf[i].flags & FUSE_BUF_IS_FD) &&
		    !(bufv->buf[i].flags & FUSE_BUF_FD_SEEK))
			die("a descriptor buffer without a position");
		if (skip > bufv->buf[i].size)
			die("a buffer offset past its end");
		n += bufv->buf[i].size - skip;
	}
	keep(req, NULL, n);
	for (size_t i = bufv->idx; i < bufv->count; i++) {
		size_t skip = i == bufv->idx ? bufv->off : 0;
		size_t len = bufv->buf[i].size - skip;

		if (len > 0 && (bufv->buf[i].flags & FUSE_BUF_IS_FD)) {
			/* As libfuse would splice or read it: a short read
			 * is a reply the kernel would take for the end. */
			if (pread(bufv->buf[i].fd, req->buf + at, len,
				  bufv->buf[i].pos + (off_t)skip) != (ssize_t)len)
				die("a descriptor buffer past its file's end");
			req->fd_bytes += len;
		} else if (len > 0) {
			memcpy(req->buf + at, (const char *)bufv->buf[i].mem +
			       skip, len);
		}
		at += len;
	}
	(void)flags;
	return 0;
}

int fuse_reply_iov(fuse_req_t req, const struct iovec *iov, int count)
{
	size_t n = 0, at = 0;

	reply(req, FAKE_BUF);
	if (count < 0)
		die("an iovec of %d buffers", count);
	for (int i = 0; i < count; i++) {
		if (iov[i].iov_base == NULL && iov[i].iov_len > 0)
			die("%zu bytes from NULL", iov[i].iov_len);
		n += iov[i].iov_len;
	}
	keep(req, NULL, n);
	for (int i = 0; i < count; i++) {
		if (iov[i].iov_len > 0)
			memcpy(req->buf + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	return 0;
}

int fuse_reply_xattr(fuse_req_t req, size_t count)
{
	reply(req, FAKE_XATTR);
	req->xattr_size = count;
	return 0;
}

int fuse_reply_statfs(fuse_req_t req, const struct statvfs *stbuf)
{
	reply(req, FAKE_STATFS);
	req->sv = *stbuf;
	return 0;
}

int fuse_reply_lseek(fuse_req_t req, off_t off)
{
	reply(req, FAKE_LSEEK);
	if (off < 0)
		die("lseek to %lld", (long long)off);
	req->off = off;
	return 0;
}

/* Our own layout (the kernel's is libfuse's business): a struct
 * fake_dirent and its name, 8-byte aligned; nothing written when it
 * does not fit, its size returned all the same, as libfuse does. */
static size_t add(char *buf, size_t bufsize, const char *name,
		  const struct fuse_entry_param *e, off_t off)
{
	size_t nl = strlen(name);
	size_t n = (offsetof(struct fake_dirent, name) + nl + 1 + 7) & ~(size_t)7;
	struct fake_dirent *d = (struct fake_dirent *)buf;

	/* 1024: the FUSE kernel module's FUSE_NAME_MAX */
	if (nl == 0 || nl > 1024 || strchr(name, '/') != NULL)
		die("an entry named \"%s\"", name);
	if (off <= 0)
		die("an entry with next offset %lld", (long long)off);
	if (n > bufsize)
		return n;
	if ((uintptr_t)buf % 8 != 0)
		die("an entry at an unaligned position");
	memset(d, 0, n);
	d->reclen = n;
	d->off = off;
	d->e = *e;
	memcpy(d->name, name, nl);
	return n;
}

size_t fuse_add_direntry(fuse_req_t req, char *buf, size_t bufsize,
			 const char *name, const struct stat *stbuf, off_t off)
{
	struct fuse_entry_param e = { .ino = stbuf->st_ino };

	(void)req;
	e.attr.st_ino = stbuf->st_ino;
	e.attr.st_mode = stbuf->st_mode;
	return add(buf, bufsize, name, &e, off);
}

size_t fuse_add_direntry_plus(fuse_req_t req, char *buf, size_t bufsize,
			      const char *name,
			      const struct fuse_entry_param *e, off_t off)
{
	(void)req;
	check_entry(e);
	return add(buf, bufsize, name, e, off);
}

const struct fake_dirent *fake_dirent_next(const struct fuse_req *r,
					   size_t *pos)
{
	const struct fake_dirent *d;

	if (r->kind != FAKE_BUF || *pos >= r->len)
		return NULL;
	if (r->len - *pos < sizeof(*d))
		die("a partial entry at %zu of %zu", *pos, r->len);
	d = (const struct fake_dirent *)(r->buf + *pos);
	if (d->reclen < sizeof(*d) || d->reclen > r->len - *pos)
		die("an entry of %zu bytes at %zu of %zu", d->reclen, *pos,
		    r->len);
	*pos += d->reclen;
	return d;
}
