/* SPDX-License-Identifier: MIT */
/*
 * readers.c - reader threads that open and read files ahead of the feed.
 *
 * Files are numbered in feed order; reader threads claim them in that
 * order into a ring of slots. A small file (up to READ_WHOLE_MAX) is read
 * whole into memory; a larger one is only opened (and its attributes and
 * xattrs read), and the writer's thread streams it. Memory is bounded: a
 * file is claimed only while the bytes held by unconsumed slots stay within
 * the budget (or nothing is held, so one file always fits) and at most
 * MAX_STREAMS large files are open. The feed takes slots strictly in
 * order, so which thread read a file never changes the image.
 *
 * Lock: s->lock protects the ring (every slot's state), next_claim,
 * consumed, inflight, open_streams, readers_idle and stop. A slot's other
 * fields belong to the reader that claimed it until it is READY, then to
 * the feed.
 *
 * Wake-ups: readers that ran out of room sleep until a batch of room is
 * back (half the slots and half the budget free), not until the next
 * release: woken per file, they took the feed's core on every file
 * (rootfs-big: some 9,000 context switches, the feed preempted after
 * each release). The feed wakes them at once when it is about to wait
 * for a file nobody has claimed, so a short window never stalls it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dir/dir_impl.h"
#include "util/pool.h"

#define READ_WHOLE_MAX (256u << 10)
#define MAX_STREAMS 8
#define SLOTS 1024
#define DEFAULT_BUDGET (32u << 20)

/* Read the rest of fd into buf (cap bytes); *got is what was read. */
static int read_all(int fd, uint8_t *buf, size_t cap, size_t *got)
{
	ssize_t n;

	*got = 0;
	while (*got < cap) {
		n = read(fd, buf + *got, cap - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			break;
		*got += (size_t)n;
	}
	return 0;
}

static int same_file_state(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* A small file, whole: its size is asked for, one read, and the fstat
 * after it shows growth (a larger size) as a short read shows shrinking.
 * Asking one byte more cost every file a second read() that found its
 * end (rootfs-small: 5,227 of the 10,448 reads). A file of size 0 is
 * asked for a byte: files of /proc and /sys say 0 and have bytes. Only
 * what a short read left is zeroed (a file stored as read keeps zeros
 * for its missing bytes): zeroing the whole buffer first cost a pass
 * over every byte read. */
static void read_small(struct rslot *sl)
{
	size_t want = sl->size > 0 ? (size_t)sl->size : 1;
	struct stat after;
	size_t got;

	sl->buf = malloc(want);
	if (sl->buf == NULL) {
		sl->err = ENOMEM;
		return;
	}
	sl->err = read_all(sl->fd, sl->buf, want, &got);
	memset(sl->buf + got, 0, want - got);
	if (sl->err == 0 && (got != sl->size || fstat(sl->fd, &after) != 0 ||
			     !same_file_state(&sl->st, &after)))
		sl->changed = 1;
	close(sl->fd);
	sl->fd = -1;
}

/* Everything a reader does for one file, outside the lock. */
static void read_one(struct sqp_dirscan *s, struct rslot *sl)
{
	const struct dnode *n = &s->nodes[sl->node];

	sl->fd = openat(s->roots[n->root].fd, dnode_disk_path(s, n),
			O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (sl->fd < 0) {
		sl->err = errno;
		return;
	}
	if (fstat(sl->fd, &sl->st) != 0 || !S_ISREG(sl->st.st_mode)) {
		/* replaced by another type since the scan: the file is gone */
		sl->err = S_ISREG(sl->st.st_mode) ? errno : ENOENT;
		close(sl->fd);
		sl->fd = -1;
		return;
	}
	sl->size = (uint64_t)sl->st.st_size;
	sl->sparse = (uint64_t)sl->st.st_blocks * 512 < sl->size;
	if (!(s->desc.flags & SQP_DIRSCAN_NO_XATTRS)) {
		sl->err = dir_read_xattrs(sl->fd, NULL, &sl->xa);
		if (sl->err != 0)
			return;
	}
	/* a file that grew past the limit since the scan is streamed too */
	if (!sl->streamed && sl->size <= READ_WHOLE_MAX)
		read_small(sl);
	else
		posix_fadvise(sl->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
}

/* Under the lock: may the next file be claimed now? */
static int can_claim(const struct sqp_dirscan *s)
{
	uint64_t size;

	if (s->next_claim >= s->file_count || s->next_claim - s->consumed >= s->slot_count)
		return 0;
	size = s->nodes[s->files[s->next_claim]].size;
	if (size > READ_WHOLE_MAX)
		return s->open_streams < MAX_STREAMS;
	return s->inflight == 0 || s->inflight + size <= s->desc.memory;
}

static void *reader_main(void *arg)
{
	struct sqp_dirscan *s = arg;
	struct rslot *sl;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->stop && !can_claim(s)) {
			s->readers_idle++;
			pthread_cond_wait(&s->wake_readers, &s->lock);
			s->readers_idle--;
		}
		if (s->stop)
			break;
		sl = &s->slots[s->next_claim % s->slot_count];
		memset(sl, 0, sizeof(*sl));
		sl->state = SLOT_BUSY;
		sl->fd = -1;
		sl->node = s->files[s->next_claim++];
		if (s->nodes[sl->node].size > READ_WHOLE_MAX) {
			sl->streamed = 1;
			s->open_streams++;
		} else {
			sl->charged = s->nodes[sl->node].size;
			s->inflight += sl->charged;
		}
		pthread_mutex_unlock(&s->lock);
		read_one(s, sl);
		pthread_mutex_lock(&s->lock);
		sl->state = SLOT_READY;
		pthread_cond_broadcast(&s->wake_feeder);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int readers_start(struct sqp_dirscan *s)
{
	unsigned i, want = s->desc.readers ? s->desc.readers : sqp_cpu_count();

	if (s->desc.memory == 0)
		s->desc.memory = DEFAULT_BUDGET;
	s->slot_count = SLOTS;
	s->slots = calloc(s->slot_count, sizeof(*s->slots));
	s->threads = calloc(want, sizeof(*s->threads));
	if (s->slots == NULL || s->threads == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; i < want; i++) {
		if (pthread_create(&s->threads[i], NULL, reader_main, s) != 0)
			break;
		s->thread_count++;
	}
	if (s->thread_count == 0)
		return dir_fail(s, SQP_ERR_NOMEM, "cannot start a reader thread");
	return 0;
}

struct rslot *readers_take(struct sqp_dirscan *s, size_t i)
{
	struct rslot *sl = &s->slots[i % s->slot_count];

	pthread_mutex_lock(&s->lock);
	/* A file no reader has claimed: wake them rather than wait for a
	 * batch of room (see the top). */
	if (i >= s->next_claim && s->readers_idle > 0)
		pthread_cond_broadcast(&s->wake_readers);
	while (i >= s->next_claim || sl->state != SLOT_READY)
		pthread_cond_wait(&s->wake_feeder, &s->lock);
	pthread_mutex_unlock(&s->lock);
	return sl;
}

/* Under the lock: the slot's resources go back to the budget. */
static void free_slot(struct sqp_dirscan *s, struct rslot *sl)
{
	if (sl->fd >= 0)
		close(sl->fd);
	free(sl->buf);
	dir_free_xattrs(&sl->xa);
	if (sl->streamed)
		s->open_streams--;
	s->inflight -= sl->charged;
	sl->state = SLOT_FREE;
	sl->fd = -1;
	sl->buf = NULL;
}

void readers_release(struct sqp_dirscan *s, struct rslot *sl)
{
	pthread_mutex_lock(&s->lock);
	free_slot(s, sl);
	s->consumed++;   /* only now may a reader reuse this slot */
	if (s->readers_idle > 0 && can_claim(s) &&
	    s->next_claim - s->consumed <= s->slot_count / 2 &&
	    s->inflight <= s->desc.memory / 2)
		pthread_cond_broadcast(&s->wake_readers);
	pthread_mutex_unlock(&s->lock);
}

void readers_stop(struct sqp_dirscan *s)
{
	unsigned i;
	size_t f;

	if (s->threads == NULL)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = 1;
	pthread_cond_broadcast(&s->wake_readers);
	pthread_mutex_unlock(&s->lock);
	for (i = 0; i < s->thread_count; i++)
		pthread_join(s->threads[i], NULL);
	/* slots read ahead but never fed (the feed failed) */
	for (f = s->consumed; f < s->next_claim; f++)
		free_slot(s, &s->slots[f % s->slot_count]);
	free(s->threads);
	s->threads = NULL;
	s->thread_count = 0;
}
