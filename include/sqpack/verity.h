/* SPDX-License-Identifier: MIT */
/*
 * verity.h - a dm-verity hash tree written with the image, and a check of
 * one in user space.
 *
 * Format: dm-verity version 1 as `veritysetup format` writes it: SHA-256,
 * the salt hashed before each block, equal data and hash block sizes, the
 * levels top level first, each hash block zero-padded, and by default a
 * 512-byte verity superblock in the first hash block. The image, SquashFS
 * or EROFS, is padded to the block size; the tree follows it in the same
 * file, or goes to a file of its own at offset 0.
 *
 * The default salt is SHA-256 over the writer's description (image time
 * as given, codec, block sizes, flags, offset), never random: the same
 * input and options give the same root hash. The superblock's UUID is
 * derived from the salt the same way.
 *
 * Needs libcrypto (configure --with-openssl); sqp_verity_available() says
 * whether this build has it. Without it a writer asked for verity fails
 * with SQP_ERR_UNSUPPORTED. The library does not link libcrypto: a
 * writer asked for verity, and each sqp_verity_check, loads the shared
 * libcrypto (the soname configure found, e.g. libcrypto.so.3) when it
 * starts, and fails with SQP_ERR_UNSUPPORTED and a message naming it
 * where that cannot be loaded. Programs that never ask for verity never
 * load it.
 */
#ifndef SQPACK_VERITY_H
#define SQPACK_VERITY_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SQP_VERITY_DIGEST_SIZE 32   /* SHA-256 */
#define SQP_VERITY_SALT_MAX    256  /* the superblock's salt field */
#define SQP_VERITY_BLOCK_MIN   512
#define SQP_VERITY_BLOCK_MAX   65536

/* What the writer is asked for (sqp_writer_desc.verity; copied by create). */
struct sqp_verity_desc {
	size_t struct_size;  /* sizeof(struct sqp_verity_desc): see sqpack/api.h */
	uint32_t block_size;   /* data and hash blocks; 0 = 4096 */
	/* 0: the tree follows the image in the writer's file. 1: it is
	 * written at offset 0 of hash_fd (borrowed, seekable, writable). */
	int separate;
	int hash_fd;
	int no_superblock;     /* leave out the verity superblock */
	int salt_given;        /* 0: derive the salt (see above) */
	size_t salt_len;       /* 0..SQP_VERITY_SALT_MAX when given */
	uint8_t salt[SQP_VERITY_SALT_MAX];
};

/* What was written (sqp_writer_get_verity after finish). */
struct sqp_verity_result {
	size_t struct_size;  /* sizeof(struct sqp_verity_result): see sqpack/api.h */
	uint8_t root_hash[SQP_VERITY_DIGEST_SIZE];
	uint8_t salt[SQP_VERITY_SALT_MAX];
	size_t salt_len;
	uint8_t uuid[16];
	uint32_t block_size;
	uint64_t data_blocks;
	uint64_t data_bytes;   /* the image, padded: what the tree covers */
	/* Where the hash area (superblock first, if any) starts in the file
	 * that holds it: after the image, or 0 in a separate file. */
	uint64_t hash_offset;
	uint64_t hash_bytes;   /* superblock and levels */
	int has_superblock;
};

/* 1 if this build can hash (libcrypto), 0 if not. Says what the build
 * has; whether libcrypto loads is known when verity is first used. */
SQP_API int sqp_verity_available(void);

/* A tree to check: geometry and salt come from its superblock. */
struct sqp_verity_check_desc {
	size_t struct_size;  /* sizeof(struct sqp_verity_check_desc): see sqpack/api.h */
	int data_fd;
	uint64_t data_offset;  /* where the image starts in data_fd */
	int hash_fd;
	uint64_t hash_offset;  /* where the verity superblock is in hash_fd */
	const uint8_t *root_hash;
	size_t root_hash_len;
};

/* The first block that does not match: a hash block of the tree (level
 * 0 = the lowest, which holds the data blocks' hashes) or a data block. */
struct sqp_verity_bad {
	size_t struct_size;  /* sizeof(struct sqp_verity_bad): see sqpack/api.h */
	int in_tree;           /* 1: a hash block, 0: a data block */
	int level;             /* hash blocks only */
	uint64_t block;        /* index within its level, or data block number */
	uint64_t offset;       /* its byte offset in its file */
	uint64_t image_pos;    /* data blocks: offset inside the image */
	uint32_t block_size;
	uint64_t data_blocks;  /* from the superblock */
};

/*
 * Check every block against root_hash. Returns 0 when all match, 1 when
 * a block does not (described in *bad), or a negative sqp_error with a
 * message in msg (an unreadable file, no valid superblock).
 */
SQP_API int sqp_verity_check(const struct sqp_verity_check_desc *desc,
			     struct sqp_verity_bad *bad, char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif
#endif
