/* SPDX-License-Identifier: MIT */
/*
 * verity_geom.h - the dm-verity version 1 layout, shared by the writer's
 * hasher (verity.c) and the checker (verity_check.c): where each level of
 * the tree lies, the 512-byte verity superblock, and the salted SHA-256
 * of one block. No I/O.
 */
#ifndef SQP_VERITY_VERITY_GEOM_H
#define SQP_VERITY_VERITY_GEOM_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/verity.h"
#include "verity/verity_sha.h"

#define VERITY_SB_SIZE 512
#define VERITY_MAX_LEVELS 63

struct verity_geom {
	uint32_t bs;                 /* data and hash block size */
	unsigned hpb_bits;           /* log2 of the digests per hash block */
	uint64_t data_blocks;
	int levels;                  /* 0 when one data block: root = its hash */
	uint64_t level_blocks[VERITY_MAX_LEVELS];
	/* Byte offset of each level from the hash area's start; the top
	 * level comes first, right after the superblock's block. */
	uint64_t level_off[VERITY_MAX_LEVELS];
	uint64_t sb_bytes;           /* 0, or the superblock rounded up to bs */
	uint64_t hash_bytes;         /* the whole hash area */
};

/* bs: a power of two in SQP_VERITY_BLOCK_MIN..MAX; data_blocks >= 1. */
void verity_geom_init(struct verity_geom *g, uint32_t bs, uint64_t data_blocks, int with_sb);

/* The superblock's fields that the geometry does not hold. */
struct verity_sb {
	uint8_t uuid[16];
	uint32_t bs;
	uint64_t data_blocks;
	size_t salt_len;
	uint8_t salt[SQP_VERITY_SALT_MAX];
};

void verity_sb_encode(const struct verity_sb *sb, uint8_t out[VERITY_SB_SIZE]);
/* 0, or a negative sqp_error with why in msg for anything but a version
 * 1 SHA-256 superblock with equal, supported block sizes. */
int verity_sb_decode(const uint8_t in[VERITY_SB_SIZE], struct verity_sb *sb,
		     char *msg, size_t msg_len);

/* The hashing, through sha (open). A context with the salt already
 * hashed: each block's digest starts as a copy of it (dm-verity version
 * 1 hashes salt, then block); NULL when out of memory. */
EVP_MD_CTX *verity_salted_ctx(const struct verity_sha *sha, const uint8_t *salt,
			      size_t salt_len);
/* digest of one block; work is a scratch context. 0 or SQP_ERR_INTERNAL. */
int verity_hash(const struct verity_sha *sha, const EVP_MD_CTX *salted, EVP_MD_CTX *work,
		const void *block, size_t len, uint8_t digest[SQP_VERITY_DIGEST_SIZE]);
/* Plain SHA-256 of two pieces (salt and UUID derivation). */
int verity_sha256(const struct verity_sha *sha, const void *a, size_t alen,
		  const void *b, size_t blen, uint8_t digest[SQP_VERITY_DIGEST_SIZE]);

#endif
