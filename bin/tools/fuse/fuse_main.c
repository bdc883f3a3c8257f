/* SPDX-License-Identifier: MIT */
/*
 * fuse_main.c - sqpack-fuse: mount a SquashFS or EROFS image read-only
 * through FUSE (also installed as squashfuse_ll, squashfuse and
 * erofsfuse, taking their options).
 *
 * The image is opened and checked before anything is mounted, so a bad
 * one is refused with one line and exit 1 ('f' on the notify pipe).
 * Once mounted nothing is printed; SIGTERM, SIGINT, SIGHUP, -o timeout=
 * and an unmount from outside end the loop, the mount is detached
 * (lazily), and the exit status is 0.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuse_opts.h"

/* squashfuse's notify pipe: one byte, 's' mounted or 'f' failed. */
static void notify(const struct cmdline *c, char what)
{
	int fd;

	if (c->notify_pipe == NULL)
		return;
	if ((fd = open(c->notify_pipe, O_WRONLY | O_CLOEXEC)) < 0)
		return;
	if (write(fd, &what, 1) != 1)
		fprintf(stderr, "%s: %s: %s\n", c->prog, c->notify_pipe,
			strerror(errno));
	close(fd);
}

/* "PROG: IMAGE: why" (the image's messages start with its name). */
static int fail(const struct cmdline *c, const char *fmt, ...)
{
	char msg[512];
	size_t n = strlen(c->image);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (strncmp(msg, c->image, n) == 0 && msg[n] == ':')
		fprintf(stderr, "%s: %s\n", c->prog, msg);
	else
		fprintf(stderr, "%s: %s: %s\n", c->prog, c->image, msg);
	notify(c, 'f');
	return 1;
}

static unsigned threads(const struct cmdline *c)
{
	if (c->fo.singlethread)
		return 1;
#if FUSE_USE_VERSION >= 312
	/* libfuse leaves it at UINT_MAX when not given. */
	if (c->fo.max_threads > 0 && c->fo.max_threads <= 100000)
		return c->fo.max_threads;
	return 10;
#else
	return 10;
#endif
}

/* Prefetch loaders: one a core, no more than the pool's images, none
 * when asked for one thread (-s). */
static unsigned prefetchers(const struct cmdline *c)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned n = cpus > 0 && cpus < 64 ? (unsigned)cpus : 4;

	if (threads(c) == 1)
		return 0;
	return n < threads(c) ? n : threads(c);
}

/* Open the image as the mount will use it: 0, or the exit status. */
static int fs_open(struct fs *fs, const struct cmdline *c, int fd)
{
	struct fs_setup s = {
		.desc = { .struct_size = sizeof(s.desc), .fd = fd,
			  .name = c->image, .offset = c->offset },
		.threads = threads(c), .subdir = c->subdir,
		.cache_bytes = c->cache_bytes, .o = c->fs,
	};
	char msg[400];

	if (fs_init(fs, &s, msg, sizeof(msg)) != 0)
		return fail(c, "%s", msg);
	return 0;
}

/* -o timeout=N: ask the main thread to stop (SIGTERM, as from outside)
 * once no request came for N seconds. */
struct idle_watch {
	struct fs *fs;
	unsigned timeout;
};

static void *idle_watch(void *arg)
{
	const struct idle_watch *w = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		long long idle = (long long)time(NULL) -
				 atomic_load(&w->fs->last_active);

		if (atomic_load(&w->fs->busy) == 0 && idle >= w->timeout)
			break;
		sleep(idle >= 0 && idle < w->timeout ?
		      (unsigned)(w->timeout - idle) : 1);
	}
	kill(getpid(), SIGTERM);
	return NULL;
}

static int loop(struct fuse_session *se, const struct cmdline *c)
{
	struct fuse_loop_config *cfg;
	int ret;

	if (c->fo.singlethread)
		return fuse_session_loop(se);
#if FUSE_USE_VERSION >= 312
	if ((cfg = fuse_loop_cfg_create()) == NULL)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, (unsigned)c->fo.clone_fd);
	if (c->fo.max_idle_threads != UINT_MAX)   /* given */
		fuse_loop_cfg_set_idle_threads(cfg, c->fo.max_idle_threads);
	fuse_loop_cfg_set_max_threads(cfg, threads(c));
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
#else
	struct fuse_loop_config old = { .clone_fd = c->fo.clone_fd,
		.max_idle_threads = c->fo.max_idle_threads };

	cfg = &old;
	ret = fuse_session_loop_mt(se, cfg);
#endif
	return ret;
}

static int serve(struct fs *fs, struct cmdline *c)
{
	struct idle_watch w = { .fs = fs, .timeout = c->timeout };
	struct fuse_session *se;
	pthread_t watcher;
	int ret = 1;

	se = fuse_session_new(&c->args, &fs_ops, sizeof(fs_ops), fs);
	if (se == NULL) {
		notify(c, 'f');
		return 1;
	}
	if (fuse_set_signal_handlers(se) != 0 ||
	    fuse_session_mount(se, c->fo.mountpoint) != 0) {
		notify(c, 'f');
		goto out;
	}
	notify(c, 's');
	if (fuse_daemonize(c->fo.foreground) != 0)
		goto unmount;
	atomic_store(&fs->last_active, (long long)time(NULL));
	if (c->timeout > 0 &&
	    pthread_create(&watcher, NULL, idle_watch, &w) == 0)
		pthread_detach(watcher);
	/* Threads after the fork of fuse_daemonize, which they would not
	 * survive. Without memory for them, the mount goes on without
	 * prefetch (fs->ahead stays NULL). */
	(void)ahead_create(fs->cache, prefetchers(c), fs->chunk, c->cache_bytes,
		     &fs->ahead);
	ret = loop(se, c);
	ahead_destroy(fs->ahead);
	fs->ahead = NULL;
	/* A signal's number, or 0 after an unmount from outside: a
	 * normal end. */
	ret = ret < 0 && ret != -ENODEV ? 1 : 0;
unmount:
	fuse_session_unmount(se);
out:
	fuse_remove_signal_handlers(se);
	fuse_session_destroy(se);
	return ret;
}

int main(int argc, char **argv)
{
	struct cmdline c;
	struct fs fs;
	int fd, ret;

	if ((ret = cmdline_parse(&c, argc, argv)) != 0) {
		cmdline_free(&c);
		return ret < 0 ? 0 : ret;
	}
	if ((fd = open(c.image, O_RDONLY | O_CLOEXEC)) < 0) {
		ret = fail(&c, "%s", strerror(errno));
	} else if ((ret = fs_open(&fs, &c, fd)) == 0) {
		ret = serve(&fs, &c);
		fs_fini(&fs);
	}
	if (fd >= 0)
		close(fd);
	cmdline_free(&c);
	return ret;
}
