/* SPDX-License-Identifier: MIT */
/*
 * hchain.c - chained hash index (see hchain.h).
 *
 * The table doubles when records outnumber buckets, rebuilding the chains
 * from the stored keys; chains stay in insertion order, so lookups always
 * meet the oldest matching record first and results never depend on the
 * table's size history.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "util/hchain.h"
#include "util/spill.h"

static uint8_t filter_bit(uint64_t key)
{
	return (uint8_t)(1u << (key >> 61));
}

static void free_buckets(struct hchain *h)
{
	sqp_spill_free(h->spill, h->head, h->buckets * sizeof(*h->head));
	sqp_spill_free(h->spill, h->tail, h->buckets * sizeof(*h->tail));
	sqp_spill_free(h->spill, h->filter, h->buckets);
}

static int alloc_buckets(struct hchain *h, size_t buckets)
{
	uint32_t *head = sqp_spill_alloc(h->spill, buckets * sizeof(*head));
	uint32_t *tail = sqp_spill_alloc(h->spill, buckets * sizeof(*tail));
	uint8_t *filter = sqp_spill_alloc(h->spill, buckets);
	size_t i;

	if (head == NULL || tail == NULL || filter == NULL) {
		sqp_spill_free(h->spill, head, buckets * sizeof(*head));
		sqp_spill_free(h->spill, tail, buckets * sizeof(*tail));
		sqp_spill_free(h->spill, filter, buckets);
		return SQP_ERR_NOMEM;
	}
	memset(head, 0xFF, buckets * sizeof(*head));
	free_buckets(h);
	h->head = head;
	h->tail = tail;
	h->filter = filter;
	h->buckets = buckets;

	for (i = 0; i < h->count; ++i) {
		size_t b = h->keys[i] & (buckets - 1);

		filter[b] |= filter_bit(h->keys[i]);
		h->next[i] = HCHAIN_END;
		if (head[b] == HCHAIN_END)
			head[b] = (uint32_t)i;
		else
			h->next[tail[b]] = (uint32_t)i;
		tail[b] = (uint32_t)i;
		sqp_spill_tick(h->spill);
	}
	return 0;
}

int hchain_init(struct hchain *h, struct sqp_spill *spill)
{
	memset(h, 0, sizeof(*h));
	h->spill = spill;
	return alloc_buckets(h, 1024);
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
	size_t b;
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
		return alloc_buckets(h, h->buckets * 2);

	b = key & (h->buckets - 1);
	h->filter[b] |= filter_bit(key);
	if (h->head[b] == HCHAIN_END)
		h->head[b] = rec;
	else
		h->next[h->tail[b]] = rec;
	h->tail[b] = rec;
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
	size_t b = key & (h->buckets - 1);

	if (!(h->filter[b] & filter_bit(key)))
		return HCHAIN_END;
	return skip_to_key(h, h->head[b], key);
}

uint32_t hchain_next(const struct hchain *h, uint32_t rec, uint64_t key)
{
	return skip_to_key(h, h->next[rec], key);
}
