/* SPDX-License-Identifier: MIT */
/*
 * fuse_ahead.c - the prefetch of fuse_ahead.h: a ring of chunks to
 * load under one mutex, and loader threads that take them in order and
 * get each from the cache with what its reply needs (which the cache
 * loads through the pool when it is missing, once however many ask) and
 * put it back at once.
 *
 * A read follows on when it starts in the chunk the previous one ended
 * in or in the next: the kernel splits a read of a 1 MiB chunk into
 * several, and its parallel reads may come a little out of order. Two
 * in a row start the prefetch; a jump resets it, so random reads (a
 * database, an AppImage's libraries) cost nothing more.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>

#include "fuse_ahead.h"

/* Chunks kept queued at most; each names a chunk, not its bytes. */
#define RING 128
/* The window: this many bytes ahead of the reader, within the chunk
 * counts below, and a quarter of the cache at most. */
#define WINDOW_BYTES (4u << 20)
#define WINDOW_MIN 2
#define WINDOW_MAX 32

struct job {
	uint64_t ref, idx, size;
};

/* The states of files read without an open file: a few, as readers
 * in order at once are (one a thread of the loop, about), in sets of
 * WAYS found by the file's hash. A file new to its set takes the way
 * used least lately: two readers whose files meet in a set keep a way
 * each (with one slot a hash, they reset each other's state at every
 * read, and neither was ever prefetched for). */
#define SET_BITS 4
#define SETS (1u << SET_BITS)
#define WAYS 4
struct slot {
	struct ahead_seq seq;
	uint64_t ref;
	uint64_t used;              /* the set's tick at its last read */
};
struct slot_set {
	pthread_mutex_t lock;
	uint64_t tick;
	struct slot way[WAYS];
};

struct ahead {
	pthread_mutex_t lock;
	pthread_cond_t more;
	struct job ring[RING];
	unsigned head, count;
	int stop;
	ahead_load_fn load;
	void *user;
	uint32_t chunk;
	uint64_t window;            /* chunks */
	/* Loaders asked for, and started: by the first prefetch, not at
	 * mount, so a mount costs no threads until a file is read in
	 * order (what a mount costs until ready is squashfuse's). */
	unsigned want, threads;
	struct slot_set set[SETS];
	pthread_t tid[];
};

static void *loader(void *arg)
{
	struct ahead *a = arg;
	sigset_t all;

	/* SIGTERM and the like are the loop's: they end it only when a
	 * thread of it takes them (fuse_set_signal_handlers). */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&a->lock);
	for (;;) {
		struct job j;

		while (a->count == 0 && !a->stop)
			pthread_cond_wait(&a->more, &a->lock);
		if (a->stop)
			break;
		j = a->ring[a->head];
		a->head = (a->head + 1) % RING;
		a->count--;
		pthread_mutex_unlock(&a->lock);
		a->load(a->user, j.ref, j.idx, j.size);
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

int ahead_create(ahead_load_fn load, void *user, unsigned threads,
		 uint32_t chunk, uint64_t budget, struct ahead **out)
{
	uint64_t window = WINDOW_BYTES / chunk;
	struct ahead *a;

	*out = NULL;
	if (window < WINDOW_MIN)
		window = WINDOW_MIN;
	if (window > WINDOW_MAX)
		window = WINDOW_MAX;
	if (window > budget / 4 / chunk)
		window = budget / 4 / chunk;
	if (threads == 0 || window == 0)
		return 0;       /* a cache too small to hold a window */
	if ((a = calloc(1, sizeof(*a) + threads * sizeof(a->tid[0]))) == NULL)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->more, NULL);
	a->load = load;
	a->user = user;
	for (unsigned i = 0; i < SETS; i++) {
		pthread_mutex_init(&a->set[i].lock, NULL);
		for (unsigned w = 0; w < WAYS; w++)
			a->set[i].way[w].ref = UINT64_MAX;
	}
	a->chunk = chunk;
	a->window = window;
	a->want = threads;
	*out = a;
	return 0;
}

/* With a->lock held: the loaders not started yet. One that cannot be
 * started is not asked for again: fewer loaders still prefetch, and
 * none leaves the queue to fill up and drop what comes. */
static void start(struct ahead *a)
{
	for (; a->threads < a->want; a->threads++)
		if (pthread_create(&a->tid[a->threads], NULL, loader, a) != 0) {
			a->want = a->threads;
			break;
		}
}

void ahead_destroy(struct ahead *a)
{
	if (a == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = 1;
	pthread_cond_broadcast(&a->more);
	pthread_mutex_unlock(&a->lock);
	for (unsigned i = 0; i < a->threads; i++)
		pthread_join(a->tid[i], NULL);
	for (unsigned i = 0; i < SETS; i++)
		pthread_mutex_destroy(&a->set[i].lock);
	pthread_cond_destroy(&a->more);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

void ahead_file_init(struct ahead_file *f, uint64_t size)
{
	pthread_mutex_init(&f->lock, NULL);
	f->size = size;
	f->seq = (struct ahead_seq){ 0 };
}

void ahead_file_destroy(struct ahead_file *f)
{
	pthread_mutex_destroy(&f->lock);
}

/* With f guarded: a read of chunks first..last of a file of chunks
 * chunks. 1 with the chunks to queue, from..to, or 0. */
static int follow(const struct ahead *a, struct ahead_seq *f,
		  uint64_t chunks, uint64_t first, uint64_t last,
		  uint64_t *from, uint64_t *to)
{
	if (first == f->next || first + 1 == f->next) {
		f->streak += f->streak < 2;
	} else {
		f->streak = 0;
		f->queued = 0;
	}
	f->next = last + 1;
	*from = f->queued > last + 1 ? f->queued : last + 1;
	*to = last + a->window < chunks ? last + a->window + 1 : chunks;
	if (f->streak < 2 || *from >= *to)
		return 0;
	f->queued = *to;
	return 1;
}

/* With set's lock held: the way of file ref, taken from the one used
 * least lately when it has none. */
static struct ahead_seq *way_of(struct slot_set *set, uint64_t ref)
{
	struct slot *sl = &set->way[0];

	for (unsigned w = 0; w < WAYS; w++) {
		if (set->way[w].ref == ref) {
			sl = &set->way[w];
			break;
		}
		if (set->way[w].used < sl->used)
			sl = &set->way[w];
	}
	if (sl->ref != ref) {
		sl->ref = ref;
		sl->seq = (struct ahead_seq){ 0 };
	}
	sl->used = ++set->tick;
	return &sl->seq;
}

void ahead_read(struct ahead *a, struct ahead_file *f, uint64_t ref,
		uint64_t size, uint64_t first, uint64_t last)
{
	uint64_t from, to, chunks;
	int go;

	if (a == NULL)
		return;
	chunks = (size + a->chunk - 1) / a->chunk;
	if (f == NULL) {
		struct slot_set *set =
			&a->set[(ref * 0x9E3779B97F4A7C15u) >> (64 - SET_BITS)];

		pthread_mutex_lock(&set->lock);
		go = follow(a, way_of(set, ref), chunks, first, last, &from,
			    &to);
		pthread_mutex_unlock(&set->lock);
	} else {
		pthread_mutex_lock(&f->lock);
		go = follow(a, &f->seq, chunks, first, last, &from, &to);
		pthread_mutex_unlock(&f->lock);
	}
	if (!go)
		return;
	pthread_mutex_lock(&a->lock);
	if (a->threads < a->want)
		start(a);
	for (uint64_t i = from; i < to && a->count < RING; i++) {
		a->ring[(a->head + a->count) % RING] = (struct job){
			.ref = ref, .idx = i, .size = size };
		a->count++;
	}
	pthread_cond_broadcast(&a->more);
	pthread_mutex_unlock(&a->lock);
}
