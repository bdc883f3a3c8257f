/* SPDX-License-Identifier: MIT */
/*
 * dedupstore.h - the dedup store: what the data path has stored, as
 * dedup sees it, and the read-backs that prove a match.
 *
 * A record per stored data block (in image order) and per stored tail,
 * hash indexes to nominate candidates, and find / add / verify. A hash
 * only nominates: before anything is shared, the candidate's bytes as
 * stored in the image are read back and compared, at once or, while a
 * decision is open on the proof ring (proof.h), on its workers.
 *
 * A block's place in the image (offset, size word) exists only once the
 * compressors retired it. It is read only through dedup_store_wait
 * (which retires jobs until it is) or dedup_store_where (which fails
 * with SQP_ERR_INTERNAL if it is not): a size word read too early is 0,
 * and 0 bytes always compare equal.
 */
#ifndef SQP_WRITE_DEDUPSTORE_H
#define SQP_WRITE_DEDUPSTORE_H

#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>

#include "sqpack/codec.h"
#include "sqpack/writer.h"
#include "util/errbuf.h"
#include "util/spill.h"
#include "write/fragpack.h"
#include "write/imgout.h"
#include "write/proof.h"

#define PHYS_NONE UINT32_MAX

struct dedup_store_desc {
	uint32_t block_size;
	unsigned hash_bits;            /* 0 = full hash (writer_test.h) */
	int index_blocks;              /* blocks are candidates (dedup on) */
	struct imgout *out;            /* borrowed: read-backs */
	struct sqp_compressor *codec;  /* borrowed: synchronous read-backs */
	struct proof_ring *ring;       /* borrowed; NULL: none */
	struct sqp_errbuf *err;        /* borrowed */
	struct sqp_writer_stats *stats; /* borrowed */
	struct sqp_spill *spill;       /* where records live; NULL = heap */
	/* Retire the oldest block in flight (compress_retire_one). */
	int (*retire_one)(void *user);
	void *user;
};

/* Where a retired block is stored. */
struct dedup_where {
	uint64_t offset;
	uint32_t size_word;
};

struct dedup_store;

/* *out is set unless it could not be allocated; destroy it either way. */
int dedup_store_create(const struct dedup_store_desc *desc, struct dedup_store **out);
void dedup_store_destroy(struct dedup_store *s);

/* The hash of a block or tail (weakened to hash_bits); counts it. */
XXH128_hash_t dedup_store_hash(const struct dedup_store *s, const void *data, size_t len);
int dedup_hash_eq(XXH128_hash_t a, XXH128_hash_t b);

/* A new block record; its place comes with dedup_store_written. */
int dedup_store_add(struct dedup_store *s, XXH128_hash_t hash, uint32_t raw_len,
		    uint32_t *index);
/* A new record for a copy of retired block src: where src is stored. */
int dedup_store_copy(struct dedup_store *s, uint32_t src, uint32_t *index,
		     struct dedup_where *from);
/* The compressors wrote block index (compress.h). */
void dedup_store_written(struct dedup_store *s, uint32_t index, uint64_t pos,
			 uint32_t size_word);
size_t dedup_store_count(const struct dedup_store *s);
/* Every block recorded is retired (after the compressors' flush). */
int dedup_store_all_written(const struct dedup_store *s);

/* Block phys exists and has this hash. */
int dedup_store_hash_is(const struct dedup_store *s, uint32_t phys, XXH128_hash_t hash);
XXH128_hash_t dedup_store_hash_of(const struct dedup_store *s, uint32_t phys);
/* Blocks with this hash in the index's order: the first after record
 * after (PHYS_NONE: from the start), or PHYS_NONE. */
uint32_t dedup_store_next(const struct dedup_store *s, XXH128_hash_t hash, uint32_t after);

/* Where block phys is stored, retiring jobs until it is. */
int dedup_store_wait(struct dedup_store *s, uint32_t phys, struct dedup_where *w);
/* The same for a block that must be retired already. */
int dedup_store_where(const struct dedup_store *s, uint32_t phys, struct dedup_where *w);
/* Retired block b directly follows block b - 1 on disk. */
int dedup_store_follows(const struct dedup_store *s, uint32_t b, int *yes);

/* Stored block phys holds raw[0, len); stored blocks a and b hold the
 * same bytes. Both retire the blocks first. While a decision is open on
 * the ring the read-back goes to its workers and *equal is 1 until the
 * decision is settled (proof.h). */
int dedup_store_verify(struct dedup_store *s, uint32_t phys, const uint8_t *raw,
		       uint32_t len, int *equal);
int dedup_store_same(struct dedup_store *s, uint32_t a, uint32_t b, int *equal);
/* An earlier stored block with these bytes (PHYS_NONE: none), verified. */
int dedup_store_find(struct dedup_store *s, XXH128_hash_t hash, const uint8_t *raw,
		     uint32_t len, uint32_t *out);

/* A tail stored at offset in fragment block frag_index. */
int dedup_store_add_tail(struct dedup_store *s, XXH128_hash_t hash,
			 uint32_t frag_index, uint32_t offset, uint32_t len);
/* An earlier tail with these bytes, compared with what the fragment
 * blocks of pk hold: 1 and where, 0 if none, or an error. */
int dedup_store_find_tail(struct dedup_store *s, struct fragpack *pk,
			  XXH128_hash_t hash, const uint8_t *buf, uint32_t len,
			  uint32_t *frag_index, uint32_t *offset);

#endif
