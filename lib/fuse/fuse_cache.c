/* SPDX-License-Identifier: MIT */
/*
 * fuse_cache.c - the shared cache of fuse_cache.h: a hash table of
 * entries under one mutex, a list of the unused ones in the order they
 * were last put back, and one condition variable that wakes those
 * waiting for a load.
 *
 * The mutex is held only to find, pin and unpin: loaders run without it,
 * so threads decode different blocks at the same time. An entry being
 * loaded is in the table (state LOADING) so a second get of its key
 * waits for it instead of loading it again. Each entry counts its bytes
 * and its own size against the budget, so a million small listings are
 * bounded as a few large blocks are. The spare mappings count too:
 * the entries kept are the budget less the spares. What the entries
 * malloc'd leave free in malloc's arenas is given back now and then
 * (trim_due), so the process stays within about the budget too.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "fuse_cache.h"

enum { LOADING, READY, FAILED };

struct fc_entry {
	struct fc_entry *hnext;         /* hash chain */
	struct fc_entry *prev, *next;   /* unused list, when refs == 0 */
	uint64_t ref, idx;
	int state, err;
	unsigned refs, kind;
	size_t mapped;                  /* data is a mapping of these bytes */
	size_t len;
	uint8_t *data;
};

/* Mappings kept for the next loads, at most: one a load in flight (the
 * loop's threads and the prefetchers) is about what a cache under a
 * steady stream of misses takes back before the next evictions. */
#define FC_SPARES 16

/* An evicted entry's mapping, kept to be filled again. */
struct fc_spare {
	uint8_t *data;
	size_t size;
};

struct fuse_cache {
	pthread_mutex_t lock;
	pthread_cond_t loaded;
	struct fc_entry **buckets;
	size_t mask;
	size_t count, most;             /* entries hashed; buckets at most */
	size_t budget, used;            /* bytes of the entries in the table
					 * and of the spares */
	size_t slab;                    /* fc_slab's size */
	size_t page;
	struct fc_spare spare[FC_SPARES]; /* evicted entries' mappings,
					   * the oldest first */
	unsigned spares;
	size_t spare_bytes;
	size_t freed;                   /* bytes given back to malloc since
					 * the last trim (trim_due) */
	struct fc_entry lru;            /* list head: lru.next is the oldest */
	fc_load_fn load;
	void *user;
};

static size_t cost(const struct fc_entry *e)
{
	return (e->mapped ? e->mapped : e->len) + sizeof(*e);
}

/* The table's first size: a page of bucket pointers. */
#define FC_FIRST_BUCKETS 512

static size_t bucket(const struct fuse_cache *c, uint64_t ref, uint64_t idx)
{
	uint64_t h = (ref ^ (idx * 0x9E3779B97F4A7C15u)) * 0xFF51AFD7ED558CCDu;

	return (size_t)(h >> 32) & c->mask;
}

int fc_create(size_t budget, size_t slab, fc_load_fn load, void *user,
	      struct fuse_cache **out)
{
	struct fuse_cache *c = calloc(1, sizeof(*c));
	size_t most = 1024;

	*out = NULL;
	if (c == NULL)
		return -ENOMEM;
	/* At most about one bucket per KiB of budget: chains stay short
	 * for small entries, the table stays small beside what it indexes.
	 * It starts at one page and doubles as entries come (grow): a
	 * mount that serves a few lookups touches no more of it, and its
	 * pages are not faulted in before it is ready. */
	while (most < budget / 1024 && most < ((size_t)1 << 20))
		most *= 2;
	c->most = most;
	c->buckets = calloc(FC_FIRST_BUCKETS, sizeof(*c->buckets));
	if (c->buckets == NULL) {
		free(c);
		return -ENOMEM;
	}
	c->mask = FC_FIRST_BUCKETS - 1;
	c->budget = budget;
	c->slab = slab;
	c->page = sysconf(_SC_PAGESIZE) > 0 ? (size_t)sysconf(_SC_PAGESIZE) :
		  4096;
	c->lru.next = c->lru.prev = &c->lru;
	c->load = load;
	c->user = user;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->loaded, NULL);
	*out = c;
	return 0;
}

static void unhash(struct fuse_cache *c, struct fc_entry *e)
{
	struct fc_entry **p = &c->buckets[bucket(c, e->ref, e->idx)];

	while (*p != e)
		p = &(*p)->hnext;
	*p = e->hnext;
	c->count--;
}

/* e into the table, which doubles (its chains moved) when its entries
 * are twice its buckets, up to c->most; without memory for that, the
 * chains grow longer instead. */
static void hash(struct fuse_cache *c, struct fc_entry *e)
{
	size_t n = c->mask + 1, at;
	struct fc_entry **old = c->buckets, **b;

	if (++c->count > 2 * n && n < c->most &&
	    (b = calloc(2 * n, sizeof(*b))) != NULL) {
		c->buckets = b;
		c->mask = 2 * n - 1;
		for (size_t i = 0; i < n; i++)
			while (old[i] != NULL) {
				struct fc_entry *m = old[i];

				at = bucket(c, m->ref, m->idx);
				old[i] = m->hnext;
				m->hnext = b[at];
				b[at] = m;
			}
		free(old);
	}
	at = bucket(c, e->ref, e->idx);
	e->hnext = c->buckets[at];
	c->buckets[at] = e;
}

static void lru_unlink(struct fc_entry *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
}

static void data_free(uint8_t *data, size_t mapped)
{
	if (mapped)
		munmap(data, mapped);
	else
		free(data);
}

static void entry_free(struct fc_entry *e)
{
	data_free(e->data, e->mapped);
	free(e);
}

/* Spare i out of the list (and out of the bytes counted), for a load
 * to fill or to be unmapped. */
static struct fc_spare spare_take(struct fuse_cache *c, unsigned i)
{
	struct fc_spare got = c->spare[i];

	c->used -= got.size;
	c->spare_bytes -= got.size;
	c->spares--;
	memmove(&c->spare[i], &c->spare[i + 1],
		(c->spares - i) * sizeof(c->spare[0]));
	return got;
}

static void spare_drop(struct fuse_cache *c, unsigned i)
{
	struct fc_spare got = spare_take(c, i);

	munmap(got.data, got.size);
}

/* e has a mapping no bigger than the spares may be (a quarter of the
 * budget at most, so a small cache still holds entries). */
static int spare_fits(const struct fuse_cache *c, const struct fc_entry *e)
{
	return e->mapped != 0 && e->mapped <= c->budget / 4;
}

/* e's mapping kept as a spare, the oldest spares dropped for it: 1, or
 * 0 where it may not be one. The newest are kept: what the next loads
 * ask is most like what the last ones did. */
static int spare_keep(struct fuse_cache *c, struct fc_entry *e)
{
	if (!spare_fits(c, e))
		return 0;
	while (c->spares == FC_SPARES ||
	       c->spare_bytes + e->mapped > c->budget / 4)
		spare_drop(c, 0);
	c->spare[c->spares++] = (struct fc_spare){ e->data, e->mapped };
	c->spare_bytes += e->mapped;
	c->used += e->mapped;
	return 1;
}

/* Whether malloc's arenas are to be trimmed now (then done unlocked:
 * trim). The entries malloc'd (below FC_MAP_MIN: small files, their
 * tails, listings) are of every size and spread over the threads'
 * arenas, which keep what is freed as holes the next sizes seldom fit.
 * Reading big.tar's tree from its lzma image with 1 MiB pclusters, 8
 * readers, the arenas held 35 MiB free of their 51 MiB at the end,
 * resident, and the daemon's peak RSS passed the cache plus 64 MiB in
 * one run of seven. Trimmed each time a quarter of the budget has been
 * freed, what they keep free and resident stays about that quarter
 * (tests/fuse/cache_trim.c); and at most FC_TRIM_EVERY, since the
 * allowance beside the budget is fixed (the cache plus 64 MiB): with a
 * 128 MiB cache that quarter took the same read to 190 to 193 MiB, 16
 * MiB to 178 and 182. Called locked. */
#define FC_TRIM_EVERY ((size_t)16 << 20)

static int trim_due(struct fuse_cache *c)
{
	if (c->freed < c->budget / 4 && c->freed < FC_TRIM_EVERY)
		return 0;
	c->freed = 0;
	return 1;
}

/* Drop unused entries, oldest first, until the table fits the budget;
 * their mappings become spares. And one more where no spare is left
 * and the oldest's mapping may be one (while the entries keep three quarters
 * of the budget): a load that takes a spare keeps the bytes counted
 * the same, so without it loads would take the spares one after the
 * other and evict nothing until none is left, and every few would map
 * fresh pages. Returns trim_due's answer after the drops. */
static int evict(struct fuse_cache *c)
{
	while (c->lru.next != &c->lru &&
	       (c->used > c->budget ||
		(c->spares == 0 && spare_fits(c, c->lru.next) &&
		 c->used > c->budget - c->budget / 4))) {
		struct fc_entry *e = c->lru.next;

		lru_unlink(e);
		unhash(c, e);
		c->used -= cost(e);
		if (spare_keep(c, e)) {
			free(e);
		} else {
			if (e->mapped == 0)
				c->freed += e->len;
			entry_free(e);
		}
	}
	return trim_due(c);
}

/* The free pages of malloc's arenas given back to the kernel (glibc's
 * malloc_trim: every arena, not only the main one's top). */
static void trim(int due)
{
#ifdef __GLIBC__
	if (due)
		malloc_trim(0);
#else
	(void)due;
#endif
}

/* The size a mapping of n bytes is made: n up to an eighth of its
 * power of two (and whole pages), so that loads of about the same size
 * (EROFS extents, whose decoded sizes vary by the byte) can take each
 * other's spares. Pages past n are never touched by the load that
 * asked for n: they cost no memory until a larger load takes them. */
static size_t map_size(const struct fuse_cache *c, size_t n)
{
	size_t step = 1;

	while (step <= n / 2)
		step *= 2;
	step = step / 8 > c->page ? step / 8 : c->page;
	return n + (step - n % step) % step;
}

/* A mapping of at least n bytes into out: the smallest spare that holds
 * n and wastes at most a quarter of it, else a fresh one. A spare's
 * pages are in memory already: a load that takes one faults in no
 * fresh pages, and its unmapping (a flush of every core's TLB) is
 * spared too. Reading big.tar's tree from the lzma image with 1 MiB
 * pclusters (extents decoded whole, 2.6 MiB on average), fresh
 * mappings cost the daemon 310,000 page faults, a tenth of its CPU.
 * 0, or -1 where the kernel maps no more. */
static int map(struct fuse_cache *c, size_t n, struct fc_load *out)
{
	unsigned best = FC_SPARES;
	struct fc_spare got = { NULL, 0 };
	void *b;

	pthread_mutex_lock(&c->lock);
	/* Of spares of one size the newest, whose pages the caches may
	 * still hold. */
	for (unsigned i = c->spares; i-- > 0;)
		if (c->spare[i].size >= n && c->spare[i].size - n <= n / 4 &&
		    (best == FC_SPARES ||
		     c->spare[i].size < c->spare[best].size))
			best = i;
	if (best != FC_SPARES)
		got = spare_take(c, best);
	pthread_mutex_unlock(&c->lock);
	if (got.data == NULL) {
		got.size = map_size(c, n);
		b = mmap(NULL, got.size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (b == MAP_FAILED)
			return -1;
		got.data = b;
	}
	out->data = got.data;
	out->mapped = got.size;
	return 0;
}

int fc_slab(struct fuse_cache *c, struct fc_load *out)
{
	/* Past the mappings the kernel allows a process (a cache of
	 * millions of slabs), malloc's. */
	if (map(c, c->slab, out) != 0 &&
	    (out->data = malloc(c->slab)) == NULL)
		return -ENOMEM;
	return 0;
}

/* Above this, fc_buffer maps: malloc's own first threshold. */
#define FC_MAP_MIN (128u << 10)

int fc_buffer(struct fuse_cache *c, size_t n, struct fc_load *out)
{
	if (n == c->slab)
		return fc_slab(c, out);
	if (n >= FC_MAP_MIN && map(c, n, out) == 0)
		return 0;
	if ((out->data = malloc(n > 0 ? n : 1)) == NULL)
		return -ENOMEM;
	return 0;
}

void fc_destroy(struct fuse_cache *c)
{
	if (c == NULL)
		return;
	for (size_t i = 0; i <= c->mask; i++) {
		struct fc_entry *e = c->buckets[i], *next;

		for (; e != NULL; e = next) {
			next = e->hnext;
			entry_free(e);
		}
	}
	while (c->spares > 0)
		spare_drop(c, c->spares - 1);
	free(c->buckets);
	pthread_cond_destroy(&c->loaded);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Called with the lock held and e pinned: the load, done unlocked;
 * *due says whether a trim is (trim_due). */
static int load(struct fuse_cache *c, struct fc_entry *e, const void *arg,
		int *due)
{
	struct fc_load l = { 0 };
	int ret;

	pthread_mutex_unlock(&c->lock);
	ret = c->load(c->user, e->ref, e->idx, arg, &l);
	pthread_mutex_lock(&c->lock);
	if (ret != 0) {
		if (l.data != NULL)
			data_free(l.data, l.mapped);
		unhash(c, e);
		e->state = FAILED;
		e->err = ret;
	} else {
		e->data = l.data;
		e->len = l.len;
		e->kind = l.kind;
		e->mapped = l.mapped;
		e->state = READY;
		c->used += cost(e);
		*due = evict(c);
	}
	pthread_cond_broadcast(&c->loaded);
	return ret;
}

int fc_get(struct fuse_cache *c, uint64_t ref, uint64_t idx,
	   const void *arg, struct fc_entry **out)
{
	struct fc_entry *e;
	int ret = 0, due = 0;

	*out = NULL;
	pthread_mutex_lock(&c->lock);
	e = c->buckets[bucket(c, ref, idx)];
	while (e != NULL && (e->ref != ref || e->idx != idx))
		e = e->hnext;
	if (e == NULL) {
		if ((e = calloc(1, sizeof(*e))) == NULL) {
			pthread_mutex_unlock(&c->lock);
			return -ENOMEM;
		}
		e->ref = ref;
		e->idx = idx;
		e->state = LOADING;
		e->refs = 1;
		hash(c, e);
		ret = load(c, e, arg, &due);
	} else {
		if (e->refs++ == 0 && e->state == READY)
			lru_unlink(e);
		while (e->state == LOADING)
			pthread_cond_wait(&c->loaded, &c->lock);
		ret = e->state == FAILED ? e->err : 0;
	}
	pthread_mutex_unlock(&c->lock);
	trim(due);
	if (ret != 0) {
		fc_put(c, e);
		return ret;
	}
	*out = e;
	return 0;
}

void fc_put(struct fuse_cache *c, struct fc_entry *e)
{
	int due = 0;

	if (e == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	if (--e->refs == 0) {
		if (e->state == FAILED) {
			entry_free(e);
		} else {
			e->prev = c->lru.prev;
			e->next = &c->lru;
			c->lru.prev->next = e;
			c->lru.prev = e;
			due = evict(c);
		}
	}
	pthread_mutex_unlock(&c->lock);
	trim(due);
}

const uint8_t *fc_data(const struct fc_entry *e)
{
	return e->data;
}

size_t fc_len(const struct fc_entry *e)
{
	return e->len;
}

unsigned fc_kind(const struct fc_entry *e)
{
	return e->kind;
}
