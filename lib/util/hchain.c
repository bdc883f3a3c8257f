/* SPDX-License-Identifier: MIT */
/*
 * hchain.c - chained hash index (see hchain.h).
 *
 * The table doubles when records outnumber buckets, rebuilding the chains
 * from the stored keys; chains stay in insertion order, so lookups always
 * meet the oldest matching record first and results never depend on the
 * table's size history. A bucket's head and tail sit together, so an
 * insert touches one place in the bucket array; a missed lookup touches
 * only the filter array (1,000,000 small files: the tail lookups were a
 * cache miss each, 11% of tar2img's time).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/hchain.h"
#include "util/spill.h"

#define FIRST_BUCKETS 1024

/* Two of 16 bits, from key bits the bucket index does not use. */
static uint16_t filter_bits(uint64_t key)
{
	return (uint16_t)(1u << (key >> 60) | 1u << (key >> 56 & 15));
}

/* Append record rec (key) to its bucket's chain. */
static void link_record(struct hchain *h, uint32_t rec, uint64_t key)
{
	size_t i = key & (h->buckets - 1);
	struct hchain_bucket *b = &h->bucket[i];
	/* The bucket is written before it is read (an exchange): where it
	 * lies on a spilled page not mapped in, the first touch is then one
	 * write fault, not a read fault that maps 16 pages read-only and a
	 * second fault for the write (4M entries, --mem 128M: 20.2 -> 15.4 s). */
	uint32_t old_tail = __atomic_exchange_n(&b->tail, rec, __ATOMIC_RELAXED);

	h->filter[i] |= filter_bits(key);
	if (b->head == 0)
		b->head = rec + 1;
	else
		h->next[old_tail] = rec;
}

static void free_buckets(struct hchain *h)
{
	sqp_spill_free(h->spill, h->bucket, h->buckets * sizeof(*h->bucket));
	sqp_spill_free(h->spill, h->filter, h->buckets * sizeof(*h->filter));
	h->bucket = NULL;
	h->filter = NULL;
	h->buckets = 0;
}

/* The old arrays are freed first: the chains and filters are rebuilt
 * from the keys alone, and the filter, read by every lookup, then finds
 * room on the heap before the buckets do (a spilled filter faults on
 * every lookup: 20M entries at --mem 256M took 268 s instead of 217).
 * On failure the table is empty (no buckets) until the next insert. */
static int alloc_buckets(struct hchain *h, size_t buckets)
{
	size_t i;

	free_buckets(h);
	h->filter = sqp_spill_alloc_hot(h->spill, buckets * sizeof(*h->filter));
	if (h->filter != NULL)
		h->bucket = sqp_spill_alloc_hot(h->spill, buckets * sizeof(*h->bucket));
	if (h->bucket == NULL) {
		sqp_spill_free(h->spill, h->filter, buckets * sizeof(*h->filter));
		h->filter = NULL;
		return SQP_ERR_NOMEM;
	}
	h->buckets = buckets;
	for (i = 0; i < h->count; ++i) {
		h->next[i] = HCHAIN_END;
		link_record(h, (uint32_t)i, h->keys[i]);
		sqp_spill_tick(h->spill);
	}
	return 0;
}

int hchain_init(struct hchain *h, struct sqp_spill *spill)
{
	memset(h, 0, sizeof(*h));
	h->spill = spill;
	return alloc_buckets(h, FIRST_BUCKETS);
}

void hchain_cleanup(struct hchain *h)
{
	free_buckets(h);
	sqp_spill_free(h->spill, h->next, h->next_cap * sizeof(*h->next));
	sqp_spill_free(h->spill, h->keys, h->keys_cap * sizeof(*h->keys));
	memset(h, 0, sizeof(*h));
}

int hchain_insert(struct hchain *h, uint64_t key)
{
	uint32_t rec;

	if (h->count >= HCHAIN_END - 1)
		return SQP_ERR_LIMIT;
	if (h->count == h->next_cap || h->count == h->keys_cap) {
		uint32_t *next = sqp_spill_grow(h->spill, h->next, &h->next_cap,
						h->count + 1, sizeof(*next), 1024);
		uint64_t *keys;

		if (next == NULL)
			return SQP_ERR_NOMEM;
		h->next = next;
		keys = sqp_spill_grow(h->spill, h->keys, &h->keys_cap, h->count + 1,
				      sizeof(*keys), 1024);
		if (keys == NULL)
			return SQP_ERR_NOMEM;
		h->keys = keys;
	}
	rec = (uint32_t)h->count++;
	h->keys[rec] = key;
	h->next[rec] = HCHAIN_END;
	if (h->count > h->buckets)
		return alloc_buckets(h, h->buckets > 0 ? h->buckets * 2 : FIRST_BUCKETS);
	link_record(h, rec, key);
	return 0;
}

static uint32_t skip_to_key(const struct hchain *h, uint32_t rec, uint64_t key)
{
	while (rec != HCHAIN_END && h->keys[rec] != key)
		rec = h->next[rec];
	return rec;
}

uint32_t hchain_first(const struct hchain *h, uint64_t key)
{
	uint16_t bits = filter_bits(key);
	size_t i;

	if (h->buckets == 0)
		return HCHAIN_END;
	i = key & (h->buckets - 1);
	if ((h->filter[i] & bits) != bits) {
		/* Does not fault: a spilled page not mapped in is skipped. */
		__builtin_prefetch(&h->bucket[i], 1);
		return HCHAIN_END;
	}
	return skip_to_key(h, h->bucket[i].head - 1, key); /* 0 - 1 is HCHAIN_END */
}

uint32_t hchain_next(const struct hchain *h, uint32_t rec, uint64_t key)
{
	return skip_to_key(h, h->next[rec], key);
}
