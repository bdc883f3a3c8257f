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
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

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

/* -o timeout=N: ask the main thread to stop (SIGTERM, as from outside:
 * libfuse's handler interrupts the loop, whatever the mountpoint, even
 * a /dev/fd/N one that sqp_fuse_stop has no path to wake) once no
 * request came for N seconds. */
struct idle_watch {
	struct sqp_fuse *f;
	unsigned timeout;
};

static void *idle_watch(void *arg)
{
	const struct idle_watch *w = arg;
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	for (;;) {
		long long idle = sqp_fuse_idle(w->f);

		if (idle >= w->timeout)
			break;
		sleep(idle >= 0 ? (unsigned)(w->timeout - idle) : 1);
	}
	kill(getpid(), SIGTERM);
	return NULL;
}

static int serve(struct sqp_fuse *f, struct cmdline *c)
{
	struct idle_watch w = { .f = f, .timeout = c->timeout };
	pthread_t watcher;

	/* libfuse's command line, but its program name. */
	if (sqp_fuse_mount(f, c->fo.mountpoint,
			   (const char *const *)c->args.argv + 1) != 0) {
		notify(c, 'f');
		return 1;
	}
	notify(c, 's');
	if (fuse_daemonize(c->fo.foreground) != 0)
		return 1;
	/* Threads after the fork of fuse_daemonize, which they would not
	 * survive. */
	if (c->timeout > 0 &&
	    pthread_create(&watcher, NULL, idle_watch, &w) == 0)
		pthread_detach(watcher);
	return sqp_fuse_run(f) != 0;
}

int main(int argc, char **argv)
{
	struct sqp_fuse *f = NULL;
	struct cmdline c;
	int ret;

#ifdef M_MMAP_THRESHOLD
	/* glibc serves a request of 128 KiB or more with a mapping of its
	 * own until one is freed, then raises that threshold to the freed
	 * size (up to 32 MiB) and serves the next from its arenas, one a
	 * thread, which keep what is freed: the image readers' extents of
	 * several MiB, liblzma's dictionaries of 8 MiB (one a pool image,
	 * touched as far as an extent reaches). Reading big.tar's tree
	 * from its lzma image with 1 MiB pclusters, 8 readers, the daemon
	 * peaked at 185 MiB with its 64 MiB cache, 103 MiB of it in
	 * arenas; with the threshold fixed (set, it no longer moves) at 2
	 * MiB, 121 MiB. Not lower: 128 KiB maps and unmaps a SquashFS
	 * block's buffer per file opened, 3% more CPU on the zstd image. */
	mallopt(M_MMAP_THRESHOLD, 2 << 20);
#endif
	if ((ret = cmdline_parse(&c, argc, argv)) != 0) {
		cmdline_free(&c);
		return ret < 0 ? 0 : ret;
	}
	if (sqp_fuse_create(&c.desc, &f) != 0)
		ret = fail(&c, "%s", sqp_fuse_error(f));
	else
		ret = serve(f, &c);
	sqp_fuse_destroy(f);
	cmdline_free(&c);
	return ret;
}
