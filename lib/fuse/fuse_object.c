/* SPDX-License-Identifier: MIT */
/*
 * fuse_object.c - sqp_fuse_create, sqp_fuse_mount, sqp_fuse_destroy:
 * the object of sqpack/fuse.h up to its loop (fuse_loop.c).
 *
 * create does all the checking a mount needs (the image, its tables,
 * the subdir) so that a bad image fails before anything is mounted;
 * mount then only asks libfuse and the kernel, and starts no thread,
 * so that a caller may fork (daemonize) before the loop. This library
 * links libsqpack's public API only, so its errors are kept here rather
 * than with libsqpack's internal helpers.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuse_object.h"

/* The messages name the image first, as libsqpack's do ("NAME: why"). */
int fuse_fail(struct sqp_fuse *f, int err, const char *fmt, ...)
{
	size_t n = strlen(f->name != NULL ? f->name : "");
	char why[384];               /* room left for the name */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (f->name == NULL || (strncmp(why, f->name, n) == 0 && why[n] == ':'))
		snprintf(f->msg, sizeof(f->msg), "%s", why);
	else
		snprintf(f->msg, sizeof(f->msg), "%s: %s", f->name, why);
	f->err = err;
	f->state = FUSE_FAILED;
	return err;
}

/* sqpack/api.h's rule for a caller's struct of another size. */
static int copy_desc(struct sqp_fuse *f, const struct sqp_fuse_desc *in,
		     struct sqp_fuse_desc *d)
{
	const unsigned char *past = (const unsigned char *)in;
	size_t i;

	memset(d, 0, sizeof(*d));
	if (in->struct_size < sizeof(*d))
		return fuse_fail(f, SQP_ERR_ARG, "sqp_fuse_desc: struct_size "
				 "%zu is too small", in->struct_size);
	for (i = sizeof(*d); i < in->struct_size; i++)
		if (past[i] != 0)
			return fuse_fail(f, SQP_ERR_UNSUPPORTED, "sqp_fuse_desc: "
					 "fields past this library's are set");
	memcpy(d, in, sizeof(*d));
	d->struct_size = sizeof(*d);
	return 0;
}

/* Read-ahead loaders: one a core, no more than the loop's threads (the
 * pool's images), none for one thread. */
static unsigned prefetchers(const struct sqp_fuse_desc *d, unsigned threads)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = cpus > 0 && cpus < 64 ? (unsigned)cpus : 4;

	if (threads == 1 || (d->flags & SQP_FUSE_NO_PREFETCH))
		return 0;
	return n < threads ? n : threads;
}

/* The image as the mount will use it: its pool, root and cache. */
static int open_fs(struct sqp_fuse *f, const struct sqp_fuse_desc *d)
{
	struct fs_setup s = {
		.desc = { .struct_size = sizeof(s.desc), .fd = f->fd,
			  .name = f->name, .offset = d->offset },
		.threads = f->threads, .subdir = d->subdir,
		.cache_bytes = f->cache_bytes, .o = f->fs.o,
	};
	char msg[400];
	int ret = fs_init(&f->fs, &s, msg, sizeof(msg));

	return ret != 0 ? fuse_fail(f, ret, "%s", msg) : 0;
}

static void set_options(struct sqp_fuse *f, const struct sqp_fuse_desc *d)
{
	struct fs_opts *o = &f->fs.o;

	o->set_uid = (d->flags & SQP_FUSE_UID) != 0;
	o->set_gid = (d->flags & SQP_FUSE_GID) != 0;
	o->uid = d->uid;
	o->gid = d->gid;
	o->umask = d->umask & 07777;
	o->fmask = d->fmask & 07777;
	o->dmask = d->dmask & 07777;
	o->warn = d->warn;
	o->warn_user = d->warn_user;
	f->flags = d->flags;
	f->threads = d->threads > 0 ? d->threads : 10;
	f->prefetchers = prefetchers(d, f->threads);
	f->max_idle_threads = d->max_idle_threads;
	f->clone_fd = d->clone_fd;
	f->cache_bytes = d->cache_bytes > 0 ? d->cache_bytes : (uint64_t)64 << 20;
}

SQP_API int sqp_fuse_create(const struct sqp_fuse_desc *desc,
			    struct sqp_fuse **out)
{
	struct sqp_fuse_desc d;
	struct sqp_fuse *f;
	int ret;

	if (out == NULL)
		return SQP_ERR_ARG;
	if ((*out = f = calloc(1, sizeof(*f))) == NULL)
		return SQP_ERR_NOMEM;
	f->fd = f->own_fd = f->wake[0] = f->wake[1] = -1;
	if (desc == NULL)
		return fuse_fail(f, SQP_ERR_ARG, "sqp_fuse_create: no desc");
	if ((ret = copy_desc(f, desc, &d)) != 0)
		return ret;
	f->name = strdup(d.name != NULL ? d.name :
			 d.image != NULL ? d.image : "image");
	if (f->name == NULL)
		return fuse_fail(f, SQP_ERR_NOMEM, "%s", strerror(ENOMEM));
	if (d.image != NULL) {
		if ((f->own_fd = open(d.image, O_RDONLY | O_CLOEXEC)) < 0)
			return fuse_fail(f, SQP_ERR_IO, "%s", strerror(errno));
		f->fd = f->own_fd;
	} else if ((f->fd = d.fd) < 0) {
		return fuse_fail(f, SQP_ERR_ARG, "neither an image nor an fd");
	}
	/* Non-blocking: a signal handler's stop never waits on it. */
	if (pipe2(f->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		return fuse_fail(f, SQP_ERR_IO, "pipe: %s", strerror(errno));
	set_options(f, &d);
	if ((ret = open_fs(f, &d)) != 0)
		return ret;
	f->state = FUSE_CREATED;
	return 0;
}

/* The session on libfuse's command line: ours, then "-oro" last, so
 * that the mount is read-only whatever args say (the kernel refuses
 * writes before they reach us). */
static int new_session(struct sqp_fuse *f, const char *const *args)
{
	struct fuse_args fa = FUSE_ARGS_INIT(0, NULL);
	int ok = fuse_opt_add_arg(&fa, "sqpack-fuse") == 0;

	for (size_t i = 0; ok && args != NULL && args[i] != NULL; i++)
		ok = fuse_opt_add_arg(&fa, args[i]) == 0;
	if (!ok || fuse_opt_add_arg(&fa, "-oro") != 0) {
		fuse_opt_free_args(&fa);
		return fuse_fail(f, SQP_ERR_NOMEM, "%s", strerror(ENOMEM));
	}
	f->se = fuse_session_new(&fa, &fs_ops, sizeof(fs_ops), &f->fs);
	fuse_opt_free_args(&fa);
	if (f->se == NULL)
		return fuse_fail(f, SQP_ERR_ARG, "libfuse refused the mount "
				 "options (its message is on stderr)");
	return 0;
}

SQP_API int sqp_fuse_mount(struct sqp_fuse *f, const char *mountpoint,
			   const char *const *args)
{
	int ret;

	if (f == NULL)
		return SQP_ERR_ARG;
	if (f->state == FUSE_FAILED)
		return f->err;
	if (f->state != FUSE_CREATED)
		return fuse_fail(f, SQP_ERR_SEQUENCE, "sqp_fuse_mount: "
				 "mounted already");
	if (mountpoint == NULL)
		return fuse_fail(f, SQP_ERR_ARG, "sqp_fuse_mount: no mountpoint");
	if ((ret = new_session(f, args)) != 0)
		return ret;
	if ((f->flags & SQP_FUSE_SIGNALS) != 0) {
		if (fuse_set_signal_handlers(f->se) != 0)
			return fuse_fail(f, SQP_ERR_IO, "cannot install the "
					 "signal handlers");
		f->signals = 1;
	}
	/* Resolved now: once mounted, a lookup there would wait for the
	 * loop. A /dev/fd/N mountpoint has no path to wake the loop by. */
	if (strncmp(mountpoint, "/dev/fd/", 8) != 0)
		f->mnt = realpath(mountpoint, NULL);
	if (fuse_session_mount(f->se, mountpoint) != 0)
		return fuse_fail(f, SQP_ERR_IO, "%s: cannot mount (libfuse's "
				 "message is on stderr)", mountpoint);
	atomic_store(&f->fs.last_active, (long long)time(NULL));
	f->state = FUSE_MOUNTED;
	return 0;
}

SQP_API void sqp_fuse_destroy(struct sqp_fuse *f)
{
	if (f == NULL)
		return;
	if (f->se != NULL) {
		/* Nothing when run has unmounted already. */
		fuse_session_unmount(f->se);
		if (f->signals)
			fuse_remove_signal_handlers(f->se);
		fuse_session_destroy(f->se);
	}
	if (f->fs.cache != NULL)
		fs_fini(&f->fs);
	if (f->wake[0] >= 0)
		close(f->wake[0]);
	if (f->wake[1] >= 0)
		close(f->wake[1]);
	if (f->own_fd >= 0)
		close(f->own_fd);
	free(f->mnt);
	free(f->name);
	free(f);
}

SQP_API const char *sqp_fuse_error(const struct sqp_fuse *f)
{
	return f != NULL ? f->msg : sqp_strerror(SQP_ERR_NOMEM);
}
