/* SPDX-License-Identifier: MIT */
/*
 * verity.h - the writer's dm-verity hasher: the image's bytes are fed in
 * image order as imgout takes them; a thread of its own hashes each data
 * block; finish patches the first block with the final superblock, hashes
 * it and builds the tree (verity.c, verity_tree.c).
 */
#ifndef SQP_WRITE_VERITY_H
#define SQP_WRITE_VERITY_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/verity.h"
#include "util/errbuf.h"

struct verity;

/* Start the hasher. derive: bytes that name the image's options, hashed
 * into the salt when desc gives none. Errors are latched in err. */
int verity_create(const struct sqp_verity_desc *desc, const void *derive, size_t derive_len,
		  struct sqp_errbuf *err, struct verity **out);
void verity_destroy(struct verity *v);

uint32_t verity_block_size(const struct verity *v);

/* The next len bytes of the image (the owner's thread only). */
int verity_feed(struct verity *v, const void *data, size_t len);

/* Everything is fed (a whole number of blocks); head: the final bytes of
 * the image's start (the superblock), which replace what was fed there.
 * Builds the tree; *tree and *len stay owned by v. */
int verity_finish(struct verity *v, const void *head, size_t head_len,
		  const uint8_t **tree, size_t *len);

/* After finish: what was built (hash_offset left 0 for the caller). */
void verity_get_result(const struct verity *v, struct sqp_verity_result *r);

/* verity_tree.c: the levels above the data blocks' digests, and the
 * superblock, into one hash area; the root hash. */
struct verity_tree_in {
	const uint8_t *digests;      /* one per data block */
	uint64_t data_blocks;
	uint32_t bs;
	int with_sb;
	const uint8_t *salt;
	size_t salt_len;
	const uint8_t *uuid;
};
int verity_tree_build(const struct verity_tree_in *in, uint8_t **area, size_t *area_len,
		      uint8_t root[SQP_VERITY_DIGEST_SIZE], struct sqp_errbuf *err);

#endif
