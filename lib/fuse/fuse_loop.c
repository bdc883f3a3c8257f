/* SPDX-License-Identifier: MIT */
/*
 * fuse_loop.c - sqp_fuse_run, sqp_fuse_stop, sqp_fuse_idle: serving a
 * mount until it ends.
 *
 * Why stop needs a thread: libfuse's loops end when the session is
 * flagged (fuse_session_exit) and one of their threads comes back from
 * reading /dev/fuse. A signal does that to the thread it lands on, but a
 * stop from another thread leaves every loop thread blocked in read. So
 * stop only flags and writes a byte to a pipe (both async-signal-safe),
 * and a waker thread of run's, woken by that byte, sends the mount a
 * request of its own (a statfs of the mountpoint, which the kernel never
 * caches): a loop thread answers it, sees the flag and ends the loop.
 * After the loop, run unmounts, which closing /dev/fuse does first: a
 * wake-up request still in flight is aborted, and the waker is joined.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "fuse_object.h"

static void *waker(void *arg)
{
	struct sqp_fuse *f = arg;
	struct pollfd p = { .fd = f->wake[0], .events = POLLIN };
	struct statfs sb;
	sigset_t all;

	/* Signals are the caller's: let the loop's threads take them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	if (!atomic_load(&f->ending) && atomic_load(&f->stop) &&
	    f->mnt != NULL)
		(void)statfs(f->mnt, &sb);
	return NULL;
}

static int loop(struct sqp_fuse *f)
{
	struct fuse_loop_config *cfg;
	int ret;

	if (f->threads == 1)
		return fuse_session_loop(f->se);
#if FUSE_USE_VERSION >= 312
	if ((cfg = fuse_loop_cfg_create()) == NULL)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, (unsigned)f->clone_fd);
	if (f->max_idle_threads > 0)
		fuse_loop_cfg_set_idle_threads(cfg, f->max_idle_threads);
	fuse_loop_cfg_set_max_threads(cfg, f->threads);
	ret = fuse_session_loop_mt(f->se, cfg);
	fuse_loop_cfg_destroy(cfg);
#else
	/* Before libfuse 3.12 the loop's threads are not bounded; 10 idle
	 * ones kept is its own default. */
	struct fuse_loop_config old = { .clone_fd = f->clone_fd,
		.max_idle_threads = f->max_idle_threads > 0 ?
				    f->max_idle_threads : 10 };

	cfg = &old;
	ret = fuse_session_loop_mt(f->se, cfg);
#endif
	return ret;
}

SQP_API int sqp_fuse_run(struct sqp_fuse *f)
{
	pthread_t w;
	int ret;

	if (f == NULL)
		return SQP_ERR_ARG;
	if (f->state == FUSE_FAILED)
		return f->err;
	if (f->state != FUSE_MOUNTED)
		return fuse_fail(f, SQP_ERR_SEQUENCE, "sqp_fuse_run: %s",
				 f->state == FUSE_CREATED ? "not mounted" :
				 "ran already");
	if (pthread_create(&w, NULL, waker, f) != 0)
		return fuse_fail(f, SQP_ERR_NOMEM, "cannot start a thread");
	atomic_store(&f->fs.last_active, (long long)time(NULL));
	/* Without memory for them, the mount goes on without prefetch
	 * (fs.ahead stays NULL). */
	(void)ahead_create(fs_prefetch, &f->fs, f->prefetchers, f->fs.chunk,
			   f->cache_bytes, &f->fs.ahead);
	ret = atomic_load(&f->stop) ? 0 : loop(f);
	ahead_destroy(f->fs.ahead);
	f->fs.ahead = NULL;
	fuse_session_unmount(f->se);
	f->state = FUSE_RAN;
	atomic_store(&f->ending, 1);
	(void)!write(f->wake[1], "e", 1);
	pthread_join(w, NULL);
	/* A signal's number, or 0 after an unmount from outside (which
	 * reads as ENODEV in some libfuse versions): a normal end. */
	if (ret < 0 && ret != -ENODEV)
		return fuse_fail(f, SQP_ERR_IO, "the FUSE loop: %s",
				 strerror(-ret));
	return 0;
}

SQP_API void sqp_fuse_stop(struct sqp_fuse *f)
{
	int saved = errno;

	if (f == NULL)
		return;
	atomic_store(&f->stop, 1);
	if (f->se != NULL)
		fuse_session_exit(f->se);
	if (f->wake[1] >= 0)
		(void)!write(f->wake[1], "s", 1);
	errno = saved;
}

SQP_API long long sqp_fuse_idle(const struct sqp_fuse *f)
{
	if (f == NULL || atomic_load(&f->fs.busy) != 0)
		return -1;
	return (long long)time(NULL) - atomic_load(&f->fs.last_active);
}
