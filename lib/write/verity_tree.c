/* SPDX-License-Identifier: MIT */
/*
 * verity_tree.c - the hash area from the data blocks' digests.
 *
 * The lowest level is the digests themselves, one after another (a hash
 * block holds a power of two of them, exactly filled but for the last
 * block, whose rest stays zero), so it is copied, not computed. Each
 * level above holds the digests of the blocks of the one below; they
 * are 1/128 of it at 4 KiB, so building them at the end, on the caller's
 * thread, costs nothing worth a thread. The single top block's digest is
 * the root hash; with one data block there is no level and the root is
 * that block's digest.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "write/verity.h"
#include "write/verity_geom.h"

static int hash_levels(const struct verity_geom *g, uint8_t *area, const uint8_t *salt,
		       size_t salt_len, uint8_t root[SQP_VERITY_DIGEST_SIZE])
{
	EVP_MD_CTX *salted = verity_salted_ctx(salt, salt_len);
	EVP_MD_CTX *work = EVP_MD_CTX_new();
	int ret = salted != NULL && work != NULL ? 0 : SQP_ERR_NOMEM;
	uint64_t k;
	int i;

	for (i = 1; ret == 0 && i <= g->levels; i++) {
		const uint8_t *below = area + g->level_off[i - 1];
		/* The top level's single block hashes to the root. */
		uint8_t *up = i < g->levels ? area + g->level_off[i] : root;

		for (k = 0; ret == 0 && k < g->level_blocks[i - 1]; k++)
			ret = verity_hash(salted, work, below + k * g->bs, g->bs,
					  up + k * SQP_VERITY_DIGEST_SIZE);
	}
	EVP_MD_CTX_free(work);
	EVP_MD_CTX_free(salted);
	return ret;
}

int verity_tree_build(const struct verity_tree_in *in, uint8_t **area, size_t *area_len,
		      uint8_t root[SQP_VERITY_DIGEST_SIZE], struct sqp_errbuf *err)
{
	struct verity_geom g;
	uint8_t *a;
	int ret;

	verity_geom_init(&g, in->bs, in->data_blocks, in->with_sb);
	if (g.hash_bytes > SIZE_MAX)
		return sqp_err(err, SQP_ERR_LIMIT, "verity hash tree too large");
	a = calloc(1, g.hash_bytes > 0 ? (size_t)g.hash_bytes : 1);
	if (a == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory for the verity hash tree");
	if (g.levels == 0) {
		memcpy(root, in->digests, SQP_VERITY_DIGEST_SIZE);
		ret = 0;
	} else {
		memcpy(a + g.level_off[0], in->digests, in->data_blocks * SQP_VERITY_DIGEST_SIZE);
		ret = hash_levels(&g, a, in->salt, in->salt_len, root);
	}
	if (ret != 0) {
		free(a);
		return sqp_err(err, ret, "hashing the verity tree: %s", sqp_strerror(ret));
	}
	if (in->with_sb) {
		struct verity_sb sb = {
			.bs = in->bs, .data_blocks = in->data_blocks, .salt_len = in->salt_len,
		};

		memcpy(sb.uuid, in->uuid, 16);
		memcpy(sb.salt, in->salt, in->salt_len);
		verity_sb_encode(&sb, a);
	}
	*area = a;
	*area_len = (size_t)g.hash_bytes;
	return 0;
}
