/* SPDX-License-Identifier: MIT */
/*
 * verity.c - hash the image's blocks as imgout takes them, where they
 * already are, on every core.
 *
 * imgout hands every byte it appends or queues to this hasher, in image
 * order and on the writer's orchestrator alone, so which block a byte
 * falls in is known at once and the state below is the orchestrator's.
 * Appended bytes (head, tables, padding) are hashed before the call
 * returns (verity_feed). Queued bytes are the data path's compressed
 * blocks: at lz4 on 2 cores the SHA-256 of them is a fifth of the CPU a
 * run takes, too much for any one thread, so verity_place only notes
 * the whole blocks they hold in a span and the pool's workers hash it
 * (compress.c) as background jobs, whenever no block waits to be
 * compressed, and the orchestrator takes them back in any order, all of
 * them before finish reads the digests. The image's first
 * bytes are kept aside, as many whole blocks as the caller's hold asks
 * (a format writes its superblock there last: SquashFS's at 0, EROFS's
 * in its block 0, 4 KiB, which is 8 verity blocks at 512 bytes); a
 * block split between two calls is gathered in a one-block carry and,
 * when the carry fills from queued bytes, copied into that call's span.
 * Block k's digest goes to slot k, so nothing depends on timing.
 *
 * The digests are the tree's lowest level, 32 bytes per block (8 MiB per
 * GiB of image at 4 KiB): they live in 64 KiB chunks of the writer's
 * spill arena, so --mem bounds them like the tree's own tables, and they
 * are written out from there (verity_tree.c). The chunks are allocated
 * before the bytes they cover are placed, and a span carries the
 * addresses of its chunks, so a worker never reads the chunk array (the
 * orchestrator grows it); the pool's hand-over of the job orders the
 * span's fields before the worker's hashing, and the orchestrator's
 * reaping of the job (under the pool's lock) orders the digests before
 * finish reads them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/spill.h"
#include "verity/verity.h"
#include "verity/verity_geom.h"

int sqp_verity_available(void)
{
	return 1;
}

struct verity {
	struct sqp_verity_desc desc;   /* block_size and salt resolved */
	struct sqp_errbuf *err;        /* the writer's */
	struct sqp_spill *spill;       /* the writer's, or NULL */
	uint8_t uuid[16];
	struct verity_sha sha;         /* libcrypto, this hasher's own */
	EVP_MD_CTX *salted;            /* the salt hashed, copied per block */
	EVP_MD_CTX *work;
	uint8_t *head;                 /* the first head_cap bytes fed */
	size_t head_cap;               /* hold rounded up to whole blocks */
	uint8_t *carry;                /* a block split between two feeds */
	size_t carry_len;
	uint64_t fed;                  /* bytes fed */
	uint64_t hashed;               /* blocks given their slot: digest in
	                                * it, or in a span not yet hashed */
	struct verity_digests dig;     /* the orchestrator's (the chunks'
	                                * bytes: a span's worker's) */
	uint8_t *top;                  /* after finish: superblock, upper levels
	                                * (the arena's, top_len bytes or 1) */
	size_t top_len;
	struct verity_geom geom;
	uint8_t root[SQP_VERITY_DIGEST_SIZE];
};

/* A span: what one verity_place leaves to hash (see verity.h). */
struct verity_span {
	const struct verity_sha *sha;  /* the hasher's, only read */
	const EVP_MD_CTX *salted;      /* the hasher's, only read */
	uint32_t bs;
	const uint8_t *data;           /* `blocks` whole blocks, or NULL */
	size_t blocks;
	size_t first;                  /* their first slot, in chunk[0] */
	uint8_t *chunk[2];             /* their digests' chunks */
	uint8_t *seam_slot;            /* NULL, or the digest of seam */
	uint8_t seam[];                /* bs bytes gathered from the carry */
};

/* Room for the digests of the image's bytes below end, from the arena
 * (this thread's alone). 0, or an error latched in err. */
static int reserve(struct verity *v, uint64_t end)
{
	struct verity_digests *d = &v->dig;
	uint64_t blocks = (end + v->desc.block_size - 1) / v->desc.block_size;
	size_t want = (size_t)((blocks + VERITY_CHUNK_DIGESTS - 1) / VERITY_CHUNK_DIGESTS);
	uint8_t **p, *c;

	while (d->count < want) {
		c = sqp_spill_alloc(v->spill, VERITY_CHUNK_BYTES);
		if (c == NULL)
			return sqp_err(v->err, SQP_ERR_NOMEM, "out of memory for verity digests");
		if (d->count == d->cap) {
			p = realloc(d->chunks, (d->cap ? 2 * d->cap : 64) * sizeof(*p));
			if (p == NULL) {
				sqp_spill_free(v->spill, c, VERITY_CHUNK_BYTES);
				return sqp_err(v->err, SQP_ERR_NOMEM,
					       "out of memory for verity digests");
			}
			d->chunks = p;
			d->cap = d->cap ? 2 * d->cap : 64;
		}
		d->chunks[d->count++] = c;
		/* 64 KiB to be written since the last chunk: past the
		 * budget's share of mapped file pages, the arena drops them. */
		sqp_spill_check(v->spill);
	}
	return 0;
}

/* Slot of block k (reserved). */
static uint8_t *slot(const struct verity *v, uint64_t k)
{
	return v->dig.chunks[k / VERITY_CHUNK_DIGESTS] +
	       (size_t)(k % VERITY_CHUNK_DIGESTS) * SQP_VERITY_DIGEST_SIZE;
}

/* Hash one whole block into the next slot now. */
static int hash_block(struct verity *v, const uint8_t *block)
{
	int ret = verity_hash(&v->sha, v->salted, v->work, block, v->desc.block_size,
			      slot(v, v->hashed));

	if (ret != 0)
		return sqp_err(v->err, ret, "hashing the image for dm-verity: %s",
			       sqp_strerror(ret));
	v->hashed++;
	return 0;
}

/* The next n whole blocks at p, left to span: their slots' chunks. */
static int note_blocks(struct verity *v, const uint8_t *p, size_t n, struct verity_span *s)
{
	size_t c = (size_t)(v->hashed / VERITY_CHUNK_DIGESTS);

	s->first = (size_t)(v->hashed % VERITY_CHUNK_DIGESTS);
	if (s->first + n > 2 * (size_t)VERITY_CHUNK_DIGESTS)
		return sqp_err(v->err, SQP_ERR_INTERNAL, "verity: %zu blocks placed at once", n);
	s->data = p;
	s->blocks = n;
	s->chunk[0] = v->dig.chunks[c];
	s->chunk[1] = s->first + n > VERITY_CHUNK_DIGESTS ? v->dig.chunks[c + 1] : NULL;
	v->hashed += n;
	return 0;
}

static int resolve_salt(struct verity *v, const void *derive, size_t derive_len)
{
	static const char salt_tag[] = "sqpack dm-verity salt v1";
	static const char uuid_tag[] = "sqpack dm-verity uuid v1";
	uint8_t d[SQP_VERITY_DIGEST_SIZE];
	int ret = 0;

	if (!v->desc.salt_given) {
		ret = verity_sha256(&v->sha, salt_tag, sizeof(salt_tag), derive, derive_len,
				    v->desc.salt);
		v->desc.salt_len = SQP_VERITY_DIGEST_SIZE;
	}
	if (ret == 0)
		ret = verity_sha256(&v->sha, uuid_tag, sizeof(uuid_tag), v->desc.salt,
				    v->desc.salt_len, d);
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
		  size_t hold, struct sqp_spill *spill, struct sqp_errbuf *err,
		  struct verity **out)
{
	struct verity *v = calloc(1, sizeof(*v));
	char why[SQP_ERRMSG_MAX];
	size_t bs;
	int ret;

	*out = v;
	if (v == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	v->desc = *desc;
	v->err = err;
	v->spill = spill;
	if (v->desc.block_size == 0)
		v->desc.block_size = 4096;
	ret = check_desc(&v->desc, err);
	if (ret == 0 && (ret = verity_sha_open(&v->sha, why, sizeof(why))) != 0)
		sqp_err(err, ret, "%s", why);
	if (ret == 0)
		ret = resolve_salt(v, derive, derive_len);
	if (ret != 0)
		return ret;
	bs = v->desc.block_size;
	v->head_cap = hold > bs ? (hold + bs - 1) / bs * bs : bs;
	v->head = malloc(v->head_cap);
	v->carry = malloc(v->desc.block_size);
	v->salted = verity_salted_ctx(&v->sha, v->desc.salt, v->desc.salt_len);
	v->work = v->sha.ctx_new();
	if (v->head == NULL || v->carry == NULL || v->salted == NULL || v->work == NULL)
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
	if (v->sha.lib != NULL) {
		v->sha.ctx_free(v->work);
		v->sha.ctx_free(v->salted);
	}
	verity_sha_close(&v->sha);
	free(v->carry);
	free(v->head);
	if (v->top != NULL)
		sqp_spill_free(v->spill, v->top, v->top_len > 0 ? v->top_len : 1);
	free(v);
}

uint32_t verity_block_size(const struct verity *v)
{
	return v->desc.block_size;
}

/* Take the next len bytes: the head's are kept aside, a block
 * split between calls is gathered in the carry; whole blocks are hashed
 * now (span NULL) or noted in span, and so is a carry they fill. */
static int take(struct verity *v, const uint8_t *p, size_t len, struct verity_span *s)
{
	size_t bs = v->desc.block_size, n;
	int ret = reserve(v, v->fed + len);

	if (ret == 0 && v->fed < v->head_cap) {
		n = v->head_cap - (size_t)v->fed < len ? v->head_cap - (size_t)v->fed : len;
		memcpy(v->head + v->fed, p, n);
		v->fed += n;
		p += n;
		len -= n;
		if (v->fed == v->head_cap)
			v->hashed = v->head_cap / bs; /* their slots filled at finish */
	}
	v->fed += len;
	if (ret == 0 && v->carry_len > 0 && len > 0) {
		n = bs - v->carry_len < len ? bs - v->carry_len : len;
		memcpy(v->carry + v->carry_len, p, n);
		v->carry_len += n;
		p += n;
		len -= n;
		if (v->carry_len == bs) {
			v->carry_len = 0;
			if (s == NULL) {
				ret = hash_block(v, v->carry);
			} else {
				memcpy(s->seam, v->carry, bs);
				s->seam_slot = slot(v, v->hashed++);
			}
		}
	}
	if (ret == 0 && s != NULL && len >= bs) {
		ret = note_blocks(v, p, len / bs, s);
		n = len / bs * bs;
		p += n;
		len -= n;
	}
	for (; ret == 0 && len >= bs; p += bs, len -= bs)
		ret = hash_block(v, p);
	if (ret == 0 && len > 0) {
		memcpy(v->carry, p, len);
		v->carry_len = len;
	}
	return ret;
}

int verity_feed(struct verity *v, const void *data, size_t len)
{
	return take(v, data, len, NULL);
}

size_t verity_span_size(const struct verity *v)
{
	return sizeof(struct verity_span) + v->desc.block_size;
}

int verity_place(struct verity *v, const void *data, size_t len, struct verity_span *span)
{
	int ret;

	span->sha = &v->sha;
	span->salted = v->salted;
	span->bs = v->desc.block_size;
	span->data = NULL;
	span->blocks = 0;
	span->seam_slot = NULL;
	ret = take(v, data, len, span);
	return ret != 0 ? ret : span->blocks > 0 || span->seam_slot != NULL;
}

int verity_span_hash(struct verity_span *s)
{
	EVP_MD_CTX *work = s->sha->ctx_new();
	size_t i, k;
	int ret = work != NULL ? 0 : SQP_ERR_NOMEM;

	if (ret == 0 && s->seam_slot != NULL)
		ret = verity_hash(s->sha, s->salted, work, s->seam, s->bs, s->seam_slot);
	for (i = 0; ret == 0 && i < s->blocks; i++) {
		k = s->first + i;
		ret = verity_hash(s->sha, s->salted, work, s->data + i * s->bs, s->bs,
				  s->chunk[k / VERITY_CHUNK_DIGESTS] +
				  (k % VERITY_CHUNK_DIGESTS) * SQP_VERITY_DIGEST_SIZE);
	}
	s->sha->ctx_free(work);
	return ret;
}

int verity_finish(struct verity *v, const void *head, size_t head_len)
{
	uint32_t bs = v->desc.block_size;
	/* An image shorter than the head has only its own blocks there. */
	size_t held = v->fed < v->head_cap ? (size_t)v->fed : v->head_cap, k;
	int ret = 0;

	if (v->fed % bs != 0 || v->fed == 0 || head_len > held ||
	    v->hashed != (v->fed < v->head_cap ? 0 : v->fed / bs))
		return sqp_err(v->err, SQP_ERR_INTERNAL, "verity: %llu bytes fed, %llu blocks "
			       "hashed", (unsigned long long)v->fed, (unsigned long long)v->hashed);
	memcpy(v->head, head, head_len);
	for (k = 0; ret == 0 && k < held / bs; k++)
		ret = verity_hash(&v->sha, v->salted, v->work, v->head + k * bs, bs, slot(v, k));
	if (ret != 0)
		return sqp_err(v->err, ret, "hashing the image's first blocks: %s",
			       sqp_strerror(ret));
	v->hashed = v->fed / bs;
	verity_geom_init(&v->geom, bs, v->hashed, !v->desc.no_superblock);
	return verity_tree_top(&v->geom, &v->dig, &v->sha, v->salted, v->work, &v->desc,
			       v->uuid, v->spill, &v->top, &v->top_len, v->root, v->err);
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
