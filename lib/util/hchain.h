/* SPDX-License-Identifier: MIT */
/*
 * hchain.h - a hash index over an array of records kept elsewhere.
 *
 * Records are numbered 0, 1, 2... by their owner, which inserts each with a
 * 64-bit key. Lookups walk the chain of records whose key fell into the
 * same bucket, oldest first; the owner compares the full key (and anything
 * else) itself. Used by the dedup tables, where the records are blocks and
 * tails and the key is part of their content hash.
 *
 * Most lookups miss (most blocks and tails are new), so each bucket has
 * a 16-bit filter of its keys (two bits per key, a small Bloom filter: a
 * missed lookup goes past it about 2% of the time at the table's load,
 * against 9% with one bit of eight), in an array of its own (a quarter
 * of the buckets' size, so it stays in cache where the buckets do not):
 * a miss usually ends there. A missed lookup is mostly followed by
 * the insert of the same key, so it prefetches the bucket that insert
 * will write; the caller's work in between hides the cache miss.
 */
#ifndef SQP_UTIL_HCHAIN_H
#define SQP_UTIL_HCHAIN_H

#include <stddef.h>
#include <stdint.h>

#define HCHAIN_END UINT32_MAX

struct sqp_spill;

struct hchain_bucket {
	uint32_t head;      /* first record + 1, 0 when empty: a new
			     * bucket array is all zeros, so it needs no
			     * pass over it (it may be spilled) */
	uint32_t tail;      /* last record */
};

struct hchain {
	struct sqp_spill *spill; /* where the arrays live (NULL = heap) */
	struct hchain_bucket *bucket;
	uint16_t *filter;   /* per bucket: two bits per key met */
	uint32_t *next;     /* per record: next in its bucket */
	uint64_t *keys;     /* per record */
	size_t buckets;     /* power of two */
	size_t count;       /* records inserted */
	size_t next_cap;    /* room in next[] */
	size_t keys_cap;    /* room in keys[] */
};

/* Arrays come from spill (util/spill.h; NULL = the heap). */
int hchain_init(struct hchain *h, struct sqp_spill *spill);
void hchain_cleanup(struct hchain *h);

/* Insert record number h->count with key (records are inserted in order).
 * Returns 0 or SQP_ERR_NOMEM. */
int hchain_insert(struct hchain *h, uint64_t key);

/* First record with key, or HCHAIN_END. */
uint32_t hchain_first(const struct hchain *h, uint64_t key);

/* Next record after rec with the same key, or HCHAIN_END. */
uint32_t hchain_next(const struct hchain *h, uint32_t rec, uint64_t key);

#endif
