/* SPDX-License-Identifier: MIT */
/*
 * img2dir_entry.c - making one entry of an extraction and setting its
 * attributes, for img2dir.c, which decides when (the walk's order, the
 * block reader's start() and end()). Kept apart because this is where
 * the system says no, and where each refusal is sorted: an error that
 * ends the extraction, or one the caller's flags make a warning (an
 * owner or xattr the system refuses, a device without privilege; with
 * IGNORE_WRITES a file that cannot be created).
 *
 * Invariant: every entry is made by one name relative to a directory
 * descriptor (dirfs.c), and its parent is the one img2dir.c keeps at
 * the depth above it, or base (below the target, made here) for a
 * subtree's root; nothing outside the target is reached.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "unpack/dirfs.h"
#include "unpack/img2dir_entry.h"
#include "util/errbuf.h"

void i2d_dent_free(struct dent *e)
{
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	free(e->target);
	rd_xattrs_free(&e->xattrs);
	free(e);
}

int i2d_failed(struct todir *t, struct dent *e, const char *what, int neg)
{
	if (neg == -EEXIST)
		return rd_err(t->img, SQP_ERR_EXISTS, "'%s': already exists (not "
			      "replaced without -f)", e->path);
	return rd_err(t->img, sqp_errno_code(-neg), "'%s': %s: %s", e->path,
		      what, strerror(-neg));
}

int i2d_warn(struct todir *t, struct dent *e, const char *what, int neg)
{
	char msg[SQP_ERRMSG_MAX];

	if (t->flags & SQP_IMG2DIR_STRICT)
		return i2d_failed(t, e, what, neg);
	if (t->img->warn == NULL)
		return 0;
	snprintf(msg, sizeof(msg), "'%s': %s: %s", e->path, what,
		 strerror(-neg));
	t->img->warn(t->img->warn_user, msg);
	return 0;
}

/* An attribute the system refused: a warning when soft (the error is
 * one the flags let pass), else an error. */
static int refused(struct todir *t, struct dent *e, const char *what,
		   int neg, int soft)
{
	return soft ? i2d_warn(t, e, what, neg) : i2d_failed(t, e, what, neg);
}

/* Owner, mode, xattrs, then times (each later step would change the
 * one before: chown clears set-id bits, writes touch mtime). Without
 * owners, set-id bits would name whoever extracts: dropped. */
int i2d_apply(struct todir *t, struct dent *e, int fd, int parent)
{
	int lenient = !!(t->flags & SQP_IMG2DIR_LENIENT), r;
	uint32_t mode = t->flags & SQP_IMG2DIR_NO_OWNER ? e->mode & ~06000u :
			e->mode;

	if (!(t->flags & SQP_IMG2DIR_NO_OWNER) &&
	    (r = dirfs_owner(fd, parent, e->name, e->uid, e->gid)) != 0 &&
	    (r = refused(t, e, "setting the owner", r,
			 r == -EPERM || lenient)) != 0)
		return r;
	if (e->kind != D_SYMLINK &&
	    (r = dirfs_mode(fd, parent, e->name, mode)) != 0 &&
	    (r = refused(t, e, "setting the mode", r, lenient)) != 0)
		return r;
	for (size_t i = 0; i < e->xattrs.count; i++) {
		if ((t->flags & SQP_IMG2DIR_USER_XATTRS) &&
		    strncmp(e->xattrs.items[i].key, "user.", 5) != 0)
			continue;
		if (t->xattr_keep != NULL &&
		    !t->xattr_keep(t->xattr_user, e->xattrs.items[i].key))
			continue;
		r = dirfs_xattr(fd, parent, e->name, &e->xattrs.items[i]);
		if (r != 0 && (r = refused(t, e, e->xattrs.items[i].key, r,
			r == -EPERM || r == -ENOTSUP || r == -EACCES ||
			(t->flags & SQP_IMG2DIR_IGNORE_WRITES))) != 0)
			return r;
	}
	if ((r = dirfs_mtime(fd, parent, e->name, e->mtime)) != 0 &&
	    (r = refused(t, e, "setting the times", r, lenient)) != 0)
		return r;
	return 0;
}

/* The directory holding e: base at depth 0 (opened here, below the
 * target, making what is missing), else the directory one level up. */
static int parent_of(struct todir *t, struct dent *e, int *out)
{
	size_t dir_len = (size_t)(e->name - e->path);

	if (e->depth > 0) {
		*out = t->fds[e->depth - 1];
		return 0;
	}
	if (t->base < 0) {
		char *dir = strndup(e->path, dir_len > 0 ? dir_len - 1 : 0);

		if (dir == NULL)
			return rd_err(t->img, SQP_ERR_NOMEM, "out of memory");
		t->base = dirfs_mkdirs(t->root, dir);
		free(dir);
		if (t->base < 0)
			return i2d_failed(t, e, "making its parents", t->base);
	}
	*out = t->base;
	return 0;
}

/* An entry not made: warned about, and told to the caller (a hard
 * link with mode 0: it is no inode of its own). */
static int skip(struct todir *t, struct dent *e, const char *what, int neg)
{
	int r = i2d_warn(t, e, what, neg);

	if (r == 0 && t->desc->skipped != NULL)
		t->desc->skipped(t->desc->cb_user, e->path,
				 e->kind == D_HARDLINK ? 0 : e->mode);
	return r;
}

int i2d_hard_link(struct todir *t, struct dent *e, int parent)
{
	const char *slash = strrchr(e->target, '/');
	size_t dir_len = slash ? (size_t)(slash - e->target) : 0;
	int from = dirfs_open_dirs(t->root, e->target, dir_len), r = from;

	if (from >= 0) {
		r = dirfs_link(from, slash ? slash + 1 : e->target, parent,
			       e->name, t->flags & SQP_IMG2DIR_FORCE);
		close(from);
	}
	if (r >= 0)
		return 0;
	return t->flags & SQP_IMG2DIR_IGNORE_WRITES ? skip(t, e, "linking", r) :
		i2d_failed(t, e, "linking", r);
}

int i2d_create_failed(struct todir *t, struct dent *e)
{
	int neg = e->fd;

	e->fd = -1;
	if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
		return i2d_failed(t, e, "creating", neg);
	atomic_store(&e->werr, neg);
	return skip(t, e, "creating", neg);
}

/* A directory not made: an error, or with IGNORE_WRITES a warning,
 * and img2dir.c skips what it holds. */
static int mkdir_failed(struct todir *t, struct dent *e, int neg)
{
	if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
		return i2d_failed(t, e, "making the directory", neg);
	t->skip_depth = e->depth + 1;
	return skip(t, e, "making the directory", neg);
}

/* A symlink or node made (neg 0) or not: then an error, or a warning
 * where the flags let it pass (LENIENT; a device without privilege). */
static int node_made(struct todir *t, struct dent *e, int parent,
		     const char *what, int neg)
{
	if (neg == 0)
		return i2d_apply(t, e, -1, parent);
	if ((t->flags & SQP_IMG2DIR_LENIENT) || (neg == -EPERM &&
	    (S_ISCHR(e->mode) || S_ISBLK(e->mode))))
		return skip(t, e, what, neg);
	return i2d_failed(t, e, what, neg);
}

/* Make e in parent: a directory (entered: its fd on the stack), a file
 * (its fd in e), or a link or node, finished here. */
static int make(struct todir *t, struct dent *e, int parent)
{
	int force = t->flags & SQP_IMG2DIR_FORCE, r;

	switch (e->kind) {
	case D_ENTER:
		t->fds[e->depth] = dirfs_mkdir(parent, e->name, force);
		return t->fds[e->depth] < 0 ?
			mkdir_failed(t, e, t->fds[e->depth]) : 0;
	case D_FILE:
		e->fd = dirfs_create(parent, e->name, force);
		return e->fd < 0 ? i2d_create_failed(t, e) : 0;
	case D_HARDLINK:
		return i2d_hard_link(t, e, parent);
	case D_SYMLINK:
		r = dirfs_symlink(parent, e->name, e->target, force);
		return node_made(t, e, parent, "making the symlink", r);
	default:
		r = dirfs_mknod(parent, e->name, e->mode, e->rdev, force);
		return node_made(t, e, parent, "making the node", r);
	}
}

/* A subtree root's parent (base) is needed for it alone. */
int i2d_make_entry(struct todir *t, struct dent *e)
{
	int parent = -1, r;

	if (e->path[0] == '\0') {
		/* The image root is the target itself. */
		t->fds[0] = dup(t->root);
		return t->fds[0] < 0 ? i2d_failed(t, e, "dup", -errno) : 0;
	}
	if ((r = parent_of(t, e, &parent)) != 0)
		return r;
	r = make(t, e, parent);
	if (e->depth == 0 && t->base >= 0) {
		close(t->base);
		t->base = -1;
	}
	return r;
}
