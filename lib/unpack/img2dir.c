/* SPDX-License-Identifier: MIT */
/*
 * img2dir.c - sqp_image_to_dir(): the walk (walk.c) describes entries
 * and each is made at once, on this thread, in walk order, through
 * dirfs.c; the ordered block reader (read/blockrd.h) decompresses file
 * data on the pool, and the worker that decompressed a block writes it
 * into its file (pwrite: blocks may land in any order). What must come
 * after the data - a file's size, owner, mode, xattrs and times, and a
 * directory's after all its children - is done in the reader's end(),
 * strictly in walk order.
 *
 * Invariant: fds[d] is the open directory at depth d of the entry being
 * made (fds[0]: the subtree root, or the target itself for the image
 * root), base the directory holding a subtree root. Every entry is made
 * by one name relative to one of them, so nothing outside the target is
 * reached. A directory is made (mode 0700) when the walk meets it; its
 * descriptor passes to its leave entry, which sets its attributes after
 * its children, so a read-only directory is filled first and its mtime
 * is final. A file without data blocks and a hard link are made later,
 * in the reader's start() (in walk order, so a link's target exists),
 * through that same descriptor, which stays open until the leave entry
 * ends; so they hold no descriptor while they wait. Open descriptors:
 * the depth stack plus at most one per entry the reader holds, which
 * max_entries() keeps to a quarter of the limit.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "read/blockrd.h"
#include "sqpack/error.h"
#include "sqpack/img2dir.h"
#include "unpack/dirfs.h"
#include "unpack/walk.h"
#include "util/abi.h"
#include "util/errbuf.h"

/* Entries the reader holds, at least and at most: each may hold a
 * descriptor (see max_entries()). */
#define MIN_ENTRIES 256
#define MAX_ENTRIES 4096

enum { D_ENTER, D_LEAVE, D_FILE, D_HARDLINK, D_SYMLINK, D_NODE };

struct dent {
	struct rd_bentry be;     /* first: the reader hands this back */
	int kind;
	char *path;              /* owned; be.name points here */
	const char *name;        /* the last component, in path */
	unsigned depth;
	uint32_t mode, uid, gid;
	int64_t mtime;
	uint64_t size;           /* files */
	int hole;                /* a hole was skipped: extend at the end */
	dev_t rdev;
	char *target;            /* owned: symlink target, hard link source */
	struct rd_xattrs xattrs; /* owned */
	int fd;                  /* a file being written, a directory being
				    left, or -1 */
	/* IGNORE_WRITES: the first write error (-errno), set by whichever
	 * thread wrote; a file that could not be created has fd -1 and
	 * -errno here from the start, so its blocks are dropped. */
	atomic_int werr;
	int parent;              /* made in start(): its directory (open
				    until its leave entry ends), else -1 */
};

struct todir {
	struct sqp_image *img;
	struct rd_blockrd *br;
	int root;
	unsigned flags;
	int base;
	int (*xattr_keep)(void *user, const char *key);
	void *xattr_user;
	const struct sqp_img2dir_desc *desc;  /* its callbacks */
	int fds[UNP_DEPTH_MAX + 1];
};

static void dent_free(struct dent *e)
{
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	free(e->target);
	rd_xattrs_free(&e->xattrs);
	free(e);
}

static int sys_failed(struct todir *t, struct dent *e, const char *what,
		      int neg)
{
	if (neg == -EEXIST)
		return rd_err(t->img, SQP_ERR_EXISTS, "'%s': already exists (not "
			      "replaced without -f)", e->path);
	return rd_err(t->img, sqp_errno_code(-neg), "'%s': %s: %s", e->path,
		      what, strerror(-neg));
}

/* A refusal that is not fatal: a warning, or with STRICT an error. */
static int warn(struct todir *t, struct dent *e, const char *what, int neg)
{
	char msg[SQP_ERRMSG_MAX];

	if (t->flags & SQP_IMG2DIR_STRICT)
		return sys_failed(t, e, what, neg);
	if (t->img->warn == NULL)
		return 0;
	snprintf(msg, sizeof(msg), "'%s': %s: %s", e->path, what,
		 strerror(-neg));
	t->img->warn(t->img->warn_user, msg);
	return 0;
}

/* Owner, mode, xattrs, then times (each later step would change the
 * one before: chown clears set-id bits, writes touch mtime). */
static int apply(struct todir *t, struct dent *e, int fd, int parent)
{
	int r;

	if (!(t->flags & SQP_IMG2DIR_NO_OWNER) &&
	    (r = dirfs_owner(fd, parent, e->name, e->uid, e->gid)) != 0) {
		if (r != -EPERM)
			return sys_failed(t, e, "setting the owner", r);
		if ((r = warn(t, e, "setting the owner", r)) != 0)
			return r;
	}
	if (e->kind != D_SYMLINK &&
	    (r = dirfs_mode(fd, parent, e->name, e->mode)) != 0)
		return sys_failed(t, e, "setting the mode", r);
	for (size_t i = 0; i < e->xattrs.count; i++) {
		if ((t->flags & SQP_IMG2DIR_USER_XATTRS) &&
		    strncmp(e->xattrs.items[i].key, "user.", 5) != 0)
			continue;
		if (t->xattr_keep != NULL &&
		    !t->xattr_keep(t->xattr_user, e->xattrs.items[i].key))
			continue;
		r = dirfs_xattr(fd, parent, e->name, &e->xattrs.items[i]);
		if (r == -EPERM || r == -ENOTSUP || r == -EACCES) {
			if ((r = warn(t, e, e->xattrs.items[i].key, r)) != 0)
				return r;
		} else if (r != 0) {
			return sys_failed(t, e, e->xattrs.items[i].key, r);
		}
	}
	if ((r = dirfs_mtime(fd, parent, e->name, e->mtime)) != 0)
		return sys_failed(t, e, "setting the times", r);
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
			return sys_failed(t, e, "making its parents", t->base);
	}
	*out = t->base;
	return 0;
}

/* A hard link to the entry first made at e->target. */
static int hard_link(struct todir *t, struct dent *e, int parent)
{
	const char *slash = strrchr(e->target, '/');
	size_t dir_len = slash ? (size_t)(slash - e->target) : 0;
	int from = dirfs_open_dirs(t->root, e->target, dir_len), r;

	if (from < 0)
		return sys_failed(t, e, "opening its link's directory", from);
	r = dirfs_link(from, slash ? slash + 1 : e->target, parent, e->name,
		       t->flags & SQP_IMG2DIR_FORCE);
	close(from);
	return r != 0 ? sys_failed(t, e, "linking", r) : 0;
}

/* An entry not made: warned about, and told to the caller. */
static int skip(struct todir *t, struct dent *e, const char *what, int neg)
{
	int r = warn(t, e, what, neg);

	if (r == 0 && t->desc->skipped != NULL)
		t->desc->skipped(t->desc->cb_user, e->path, e->mode);
	return r;
}

/* A file that could not be created (e->fd: -errno): an error, or with
 * IGNORE_WRITES a warning, and its data is dropped. */
static int create_failed(struct todir *t, struct dent *e)
{
	int neg = e->fd;

	e->fd = -1;
	if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
		return sys_failed(t, e, "creating", neg);
	atomic_store(&e->werr, neg);
	return skip(t, e, "creating", neg);
}

/* Make e in parent: a directory (entered: its fd on the stack), a file
 * (its fd in e), or a link or node, finished here. */
static int make(struct todir *t, struct dent *e, int parent)
{
	int force = t->flags & SQP_IMG2DIR_FORCE, r;

	switch (e->kind) {
	case D_ENTER:
		t->fds[e->depth] = dirfs_mkdir(parent, e->name, force);
		return t->fds[e->depth] < 0 ? sys_failed(t, e, "making the "
			"directory", t->fds[e->depth]) : 0;
	case D_FILE:
		e->fd = dirfs_create(parent, e->name, force);
		return e->fd < 0 ? create_failed(t, e) : 0;
	case D_HARDLINK:
		return hard_link(t, e, parent);
	case D_SYMLINK:
		r = dirfs_symlink(parent, e->name, e->target, force);
		return r != 0 ? sys_failed(t, e, "making the symlink", r) :
			apply(t, e, -1, parent);
	default:
		r = dirfs_mknod(parent, e->name, e->mode, e->rdev, force);
		if (r == -EPERM && (S_ISCHR(e->mode) || S_ISBLK(e->mode)))
			return skip(t, e, "device node skipped", r);
		return r != 0 ? sys_failed(t, e, "making the node", r) :
			apply(t, e, -1, parent);
	}
}

/* Make e where it belongs; a subtree root's parent (base) is needed
 * for it alone. */
static int make_entry(struct todir *t, struct dent *e)
{
	int parent = -1, r;

	if (e->path[0] == '\0') {
		/* The image root is the target itself. */
		t->fds[0] = dup(t->root);
		return t->fds[0] < 0 ? sys_failed(t, e, "dup", -errno) : 0;
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

/* A file without blocks or a hard link, made now that it is its turn:
 * every entry before it (a link's target) is made. */
static int on_start(void *user, struct rd_bentry *be)
{
	struct todir *t = user;
	struct dent *e = (struct dent *)be;

	if (e->parent < 0)
		return 0;
	if (e->kind == D_HARDLINK)
		return hard_link(t, e, e->parent);
	e->fd = dirfs_create(e->parent, e->name, t->flags & SQP_IMG2DIR_FORCE);
	return e->fd < 0 ? create_failed(t, e) : 0;
}

static int write_at(struct dent *e, uint64_t pos, const uint8_t *data,
		    uint32_t len)
{
	while (len > 0) {
		ssize_t n = pwrite(e->fd, data, len, (off_t)pos);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		data += n;
		len -= (uint32_t)n;
		pos += (uint64_t)n;
	}
	return 0;
}

/* A data block, on the worker that decompressed it. */
static int on_put(void *user, struct rd_bentry *be, uint64_t pos,
		  const uint8_t *data, uint32_t len)
{
	struct todir *t = user;
	struct dent *e = (struct dent *)be;
	int r, none = 0;

	if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
		return write_at(e, pos, data, len);
	/* Not the place to warn (a worker): the file's end() does. */
	if (atomic_load(&e->werr) == 0 && (r = write_at(e, pos, data, len)) != 0)
		atomic_compare_exchange_strong(&e->werr, &none, r);
	return 0;
}

/* A tail or a hole, on this thread. */
static int on_data(void *user, struct rd_bentry *be, uint64_t pos,
		   const uint8_t *data, uint32_t len)
{
	struct dent *e = (struct dent *)be;
	int r;

	/* A hole is not written: the file is extended over it at the end. */
	if (data == NULL) {
		e->hole = 1;
		return 0;
	}
	if (atomic_load(&e->werr) != 0)
		return 0;
	r = write_at(e, pos, data, len);
	if (r != 0 && (((struct todir *)user)->flags & SQP_IMG2DIR_IGNORE_WRITES)) {
		atomic_store(&e->werr, r);
		return 0;
	}
	return r != 0 ? sys_failed(user, e, "writing", r) : 0;
}

static int on_end(void *user, struct rd_bentry *be)
{
	struct todir *t = user;
	struct dent *e = (struct dent *)be;
	int r = 0;

	if (e->kind == D_HARDLINK) {
		dent_free(e);
		return 0;
	}
	if (e->kind == D_FILE && e->hole && atomic_load(&e->werr) == 0 &&
	    ftruncate(e->fd, (off_t)e->size) != 0) {
		if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
			r = sys_failed(t, e, "setting the size", -errno);
		else
			atomic_store(&e->werr, -errno);
	}
	/* An incomplete file (IGNORE_WRITES) is left as it is. */
	if (e->kind == D_FILE && atomic_load(&e->werr) != 0) {
		if (e->fd >= 0)
			r = warn(t, e, "writing", atomic_load(&e->werr));
	} else if (r == 0) {
		r = apply(t, e, e->fd, -1);
	}
	if (e->fd >= 0 && close(e->fd) != 0 && r == 0)
		r = sys_failed(t, e, "closing", -errno);
	e->fd = -1;
	dent_free(e);
	return r;
}

static void on_drop(void *user, struct rd_bentry *be)
{
	(void)user;
	dent_free((struct dent *)be);
}

static const struct rd_blockrd_ops dir_ops = {
	on_start, on_data, on_end, on_drop, NULL, on_put,
};

/* A new entry for node n, with its attributes. */
static int dent_new(struct todir *t, struct unp_node *n, int kind,
		    struct dent **out)
{
	struct rd_inode *ino = n->ino;
	struct dent *e = calloc(1, sizeof(*e));
	int ret = 0;

	*out = e;
	if (e == NULL || (e->path = strdup(n->path)) == NULL) {
		free(e);
		return rd_err(t->img, SQP_ERR_NOMEM, "out of memory");
	}
	atomic_init(&e->werr, 0);
	e->be.name = e->path;
	e->name = e->path + (n->name - n->path);
	e->kind = kind;
	e->depth = n->depth;
	e->fd = e->parent = -1;
	e->mode = ino->mode;
	e->uid = ino->uid;
	e->gid = ino->gid;
	e->mtime = ino->mtime;
	if (kind == D_FILE) {
		e->size = ino->raw.u.file.size;
	} else if (kind == D_SYMLINK) {
		e->target = ino->target;
		ino->target = NULL;
	} else if (kind == D_NODE && (S_ISCHR(e->mode) || S_ISBLK(e->mode))) {
		uint32_t major, minor;

		sqfs_decode_rdev(ino->raw.u.dev.rdev, &major, &minor);
		e->rdev = makedev(major, minor);
	}
	if (kind != D_ENTER && kind != D_HARDLINK &&
	    !(t->flags & SQP_IMG2DIR_NO_XATTRS))
		ret = rd_xattrs_of(t->img, ino, &e->xattrs);
	if (ret != 0) {
		dent_free(e);
		*out = NULL;
	}
	return ret;
}

/* The caller's entered(), with n's attributes. */
static int tell_entered(struct todir *t, struct unp_node *n)
{
	struct sqp_inode_info info = { .struct_size = sizeof(info) };
	int ret = sqp_image_stat(t->img, n->ref, &info);

	return ret != 0 ? ret : t->desc->entered(t->desc->cb_user, n->path,
						 &info);
}

static int on_entry(void *user, struct unp_node *n)
{
	struct todir *t = user;
	uint32_t mode = n->ino->mode;
	int kind = S_ISDIR(mode) ? D_ENTER : n->first_path ? D_HARDLINK :
		   S_ISREG(mode) ? D_FILE : S_ISLNK(mode) ? D_SYMLINK : D_NODE;
	struct dent *e;
	int ret = t->desc->entered != NULL ? tell_entered(t, n) : 0;

	if (ret != 0)
		return ret;
	ret = dent_new(t, n, kind, &e);

	if (ret == 0 && kind == D_HARDLINK &&
	    (e->target = strdup(n->first_path)) == NULL)
		ret = rd_err(t->img, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0 && n->depth > 0 && (kind == D_HARDLINK ||
	    (kind == D_FILE && n->ino->block_count == 0))) {
		/* Made in start(), so that it holds no descriptor while it
		 * waits; its directory stays open until it is done. */
		e->parent = t->fds[n->depth - 1];
		return rd_blockrd_add(t->br, &e->be, kind == D_FILE ?
				      n->ino : NULL);
	}
	/* A subtree's root linked to an entry in the reader: made first. */
	if (ret == 0 && kind == D_HARDLINK)
		ret = rd_blockrd_flush(t->br);
	if (ret == 0)
		ret = make_entry(t, e);
	/* Only a file has more to do, once its data is in. */
	if (ret != 0 || kind != D_FILE) {
		if (e != NULL)
			dent_free(e);
		return ret;
	}
	return rd_blockrd_add(t->br, &e->be, n->ino);
}

static int on_leave(void *user, struct unp_node *n)
{
	struct todir *t = user;
	struct dent *e;
	int ret = dent_new(t, n, D_LEAVE, &e);

	if (ret != 0)
		return ret;
	e->fd = t->fds[n->depth];
	t->fds[n->depth] = -1;
	return rd_blockrd_add(t->br, &e->be, NULL);
}

static const struct unp_walk_ops walk_ops = { on_entry, on_leave };

/* A quarter of the descriptors this process may open, the rest left to
 * the depth stack and the caller. A deep window lets the walk run on
 * through runs of small files while a big file's blocks decompress. */
static unsigned max_entries(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur / 4 < MIN_ENTRIES)
		return MIN_ENTRIES;
	return rl.rlim_cur / 4 > MAX_ENTRIES ? MAX_ENTRIES :
	       (unsigned)(rl.rlim_cur / 4);
}

SQP_API int sqp_image_to_dir(struct sqp_image *img, int dirfd,
			     const struct sqp_img2dir_desc *desc)
{
	struct todir *t;
	struct rd_blockrd_desc bd = { img, 0, &dir_ops, NULL, max_entries() };
	struct unp_walk_desc wd = { img, NULL, 0, &walk_ops, NULL };
	struct sqp_img2dir_desc d;
	int ret;

	if (img == NULL || dirfd < 0 || desc == NULL)
		return SQP_ERR_ARG;
	if (img->err.code != 0)
		return img->err.code;
	if ((ret = sqp_abi_in(&img->err, "sqp_img2dir_desc", &d, sizeof(d),
			      SQP_SIZE_TO(struct sqp_img2dir_desc, xattr_user), desc)) != 0)
		return ret;
	desc = &d; /* the caller's struct only up to its size */
	/* The descriptor stack is large: on the heap. */
	if ((t = malloc(sizeof(*t))) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	*t = (struct todir){ img, NULL, dirfd, desc->flags, -1,
			     desc->xattr_keep, desc->xattr_user, desc, { 0 } };
	for (unsigned i = 0; i <= UNP_DEPTH_MAX; i++)
		t->fds[i] = -1;
	bd.jobs = desc->jobs;
	bd.user = wd.user = t;
	wd.paths = desc->paths;
	wd.path_count = desc->path_count;
	ret = rd_blockrd_create(&bd, &t->br);
	if (ret == 0)
		ret = unp_walk(&wd);
	if (ret == 0)
		ret = rd_blockrd_flush(t->br);
	rd_blockrd_destroy(t->br);
	for (unsigned i = 0; i <= UNP_DEPTH_MAX; i++)
		if (t->fds[i] >= 0)
			close(t->fds[i]);
	if (t->base >= 0)
		close(t->base);
	free(t);
	return ret;
}
