/* SPDX-License-Identifier: MIT */
/*
 * dirfinish.c - img2dir's side of a file's data: data blocks pwritten
 * by the worker that decompressed them (put), and what must follow the
 * data - its tail, its size over a final hole, owner, mode, xattrs,
 * times, close - done for BATCH_FILES files at a time as a task on a
 * worker, so the one thread that makes every entry does not also
 * finish each. A directory's attributes stay on that thread, in order,
 * after its children are made: finishing a file never changes its
 * directory, so batches need no order among themselves or with it.
 *
 * Invariant: a file's tail is copied into the batch it joins (the
 * fragment block holding it is reused once the reader moves on); a
 * batch is busy from its dispatch until its task_done, and busy
 * batches are at most the reader's RD_BLOCKRD_TASKS, so one of BATCHES
 * is always free to fill. A worker finishes quietly (it may not print)
 * and stops at the first file where anything is not plain success;
 * task_done does that file and the rest again here, where a warning
 * can be given and an error names the file (every step can be redone).
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "sqpack/img2dir.h"
#include "unpack/dirfs.h"
#include "unpack/todir.h"
#include "util/errbuf.h"

void todir_dent_free(struct dent *e)
{
	if (e->fd >= 0)
		close(e->fd);
	free(e->path);
	free(e->target);
	rd_xattrs_free(&e->xattrs);
	free(e);
}

int todir_failed(struct todir *t, struct dent *e, const char *what, int neg)
{
	if (neg == -EEXIST)
		return rd_err(t->img, SQP_ERR_EXISTS, "'%s': already exists (not "
			      "replaced without -f)", e->path);
	return rd_err(t->img, sqp_errno_code(-neg), "'%s': %s: %s", e->path,
		      what, strerror(-neg));
}

void todir_warn(struct todir *t, struct dent *e, const char *what, int neg)
{
	char msg[SQP_ERRMSG_MAX];

	if (t->img->warn == NULL)
		return;
	snprintf(msg, sizeof(msg), "'%s': %s: %s", e->path, what,
		 strerror(-neg));
	t->img->warn(t->img->warn_user, msg);
}

/* The result r (0 or -errno) of one step for e: an error, or only a
 * warning when warn_ok. Quiet (on a worker, where nothing may be said)
 * stops at anything but success, and the file is then done again here. */
static int step(struct todir *t, struct dent *e, const char *what, int r,
		int warn_ok, int quiet)
{
	if (r == 0 || quiet)
		return r;
	if (!warn_ok)
		return todir_failed(t, e, what, r);
	todir_warn(t, e, what, r);
	return 0;
}

/* Owner, mode, xattrs, then times (each later step would change the
 * one before: chown clears set-id bits, writes touch mtime). */
int todir_apply(struct todir *t, struct dent *e, int fd, int parent,
		int quiet)
{
	int r = 0;

	if (!(t->flags & SQP_IMG2DIR_NO_OWNER)) {
		r = dirfs_owner(fd, parent, e->name, e->uid, e->gid);
		r = step(t, e, "setting the owner", r, r == -EPERM, quiet);
	}
	if (r == 0 && e->kind != D_SYMLINK)
		r = step(t, e, "setting the mode",
			 dirfs_mode(fd, parent, e->name, e->mode), 0, quiet);
	for (size_t i = 0; r == 0 && i < e->xattrs.count; i++) {
		r = dirfs_xattr(fd, parent, e->name, &e->xattrs.items[i]);
		r = step(t, e, e->xattrs.items[i].key, r, r == -EPERM ||
			 r == -ENOTSUP || r == -EACCES, quiet);
	}
	if (r == 0)
		r = step(t, e, "setting the times",
			 dirfs_mtime(fd, parent, e->name, e->mtime), 0, quiet);
	return r;
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
int todir_put(void *user, struct rd_bentry *be, uint64_t pos,
		  const uint8_t *data, uint32_t len)
{
	(void)user;
	return write_at((struct dent *)be, pos, data, len);
}

/* Close e's file: the descriptor is gone whatever close() says. */
static int close_file(struct dent *e)
{
	int r = close(e->fd) != 0 ? -errno : 0;

	e->fd = -1;
	return r;
}

/* What follows a file's data: its tail (in buf), its size over a final
 * hole, then its attributes. */
static int finish(struct todir *t, const uint8_t *buf, struct dent *e,
		  int quiet)
{
	int r = 0;

	if (e->tail_len > 0)
		r = step(t, e, "writing", write_at(e, e->tail_pos,
			 buf + e->tail_off, e->tail_len), 0, quiet);
	if (r == 0 && e->hole)
		r = step(t, e, "setting the size", ftruncate(e->fd,
			 (off_t)e->size) != 0 ? -errno : 0, 0, quiet);
	return r == 0 ? todir_apply(t, e, e->fd, -1, quiet) : r;
}

/* A batch on a worker: quiet, up to the first file that needs words. */
int todir_batch_run(void *user, void *task)
{
	struct batch *bt = task;

	for (bt->resume = 0; bt->resume < bt->count; bt->resume++) {
		struct dent *e = bt->files[bt->resume];

		if (finish(user, bt->buf, e, 1) != 0 ||
		    (bt->close_err = close_file(e)) != 0)
			break;
	}
	return 0;
}

/* Here, in order: finish what the worker left (all of it when the
 * batch did not go to one), then empty the batch. */
int todir_batch_done(void *user, void *task, int status)
{
	struct todir *t = user;
	struct batch *bt = task;
	int r = 0;

	(void)status;
	if (bt->close_err != 0)
		r = todir_failed(t, bt->files[bt->resume], "closing",
			       bt->close_err);
	for (unsigned i = bt->resume; r == 0 && i < bt->count; i++) {
		struct dent *e = bt->files[i];
		int c;

		r = finish(t, bt->buf, e, 0);
		if ((c = close_file(e)) != 0 && r == 0)
			r = todir_failed(t, e, "closing", c);
	}
	for (unsigned i = 0; i < bt->count; i++)
		todir_dent_free(bt->files[i]);
	bt->count = bt->resume = 0;
	bt->used = 0;
	bt->close_err = bt->busy = 0;
	return r;
}

/* Hand the batch being filled to a worker, or finish it here when the
 * reader holds as many tasks as it can; then fill a free one. */
int todir_dispatch(struct todir *t)
{
	struct batch *bt = t->cur;
	int r = 0;

	if (bt->count == 0)
		return 0;
	bt->busy = 1;
	r = rd_blockrd_task(t->br, bt);
	if (r == 0)
		r = todir_batch_done(t, bt, 0);
	else if (r == 1)
		r = 0;
	for (unsigned i = 0; i < BATCHES; i++)
		if (!t->batches[i].busy)
			t->cur = &t->batches[i];
	if (t->cur->busy && r == 0)
		r = rd_err(t->img, SQP_ERR_INTERNAL, "img2dir: no free batch");
	return r;
}

/* A tail or a hole, on this thread. The tail is kept in the batch that
 * its file joins next, in end(). */
int todir_data(void *user, struct rd_bentry *be, uint64_t pos,
		   const uint8_t *data, uint32_t len)
{
	struct todir *t = user;
	struct dent *e = (struct dent *)be;
	int r;

	/* A hole is not written: the file is extended over it at the end. */
	if (data == NULL) {
		e->hole = 1;
		return 0;
	}
	if (e->tail_len != 0 || len > t->batch_cap) {
		r = write_at(e, pos, data, len);
		return r != 0 ? todir_failed(t, e, "writing", r) : 0;
	}
	if (t->cur->used + len > t->batch_cap && (r = todir_dispatch(t)) != 0)
		return r;
	memcpy(t->cur->buf + t->cur->used, data, len);
	e->tail_off = (uint32_t)t->cur->used;
	e->tail_len = len;
	e->tail_pos = pos;
	t->cur->used += len;
	return 0;
}

int todir_end(void *user, struct rd_bentry *be)
{
	struct todir *t = user;
	struct dent *e = (struct dent *)be;
	int r, c;

	if (e->kind == D_HARDLINK) {
		todir_dent_free(e);
		return 0;
	}
	if (e->kind == D_FILE) {
		t->cur->files[t->cur->count++] = e;
		return t->cur->count == BATCH_FILES ? todir_dispatch(t) : 0;
	}
	/* A directory, after its children. */
	r = todir_apply(t, e, e->fd, -1, 0);
	if ((c = close_file(e)) != 0 && r == 0)
		r = todir_failed(t, e, "closing", c);
	todir_dent_free(e);
	return r;
}

void todir_drop(void *user, struct rd_bentry *be)
{
	(void)user;
	todir_dent_free((struct dent *)be);
}

int todir_batches_init(struct todir *t)
{
	t->cur = &t->batches[0];
	t->batch_cap = t->img->sb.block_size > BATCH_BYTES ?
		       t->img->sb.block_size : BATCH_BYTES;
	for (unsigned i = 0; i < BATCHES; i++)
		if ((t->batches[i].buf = malloc(t->batch_cap)) == NULL)
			return SQP_ERR_NOMEM;
	return 0;
}

void todir_batches_free(struct todir *t)
{
	for (unsigned i = 0; i < BATCHES; i++) {
		for (unsigned k = 0; k < t->batches[i].count; k++)
			todir_dent_free(t->batches[i].files[k]);
		free(t->batches[i].buf);
	}
}
