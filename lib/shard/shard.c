/* SPDX-License-Identifier: MIT */
/*
 * shard.c - the split of an input into shards (shard.h): sort the paths,
 * join each hard-link group and each repeated path into one unit (union
 * and find), cut the units' weight into equal slices, then add to the
 * chosen shard the directories on the way to what it holds.
 *
 * Everything here follows from the items alone, never from the order
 * they come in (ties of equal paths fall back to it, and equal paths
 * are one unit anyway), so every process of a sharded build, reading
 * the same input, makes the same plan.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "sqpack/shard.h"

/* What each unit weighs beyond its data: one entry's metadata. */
#define ENTRY_WEIGHT 512

struct sorted {
	const char *path;
	size_t len;
	size_t item;
};

/* Bytes in path order: the end of a name sorts before '/', which sorts
 * before every other byte, so a directory's subtree follows it whole. */
static int rank(const char *p, size_t len, size_t k)
{
	if (k >= len)
		return 0;
	return p[k] == '/' ? 1 : (unsigned char)p[k] + 2;
}

static int path_cmp(const char *a, size_t al, const char *b, size_t bl)
{
	for (size_t k = 0;; k++) {
		int x = rank(a, al, k), y = rank(b, bl, k);

		if (x != y)
			return x < y ? -1 : 1;
		if (x == 0)
			return 0;
	}
}

static int sorted_cmp(const void *pa, const void *pb)
{
	const struct sorted *a = pa, *b = pb;
	int c = path_cmp(a->path, a->len, b->path, b->len);

	if (c != 0)
		return c;
	return a->item < b->item ? -1 : a->item > b->item;
}

/* The first place in s[0..n) whose path is not below (path, len). */
static size_t lower_bound(const struct sorted *s, size_t n, const char *path, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (path_cmp(s[mid].path, s[mid].len, path, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t find_root(size_t *parent, size_t i)
{
	size_t r = i, next;

	while (parent[r] != r)
		r = parent[r];
	while (parent[i] != r) {   /* halve the next search */
		next = parent[i];
		parent[i] = r;
		i = next;
	}
	return r;
}

/* Join into one unit: the hard links with their targets (any entry of
 * the target's path: they are one unit already) and the entries of one
 * path. The smaller index becomes the root, so the result does not
 * depend on the order of the calls. */
static void join(size_t *parent, size_t a, size_t b)
{
	a = find_root(parent, a);
	b = find_root(parent, b);
	if (a < b)
		parent[b] = a;
	else if (b < a)
		parent[a] = b;
}

static void make_units(const struct sqp_shard_item *items, const struct sorted *s,
		       size_t n, size_t *parent)
{
	size_t i, at;

	for (i = 0; i < n; i++)
		parent[i] = i;
	for (i = 1; i < n; i++)
		if (path_cmp(s[i - 1].path, s[i - 1].len, s[i].path, s[i].len) == 0)
			join(parent, s[i - 1].item, s[i].item);
	for (i = 0; i < n; i++) {
		const char *t = items[i].link;

		if (t == NULL)
			continue;
		at = lower_bound(s, n, t, strlen(t));
		if (at < n && path_cmp(s[at].path, s[at].len, t, strlen(t)) == 0)
			join(parent, i, s[at].item);
	}
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Each unit's shard into shard[root]: the slice of the total weight its
 * start falls in, units taken in the order of their first path. */
static void assign(const struct sqp_shard_item *items, const struct sorted *s, size_t n,
		   size_t *parent, uint64_t *weight, unsigned *shard, unsigned count,
		   struct sqp_shard_span *spans)
{
	uint64_t total = 0, cum = 0, slice;
	size_t i, r;

	for (i = 0; i < n; i++) {
		weight[i] = 0;
		shard[i] = UINT32_MAX;
	}
	for (i = 0; i < n; i++) {
		r = find_root(parent, i);
		weight[r] = add_sat(weight[r], add_sat(items[i].size, ENTRY_WEIGHT));
	}
	for (i = 0; i < n; i++)
		total = add_sat(total, weight[i]);
	slice = total / count + (total % count != 0);
	for (i = 0; i < n; i++) {
		size_t it = s[i].item;

		r = find_root(parent, it);
		if (shard[r] == UINT32_MAX) {
			uint64_t k = slice ? cum / slice : 0;

			shard[r] = k >= count ? count - 1 : (unsigned)k;
			cum = add_sat(cum, weight[r]);
		}
		if (spans == NULL)
			continue;
		if (spans[shard[r]].first == SIZE_MAX) {
			spans[shard[r]].first = it;
			spans[shard[r]].path = items[it].path;
		}
		spans[shard[r]].entries++;
		spans[shard[r]].bytes = add_sat(spans[shard[r]].bytes, items[it].size);
	}
}

/* The directories on the way to each kept item, walked in path order:
 * a parent sorts before its children, so once a kept one is met its own
 * way up has been marked and the walk stops there. */
static void mark_ways(const struct sqp_shard_item *items, const struct sorted *s, size_t n,
		      unsigned char *keep)
{
	for (size_t i = 0; i < n; i++) {
		const char *p = s[i].path;
		size_t len = s[i].len;

		if (!keep[s[i].item] || len == 0)
			continue;
		while (len > 0) {
			size_t at, hit = 0;

			while (len > 0 && p[len - 1] != '/')
				len--;
			if (len > 0)
				len--;     /* the '/' */
			at = lower_bound(s, n, p, len);
			for (; at < n && path_cmp(s[at].path, s[at].len, p, len) == 0; at++) {
				if (!items[s[at].item].is_dir)
					continue;
				hit |= keep[s[at].item];
				keep[s[at].item] = 1;
			}
			if (hit)
				break;
		}
	}
}

int sqp_shard_select(const struct sqp_shard_item *items, size_t n, unsigned index,
		     unsigned count, unsigned char *keep, struct sqp_shard_span *spans)
{
	struct sorted *s;
	size_t *parent, i;
	uint64_t *weight;
	unsigned *shard;

	if (count == 0 || count > SQP_SHARD_MAX || index >= count || (n > 0 && items == NULL))
		return SQP_ERR_ARG;
	for (i = 0; spans != NULL && i < count; i++)
		spans[i] = (struct sqp_shard_span){ SIZE_MAX, NULL, 0, 0 };
	s = malloc((n + 1) * sizeof(*s));
	parent = malloc((n + 1) * sizeof(*parent));
	weight = malloc((n + 1) * sizeof(*weight));
	shard = malloc((n + 1) * sizeof(*shard));
	if (s == NULL || parent == NULL || weight == NULL || shard == NULL) {
		free(s);
		free(parent);
		free(weight);
		free(shard);
		return SQP_ERR_NOMEM;
	}
	for (i = 0; i < n; i++)
		s[i] = (struct sorted){ items[i].path, strlen(items[i].path), i };
	qsort(s, n, sizeof(*s), sorted_cmp);
	make_units(items, s, n, parent);
	assign(items, s, n, parent, weight, shard, count, spans);
	if (keep != NULL) {
		for (i = 0; i < n; i++)
			keep[i] = shard[find_root(parent, i)] == index || items[i].path[0] == '\0';
		mark_ways(items, s, n, keep);
	}
	free(s);
	free(parent);
	free(weight);
	free(shard);
	return 0;
}
