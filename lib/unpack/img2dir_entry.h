/* SPDX-License-Identifier: MIT */
/*
 * img2dir_entry.h - what img2dir.c (the walk and the block reader's
 * callbacks) and img2dir_entry.c (making one entry and setting its
 * attributes) share: an entry on its way into the directory, the
 * extraction's state, and the calls that make entries.
 */
#ifndef SQP_UNPACK_IMG2DIR_ENTRY_H
#define SQP_UNPACK_IMG2DIR_ENTRY_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "read/blockrd.h"
#include "sqpack/img2dir.h"
#include "unpack/walk.h"

enum { D_ENTER, D_LEAVE, D_FILE, D_HARDLINK, D_SYMLINK, D_NODE };

struct dent {
	struct rd_bentry be;     /* first: the reader hands this back */
	int kind;
	char *path;              /* owned; be.name points here */
	const char *name;        /* the last component, in path */
	unsigned depth;
	uint32_t mode, uid, gid;
	int64_t mtime;
	uint32_t mtime_nsec;
	uint64_t size;           /* files */
	int hole;                /* a hole was skipped: extend at the end */
	dev_t rdev;
	char *target;            /* owned: symlink target, hard link source */
	struct rd_xattrs xattrs; /* owned */
	int fd;                  /* a file being written, a directory being
				    left, or -1 (a lazy file that could not
				    be created: -errno) */
	/* IGNORE_WRITES: the first write error (-errno), set by whichever
	 * thread wrote; a file that could not be created has fd -1 and
	 * -errno here from the start, so its blocks are dropped. */
	atomic_int werr;
	int parent;              /* made later (start(), or on first use
				    when lazy): its directory (open until
				    its leave entry ends), else -1 */
	/* A file with data blocks below the subtree's root, created by the
	 * first thread that needs it (i2d_open_lazy): mostly the worker
	 * that decoded its first block, so the creates of the files spread
	 * over the workers, off the one thread every entry goes through.
	 * opened: tried (fd then holds the descriptor or -errno), set under
	 * lock and read without it. */
	int lazy;
	atomic_int opened;
	pthread_mutex_t lock;
	/* todir.known when e was added: what the worker that creates it
	 * goes by (todir.known may change under it meanwhile). */
	int known;
	/* Made by this extraction (not an existing directory reused)
	 * while todir.known held: with the owner and mode it tells. */
	int fresh;
	/* Owner, mode and times set and closed on a worker (fd then -1),
	 * with close()'s -errno or 0 (i2d_finish_quiet). */
	int finished, close_err;
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
	/* A directory that could not be made (IGNORE_WRITES): its depth
	 * plus one, and the walk's entries below it are skipped until it
	 * is left; 0 when none. */
	unsigned skip_depth;
	/* Set by a worker that could not create a lazy file when that is
	 * an error: the walk adds no more entries, and delivers those it
	 * added up to that file's end(), which fails with the message. */
	atomic_int create_failed;
	int fds[UNP_DEPTH_MAX + 1];
	/* LENIENT, as unsquashfs 4.5.1: a file system without xattrs met
	 * (no more are set), the first xattr not tried without owners
	 * warned about (the next ones are not). */
	int xattrs_off, nonuser_told;
	/* Set when what this extraction makes gets the process's owner
	 * (uid, gid) and the mode asked less umask: no directory it makes
	 * entries in passes on a group or a default ACL. Then a fresh
	 * entry's owner is set only when it differs, and a file's mode
	 * only when creating it could not give it (three system calls of
	 * the seven a small file took on the one thread that makes them). */
	int known;
	uint32_t uid, gid;
	mode_t umask;
	/* fresh, for the directory at each depth of fds */
	unsigned char made[UNP_DEPTH_MAX + 1];
};

/* Set t->known from the process and the target (t->root); then unset
 * it when dirfd, a directory not made here, passes anything on. */
void i2d_learn_start(struct todir *t);
void i2d_learn(struct todir *t, int dirfd);

void i2d_dent_free(struct dent *e);

/* A failed system call on e (neg: -errno) as the image's error. */
int i2d_failed(struct todir *t, struct dent *e, const char *what, int neg);

/* A refusal that is not fatal: a warning, or with STRICT an error. */
int i2d_warn(struct todir *t, struct dent *e, const char *what, int neg);

/* Owner, mode, xattrs and times of e: by fd when fd >= 0, else by its
 * name in parent. 0, 1 when something was refused and only warned
 * about, or an error. */
int i2d_apply(struct todir *t, struct dent *e, int fd, int parent);

/* On a worker, the file e whose data is all written: its owner, mode
 * and times set and it closed (1: e->finished) when no step is refused
 * and it has no xattrs; else 0, and nothing is reported: end() does it
 * all again through i2d_apply, which warns or fails as the flags say.
 * Uses only what e held when it was added, and t's constants. */
int i2d_finish_quiet(const struct todir *t, struct dent *e);

/* The hard link e, to the entry first made at e->target (with
 * IGNORE_WRITES, one that cannot be made is a warning). */
int i2d_hard_link(struct todir *t, struct dent *e, int parent);

/* The file e could not be created (e->fd: -errno): an error, or with
 * IGNORE_WRITES a warning, and its data is dropped. */
int i2d_create_failed(struct todir *t, struct dent *e);

/* The lazy file e created unless it was, by whichever thread comes
 * first (the others wait for it): 0, or the -errno creating it failed
 * with, which its end() reports (i2d_create_failed). */
int i2d_open_lazy(const struct todir *t, struct dent *e);

/* A new regular file for e in parent (an fd or -errno). Without FORCE,
 * LENIENT replaces a regular file standing there, as unsquashfs 4.5.1
 * writes over one (not keeping the tail of a longer one, as 4.5.1
 * does); anything else in the way stays EEXIST, a symlink above all,
 * which 4.5.1 would follow. */
int i2d_create(const struct todir *t, struct dent *e, int parent);

/* The file e, which could not be written whole (IGNORE_WRITES: e->werr),
 * warned about and removed, as unsquashfs 4.5.1 does. */
int i2d_drop_file(struct todir *t, struct dent *e);

/* Make e where it belongs: a directory (its fd pushed on t->fds; with
 * IGNORE_WRITES, one that cannot be made sets t->skip_depth), a file
 * (its fd in e), or a link or node, finished here. */
int i2d_make_entry(struct todir *t, struct dent *e);

#endif
