/* SPDX-License-Identifier: MIT */
/*
 * verity_geom.c - the dm-verity v1 layout as veritysetup lays it out.
 *
 * Why a file of its own: the writer that builds the tree and the checker
 * that walks it must agree on every offset, and `veritysetup verify`
 * must agree with both. Facts of the format (learned from the kernel's
 * verity.rst and checked against `veritysetup format` output, see
 * tests/verity/): a hash block holds 2^hpb_bits digests, each 32 bytes
 * for SHA-256, zero-padded; a level holds one digest per block below it;
 * levels are added until one hash block covers everything, so one data
 * block needs no hash block at all; the top level is stored first. The
 * superblock, when present, takes the first hash block.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/endian.h"
#include "verity/verity_geom.h"

static const uint8_t sb_magic[8] = { 'v', 'e', 'r', 'i', 't', 'y', 0, 0 };

void verity_geom_init(struct verity_geom *g, uint32_t bs, uint64_t data_blocks, int with_sb)
{
	uint64_t pos = 0;
	unsigned bits;
	int i;

	memset(g, 0, sizeof(*g));
	g->bs = bs;
	for (bits = 0; ((uint32_t)SQP_VERITY_DIGEST_SIZE << (bits + 1)) <= bs; bits++)
		;
	g->hpb_bits = bits;
	g->data_blocks = data_blocks;
	while (g->levels < VERITY_MAX_LEVELS && bits * (unsigned)g->levels < 64 &&
	       ((data_blocks - 1) >> (bits * (unsigned)g->levels)) != 0)
		g->levels++;
	for (i = g->levels - 1; i >= 0; i--) {
		unsigned shift = bits * (unsigned)(i + 1);

		g->level_blocks[i] = shift >= 64 ? 1 :
			(data_blocks >> shift) + ((data_blocks & ((1ull << shift) - 1)) != 0);
		g->level_off[i] = pos;
		pos += g->level_blocks[i] * bs;
	}
	g->sb_bytes = with_sb ? (VERITY_SB_SIZE + bs - 1) / bs * bs : 0;
	for (i = 0; i < g->levels; i++)
		g->level_off[i] += g->sb_bytes;
	g->hash_bytes = g->sb_bytes + pos;
}

void verity_sb_encode(const struct verity_sb *sb, uint8_t out[VERITY_SB_SIZE])
{
	memset(out, 0, VERITY_SB_SIZE);
	memcpy(out, sb_magic, sizeof(sb_magic));
	sqp_put32(out + 8, 1);          /* superblock version */
	sqp_put32(out + 12, 1);         /* hash type 1: salt first */
	memcpy(out + 16, sb->uuid, 16);
	memcpy(out + 32, "sha256", 6);
	sqp_put32(out + 64, sb->bs);    /* data block size */
	sqp_put32(out + 68, sb->bs);    /* hash block size */
	sqp_put64(out + 72, sb->data_blocks);
	sqp_put16(out + 80, (uint16_t)sb->salt_len);
	memcpy(out + 88, sb->salt, sb->salt_len);
}

int verity_sb_decode(const uint8_t in[VERITY_SB_SIZE], struct verity_sb *sb,
		     char *msg, size_t msg_len)
{
	uint32_t hbs;

	if (memcmp(in, sb_magic, sizeof(sb_magic)) != 0) {
		snprintf(msg, msg_len, "no verity superblock there");
		return SQP_ERR_CORRUPT;
	}
	if (sqp_get32(in + 8) != 1 || sqp_get32(in + 12) != 1 ||
	    strncmp((const char *)in + 32, "sha256", 32) != 0) {
		snprintf(msg, msg_len, "only version 1 SHA-256 verity superblocks are supported");
		return SQP_ERR_UNSUPPORTED;
	}
	memcpy(sb->uuid, in + 16, 16);
	sb->bs = sqp_get32(in + 64);
	hbs = sqp_get32(in + 68);
	sb->data_blocks = sqp_get64(in + 72);
	sb->salt_len = sqp_get16(in + 80);
	if (sb->bs != hbs || sb->bs < SQP_VERITY_BLOCK_MIN || sb->bs > SQP_VERITY_BLOCK_MAX ||
	    (sb->bs & (sb->bs - 1)) != 0) {
		snprintf(msg, msg_len, "block sizes %u and %u: only equal powers of two "
			 "from 512 to 65536 are supported", sb->bs, hbs);
		return SQP_ERR_UNSUPPORTED;
	}
	if (sb->salt_len > SQP_VERITY_SALT_MAX || sb->data_blocks == 0 ||
	    sb->data_blocks > (UINT64_MAX >> 17)) {
		snprintf(msg, msg_len, "verity superblock: bad salt size or block count");
		return SQP_ERR_CORRUPT;
	}
	memcpy(sb->salt, in + 88, sb->salt_len);
	return 0;
}

EVP_MD_CTX *verity_salted_ctx(const struct verity_sha *sha, const uint8_t *salt,
			      size_t salt_len)
{
	EVP_MD_CTX *c = sha->ctx_new();

	if (c != NULL && (sha->init(c, sha->sha256(), NULL) != 1 ||
			  sha->update(c, salt, salt_len) != 1)) {
		sha->ctx_free(c);
		c = NULL;
	}
	return c;
}

int verity_hash(const struct verity_sha *sha, const EVP_MD_CTX *salted, EVP_MD_CTX *work,
		const void *block, size_t len, uint8_t digest[SQP_VERITY_DIGEST_SIZE])
{
	if (sha->ctx_copy(work, salted) != 1 || sha->update(work, block, len) != 1 ||
	    sha->final(work, digest, NULL) != 1)
		return SQP_ERR_INTERNAL;
	return 0;
}

int verity_sha256(const struct verity_sha *sha, const void *a, size_t alen,
		  const void *b, size_t blen, uint8_t digest[SQP_VERITY_DIGEST_SIZE])
{
	EVP_MD_CTX *c = sha->ctx_new();
	int ok = c != NULL && sha->init(c, sha->sha256(), NULL) == 1 &&
		 sha->update(c, a, alen) == 1 && sha->update(c, b, blen) == 1 &&
		 sha->final(c, digest, NULL) == 1;

	sha->ctx_free(c);
	return ok ? 0 : SQP_ERR_NOMEM;
}
