/* SPDX-License-Identifier: MIT */
/*
 * verity.c - hash the image's blocks as imgout takes them, where they
 * already are.
 *
 * imgout hands every byte it appends or queues, in image order, to
 * verity_feed(): the data blocks it queues on its writer thread, once
 * they are written (imgwriter.c), the bytes it appends on the
 * orchestrator's. At lz4 the orchestrator is the critical path (see
 * doc/parallelism.md) and the writer thread idles most of the run, so
 * the hash is spent there. Feeds never overlap: imgout waits for the
 * writer thread's feeds before it feeds an append, and its lock orders
 * the hand-overs. The first block is kept aside (it holds the
 * superblock, final only at the end); every other whole block is hashed
 * in the caller's buffer (a compressed job buffer, or a table), and only
 * a block split between two calls is gathered in a one-block carry.
 * Block k's digest goes to slot k, so nothing depends on timing.
 *
 * The digests are the tree's lowest level, 32 bytes per block (8 MiB per
 * GiB of image at 4 KiB): they live in 64 KiB chunks of the writer's
 * spill arena, so --mem bounds them like the tree's own tables, and they
 * are written out from there (verity_tree.c). The arena is the
 * orchestrator's alone, so the chunks are allocated there, before the
 * bytes they cover are fed (verity_reserve); the feeding thread only
 * looks its slots up, under the lock that guards the chunk array.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/spill.h"
#include "write/verity.h"
#include "write/verity_geom.h"

struct verity {
	struct sqp_verity_desc desc;   /* block_size and salt resolved */
	struct sqp_errbuf *err;        /* the writer's */
	struct sqp_spill *spill;       /* the writer's, or NULL */
	uint8_t uuid[16];
	EVP_MD_CTX *salted;            /* the salt hashed, copied per block */
	EVP_MD_CTX *work;
	uint8_t *block0;
	uint8_t *carry;                /* a block split between two feeds */
	size_t carry_len;
	uint64_t fed;                  /* bytes fed */
	uint64_t hashed;               /* blocks whose digest is in its slot */
	pthread_mutex_t lock;          /* protects dig's chunk array (chunks,
	                                * count, cap), not the digests */
	struct verity_digests dig;
	uint8_t *top;                  /* after finish: superblock, upper levels
	                                * (the arena's, top_len bytes or 1) */
	size_t top_len;
	struct verity_geom geom;
	uint8_t root[SQP_VERITY_DIGEST_SIZE];
};

int verity_reserve(struct verity *v, uint64_t end)
{
	struct verity_digests *d = &v->dig;
	uint64_t blocks = (end + v->desc.block_size - 1) / v->desc.block_size;
	size_t want = (size_t)((blocks + VERITY_CHUNK_DIGESTS - 1) / VERITY_CHUNK_DIGESTS);
	uint8_t **p, *c;
	size_t cap;

	while (d->count < want) {
		/* Read without the lock: only this thread changes it. */
		c = sqp_spill_alloc(v->spill, VERITY_CHUNK_BYTES);
		if (c == NULL)
			return sqp_err(v->err, SQP_ERR_NOMEM, "out of memory for verity digests");
		pthread_mutex_lock(&v->lock);
		p = d->chunks;
		cap = d->cap;
		if (d->count == cap) {
			cap = cap ? 2 * cap : 64;
			p = realloc(d->chunks, cap * sizeof(*p));
		}
		if (p != NULL) {
			d->chunks = p;
			d->cap = cap;
			p[d->count++] = c;
		}
		pthread_mutex_unlock(&v->lock);
		if (p == NULL) {
			sqp_spill_free(v->spill, c, VERITY_CHUNK_BYTES);
			return sqp_err(v->err, SQP_ERR_NOMEM, "out of memory for verity digests");
		}
		/* 64 KiB to be written since the last chunk: past the
		 * budget's share of mapped file pages, the arena drops them. */
		sqp_spill_check(v->spill);
	}
	return 0;
}

/* Slot of block k, or NULL if verity_reserve did not cover it. */
static uint8_t *slot(struct verity *v, uint64_t k)
{
	size_t c = (size_t)(k / VERITY_CHUNK_DIGESTS);
	uint8_t *s = NULL;

	pthread_mutex_lock(&v->lock);
	if (c < v->dig.count)
		s = v->dig.chunks[c] + (size_t)(k % VERITY_CHUNK_DIGESTS) * SQP_VERITY_DIGEST_SIZE;
	pthread_mutex_unlock(&v->lock);
	return s;
}

/* Hash one whole block into the next slot. Latches nothing: the caller
 * may be the writer thread (see above). */
static int hash_block(struct verity *v, const uint8_t *block)
{
	uint8_t *s = slot(v, v->hashed);
	int ret;

	if (s == NULL)
		return SQP_ERR_INTERNAL;
	ret = verity_hash(v->salted, v->work, block, v->desc.block_size, s);
	if (ret == 0)
		v->hashed++;
	return ret;
}

static int resolve_salt(struct verity *v, const void *derive, size_t derive_len)
{
	static const char salt_tag[] = "sqpack dm-verity salt v1";
	static const char uuid_tag[] = "sqpack dm-verity uuid v1";
	uint8_t d[SQP_VERITY_DIGEST_SIZE];
	int ret = 0;

	if (!v->desc.salt_given) {
		ret = verity_sha256(salt_tag, sizeof(salt_tag), derive, derive_len, v->desc.salt);
		v->desc.salt_len = SQP_VERITY_DIGEST_SIZE;
	}
	if (ret == 0)
		ret = verity_sha256(uuid_tag, sizeof(uuid_tag), v->desc.salt, v->desc.salt_len, d);
	if (ret != 0)
		return sqp_err(v->err, ret, "deriving the verity salt: %s", sqp_strerror(ret));
	memcpy(v->uuid, d, 16);
	/* An RFC 9562 UUID of version 8 (vendor-defined, not random). */
	v->uuid[6] = (uint8_t)((v->uuid[6] & 0x0f) | 0x80);
	v->uuid[8] = (uint8_t)((v->uuid[8] & 0x3f) | 0x80);
	return 0;
}

static int check_desc(const struct sqp_verity_desc *d, struct sqp_errbuf *err)
{
	uint32_t bs = d->block_size;

	if (bs < SQP_VERITY_BLOCK_MIN || bs > SQP_VERITY_BLOCK_MAX || (bs & (bs - 1)) != 0)
		return sqp_err(err, SQP_ERR_ARG, "verity block size %u is not a power of two "
			       "between 512 and 65536", bs);
	if (d->salt_given && d->salt_len > SQP_VERITY_SALT_MAX)
		return sqp_err(err, SQP_ERR_ARG, "verity salt longer than %d bytes",
			       SQP_VERITY_SALT_MAX);
	if (d->separate && d->hash_fd < 0)
		return sqp_err(err, SQP_ERR_ARG, "no file for the verity hash tree");
	return 0;
}

int verity_create(const struct sqp_verity_desc *desc, const void *derive, size_t derive_len,
		  struct sqp_spill *spill, struct sqp_errbuf *err, struct verity **out)
{
	struct verity *v = calloc(1, sizeof(*v));
	int ret;

	*out = v;
	if (v == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	pthread_mutex_init(&v->lock, NULL);
	v->desc = *desc;
	v->err = err;
	v->spill = spill;
	if (v->desc.block_size == 0)
		v->desc.block_size = 4096;
	ret = check_desc(&v->desc, err);
	if (ret == 0)
		ret = resolve_salt(v, derive, derive_len);
	if (ret != 0)
		return ret;
	v->block0 = malloc(v->desc.block_size);
	v->carry = malloc(v->desc.block_size);
	v->salted = verity_salted_ctx(v->desc.salt, v->desc.salt_len);
	v->work = EVP_MD_CTX_new();
	if (v->block0 == NULL || v->carry == NULL || v->salted == NULL || v->work == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

void verity_destroy(struct verity *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->dig.count; i++)
		sqp_spill_free(v->spill, v->dig.chunks[i], VERITY_CHUNK_BYTES);
	free(v->dig.chunks);
	EVP_MD_CTX_free(v->work);
	EVP_MD_CTX_free(v->salted);
	free(v->carry);
	free(v->block0);
	if (v->top != NULL)
		sqp_spill_free(v->spill, v->top, v->top_len > 0 ? v->top_len : 1);
	pthread_mutex_destroy(&v->lock);
	free(v);
}

uint32_t verity_block_size(const struct verity *v)
{
	return v->desc.block_size;
}

int verity_feed(struct verity *v, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t bs = v->desc.block_size, n;
	int ret = 0;

	if (v->fed < bs) {
		n = bs - (size_t)v->fed < len ? bs - (size_t)v->fed : len;
		memcpy(v->block0 + v->fed, p, n);
		v->fed += n;
		p += n;
		len -= n;
		if (v->fed == bs)
			v->hashed = 1; /* slot 0 is filled at finish */
	}
	v->fed += len;
	if (v->carry_len > 0 && len > 0) {
		n = bs - v->carry_len < len ? bs - v->carry_len : len;
		memcpy(v->carry + v->carry_len, p, n);
		v->carry_len += n;
		p += n;
		len -= n;
		if (v->carry_len == bs) {
			v->carry_len = 0;
			ret = hash_block(v, v->carry);
		}
	}
	for (; ret == 0 && len >= bs; p += bs, len -= bs)
		ret = hash_block(v, p);
	if (ret == 0 && len > 0) {
		memcpy(v->carry, p, len);
		v->carry_len = len;
	}
	return ret;
}

int verity_finish(struct verity *v, const void *head, size_t head_len)
{
	uint32_t bs = v->desc.block_size;
	uint8_t *s0;
	int ret;

	if (v->fed % bs != 0 || v->fed == 0 || head_len > bs || v->hashed != v->fed / bs)
		return sqp_err(v->err, SQP_ERR_INTERNAL, "verity: %llu bytes fed, %llu blocks "
			       "hashed", (unsigned long long)v->fed, (unsigned long long)v->hashed);
	s0 = slot(v, 0);
	if (s0 == NULL)
		return sqp_err(v->err, SQP_ERR_INTERNAL, "verity: no slot for the first block");
	memcpy(v->block0, head, head_len);
	ret = verity_hash(v->salted, v->work, v->block0, bs, s0);
	if (ret != 0)
		return sqp_err(v->err, ret, "hashing the image's first block: %s",
			       sqp_strerror(ret));
	verity_geom_init(&v->geom, bs, v->hashed, !v->desc.no_superblock);
	return verity_tree_top(&v->geom, &v->dig, v->salted, v->work, &v->desc, v->uuid,
			       v->spill, &v->top, &v->top_len, v->root, v->err);
}

int verity_write_tree(struct verity *v, verity_put_fn put, void *ctx)
{
	return verity_tree_write(&v->geom, &v->dig, v->top, v->top_len, v->spill, put, ctx);
}

void verity_get_result(const struct verity *v, struct sqp_verity_result *r)
{
	memset(r, 0, sizeof(*r));
	memcpy(r->root_hash, v->root, sizeof(r->root_hash));
	memcpy(r->salt, v->desc.salt, v->desc.salt_len);
	r->salt_len = v->desc.salt_len;
	memcpy(r->uuid, v->uuid, sizeof(r->uuid));
	r->block_size = v->desc.block_size;
	r->data_blocks = v->fed / v->desc.block_size;
	r->data_bytes = v->fed;
	r->hash_bytes = v->geom.hash_bytes;
	r->has_superblock = !v->desc.no_superblock;
}
