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

/* Make the bytes of key (ref, idx): 0 with *data (malloc'd, given to the
 * cache) and *len, or a negative errno. arg is the get's. *kind (0 when
 * called) is the user's, for what the bytes are (fc_kind). */
typedef int (*fc_load_fn)(void *user, uint64_t ref, uint64_t idx,
			  const void *arg, uint8_t **data, size_t *len,
			  unsigned *kind);

/* 0, or -ENOMEM. budget: bytes kept beyond those in use. */
int fc_create(size_t budget, fc_load_fn load, void *user,
	      struct fuse_cache **out);
void fc_destroy(struct fuse_cache *c);

/* The entry of (ref, idx), loaded if missing, pinned until fc_put():
 * 0, or the loader's negative errno. */
int fc_get(struct fuse_cache *c, uint64_t ref, uint64_t idx,
	   const void *arg, struct fc_entry **out);
void fc_put(struct fuse_cache *c, struct fc_entry *e);

const uint8_t *fc_data(const struct fc_entry *e);
size_t fc_len(const struct fc_entry *e);
unsigned fc_kind(const struct fc_entry *e);

#endif
