/* SPDX-License-Identifier: MIT */
/*
 * shard.h - one build split over N processes: which entries of an input
 * go into shard I of N, decided from the entries' paths, sizes and hard
 * links alone, so that each process finds its part without the others.
 *
 * The entries are sorted by path, component by component ("a/b" before
 * "a.b"), so a directory's subtree is contiguous. The units of the split
 * are the entries, except that the paths of a hard-link group, and every
 * entry of one path (an archive may give a path twice), form one unit,
 * placed where its first path sorts. Each unit weighs its data bytes plus
 * 512 (one entry's share of the metadata, so a tree of empty files still
 * spreads), and shard k takes the units that start in the k-th of N equal
 * slices of the total weight: consecutive runs of the sorted paths.
 *
 * Shard I holds its own units and, with their real attributes, every
 * directory on the way to one of them; the root always. A directory is
 * itself a unit like any entry (so an empty one lands in exactly one
 * shard), and may appear in several shards as a directory on the way:
 * the same directory with the same attributes each time. So the shards
 * are disjoint in everything but directories, and together hold every
 * entry of the input: merging them (img2img --shards) gives the tree one
 * pass over the whole input gives.
 */
#ifndef SQPACK_SHARD_H
#define SQPACK_SHARD_H
/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/shard.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_shard_item {
	const char *path;   /* normalised image path (entry.h), "" the root */
	const char *link;   /* a hard link's target path, else NULL */
	uint64_t size;      /* data bytes (0 for links and non-files) */
	int is_dir;
};

/* One shard of a plan: its first unit in path order (an index into the
 * items and that item's path; SIZE_MAX and NULL when the shard got none),
 * and the entries and data bytes of its units (the directories on the
 * way not counted). */
struct sqp_shard_span {
	size_t first;
	const char *path;
	uint64_t entries;
	uint64_t bytes;
};

/* The largest N: shards are numbered in 32 bits, and a plan of more
 * shards than this would be spans of nothing. */
#define SQP_SHARD_MAX 65536

/*
 * Split items[0..n) into count shards (1..SQP_SHARD_MAX). keep (n bytes,
 * or NULL) gets 1 for each item shard `index` holds (its own, directories
 * on the way, the root), else 0; spans (count of them, or NULL) the plan.
 * Returns 0, SQP_ERR_ARG for a bad index or count, or SQP_ERR_NOMEM.
 */
SQP_API int sqp_shard_select(const struct sqp_shard_item *items, size_t n,
			     unsigned index, unsigned count, unsigned char *keep,
			     struct sqp_shard_span *spans);

#ifdef __cplusplus
}
#endif
#endif
