/* SPDX-License-Identifier: MIT */
/*
 * cache_spares.c - sqpack-fuse's cache (fuse_cache.c) keeps the mappings
 * of the entries it evicts and fills them again: a steady stream of
 * loads of about one size (EROFS extents decoded whole, whose sizes
 * vary by the byte) must take the spares rather than fault in fresh
 * pages, and a load much smaller than every spare must not pin one.
 * A fresh mapping reads as zeros; a spare still holds the bytes of the
 * entry it was, which is how a load here tells the two apart. Run by
 * threads.sh (so under TSan in CI). Exit 0, or 1 with the reasons on
 * stderr.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "fuse_cache.h"

#define BUDGET (16u << 20)
#define SLAB (128u << 10)
#define LOADS 64u
#define SMALL (200u << 10)   /* idx SMALL_IDX's size: no spare fits it */
#define SMALL_IDX 1000u

struct count {
	struct fuse_cache *c;
	unsigned fresh, reused;
};

/* idx's size: 1 MiB and a few KiB more, different for neighbours. */
static size_t size_of(uint64_t idx)
{
	return idx == SMALL_IDX ? SMALL : (1u << 20) + (idx % 7) * 12345u;
}

static int load(void *user, uint64_t ref, uint64_t idx, const void *arg,
		struct fc_load *out)
{
	struct count *n = user;
	size_t len = size_of(idx);

	(void)ref;
	(void)arg;
	if (fc_buffer(n->c, len, out) != 0)
		return -12;
	if (out->data[0] == 0)
		n->fresh++;
	else
		n->reused++;
	memset(out->data, (int)(idx % 255) + 1, len);
	out->len = len;
	return 0;
}

static int get(struct count *n, uint64_t idx)
{
	struct fc_entry *e;
	const uint8_t *d;
	int bad = 0;

	if (fc_get(n->c, 1, idx, NULL, &e) != 0) {
		fprintf(stderr, "cache_spares: load %u failed\n", (unsigned)idx);
		return 1;
	}
	d = fc_data(e);
	if (fc_len(e) != size_of(idx) || d[0] != (uint8_t)(idx % 255 + 1) ||
	    d[fc_len(e) - 1] != d[0]) {
		fprintf(stderr, "cache_spares: entry %u holds other bytes\n",
			(unsigned)idx);
		bad = 1;
	}
	fc_put(n->c, e);
	return bad;
}

int main(void)
{
	struct count n = { 0 };
	unsigned fresh;
	int bad = 0;

	if (fc_create(BUDGET, SLAB, load, &n, &n.c) != 0) {
		fprintf(stderr, "cache_spares: no cache\n");
		return 1;
	}
	for (uint64_t i = 0; i < LOADS; i++)
		bad |= get(&n, i);
	/* The first loads fill the budget (a load a MiB, about); every
	 * later one takes the mapping of an entry evicted before it. */
	if (n.reused < LOADS - (BUDGET >> 20)) {
		fprintf(stderr, "cache_spares: %u of %u loads took a spare, "
			"%u mapped fresh pages\n", n.reused, LOADS, n.fresh);
		bad = 1;
	}
	fresh = n.fresh;
	bad |= get(&n, SMALL_IDX);
	if (n.fresh != fresh + 1) {
		fprintf(stderr, "cache_spares: a load of %u KiB took a spare "
			"of more than 1 MiB\n", SMALL >> 10);
		bad = 1;
	}
	fc_destroy(n.c);
	return bad;
}
