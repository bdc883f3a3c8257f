/* SPDX-License-Identifier: MIT */
/*
 * imgwriter.c - the ordered writer: one thread that appends data blocks to
 * the image, so the orchestrator never waits in write().
 *
 * Chunks sit in a ring in image order, each with its offset, fixed when it
 * was queued: where bytes land never depends on timing. Three counters,
 * each only growing, split the ring: [reaped, written) is written and not
 * yet handed back, [written, queued) waits for the thread. The thread only
 * reads chunk data; the owner only reuses a buffer after reaping it. The
 * mutex orders both hand-overs. After a failed write the thread stops
 * writing and keeps errno and offset; the owner turns them into its
 * latched error, with the same text as a synchronous write. Adjacent
 * chunks go out in one pwritev().
 *
 * Waking a sleeping thread costs the owner a context switch, often two:
 * on a busy machine the woken thread takes the owner's core at once. So
 * an idle thread is woken only once WAKE_BATCH chunks wait, or when the
 * owner is about to wait for it (reap, wait_written, stop); a thread that
 * is writing picks new chunks up by itself.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "write/imgout.h"

struct imgout_chunk {
	const void *data;
	size_t len;
	uint64_t off;
	void *token;
};

struct imgout_async {
	pthread_t thread;
	pthread_mutex_t lock;      /* protects everything below */
	pthread_cond_t wake;       /* owner -> thread: queued or stop */
	pthread_cond_t progress;   /* thread -> owner: written or failed */
	struct imgout_chunk *ring;
	size_t cap;
	uint64_t queued, written, reaped;
	int idle;                  /* the thread waits on wake */
	int stop;
	int fd;
	uint64_t base;             /* file offset of image position 0 */
	int fail_errno;            /* 0, or why the write at fail_off failed */
	uint64_t fail_off;
};

/* With the lock held: the thread stopped on an error. */
static int failed(const struct imgout_async *a)
{
	return a->fail_errno != 0;
}

/* Chunks written with one system call at most: blocks are 4 KiB..1 MiB,
 * so a batch is large enough to keep write() off the profile. */
#define WRITE_BATCH 32
/* Chunks queued before an idle thread is woken (see above). */
#define WAKE_BATCH 4

/* Write n buffers back to back from image position off (file offset
 * base + off). 0, or errno (ENOSPC for a write that made no progress)
 * with *fail_off (an image position) where it stopped. */
static int write_run(int fd, uint64_t base, struct iovec *iov, int n, uint64_t off,
		     uint64_t *fail_off)
{
	ssize_t w;

	while (n > 0) {
		w = pwritev(fd, iov, n, (off_t)(base + off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			*fail_off = off;
			return w < 0 ? errno : ENOSPC;
		}
		off += (uint64_t)w;
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* With the lock held: the longest run of adjacent unwritten chunks, at
 * most WRITE_BATCH, as iovecs; returns their number and first offset. */
static int next_run(const struct imgout_async *a, struct iovec *iov, uint64_t *off)
{
	uint64_t i = a->written, end;
	int n = 0;

	*off = end = a->ring[i % a->cap].off;
	for (; i < a->queued && n < WRITE_BATCH; ++i, ++n) {
		const struct imgout_chunk *c = &a->ring[i % a->cap];

		if (c->off != end)
			break;
		iov[n].iov_base = (void *)c->data;
		iov[n].iov_len = c->len;
		end += c->len;
	}
	return n;
}

static void *writer_main(void *arg)
{
	struct imgout_async *a = arg;
	struct iovec iov[WRITE_BATCH];
	uint64_t off, fail_off = 0;
	int e, n;

	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->stop && (a->written == a->queued || failed(a))) {
			a->idle = 1;
			pthread_cond_wait(&a->wake, &a->lock);
			a->idle = 0;
		}
		if (a->stop)
			break;
		n = next_run(a, iov, &off);
		pthread_mutex_unlock(&a->lock);
		e = write_run(a->fd, a->base, iov, n, off, &fail_off);
		pthread_mutex_lock(&a->lock);
		if (e != 0) {
			a->fail_errno = e;
			a->fail_off = fail_off;
		} else {
			a->written += (uint64_t)n;
		}
		/* The owner and proof workers (imgout_wait_durable) may wait. */
		pthread_cond_broadcast(&a->progress);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int imgout_start_async(struct imgout *o, size_t max_chunks)
{
	struct imgout_async *a = calloc(1, sizeof(*a));

	if (a != NULL)
		a->ring = calloc(max_chunks, sizeof(a->ring[0]));
	if (a == NULL || a->ring == NULL) {
		free(a);
		return sqp_err(o->err, SQP_ERR_NOMEM, "out of memory");
	}
	a->cap = max_chunks;
	a->fd = o->fd;
	a->base = o->base;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->wake, NULL);
	pthread_cond_init(&a->progress, NULL);
	if (pthread_create(&a->thread, NULL, writer_main, a) != 0) {
		pthread_cond_destroy(&a->progress);
		pthread_cond_destroy(&a->wake);
		pthread_mutex_destroy(&a->lock);
		free(a->ring);
		free(a);
		return sqp_err(o->err, SQP_ERR_NOMEM, "cannot start the image writer thread");
	}
	o->async = a;
	return 0;
}

void imgout_stop_async(struct imgout *o)
{
	struct imgout_async *a = o->async;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_signal(&a->wake);
	pthread_cond_broadcast(&a->progress);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	pthread_cond_destroy(&a->progress);
	pthread_cond_destroy(&a->wake);
	pthread_mutex_destroy(&a->lock);
	free(a->ring);
	free(a);
	o->async = NULL;
}

/* With the lock held: 1 if the caller must signal wake to get at least
 * min waiting chunks written (imgout_queue signals after unlocking; the
 * waits, which sleep at once, under the lock). Clearing idle here keeps
 * a second caller from signalling the same sleep again. */
static int need_wake(struct imgout_async *a, uint64_t min)
{
	if (!a->idle || failed(a) || a->queued - a->written < min)
		return 0;
	a->idle = 0;
	return 1;
}

/* Called with the lock held after the thread failed: latch its error. */
static int latch_failure(struct imgout *o, const struct imgout_async *a)
{
	return sqp_err(o->err, sqp_errno_code(a->fail_errno),
		       "writing the image at offset %llu: %s",
		       (unsigned long long)a->fail_off, strerror(a->fail_errno));
}

int imgout_queue(struct imgout *o, const void *data, size_t len, void *token)
{
	struct imgout_async *a = o->async;
	struct imgout_chunk *c;
	int ret, wake;

	/* Buffered bytes come first in the image: write them now. */
	ret = imgout_flush_buffer(o);
	if (ret != 0)
		return ret;
	pthread_mutex_lock(&a->lock);
	if (a->queued - a->reaped >= a->cap) {
		pthread_mutex_unlock(&a->lock);
		return sqp_err(o->err, SQP_ERR_INTERNAL, "image writer queue overrun");
	}
	c = &a->ring[a->queued % a->cap];
	c->data = data;
	c->len = len;
	c->off = o->pos;
	c->token = token;
	a->queued++;
	wake = need_wake(a, WAKE_BATCH);
	pthread_mutex_unlock(&a->lock);
	if (wake)
		pthread_cond_signal(&a->wake);
	o->pos += len;
	o->flushed = o->pos;
	return 0;
}

int imgout_reap(struct imgout *o, int wait, void **token)
{
	struct imgout_async *a = o->async;
	int ret = 0;

	*token = NULL;
	if (a == NULL)
		return 0;
	pthread_mutex_lock(&a->lock);
	if (wait && a->reaped == a->written && need_wake(a, 1))
		pthread_cond_signal(&a->wake);
	while (wait && a->reaped == a->written && a->written < a->queued && !failed(a))
		pthread_cond_wait(&a->progress, &a->lock);
	if (a->reaped < a->written) {
		*token = a->ring[a->reaped++ % a->cap].token;
		ret = 1;
	} else if (failed(a)) {
		ret = latch_failure(o, a);
	}
	pthread_mutex_unlock(&a->lock);
	return ret;
}

/* With the lock held: a queued chunk that starts below end is not
 * written yet. */
static int unwritten_below(const struct imgout_async *a, uint64_t end)
{
	return a->written < a->queued && a->ring[a->written % a->cap].off < end;
}

/* With the lock held: wait until the chunks below end are written, the
 * thread failed or it was told to stop. */
static void wait_below(struct imgout_async *a, uint64_t end)
{
	if (unwritten_below(a, end) && need_wake(a, 1))
		pthread_cond_signal(&a->wake);
	while (unwritten_below(a, end) && !failed(a) && !a->stop)
		pthread_cond_wait(&a->progress, &a->lock);
}

int imgout_wait_durable(struct imgout_async *a, uint64_t end)
{
	int ret = 0;

	if (a == NULL)
		return 0;
	pthread_mutex_lock(&a->lock);
	wait_below(a, end);
	if (a->fail_errno != 0)
		ret = sqp_errno_code(a->fail_errno);
	else if (unwritten_below(a, end))
		ret = SQP_ERR_INTERNAL; /* stopped first */
	pthread_mutex_unlock(&a->lock);
	return ret;
}

int imgout_wait_written(struct imgout *o, uint64_t end)
{
	struct imgout_async *a = o->async;
	int ret = 0;

	if (a == NULL)
		return o->err->code;
	pthread_mutex_lock(&a->lock);
	wait_below(a, end);
	if (failed(a))
		ret = latch_failure(o, a);
	pthread_mutex_unlock(&a->lock);
	return ret != 0 ? ret : o->err->code;
}
