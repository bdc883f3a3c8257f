/* SPDX-License-Identifier: MIT */
/*
 * todir.h - img2dir's state, shared by img2dir.c (the walk: making
 * entries) and dirfinish.c (what follows a file's data, finished in
 * batches on the workers). Private to lib/unpack.
 */
#ifndef SQP_UNPACK_TODIR_H
#define SQP_UNPACK_TODIR_H

#include <stdint.h>
#include <sys/types.h>

#include "read/blockrd.h"
#include "unpack/walk.h"

/* Batches of finished files: one being filled and one per task the
 * reader can hold; each holds BATCH_FILES descriptors at most, and its
 * tails in BATCH_BYTES (or one block, if more). */
#define BATCHES (RD_BLOCKRD_TASKS + 1)
#define BATCH_FILES 32
#define BATCH_BYTES (256u << 10)

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
	uint32_t tail_off, tail_len; /* its tail, in its batch's buffer */
	uint64_t tail_pos;
	dev_t rdev;
	char *target;            /* owned: symlink target, hard link source */
	struct rd_xattrs xattrs; /* owned */
	int fd;                  /* a file being written, a directory being
				    left, or -1 */
	int parent;              /* made in start(): its directory (open
				    until its leave entry ends), else -1 */
};

/* Files whose data is in, to be finished (tail, attributes, close)
 * together on a worker. */
struct batch {
	struct dent *files[BATCH_FILES];
	unsigned count;
	uint8_t *buf;            /* the files' tails */
	size_t used;
	int busy;                /* queued as a task, not yet done */
	unsigned resume;         /* set by the worker: the first file it did
				    not finish */
	int close_err;           /* and why, if closing it failed */
};

struct todir {
	struct sqp_image *img;
	struct rd_blockrd *br;
	int root;
	unsigned flags;
	int base;
	int fds[UNP_DEPTH_MAX + 1];
	struct batch batches[BATCHES];
	struct batch *cur;       /* the one being filled, never busy */
	size_t batch_cap;        /* bytes of each buffer */
};

void todir_dent_free(struct dent *e);
/* A failed system call (-errno neg) on e, latched in the image with
 * e's path; returns the error. */
int todir_failed(struct todir *t, struct dent *e, const char *what, int neg);
/* A warning about e (and the step it is about), through the image's
 * warn callback. */
void todir_warn(struct todir *t, struct dent *e, const char *what, int neg);
/* Owner, mode, xattrs and times of e: by fd when fd >= 0, else by name
 * in parent. Quiet: say nothing, return the first -errno. */
int todir_apply(struct todir *t, struct dent *e, int fd, int parent,
		int quiet);
/* Hand the batch being filled to a worker (or finish it here). */
int todir_dispatch(struct todir *t);
/* The batches' buffers, made and freed (with what they still hold). */
int todir_batches_init(struct todir *t);
void todir_batches_free(struct todir *t);

/* The reader's callbacks (read/blockrd.h) for a file's data and end. */
int todir_put(void *user, struct rd_bentry *be, uint64_t pos,
	      const uint8_t *data, uint32_t len);
int todir_data(void *user, struct rd_bentry *be, uint64_t pos,
	       const uint8_t *data, uint32_t len);
int todir_end(void *user, struct rd_bentry *be);
void todir_drop(void *user, struct rd_bentry *be);
int todir_batch_run(void *user, void *task);
int todir_batch_done(void *user, void *task, int status);

#endif
