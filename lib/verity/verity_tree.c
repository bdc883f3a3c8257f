/* SPDX-License-Identifier: MIT */
/*
 * verity_tree.c - the hash area from the data blocks' digests.
 *
 * The lowest level is the digests themselves, one after another (a hash
 * block holds a power of two of them, exactly filled but for the last
 * block, whose rest stays zero), so it is neither computed nor copied:
 * it is written out from the chunks the hasher filled (verity.c). Each
 * level above holds the digests of the blocks of the one below; they are
 * 1/128 of it at 4 KiB, so they are built at the end on the caller's
 * thread, in one buffer of the spill arena with the superblock, top
 * level first as veritysetup lays them out. The single top block's digest is the root
 * hash; with one data block there is no level and the root is that
 * block's digest.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/spill.h"
#include "verity/verity.h"
#include "verity/verity_geom.h"

/* Hash block k of the lowest level, in its chunk. */
static const uint8_t *low_block(const struct verity_digests *d, uint32_t bs, uint64_t k)
{
	uint64_t off = k * bs;

	return d->chunks[off / VERITY_CHUNK_BYTES] + (size_t)(off % VERITY_CHUNK_BYTES);
}

/* Levels 1.. into top (at level_off[i]); the last one's single block
 * hashes to the root. Level 1 reads all the digests: the arena is
 * checked after each chunk, so they do not all stay mapped in. */
static int hash_levels(const struct verity_geom *g, const struct verity_digests *d,
		       const struct verity_sha *sha, const EVP_MD_CTX *salted,
		       EVP_MD_CTX *work, struct sqp_spill *spill,
		       uint8_t *top, uint8_t root[SQP_VERITY_DIGEST_SIZE])
{
	uint64_t per_chunk = VERITY_CHUNK_BYTES / g->bs, k;
	int ret = 0, i;

	for (i = 1; ret == 0 && i <= g->levels; i++) {
		uint8_t *up = i < g->levels ? top + g->level_off[i] : root;

		for (k = 0; ret == 0 && k < g->level_blocks[i - 1]; k++) {
			const uint8_t *below = i == 1 ? low_block(d, g->bs, k) :
				top + g->level_off[i - 1] + k * g->bs;

			ret = verity_hash(sha, salted, work, below, g->bs,
					  up + k * SQP_VERITY_DIGEST_SIZE);
			if (i == 1 && k % per_chunk == per_chunk - 1)
				sqp_spill_check(spill);
		}
	}
	return ret;
}

int verity_tree_top(const struct verity_geom *g, const struct verity_digests *d,
		    const struct verity_sha *sha, const EVP_MD_CTX *salted, EVP_MD_CTX *work,
		    const struct sqp_verity_desc *desc, const uint8_t uuid[16],
		    struct sqp_spill *spill, uint8_t **top, size_t *top_len,
		    uint8_t root[SQP_VERITY_DIGEST_SIZE], struct sqp_errbuf *err)
{
	uint64_t len = g->levels > 0 ? g->level_off[0] : g->hash_bytes;
	uint8_t *t;
	int ret = 0;

	if (len > SIZE_MAX)
		return sqp_err(err, SQP_ERR_LIMIT, "verity hash tree too large");
	t = sqp_spill_alloc(spill, len > 0 ? (size_t)len : 1);
	if (t == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory for the verity hash tree");
	*top = t;
	*top_len = (size_t)len;
	if (g->levels == 0)
		memcpy(root, d->chunks[0], SQP_VERITY_DIGEST_SIZE);
	else
		ret = hash_levels(g, d, sha, salted, work, spill, t, root);
	if (ret != 0)
		return sqp_err(err, ret, "hashing the verity tree: %s", sqp_strerror(ret));
	if (g->sb_bytes > 0) {
		struct verity_sb sb = {
			.bs = g->bs, .data_blocks = g->data_blocks, .salt_len = desc->salt_len,
		};

		memcpy(sb.uuid, uuid, 16);
		memcpy(sb.salt, desc->salt, desc->salt_len);
		verity_sb_encode(&sb, t);
	}
	return 0;
}

int verity_tree_write(const struct verity_geom *g, const struct verity_digests *d,
		      const uint8_t *top, size_t top_len, struct sqp_spill *spill,
		      verity_put_fn put, void *ctx)
{
	uint64_t left = g->levels > 0 ? g->level_blocks[0] * g->bs : 0;
	int ret = put(ctx, top, top_len);
	size_t i, n;

	for (i = 0; ret == 0 && left > 0; i++) {
		n = left < VERITY_CHUNK_BYTES ? (size_t)left : VERITY_CHUNK_BYTES;
		ret = put(ctx, d->chunks[i], n);
		left -= n;
		sqp_spill_check(spill);
	}
	return ret;
}
