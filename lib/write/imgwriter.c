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
 * Ranges of other files (imgout_copy's, a run of joined ones each) wait
 * in a queue of their own, each with a duplicate of its file descriptor,
 * and the thread copies them in the kernel: the orchestrator goes on
 * with the next files while a shard's data is copied. The thread takes
 * chunks and copies in the order of their offsets (each queue is in that
 * order), so the first failure, where it stops, is the same whatever the
 * timing.
 *
 * Waking a sleeping thread costs the owner a context switch, often two:
 * on a busy machine the woken thread takes the owner's core at once. So
 * an idle thread is woken only once WAKE_BATCH chunks wait, or when the
 * owner is about to wait for it (reap, wait_written, stop); a thread that
 * is writing picks new chunks up by itself.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

/* A range of another file to copy: len bytes at src of fd (a duplicate
 * the queue owns) to image position off. */
struct imgout_copyjob {
	int fd;
	uint64_t src, off, len;
};

/* Copies queued at most: the owner waits for the oldest beyond. */
#define COPY_SLOTS 4

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
	struct imgout_copyjob copies[COPY_SLOTS];
	uint64_t copies_queued, copies_done;
	struct sqp_copier copier;  /* the thread's */
	int copy_fail;             /* 0, or the error of the copy at fail_off */
	uint64_t fail_src, fail_len; /* that copy's */
};

/* With the lock held: the thread stopped on an error. */
static int failed(const struct imgout_async *a)
{
	return a->fail_errno != 0 || a->copy_fail != 0;
}

/* With the lock held: whether the thread has nothing to do. */
static int all_done(const struct imgout_async *a)
{
	return a->written == a->queued && a->copies_done == a->copies_queued;
}

/* With the lock held: whether the oldest copy comes before the oldest
 * chunk in the image. */
static int copy_first(const struct imgout_async *a)
{
	return a->copies_done < a->copies_queued &&
	       (a->written == a->queued ||
		a->copies[a->copies_done % COPY_SLOTS].off < a->ring[a->written % a->cap].off);
}

/* With the lock held: the oldest copy made, the lock released meanwhile. */
static void run_copy_job(struct imgout_async *a)
{
	struct imgout_copyjob j = a->copies[a->copies_done % COPY_SLOTS];
	int ret;

	pthread_mutex_unlock(&a->lock);
	ret = sqp_copy_range(&a->copier, j.fd, j.src, a->fd, a->base + j.off, j.len);
	if (ret == 0)
		close(j.fd);
	pthread_mutex_lock(&a->lock);
	if (ret != 0) {
		a->copy_fail = ret;   /* its fd is closed with the queue's */
		a->fail_off = j.off;
		a->fail_src = j.src;
		a->fail_len = j.len;
	} else {
		a->copies_done++;
	}
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
		while (!a->stop && (all_done(a) || failed(a))) {
			a->idle = 1;
			pthread_cond_wait(&a->wake, &a->lock);
			a->idle = 0;
		}
		if (a->stop)
			break;
		if (copy_first(a)) {
			run_copy_job(a);
			pthread_cond_broadcast(&a->progress);
			continue;
		}
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
	for (; a->copies_done < a->copies_queued; a->copies_done++)
		close(a->copies[a->copies_done % COPY_SLOTS].fd);
	sqp_copier_cleanup(&a->copier);
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
	if (!a->idle || failed(a) ||
	    a->queued - a->written + (a->copies_queued - a->copies_done) < min)
		return 0;
	a->idle = 0;
	return 1;
}

/* Called with the lock held after the thread failed: latch its error. */
static int latch_failure(struct imgout *o, const struct imgout_async *a)
{
	if (a->copy_fail != 0)
		return imgout_copy_failed(o, a->copy_fail, a->fail_len, a->fail_src,
					  a->fail_off);
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

int imgout_queue_copy(struct imgout *o, int fd, uint64_t src, uint64_t len)
{
	struct imgout_async *a = o->async;
	int dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0), wake = 0, ret = 0;

	if (dup_fd < 0)
		return 1;   /* no descriptor to spare: the caller copies */
	pthread_mutex_lock(&a->lock);
	while (a->copies_queued - a->copies_done >= COPY_SLOTS && !failed(a) && !a->stop)
		pthread_cond_wait(&a->progress, &a->lock);
	if (failed(a) || a->stop) {
		ret = failed(a) ? latch_failure(o, a) :
		      sqp_err(o->err, SQP_ERR_INTERNAL, "image writer stopped");
	} else {
		a->copies[a->copies_queued++ % COPY_SLOTS] =
			(struct imgout_copyjob){ dup_fd, src, o->flushed, len };
		/* a copy is work enough to wake the thread for */
		wake = a->idle;
		a->idle = 0;
	}
	pthread_mutex_unlock(&a->lock);
	if (ret != 0) {
		close(dup_fd);
		return ret;
	}
	if (wake)
		pthread_cond_signal(&a->wake);
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
	return (a->written < a->queued && a->ring[a->written % a->cap].off < end) ||
	       (a->copies_done < a->copies_queued &&
		a->copies[a->copies_done % COPY_SLOTS].off < end);
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
	else if (a->copy_fail != 0)
		ret = a->copy_fail;
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
