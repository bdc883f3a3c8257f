/* SPDX-License-Identifier: MIT */
/*
 * cache_trim.c - sqpack-fuse's cache (fuse_cache.c) gives back the
 * pages malloc keeps free after evictions. Entries below its mapping
 * size (small files, tails, listings) are malloc'd in the arena of the
 * thread that loads them and freed into it by whichever thread evicts
 * them; an arena keeps what is freed below the last block still in use
 * in it. Here THREADS threads, alive together (an arena each), load in
 * turn twice the budget each and keep one small block after it, as the
 * daemon's loop threads do: untrimmed, every arena keeps about a
 * budget resident (9.8 MiB with a 2 MiB cache); trimmed, the process
 * grows by about one. Run by threads.sh. Exit 0, 1 with the reasons on
 * stderr, or 77 where the allocator is not glibc's (a sanitizer's keeps
 * freed memory apart).
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuse_cache.h"

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define BUDGET (2u << 20)
#define SLAB (128u << 10)
#define THREADS 8
#define LOADS 64u       /* a thread's, of about 70 KiB: below SLAB */

struct run {
	struct fuse_cache *c;
	pthread_mutex_t lock;
	pthread_cond_t turn;
	unsigned done;          /* threads whose loads are over */
	int over, bad;          /* all done: the threads may end */
	void *kept[THREADS];
};

struct arg {
	struct run *r;
	unsigned k;
};

static int load(void *user, uint64_t ref, uint64_t idx, const void *arg,
		struct fc_load *out)
{
	struct run *r = user;
	size_t len = (64u << 10) + (size_t)(idx % 16) * 1000;

	(void)ref;
	(void)arg;
	if (fc_buffer(r->c, len, out) != 0)
		return -12;
	memset(out->data, 1, len);
	out->len = len;
	return 0;
}

/* Thread k's turn: its loads, a block kept after them, then waiting
 * alive (keeping its arena its own) until every turn is over. */
static void *turn(void *p)
{
	struct arg *a = p;
	struct run *r = a->r;
	int bad = 0;

	for (uint64_t i = 0; i < LOADS; i++) {
		struct fc_entry *e;

		if (fc_get(r->c, 1, a->k * LOADS + i, NULL, &e) != 0)
			bad = 1;
		fc_put(r->c, e);
	}
	if ((r->kept[a->k] = malloc(64)) != NULL)
		memset(r->kept[a->k], 2, 64);
	pthread_mutex_lock(&r->lock);
	r->bad |= bad || r->kept[a->k] == NULL;
	r->done++;
	pthread_cond_broadcast(&r->turn);
	while (!r->over)
		pthread_cond_wait(&r->turn, &r->lock);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* The process's resident bytes, or -1. */
static long resident(void)
{
	long pages = -1;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return -1;
	if (fscanf(f, "%*s %ld", &pages) != 1)
		pages = -1;
	fclose(f);
	return pages < 0 ? -1 : pages * sysconf(_SC_PAGESIZE);
}

int main(void)
{
	struct run r = { .lock = PTHREAD_MUTEX_INITIALIZER,
			 .turn = PTHREAD_COND_INITIALIZER };
	struct arg args[THREADS];
	pthread_t t[THREADS];
	unsigned started = 0;
	long before, after;

	if (fc_create(BUDGET, SLAB, load, &r, &r.c) != 0) {
		fprintf(stderr, "cache_trim: no cache\n");
		return 1;
	}
	before = resident();
	for (; started < THREADS; started++) {
		args[started] = (struct arg){ &r, started };
		if (pthread_create(&t[started], NULL, turn,
				   &args[started]) != 0) {
			r.bad = 1;
			break;
		}
		pthread_mutex_lock(&r.lock);
		while (r.done < started + 1)
			pthread_cond_wait(&r.turn, &r.lock);
		pthread_mutex_unlock(&r.lock);
	}
	after = resident();
	pthread_mutex_lock(&r.lock);
	r.over = 1;
	pthread_cond_broadcast(&r.turn);
	pthread_mutex_unlock(&r.lock);
	for (unsigned k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	if (r.bad)
		fprintf(stderr, "cache_trim: a load or a thread failed\n");
	/* Kept: the budget, what was freed since the last trim (a quarter
	 * of it), the bookkeeping. */
	if (before < 0 || after < 0 || after - before > 2 * (long)BUDGET) {
		fprintf(stderr, "cache_trim: resident memory grew by %ld KiB "
			"with a cache of %u KiB\n", (after - before) >> 10,
			BUDGET >> 10);
		r.bad = 1;
	}
	fc_destroy(r.c);
	for (unsigned k = 0; k < THREADS; k++)
		free(r.kept[k]);
	return r.bad;
}
#else
int main(void)
{
	puts("not glibc's allocator");
	return 77;
}
#endif
