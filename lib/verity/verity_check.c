/* SPDX-License-Identifier: MIT */
/*
 * verity_check.c - check an image against its dm-verity tree and root
 * hash in user space, as the kernel would on reading every block, and
 * say which block is the first that does not match.
 *
 * It lives beside the hasher because it reads the tree, not the image's
 * format (SquashFS or EROFS alike): the same geometry (verity_geom.c)
 * that wrote the tree walks it here.
 * The walk goes from the root down: the top block against the root hash,
 * then each level against the one above, then the data blocks against
 * the lowest level. So a flipped byte in the tree is named where it is,
 * not as the data blocks below it. Tree levels are read whole (1/128 of
 * the image at 4 KiB); data goes through a 1 MiB buffer.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/abi.h"
#include "util/fileio.h"
#include "verity/verity_geom.h"

#define DATA_CHUNK ((size_t)1 << 20)

struct check {
	const struct sqp_verity_check_desc *d;
	struct verity_geom g;
	uint8_t *area;                 /* the hash area as read, from offset 0 */
	struct verity_sha sha;         /* libcrypto, this check's own */
	EVP_MD_CTX *salted, *work;
	struct sqp_verity_bad *bad;
};

/* Hash n blocks at p and compare with the digests at want; 1 and *bad
 * set at the first mismatch. */
static int compare_run(struct check *c, const uint8_t *p, uint64_t n, const uint8_t *want,
		       uint64_t *bad_k)
{
	uint8_t d[SQP_VERITY_DIGEST_SIZE];
	uint64_t k;

	for (k = 0; k < n; k++) {
		if (verity_hash(&c->sha, c->salted, c->work, p + k * c->g.bs, c->g.bs, d) != 0)
			return SQP_ERR_NOMEM;
		if (memcmp(d, want + k * SQP_VERITY_DIGEST_SIZE, sizeof(d)) != 0) {
			*bad_k = k;
			return 1;
		}
	}
	return 0;
}

static int check_tree(struct check *c)
{
	const struct verity_geom *g = &c->g;
	uint64_t k;
	int i, ret = 0;

	for (i = g->levels - 1; ret == 0 && i >= 0; i--) {
		const uint8_t *want = i == g->levels - 1 ? c->d->root_hash
						     : c->area + g->level_off[i + 1];

		ret = compare_run(c, c->area + g->level_off[i], g->level_blocks[i], want, &k);
		if (ret == 1) {
			c->bad->in_tree = 1;
			c->bad->level = i;
			c->bad->block = k;
			c->bad->offset = c->d->hash_offset + g->level_off[i] + k * g->bs;
		}
	}
	return ret;
}

static int check_data(struct check *c, char *msg, size_t msg_len)
{
	const struct verity_geom *g = &c->g;
	const uint8_t *want = g->levels > 0 ? c->area + g->level_off[0] : c->d->root_hash;
	uint64_t per = DATA_CHUNK / g->bs, done = 0, n, k = 0;
	uint8_t *buf = malloc(DATA_CHUNK);
	int ret = buf != NULL ? 0 : SQP_ERR_NOMEM;

	while (ret == 0 && done < g->data_blocks) {
		n = g->data_blocks - done < per ? g->data_blocks - done : per;
		ret = sqp_pread_full(c->d->data_fd, c->d->data_offset + done * g->bs, buf,
				     (size_t)(n * g->bs));
		if (ret != 0) {
			snprintf(msg, msg_len, "reading the image at %llu: %s",
				 (unsigned long long)(done * g->bs), sqp_strerror(ret));
			break;
		}
		ret = compare_run(c, buf, n, want + done * SQP_VERITY_DIGEST_SIZE, &k);
		if (ret == 1) {
			c->bad->block = done + k;
			c->bad->image_pos = (done + k) * g->bs;
			c->bad->offset = c->d->data_offset + c->bad->image_pos;
		}
		done += n;
	}
	free(buf);
	return ret;
}

/* Read the superblock and the levels below it into c. */
static int load(struct check *c, char *msg, size_t msg_len)
{
	uint8_t raw[VERITY_SB_SIZE];
	struct verity_sb sb;
	int ret = sqp_pread_full(c->d->hash_fd, c->d->hash_offset, raw, sizeof(raw));

	if (ret != 0) {
		snprintf(msg, msg_len, "reading the verity superblock: %s", sqp_strerror(ret));
		return ret;
	}
	ret = verity_sb_decode(raw, &sb, msg, msg_len);
	if (ret != 0)
		return ret;
	verity_geom_init(&c->g, sb.bs, sb.data_blocks, 1);
	c->bad->block_size = sb.bs;
	c->bad->data_blocks = sb.data_blocks;
	ret = verity_sha_open(&c->sha, msg, msg_len);
	if (ret != 0)
		return ret;
	c->salted = verity_salted_ctx(&c->sha, sb.salt, sb.salt_len);
	c->work = c->sha.ctx_new();
	c->area = c->g.hash_bytes <= SIZE_MAX ? malloc((size_t)c->g.hash_bytes) : NULL;
	if (c->salted == NULL || c->work == NULL || c->area == NULL) {
		snprintf(msg, msg_len, "out of memory");
		return SQP_ERR_NOMEM;
	}
	ret = sqp_pread_full(c->d->hash_fd, c->d->hash_offset + c->g.sb_bytes,
			     c->area + c->g.sb_bytes, (size_t)(c->g.hash_bytes - c->g.sb_bytes));
	if (ret != 0)
		snprintf(msg, msg_len, "reading the verity hash tree: %s", sqp_strerror(ret));
	return ret;
}

/* The size rule at this edge: the message goes to msg, as every other. */
static int abi_fail(int ret, const struct sqp_errbuf *eb, char *msg, size_t msg_len)
{
	snprintf(msg, msg_len, "%s", eb->msg);
	return ret;
}

int sqp_verity_check(const struct sqp_verity_check_desc *desc,
		     struct sqp_verity_bad *bad, char *msg, size_t msg_len)
{
	struct sqp_verity_check_desc d;
	struct sqp_verity_bad b = { .struct_size = sizeof(b) };
	struct sqp_errbuf eb = { 0 };
	struct check c = { .d = &d, .bad = &b };
	const size_t bad_v0 = SQP_SIZE_TO(struct sqp_verity_bad, data_blocks);
	int ret;

	msg[0] = '\0';
	ret = sqp_abi_in(&eb, "sqp_verity_check_desc", &d, sizeof(d),
			 SQP_SIZE_TO(struct sqp_verity_check_desc, root_hash_len), desc);
	if (ret == 0) /* zeroes *bad, and proves it can be written */
		ret = sqp_abi_out(&eb, "sqp_verity_bad", bad, &b, sizeof(b), bad_v0);
	if (ret != 0)
		return abi_fail(ret, &eb, msg, msg_len);
	if (d.root_hash_len != SQP_VERITY_DIGEST_SIZE) {
		snprintf(msg, msg_len, "a SHA-256 root hash is %d bytes, not %zu",
			 SQP_VERITY_DIGEST_SIZE, d.root_hash_len);
		return SQP_ERR_ARG;
	}
	ret = load(&c, msg, msg_len);
	if (ret == 0)
		ret = check_tree(&c);
	if (ret == 0)
		ret = check_data(&c, msg, msg_len);
	if (ret == SQP_ERR_NOMEM && msg[0] == '\0')
		snprintf(msg, msg_len, "out of memory");
	if (c.sha.lib != NULL) {
		c.sha.ctx_free(c.work);
		c.sha.ctx_free(c.salted);
	}
	verity_sha_close(&c.sha);
	free(c.area);
	(void)sqp_abi_out(NULL, "sqp_verity_bad", bad, &b, sizeof(b), bad_v0); /* checked above */
	return ret;
}
