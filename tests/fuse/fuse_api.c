/* SPDX-License-Identifier: MIT */
/*
 * fuse_api.c - libsqpack-fuse as a runtime calls it (tests/fuse/api.sh
 * runs it as root, with /dev/fuse): fuse_api IMAGE OFFIMAGE OFFSET MNT.
 *
 * A bad image is refused by create, and the failed object mounts
 * nothing; a bad struct_size is refused. Then IMAGE is mounted twice on
 * MNT and its file "hello" read through the mount: by path with the
 * multi-threaded loop, stopped from another thread; and by an fd of
 * OFFIMAGE (IMAGE after OFFSET bytes) with the single-threaded loop and
 * uid/gid overridden, stopped from a signal handler. Each time run
 * returns 0 and MNT is no longer mounted. Last, a stop before run makes
 * run return at once. An alarm fails the test if a stop does not end
 * the loop, which is idle by then: no request of the kernel's wakes it.
 * Prints "ok: ..." or "FAIL: ..." per check.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "sqpack/fuse.h"

static const char *mnt;
static struct sqp_fuse *signalled;   /* what the SIGUSR1 handler stops */

static int check(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	return ok;
}

/* MNT a FUSE mount, per /proc/mounts. */
static int mounted(void)
{
	char line[4096], dir[4096];
	FILE *f = fopen("/proc/mounts", "r");
	int found = 0;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%*s %4095s", dir) == 1 && strcmp(dir, mnt) == 0)
			found = 1;
	fclose(f);
	return found;
}

struct runner {
	struct sqp_fuse *f;
	int ret;
};

static void *run_thread(void *arg)
{
	struct runner *r = arg;

	r->ret = sqp_fuse_run(r->f);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	sqp_fuse_stop(signalled);
}

static void read_hello(struct stat *st)
{
	char path[4200], buf[64] = "";
	int fd;
	ssize_t n = -1;

	snprintf(path, sizeof(path), "%s/hello", mnt);
	if ((fd = open(path, O_RDONLY)) >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		fstat(fd, st);
		close(fd);
	}
	check(n == 12 && memcmp(buf, "hello, fuse\n", 12) == 0,
	      "the file reads through the mount");
}

/* Mount f, serve it on a thread, read, stop (by signal or call). */
static void serve(struct sqp_fuse *f, int by_signal, struct stat *st)
{
	const char *args[] = { "-o", "fsname=sqpack-api-test", NULL };
	struct runner r = { .f = f, .ret = 1 };
	pthread_t t;

	if (!check(sqp_fuse_mount(f, mnt, args) == 0, "mount") ||
	    !check(mounted() == 1, "MNT is mounted"))
		return;
	if (pthread_create(&t, NULL, run_thread, &r) != 0) {
		check(0, "a thread to run the loop");
		return;
	}
	read_hello(st);
	/* A second without a request: the kernel's last ones (the release
	 * that follows the close) are answered, and stop must wake the
	 * loop itself. */
	for (int i = 0; i < 200 && sqp_fuse_idle(f) < 1; i++)
		usleep(50000);
	check(sqp_fuse_idle(f) >= 1, "sqp_fuse_idle counts the idle time");
	alarm(30);
	if (by_signal) {
		signalled = f;
		signal(SIGUSR1, on_usr1);
		kill(getpid(), SIGUSR1);
	} else {
		sqp_fuse_stop(f);
	}
	pthread_join(t, NULL);
	alarm(0);
	check(r.ret == 0, "run returns 0 once stopped");
	check(mounted() == 0, "MNT is unmounted after run");
}

int main(int argc, char **argv)
{
	struct sqp_fuse_desc d = { .struct_size = sizeof(d) };
	struct sqp_fuse *f = NULL;
	struct stat st = { 0 };
	int fd, ret;

	if (argc != 5)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);   /* what was checked, if killed */
	mnt = argv[4];
	d.image = "/dev/null";
	ret = sqp_fuse_create(&d, &f);
	check(ret < 0 && f != NULL && strstr(sqp_fuse_error(f), "/dev/null"),
	      "create refuses a file that is not an image, with a message");
	check(sqp_fuse_mount(f, mnt, NULL) == ret && mounted() == 0,
	      "the failed object mounts nothing");
	sqp_fuse_destroy(f);
	d.struct_size = 8;
	check(sqp_fuse_create(&d, &f) == SQP_ERR_ARG, "a short struct_size is refused");
	sqp_fuse_destroy(f);

	d.struct_size = sizeof(d);
	d.image = argv[1];
	if (check(sqp_fuse_create(&d, &f) == 0, "create (path, threads)"))
		serve(f, 0, &st);
	sqp_fuse_destroy(f);

	if ((fd = open(argv[2], O_RDONLY)) < 0)
		return 2;
	d.image = NULL;
	d.fd = fd;
	d.offset = strtoull(argv[3], NULL, 10);
	d.threads = 1;
	d.flags = SQP_FUSE_UID | SQP_FUSE_GID;
	d.uid = 4242;
	d.gid = 4343;
	if (check(sqp_fuse_create(&d, &f) == 0, "create (fd at an offset, one thread)")) {
		serve(f, 1, &st);
		check(st.st_uid == 4242 && st.st_gid == 4343, "uid and gid overridden");
	}
	sqp_fuse_destroy(f);

	if (check(sqp_fuse_create(&d, &f) == 0 && sqp_fuse_mount(f, mnt, NULL) == 0,
		  "create and mount again")) {
		sqp_fuse_stop(f);
		alarm(30);
		check(sqp_fuse_run(f) == 0 && mounted() == 0,
		      "a stop before run: run returns at once, unmounted");
		alarm(0);
	}
	sqp_fuse_destroy(f);
	close(fd);
	return 0;
}
