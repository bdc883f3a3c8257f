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
 * bounded as a few large blocks are. The spare slabs count too: the
 * entries kept are the budget less the spares.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "fuse_cache.h"

enum { LOADING, READY, FAILED };

struct fc_entry {
	struct fc_entry *hnext;         /* hash chain */
	struct fc_entry *prev, *next;   /* unused list, when refs == 0 */
	uint64_t ref, idx;
	int state, err;
	unsigned refs, kind;
	int slab;                       /* data is a slab */
	size_t mapped;                  /* or a mapping of these bytes */
	size_t len;
	uint8_t *data;
};

/* Slabs kept for the next loads, at most: one a load in flight (the
 * loop's threads and the prefetchers) is about what a cache under a
 * steady stream of misses takes back before the next evictions. */
#define FC_SPARES 16

struct fuse_cache {
	pthread_mutex_t lock;
	pthread_cond_t loaded;
	struct fc_entry **buckets;
	size_t mask;
	size_t count, most;             /* entries hashed; buckets at most */
	size_t budget, used;            /* bytes of the entries in the table
					 * and of the spares */
	size_t slab;                    /* fc_slab's size */
	uint8_t *spare[FC_SPARES];      /* evicted entries' slabs */
	unsigned spares;
	struct fc_entry lru;            /* list head: lru.next is the oldest */
	fc_load_fn load;
	void *user;
};

static size_t cost(const struct fuse_cache *c, const struct fc_entry *e)
{
	return (e->mapped ? e->mapped : e->slab ? c->slab : e->len) +
	       sizeof(*e);
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

static void data_free(const struct fuse_cache *c, uint8_t *data, int slab,
		      size_t mapped)
{
	if (mapped)
		munmap(data, mapped);
	else if (slab)
		munmap(data, c->slab);
	else
		free(data);
}

static void entry_free(const struct fuse_cache *c, struct fc_entry *e)
{
	data_free(c, e->data, e->slab, e->mapped);
	free(e);
}

/* Drop unused entries, oldest first, until the table fits the budget;
 * their slabs become spares while there is room (a quarter of the
 * budget at most, so a small cache still holds entries). */
static void evict(struct fuse_cache *c)
{
	while (c->used > c->budget && c->lru.next != &c->lru) {
		struct fc_entry *e = c->lru.next;

		lru_unlink(e);
		unhash(c, e);
		c->used -= cost(c, e);
		if (e->slab && c->spares < FC_SPARES &&
		    (c->spares + 1) * c->slab <= c->budget / 4) {
			c->spare[c->spares++] = e->data;
			c->used += c->slab;
			free(e);
		} else {
			entry_free(c, e);
		}
	}
}

int fc_slab(struct fuse_cache *c, struct fc_load *out)
{
	void *b = NULL;

	pthread_mutex_lock(&c->lock);
	if (c->spares > 0) {
		b = c->spare[--c->spares];
		c->used -= c->slab;
	}
	pthread_mutex_unlock(&c->lock);
	if (b == NULL &&
	    (b = mmap(NULL, c->slab, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		b = NULL;
	out->slab = b != NULL;
	/* Past the mappings the kernel allows a process (a cache of
	 * millions of slabs), malloc's. */
	if (b == NULL && (b = malloc(c->slab)) == NULL)
		return -ENOMEM;
	out->data = b;
	return 0;
}

/* Above this, fc_buffer maps: malloc's own first threshold. */
#define FC_MAP_MIN (128u << 10)

int fc_buffer(struct fuse_cache *c, size_t n, struct fc_load *out)
{
	void *b;

	if (n == c->slab)
		return fc_slab(c, out);
	if (n >= FC_MAP_MIN &&
	    (b = mmap(NULL, n, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED) {
		out->data = b;
		out->mapped = n;
		return 0;
	}
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
			entry_free(c, e);
		}
	}
	while (c->spares > 0)
		munmap(c->spare[--c->spares], c->slab);
	free(c->buckets);
	pthread_cond_destroy(&c->loaded);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Called with the lock held and e pinned: the load, done unlocked. */
static int load(struct fuse_cache *c, struct fc_entry *e, const void *arg)
{
	struct fc_load l = { 0 };
	int ret;

	pthread_mutex_unlock(&c->lock);
	ret = c->load(c->user, e->ref, e->idx, arg, &l);
	pthread_mutex_lock(&c->lock);
	if (ret != 0) {
		if (l.data != NULL)
			data_free(c, l.data, l.slab, l.mapped);
		unhash(c, e);
		e->state = FAILED;
		e->err = ret;
	} else {
		e->data = l.data;
		e->len = l.len;
		e->kind = l.kind;
		e->slab = l.slab;
		e->mapped = l.mapped;
		e->state = READY;
		c->used += cost(c, e);
		evict(c);
	}
	pthread_cond_broadcast(&c->loaded);
	return ret;
}

int fc_get(struct fuse_cache *c, uint64_t ref, uint64_t idx,
	   const void *arg, struct fc_entry **out)
{
	struct fc_entry *e;
	int ret = 0;

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
		ret = load(c, e, arg);
	} else {
		if (e->refs++ == 0 && e->state == READY)
			lru_unlink(e);
		while (e->state == LOADING)
			pthread_cond_wait(&c->loaded, &c->lock);
		ret = e->state == FAILED ? e->err : 0;
	}
	pthread_mutex_unlock(&c->lock);
	if (ret != 0) {
		fc_put(c, e);
		return ret;
	}
	*out = e;
	return 0;
}

void fc_put(struct fuse_cache *c, struct fc_entry *e)
{
	if (e == NULL)
		return;
	pthread_mutex_lock(&c->lock);
	if (--e->refs == 0) {
		if (e->state == FAILED) {
			entry_free(c, e);
		} else {
			e->prev = c->lru.prev;
			e->next = &c->lru;
			c->lru.prev->next = e;
			c->lru.prev = e;
			evict(c);
		}
	}
	pthread_mutex_unlock(&c->lock);
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
