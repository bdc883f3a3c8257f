/* SPDX-License-Identifier: MIT */
/*
 * fuse_cache.h - sqpack-fuse's cache of what it decoded (file data in
 * chunks, directory listings), shared by every worker thread.
 *
 * Why one cache: each request would otherwise decompress the block it
 * reads again (the kernel asks for 128 KiB at most, a block may be
 * 1 MiB), and each thread would keep its own copy. Entries are keyed by
 * (inode reference, index) and hold bytes a loader made. The cache holds
 * at most its byte budget of entries that nobody uses (least recently
 * used go first); entries in use are pinned until put back, so memory is
 * the budget plus what the requests in flight read. Concurrent misses on
 * one key call the loader once: the others wait for it, and share its
 * result or its error (an error is not cached: the next get loads again).
 */
#ifndef SQP_BIN_FUSE_CACHE_H
#define SQP_BIN_FUSE_CACHE_H

#include <stddef.h>
#include <stdint.h>

struct fc_entry;
struct fuse_cache;

/* What a loader made (all 0 when it is called): data, len bytes of
 * it, malloc'd or from fc_slab or fc_buffer (which set mapped), given
 * to the cache whatever the load returns; kind is the user's, for what
 * the bytes are (fc_kind). */
struct fc_load {
	uint8_t *data;
	size_t len;
	unsigned kind;
	size_t mapped;              /* bytes of a mapping of its own */
};

/* Make the bytes of key (ref, idx) into *out: 0, or a negative errno.
 * arg is the get's. */
typedef int (*fc_load_fn)(void *user, uint64_t ref, uint64_t idx,
			  const void *arg, struct fc_load *out);

/* 0, or -ENOMEM. budget: bytes kept beyond those in use. slab: the
 * size of the buffers most loads fill (a file's chunk, a fragment
 * block), fc_slab's. */
int fc_create(size_t budget, size_t slab, fc_load_fn load, void *user,
	      struct fuse_cache **out);
void fc_destroy(struct fuse_cache *c);

/* out->data: a buffer of slab bytes for a loader to fill (out->mapped
 * says how the cache frees it): 0, or -ENOMEM.
 *
 * Why slabs: the cache's bytes are most of the daemon's memory, and
 * malloc'd they would be spread over malloc's arenas, one a thread,
 * each keeping what it freed for its own thread's next allocations:
 * with 12 threads, a 64 MiB cache took 110 MiB. A slab is pages of its
 * own (mmap), unmapped when its entry goes; a few of the evicted
 * mappings (a quarter of the budget at most) are kept as spares for the
 * next loads, counted in the budget, so a steady stream of misses maps
 * and faults in no fresh pages. */
int fc_slab(struct fuse_cache *c, struct fc_load *out);

/* out->data: a buffer of n bytes for a loader to fill: a slab where n
 * is the slab's size, pages of its own (mmap, a spare of about that
 * size where one is kept) where n is large, else malloc'd. 0, or
 * -ENOMEM.
 *
 * Why pages of its own for large ones (an EROFS extent decoded whole,
 * up to 12 MiB; a file's last chunk): malloc serves a large request
 * with a mapping of its own only until one is freed, then raises that
 * threshold to the freed size and serves the next ones from its
 * arenas, where what is freed stays: reading big.tar's tree from the
 * lzma image with 1 MiB pclusters, a 64 MiB cache peaked at 279 MiB. */
int fc_buffer(struct fuse_cache *c, size_t n, struct fc_load *out);

/* The entry of (ref, idx), loaded if missing, pinned until fc_put():
 * 0, or the loader's negative errno. */
int fc_get(struct fuse_cache *c, uint64_t ref, uint64_t idx,
	   const void *arg, struct fc_entry **out);
void fc_put(struct fuse_cache *c, struct fc_entry *e);

const uint8_t *fc_data(const struct fc_entry *e);
size_t fc_len(const struct fc_entry *e);
unsigned fc_kind(const struct fc_entry *e);

#endif
