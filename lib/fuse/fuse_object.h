/* SPDX-License-Identifier: MIT */
/*
 * fuse_object.h - struct sqp_fuse of sqpack/fuse.h: one mount's file
 * system (struct fs, which the operations see) and its session, shared
 * by fuse_object.c (create, mount, destroy) and fuse_loop.c (run, stop).
 *
 * Its life is a state, each call allowed in one: CREATED (the image
 * checked), MOUNTED, RAN (run returned: unmounted), or FAILED, which
 * answers only sqp_fuse_error and sqp_fuse_destroy.
 */
#ifndef SQP_LIB_FUSE_OBJECT_H
#define SQP_LIB_FUSE_OBJECT_H

#include <stdatomic.h>

#include "fuse_fs.h"
#include "sqpack/fuse.h"

enum fuse_state { FUSE_CREATED, FUSE_MOUNTED, FUSE_RAN, FUSE_FAILED };

struct sqp_fuse {
	struct fs fs;                /* first: the session's user data */
	enum fuse_state state;
	int err;                     /* the last error, 0: none */
	char msg[512];
	int fd, own_fd;              /* the image; own_fd: ours to close */
	char *name;                  /* the image's, for messages */
	uint64_t cache_bytes;
	unsigned threads;            /* the loop's; 1: single-threaded */
	unsigned prefetchers;        /* 0: none */
	unsigned max_idle_threads;
	int clone_fd;
	unsigned flags;              /* SQP_FUSE_* */
	struct fuse_session *se;     /* from sqp_fuse_mount on */
	int signals;                 /* libfuse's handlers installed */
	char *mnt;                   /* the mountpoint's absolute path, for
				      * stop's wake-up; NULL: none */
	/* stop's pipe: a byte written by sqp_fuse_stop (async-signal-safe,
	 * so neither a lock nor a condition) wakes run's waker thread. */
	int wake[2];
	atomic_int stop;             /* sqp_fuse_stop was called */
	atomic_int ending;           /* run is over: the waker leaves */
};

/* Record an error (printf-style message) and return it. */
int fuse_fail(struct sqp_fuse *f, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
