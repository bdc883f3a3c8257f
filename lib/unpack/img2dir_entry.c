/* SPDX-License-Identifier: MIT */
/*
 * img2dir_entry.c - making one entry of an extraction and setting its
 * attributes, for img2dir.c, which decides when (the walk's order, the
 * block reader's start() and end()). Kept apart because this is where
 * the system says no, and where each refusal is sorted: an error that
 * ends the extraction, or one the caller's flags make a warning (an
 * owner or xattr the system refuses, a device without privilege; with
 * IGNORE_WRITES a file that cannot be created). With LENIENT the sorting
 * is unsquashfs 4.5.1's, entry type by entry type, so that
 * sqpack-unsquashfs exits as it does and counts what it counts.
 *
 * Invariant: every entry is made by one name relative to a directory
 * descriptor (dirfs.c), and its parent is the one img2dir.c keeps at
 * the depth above it, or base (below the target, made here) for a
 * subtree's root; nothing outside the target is reached.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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
	pthread_mutex_destroy(&e->lock);
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

/* A refusal told through the image's warn function. */
static void tell(struct todir *t, struct dent *e, const char *what, int neg)
{
	char msg[SQP_ERRMSG_MAX];

	if (t->img->warn == NULL)
		return;
	snprintf(msg, sizeof(msg), "'%s': %s: %s", e->path, what,
		 strerror(-neg));
	t->img->warn(t->img->warn_user, msg);
}

int i2d_warn(struct todir *t, struct dent *e, const char *what, int neg)
{
	if (t->flags & SQP_IMG2DIR_STRICT)
		return i2d_failed(t, e, what, neg);
	tell(t, e, what, neg);
	return 0;
}

/* An attribute the system refused: a warning when soft (the error is
 * one the flags let pass; then 1), else an error. */
static int refused(struct todir *t, struct dent *e, const char *what,
		   int neg, int soft)
{
	int r = soft ? i2d_warn(t, e, what, neg) : i2d_failed(t, e, what, neg);

	return r != 0 ? r : 1;
}

/* One xattr, set or refused. Without LENIENT, a file system or user
 * that may not hold it (EPERM, ENOTSUP, EACCES) is a warning. LENIENT
 * sorts as unsquashfs 4.5.1 does: without owners (not root) only user.*
 * is tried, the first other one warned about and the rest passed over
 * in silence; a file system without xattrs (ENOTSUP) is warned about
 * once and no xattr set after it; any other refusal (a user.* xattr on
 * a symlink: EPERM) is an error unless IGNORE_WRITES. 0, 1 (refused,
 * warned) or an error. */
static int set_xattr(struct todir *t, struct dent *e, int fd, int parent,
		     const struct sqp_xattr *x)
{
	int lenient = !!(t->flags & SQP_IMG2DIR_LENIENT), r;

	if (lenient && t->xattrs_off)
		return 0;
	if (lenient && (t->flags & SQP_IMG2DIR_NO_OWNER) &&
	    strncmp(x->key, "user.", 5) != 0) {
		if (t->nonuser_told)
			return 0;
		t->nonuser_told = 1;
		return refused(t, e, x->key, -EPERM, 1);
	}
	if ((r = dirfs_xattr(fd, parent, e->name, x)) == 0)
		return 0;
	if (!lenient)
		return refused(t, e, x->key, r, r == -EPERM || r == -ENOTSUP ||
			       r == -EACCES || (t->flags & SQP_IMG2DIR_IGNORE_WRITES));
	if (r == -ENOTSUP)
		t->xattrs_off = 1;
	return refused(t, e, x->key, r, r == -ENOTSUP ||
		       (t->flags & SQP_IMG2DIR_IGNORE_WRITES));
}

void i2d_learn_start(struct todir *t)
{
	t->uid = geteuid();
	t->gid = getegid();
	t->known = dirfs_umask(&t->umask) == 0;
	i2d_learn(t, t->root);
}

void i2d_learn(struct todir *t, int dirfd)
{
	if (t->known && dirfs_passes_on(dirfd))
		t->known = 0;
}

/* The mode e is to get: without owners, set-id bits would name whoever
 * extracts; dropped. */
static uint32_t mode_of(const struct todir *t, const struct dent *e)
{
	return t->flags & SQP_IMG2DIR_NO_OWNER ? e->mode & ~06000u : e->mode;
}

/* Whether e's owner must be set: a fresh entry has it already when it
 * is the process's. */
static int owner_needed(const struct todir *t, const struct dent *e)
{
	return !(t->flags & SQP_IMG2DIR_NO_OWNER) &&
	       !(e->fresh && e->uid == t->uid && e->gid == t->gid);
}

/* Whether mode, asked for at creation, is what the entry gets: no bit
 * the umask takes away or creating cannot give. */
static int umask_keeps(const struct todir *t, uint32_t mode)
{
	return (mode & 07777) == (mode & 0777 & ~(uint32_t)t->umask);
}

/* Whether the directory e is made with its final mode: one the umask
 * keeps whole and that lets its owner fill it (a read-only one is made
 * 0700 and gets its mode once its children are in). That saves each
 * directory a chmod on the one thread that makes them. */
static int dir_final_mode(const struct todir *t, const struct dent *e)
{
	uint32_t mode = mode_of(t, e);

	return umask_keeps(t, mode) && (mode & 0700) == 0700;
}

/* Whether mode must be set on e: a fresh file, or a directory made with
 * its final mode, has it already (i2d_create and make() ask for it). */
static int mode_needed(const struct todir *t, const struct dent *e,
		       uint32_t mode)
{
	return e->kind != D_SYMLINK &&
	       !(e->fresh && e->kind == D_FILE && umask_keeps(t, mode)) &&
	       !(e->fresh && e->kind == D_LEAVE && dir_final_mode(t, e));
}

int i2d_finish_quiet(const struct todir *t, struct dent *e)
{
	uint32_t mode = mode_of(t, e);

	if (e->xattrs.count != 0 ||
	    (owner_needed(t, e) &&
	     dirfs_owner(e->fd, -1, e->name, e->uid, e->gid) != 0) ||
	    (mode_needed(t, e, mode) &&
	     dirfs_mode(e->fd, -1, e->name, mode) != 0) ||
	    dirfs_mtime(e->fd, -1, e->name, e->mtime, e->mtime_nsec) != 0)
		return 0;
	e->close_err = close(e->fd) == 0 ? 0 : -errno;
	e->fd = -1;
	e->finished = 1;
	return 1;
}

/* Owner, mode, xattrs, then times (each later step would change the
 * one before: chown clears set-id bits, writes touch mtime). Returns 1
 * when something was refused and only warned about - but a symlink's
 * times, which unsquashfs 4.5.1 still counts as made. */
int i2d_apply(struct todir *t, struct dent *e, int fd, int parent)
{
	int lenient = !!(t->flags & SQP_IMG2DIR_LENIENT), r = 0, warned = 0;
	uint32_t mode = mode_of(t, e);

	if (owner_needed(t, e) &&
	    (r = dirfs_owner(fd, parent, e->name, e->uid, e->gid)) != 0 &&
	    (r = refused(t, e, "setting the owner", r,
			 r == -EPERM || lenient)) < 0)
		return r;
	warned = r;
	if (mode_needed(t, e, mode) &&
	    (r = dirfs_mode(fd, parent, e->name, mode)) != 0) {
		if ((r = refused(t, e, "setting the mode", r, lenient)) < 0)
			return r;
		warned = 1;
	}
	for (size_t i = 0; i < e->xattrs.count; i++) {
		if ((t->flags & SQP_IMG2DIR_USER_XATTRS) &&
		    strncmp(e->xattrs.items[i].key, "user.", 5) != 0)
			continue;
		if (t->xattr_keep != NULL &&
		    !t->xattr_keep(t->xattr_user, e->xattrs.items[i].key))
			continue;
		if ((r = set_xattr(t, e, fd, parent, &e->xattrs.items[i])) < 0)
			return r;
		warned |= r;
	}
	if ((r = dirfs_mtime(fd, parent, e->name, e->mtime,
			     e->mtime_nsec)) != 0 &&
	    (r = refused(t, e, "setting the times", r, lenient)) < 0)
		return r;
	return warned || (r == 1 && e->kind != D_SYMLINK);
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
		i2d_learn(t, t->base);
	}
	*out = t->base;
	return 0;
}

/* Told to the caller as not made (a hard link with mode 0: it is no
 * inode of its own), so it does not count it. */
static void uncounted(struct todir *t, struct dent *e)
{
	if (t->desc->skipped != NULL)
		t->desc->skipped(t->desc->cb_user, e->path,
				 e->kind == D_HARDLINK ? 0 : e->mode);
}

/* An entry not made: warned about, and told to the caller. */
static int skip(struct todir *t, struct dent *e, const char *what, int neg)
{
	int r = i2d_warn(t, e, what, neg);

	if (r == 0)
		uncounted(t, e);
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
 * where the flags let it pass (LENIENT; a device without privilege).
 * LENIENT goes on as unsquashfs 4.5.1: a fifo or socket not made is a
 * warning even with STRICT, and a symlink or node whose attributes
 * were refused is not counted as made. */
static int node_made(struct todir *t, struct dent *e, int parent,
		     const char *what, int neg)
{
	int lenient = !!(t->flags & SQP_IMG2DIR_LENIENT), r;

	if (neg == 0) {
		if ((r = i2d_apply(t, e, -1, parent)) == 1 && lenient)
			uncounted(t, e);
		return r < 0 ? r : 0;
	}
	if (lenient && (S_ISFIFO(e->mode) || S_ISSOCK(e->mode))) {
		tell(t, e, what, neg);
		uncounted(t, e);
		return 0;
	}
	if (lenient || (neg == -EPERM && (S_ISCHR(e->mode) || S_ISBLK(e->mode))))
		return skip(t, e, what, neg);
	return i2d_failed(t, e, what, neg);
}

int i2d_open_lazy(const struct todir *t, struct dent *e)
{
	if (!atomic_load_explicit(&e->opened, memory_order_acquire)) {
		pthread_mutex_lock(&e->lock);
		if (!atomic_load_explicit(&e->opened, memory_order_relaxed)) {
			e->fd = i2d_create(t, e, e->parent);
			atomic_store_explicit(&e->opened, 1, memory_order_release);
		}
		pthread_mutex_unlock(&e->lock);
	}
	return e->fd < 0 ? e->fd : 0;
}

int i2d_create(const struct todir *t, struct dent *e, int parent)
{
	mode_t perm = e->mode & 0777;
	int fd = dirfs_create(parent, e->name, t->flags & SQP_IMG2DIR_FORCE,
			      perm);
	struct stat st;

	if (fd == -EEXIST && (t->flags & SQP_IMG2DIR_LENIENT) &&
	    fstatat(parent, e->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode))
		fd = dirfs_create(parent, e->name, 1, perm);
	e->fresh = fd >= 0 && e->known;
	return fd;
}

int i2d_drop_file(struct todir *t, struct dent *e)
{
	size_t dir_len = (size_t)(e->name - e->path);
	int r = i2d_warn(t, e, "writing", atomic_load(&e->werr)), dir;

	if (r != 0)
		return r;
	dir = dirfs_open_dirs(t->root, e->path, dir_len > 0 ? dir_len - 1 : 0);
	if (dir < 0)
		return i2d_failed(t, e, "removing the incomplete file", dir);
	if (unlinkat(dir, e->name, 0) != 0)
		r = i2d_failed(t, e, "removing the incomplete file", -errno);
	close(dir);
	return r;
}

/* Make e in parent: a directory (entered: its fd on the stack), a file
 * (its fd in e), or a link or node, finished here. LENIENT without
 * FORCE refuses a directory that is there already, as unsquashfs 4.5.1
 * does below DEST; otherwise it is merged. */
static int make(struct todir *t, struct dent *e, int parent)
{
	int force = t->flags & SQP_IMG2DIR_FORCE, made = 0, r;
	int lenient_made = 0;
	/* Its final mode only when it will count as fresh (known): the
	 * leave entry then sets no mode (mode_needed). */
	mode_t perm = t->known && dir_final_mode(t, e) ? mode_of(t, e) & 0777 :
		      0700;

	switch (e->kind) {
	case D_ENTER:
		if ((t->flags & SQP_IMG2DIR_LENIENT) && !force) {
			if (mkdirat(parent, e->name, perm) != 0)
				return mkdir_failed(t, e, -errno);
			lenient_made = 1;
		}
		r = t->fds[e->depth] = dirfs_mkdir(parent, e->name, force, perm,
						   &made);
		if (r < 0)
			return mkdir_failed(t, e, r);
		/* One that was there may pass on a group or an ACL. */
		t->made[e->depth] = (made || lenient_made) && t->known;
		if (!made && !lenient_made)
			i2d_learn(t, r);
		return 0;
	case D_FILE:
		e->fd = i2d_create(t, e, parent);
		return e->fd < 0 ? i2d_create_failed(t, e) : 0;
	case D_HARDLINK:
		return i2d_hard_link(t, e, parent);
	case D_SYMLINK:
		r = dirfs_symlink(parent, e->name, e->target, force);
		e->fresh = r == 0 && t->known;
		return node_made(t, e, parent, "making the symlink", r);
	default:
		r = dirfs_mknod(parent, e->name, e->mode, e->rdev, force);
		e->fresh = r == 0 && t->known;
		return node_made(t, e, parent, "making the node", r);
	}
}

/* A subtree root's parent (base) is needed for it alone. */
int i2d_make_entry(struct todir *t, struct dent *e)
{
	int parent = -1, r;

	if (e->path[0] == '\0') {
		/* The image root is the target itself (not fresh). */
		t->made[0] = 0;
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
