/* SPDX-License-Identifier: MIT */
/*
 * fuse.h - libsqpack-fuse: mount a SquashFS or EROFS image read-only
 * through FUSE from a program of one's own, as sqpack-fuse does, in
 * place of squashfuse's library (an AppImage runtime mounting the image
 * at its ELF offset, a container runtime mounting its image before it
 * starts the container). Link with pkg-config's sqpack-fuse; libfuse 3
 * is this library's business, its headers are not needed.
 *
 * The life of a mount, one call after the other, each from any thread
 * but never two at once (except sqp_fuse_stop and sqp_fuse_idle):
 *
 *     struct sqp_fuse_desc d = { .struct_size = sizeof(d),
 *                                .image = "app.AppImage",
 *                                .offset = elf_size };
 *     struct sqp_fuse *f;
 *
 *     if (sqp_fuse_create(&d, &f) != 0)      image refused, nothing mounted
 *             complain(sqp_fuse_error(f));
 *     else if (sqp_fuse_mount(f, dir, NULL) == 0)
 *             sqp_fuse_run(f);               serves until stopped
 *     sqp_fuse_destroy(f);                   unmounts if still mounted
 *
 * Errors follow sqpack/error.h: 0 or a negative SQP_ERR_*, the object
 * holding the message; a failed create gives a failed object (or NULL
 * without memory) that answers only sqp_fuse_error and sqp_fuse_destroy.
 * The library installs no signal handler unless asked
 * (SQP_FUSE_SIGNALS), prints nothing and never exits, but libfuse itself
 * prints why a mount failed (a bad option, fusermount3's refusal) on
 * stderr. Several objects may live in one process, each mounted once.
 */
#ifndef SQPACK_FUSE_H
#define SQPACK_FUSE_H

#include <stdint.h>
#include <sys/types.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_fuse;

/* sqp_fuse_desc.flags */
enum {
	SQP_FUSE_UID = 1u << 0,         /* every file's owner is desc.uid */
	SQP_FUSE_GID = 1u << 1,         /* every file's group is desc.gid */
	SQP_FUSE_NO_PREFETCH = 1u << 2, /* no read-ahead threads */
	/* sqp_fuse_mount installs libfuse's handlers until destroy:
	 * SIGHUP, SIGINT and SIGTERM end the loop, SIGPIPE is ignored.
	 * One object of a process at a time may ask. */
	SQP_FUSE_SIGNALS = 1u << 3,
};

struct sqp_fuse_desc {
	size_t struct_size;  /* sizeof(struct sqp_fuse_desc): see sqpack/api.h */
	/* The image file, opened (and closed by destroy) by the library;
	 * NULL: fd, an open file (borrowed, read with pread only, it must
	 * outlive the object). */
	const char *image;
	int fd;
	const char *name;    /* for messages (copied); NULL: image or "image" */
	uint64_t offset;     /* where the image starts in the file */
	const char *subdir;  /* a directory of the image to mount; NULL: root */
	unsigned flags;      /* SQP_FUSE_* */
	uid_t uid;           /* with SQP_FUSE_UID */
	gid_t gid;           /* with SQP_FUSE_GID */
	/* Mode bits cleared from every entry, from files (all but
	 * directories), from directories: squashfuse's umask=, fmask=,
	 * dmask=. */
	mode_t umask, fmask, dmask;
	uint64_t cache_bytes;   /* decompressed data kept; 0: 64 MiB */
	/* The loop's threads at most (and images open on the file):
	 * 0: 10; 1: the single-threaded loop, without prefetch. */
	unsigned threads;
	unsigned max_idle_threads; /* idle threads kept; 0: libfuse's default */
	int clone_fd;        /* nonzero: a /dev/fuse descriptor per thread */
	/* Called, from any loop thread at once, with why a read of the
	 * image failed (a corrupt block: the reader gets EIO); NULL: not. */
	sqp_warn_fn warn;
	void *warn_user;
};

/* Open and check the image (the superblock, its tables, subdir): a bad
 * one fails here, before anything is mounted. Returns 0, or a negative
 * error with *out NULL or a failed object (see above). desc is copied. */
SQP_API int sqp_fuse_create(const struct sqp_fuse_desc *desc,
			    struct sqp_fuse **out);

/* Mount on mountpoint, read-only. args: more of libfuse's command line,
 * as a FUSE file system takes it, NULL-terminated, or NULL: "-o" and a
 * list of mount options (allow_other, fsname=NAME, subtype=NAME,
 * auto_unmount...), "-d" to have libfuse print every request. As with
 * libfuse, mountpoint may be /dev/fd/N, a /dev/fuse descriptor the
 * caller mounted. 0 or a negative error: SQP_ERR_ARG for options
 * libfuse refused, SQP_ERR_IO when the mount failed, SQP_ERR_SEQUENCE
 * when not freshly created. Nothing else (threads) is started, so the
 * caller may fork (daemonize) between this call and sqp_fuse_run. */
SQP_API int sqp_fuse_mount(struct sqp_fuse *f, const char *mountpoint,
			   const char *const *args);

/* Serve the mount until it is unmounted from outside, sqp_fuse_stop is
 * called, or (SQP_FUSE_SIGNALS) a signal ends it; then unmount (lazily,
 * as umount -l: files still open there fail from then on). Returns 0
 * after any of these, or a negative error when the loop failed. Once. */
SQP_API int sqp_fuse_run(struct sqp_fuse *f);

/* End sqp_fuse_run's loop, from any thread or a signal handler: it is
 * async-signal-safe. The loop ends at its next request, which stop
 * makes itself (a statfs of the mountpoint, from a thread of run's), so
 * at once but for a mountpoint given as /dev/fd/N or no longer reachable
 * by its path, where it waits for the next request or the unmount.
 * Before sqp_fuse_run, it makes run return at once. f must be alive:
 * a handler that may run after sqp_fuse_destroy must not call it. */
SQP_API void sqp_fuse_stop(struct sqp_fuse *f);

/* Seconds since the last request was answered (or since sqp_fuse_run
 * started), -1 while one is being answered: for unmounting an idle
 * mount. Any thread, while the object lives. */
SQP_API long long sqp_fuse_idle(const struct sqp_fuse *f);

/* Unmount if still mounted and free. NULL is fine. Not while
 * sqp_fuse_run runs. */
SQP_API void sqp_fuse_destroy(struct sqp_fuse *f);

/* The last error's message with context. Never NULL; "" when none;
 * for f NULL (a create without memory), that error's text. */
SQP_API const char *sqp_fuse_error(const struct sqp_fuse *f);

#ifdef __cplusplus
}
#endif

#endif
