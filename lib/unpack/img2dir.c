/* SPDX-License-Identifier: MIT */
/*
 * img2dir.c - sqp_image_to_dir(): the walk (walk.c) describes entries
 * and each is made, on this thread, in walk order, by img2dir_entry.c
 * (through dirfs.c); the ordered block reader (read/blockrd.h)
 * decompresses file data on the pool, and the worker that decompressed
 * a block writes it into its file (pwrite: blocks may land in any
 * order). A file with blocks is created by the first thread that has
 * bytes for it, mostly that worker (i2d_open_lazy): the creates, the
 * costliest system call of a small file, spread over the workers; its
 * directory exists (made in walk order) and is open until its leave
 * entry ends. What must come after the data - a file's size,
 * owner, mode, xattrs and times, and a directory's after all its
 * children - is done in the reader's end(), strictly in walk order;
 * but a file whose data is one block (most small files) is finished by
 * the worker that wrote it, when nothing is refused: its attributes
 * touch no other entry (a directory's mtime moves only with its names),
 * and the one thread every entry goes through was the slower side.
 *
 * Invariant: fds[d] is the open directory at depth d of the entry being
 * made (fds[0]: the subtree root, or the target itself for the image
 * root), base the directory holding a subtree root. Every entry is made
 * by one name relative to one of them, so nothing outside the target is
 * reached. A directory is made when the walk meets it (with its final
 * mode when that lets its owner fill it, else 0700); its descriptor
 * passes to its leave entry, which sets its attributes after its
 * children, so a read-only directory is filled first and its mtime is
 * final. A file without data blocks and a hard link are made later,
 * in the reader's start() (in walk order, so a link's target exists:
 * every entry before it ended, a lazy file's end() creating it at the
 * latest), through that same descriptor, which stays open until the
 * leave entry ends; so they hold no descriptor while they wait, nor
 * does a file with blocks before its first one. Open descriptors:
 * the depth stack plus at most one per entry the reader holds, which
 * max_entries() keeps to a quarter of the limit.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdatomic.h>
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
#include "unpack/img2dir_entry.h"
#include "unpack/walk.h"
#include "util/abi.h"
#include "util/errbuf.h"

/* Entries the reader holds, at least and at most: each may hold a
 * descriptor (see max_entries()). */
#define MIN_ENTRIES 256
#define MAX_ENTRIES 4096

/* A file without blocks or a hard link, made now that it is its turn:
 * every entry before it (a link's target) is made. */
static int on_start(void *user, struct rd_bentry *be)
{
	struct todir *t = user;
	struct dent *e = (struct dent *)be;

	if (e->parent < 0 || e->lazy)
		return 0;
	if (e->kind == D_HARDLINK)
		return i2d_hard_link(t, e, e->parent);
	e->fd = i2d_create(t, e, e->parent);
	return e->fd < 0 ? i2d_create_failed(t, e) : 0;
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

	if ((t->flags & SQP_IMG2DIR_IGNORE_WRITES) && atomic_load(&e->werr) != 0)
		return 0;   /* a write already failed: the rest is not tried */
	/* Not created: the file's end() says why, as the flags want. */
	if (e->lazy && i2d_open_lazy(t, e) != 0) {
		if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
			atomic_store(&t->create_failed, 1);
		return 0;
	}
	r = write_at(e, pos, data, len);
	if (r == 0) {
		/* The whole file at once (most small ones): finished here, off
		 * the thread every entry goes through. */
		if (pos == 0 && len == e->size)
			i2d_finish_quiet(t, e);
		return 0;
	}
	if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
		return r;
	/* Not the place to warn (a worker): the file's end() does. */
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
	if (atomic_load(&e->werr) != 0 ||
	    (e->lazy && i2d_open_lazy(user, e) != 0))
		return 0;
	r = write_at(e, pos, data, len);
	if (r != 0 && (((struct todir *)user)->flags & SQP_IMG2DIR_IGNORE_WRITES)) {
		atomic_store(&e->werr, r);
		return 0;
	}
	return r != 0 ? i2d_failed(user, e, "writing", r) : 0;
}

static int on_end(void *user, struct rd_bentry *be)
{
	struct todir *t = user;
	struct dent *e = (struct dent *)be;
	int r = 0;

	if (e->kind == D_HARDLINK) {
		i2d_dent_free(e);
		return 0;
	}
	if (e->finished) {
		if (e->close_err != 0)
			r = i2d_failed(t, e, "closing", e->close_err);
		i2d_dent_free(e);
		return r;
	}
	/* A lazy file no block made (holes only), or one that could not be
	 * created. */
	if (e->lazy && i2d_open_lazy(t, e) != 0) {
		r = i2d_create_failed(t, e);
		i2d_dent_free(e);
		return r;
	}
	if (e->kind == D_FILE && e->hole && atomic_load(&e->werr) == 0 &&
	    ftruncate(e->fd, (off_t)e->size) != 0) {
		if (!(t->flags & SQP_IMG2DIR_IGNORE_WRITES))
			r = i2d_failed(t, e, "setting the size", -errno);
		else
			atomic_store(&e->werr, -errno);
	}
	/* An incomplete file (IGNORE_WRITES) is removed; one never
	 * created (fd -1) was warned about then. A file's or directory's
	 * refused attribute does not change what is counted. */
	if (e->kind == D_FILE && atomic_load(&e->werr) != 0) {
		if (e->fd >= 0)
			r = i2d_drop_file(t, e);
	} else if (r == 0 && (r = i2d_apply(t, e, e->fd, -1)) > 0) {
		r = 0;
	}
	if (e->fd >= 0 && close(e->fd) != 0 && r == 0)
		r = i2d_failed(t, e, "closing", -errno);
	e->fd = -1;
	i2d_dent_free(e);
	return r;
}

static void on_drop(void *user, struct rd_bentry *be)
{
	(void)user;
	i2d_dent_free((struct dent *)be);
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
	atomic_init(&e->opened, 0);
	if ((ret = pthread_mutex_init(&e->lock, NULL)) != 0) {
		free(e->path);
		free(e);
		*out = NULL;
		return rd_err(t->img, sqp_errno_code(ret), "pthread_mutex_init: %s",
			      strerror(ret));
	}
	e->known = t->known;
	e->be.name = e->path;
	e->name = e->path + (n->name - n->path);
	e->kind = kind;
	e->depth = n->depth;
	e->fd = e->parent = -1;
	e->mode = ino->mode;
	e->uid = ino->uid;
	e->gid = ino->gid;
	e->mtime = ino->mtime;
	e->mtime_nsec = ino->mtime_nsec;
	if (kind == D_FILE) {
		e->size = ino->size;
	} else if (kind == D_SYMLINK) {
		e->target = ino->target;
		ino->target = NULL;
	} else if (kind == D_NODE && (S_ISCHR(e->mode) || S_ISBLK(e->mode))) {
		e->rdev = makedev(ino->dev_major, ino->dev_minor);
	}
	if (kind != D_ENTER && kind != D_HARDLINK &&
	    !(t->flags & SQP_IMG2DIR_NO_XATTRS))
		ret = rd_xattrs_of(t->img, ino, &e->xattrs);
	if (ret != 0) {
		i2d_dent_free(e);
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
	int ret;

	if (t->skip_depth != 0 && n->depth >= t->skip_depth) {
		/* Below a directory not made: not made either, nor warned
		 * about one by one, but told (a hard link as mode 0). */
		if (t->desc->skipped != NULL)
			t->desc->skipped(t->desc->cb_user, n->path,
					 kind == D_HARDLINK ? 0 : mode);
		return 0;
	}
	/* A file a worker could not create ends the extraction: nothing
	 * after it is made (its end() fails; the flush ends there). */
	if (atomic_load(&t->create_failed) &&
	    (ret = rd_blockrd_flush(t->br)) != 0)
		return ret;
	if (t->desc->entered != NULL && (ret = tell_entered(t, n)) != 0)
		return ret;
	ret = dent_new(t, n, kind, &e);

	if (ret == 0 && kind == D_HARDLINK &&
	    (e->target = strdup(n->first_path)) == NULL)
		ret = rd_err(t->img, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0 && n->depth > 0 && (kind == D_HARDLINK || kind == D_FILE)) {
		/* Made later, so that it holds no descriptor while it waits:
		 * one without blocks (or a link) in start(), one with blocks
		 * where it is first needed (on_put, mostly); its directory
		 * stays open until it is done. */
		e->parent = t->fds[n->depth - 1];
		e->lazy = kind == D_FILE && n->ino->block_count != 0;
		return rd_blockrd_add(t->br, &e->be, kind == D_FILE ?
				      n->ino : NULL);
	}
	/* A subtree's root linked to an entry in the reader: made first. */
	if (ret == 0 && kind == D_HARDLINK)
		ret = rd_blockrd_flush(t->br);
	if (ret == 0)
		ret = i2d_make_entry(t, e);
	/* Only a file has more to do, once its data is in. */
	if (ret != 0 || kind != D_FILE) {
		if (e != NULL)
			i2d_dent_free(e);
		return ret;
	}
	return rd_blockrd_add(t->br, &e->be, n->ino);
}

static int on_leave(void *user, struct unp_node *n)
{
	struct todir *t = user;
	struct dent *e;
	int ret;

	/* The directory not made, or one below it: nothing to finish. */
	if (t->skip_depth != 0 && n->depth + 1 >= t->skip_depth) {
		if (n->depth + 1 == t->skip_depth)
			t->skip_depth = 0;
		return 0;
	}
	if ((ret = dent_new(t, n, D_LEAVE, &e)) != 0)
		return ret;
	e->fd = t->fds[n->depth];
	e->fresh = t->made[n->depth];
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
	struct rd_blockrd_desc bd = { img, 0, &dir_ops, NULL, max_entries(), 0 };
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
	*t = (struct todir){ .img = img, .root = dirfd, .flags = desc->flags,
			     .base = -1, .xattr_keep = desc->xattr_keep,
			     .xattr_user = desc->xattr_user, .desc = desc };
	for (unsigned i = 0; i <= UNP_DEPTH_MAX; i++)
		t->fds[i] = -1;
	atomic_init(&t->create_failed, 0);
	i2d_learn_start(t);
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
