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
 * grows by about one.
 * cache_trim big: a 128 MiB budget, loaded once and 24 MiB more: what
 * is freed is trimmed every 16 MiB at most, not every quarter of the
 * budget (32 MiB: none here, the 24 MiB kept), so the process grows by
 * at most the budget and 16 MiB.
 * Run by threads.sh. Exit 0, 1 with the reasons on stderr, or 77 where
 * the allocator is not glibc's (a sanitizer's keeps freed memory
 * apart).
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
#define BIG (128u << 20)
#define SLAB (128u << 10)
#define THREADS 8
#define LOADS 64u       /* a thread's, of about 70 KiB: below SLAB */
#define AVG_LOAD ((64u << 10) + 7500)

struct run {
	struct fuse_cache *c;
	uint64_t loads;         /* each thread's */
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

	for (uint64_t i = 0; i < r->loads; i++) {
		struct fc_entry *e;

		if (fc_get(r->c, 1, a->k * r->loads + i, NULL, &e) != 0)
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

int main(int argc, char **argv)
{
	struct run r = { .lock = PTHREAD_MUTEX_INITIALIZER,
			 .turn = PTHREAD_COND_INITIALIZER, .loads = LOADS };
	struct arg args[THREADS];
	pthread_t t[THREADS];
	unsigned started = 0;
	int big = argc > 1 && strcmp(argv[1], "big") == 0;
	size_t budget = big ? BIG : BUDGET;
	long before, after, most;

	if (big)
		r.loads = (BIG + (24u << 20)) / THREADS / AVG_LOAD;
	if (fc_create(budget, SLAB, load, &r, &r.c) != 0) {
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
	 * of it, 16 MiB at most), the bookkeeping. */
	most = big ? (long)BIG + (16l << 20) : 2 * (long)BUDGET;
	if (before < 0 || after < 0 || after - before > most) {
		fprintf(stderr, "cache_trim: resident memory grew by %ld KiB "
			"with a cache of %zu KiB (%ld KiB at most)\n",
			(after - before) >> 10, budget >> 10, most >> 10);
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
