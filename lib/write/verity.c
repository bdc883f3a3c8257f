/* SPDX-License-Identifier: MIT */
/*
 * verity.c - hash the image's blocks while it is written, off the
 * writer's critical path.
 *
 * imgout hands every byte it takes, in image order, to verity_feed(): the
 * first block is kept aside (it holds the superblock, final only at the
 * end), the rest is copied into a ring that a thread of its own drains
 * one whole block at a time, storing each block's digest at its number.
 * The copy costs the orchestrator a memcpy of the compressed image, far
 * less than a hash; the hashing itself overlaps with compression. The
 * ring bounds memory: when the thread falls behind, the feeder waits.
 * Because blocks are numbered by their place in the stream, the digests
 * never depend on timing.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "write/verity.h"
#include "write/verity_geom.h"

#define RING_SIZE ((size_t)8 << 20)  /* a multiple of every block size */
#define WAKE_BYTES ((uint64_t)1 << 20) /* wake an idle thread per this much */

struct verity {
	struct sqp_verity_desc desc;   /* block_size and salt resolved */
	struct sqp_errbuf *err;        /* the writer's */
	uint8_t uuid[16];
	EVP_MD_CTX *salted;            /* read-only once created */
	uint8_t *block0;
	uint64_t fed;                  /* bytes fed (owner) */
	uint8_t *ring;
	uint8_t *digests;              /* thread's until joined; [0] at finish */
	uint64_t digest_cap;
	pthread_t thread;
	int started;
	pthread_mutex_t lock;          /* protects head..failed */
	pthread_cond_t wake;           /* owner -> thread: bytes or done */
	pthread_cond_t room;           /* thread -> owner: ring space */
	uint64_t head, tail;           /* ring bytes fed / hashed, ever growing */
	int idle, done, failed;
	uint64_t hashed;               /* blocks hashed by the thread (after block 0) */
	uint8_t *tree;
	size_t tree_len;
	uint8_t root[SQP_VERITY_DIGEST_SIZE];
};

/* The thread's digest array, grown as blocks come (unknown in advance). */
static int grow_digests(struct verity *v, uint64_t need)
{
	uint64_t cap = v->digest_cap;
	uint8_t *p;

	if (need <= cap)
		return 0;
	while (cap < need)
		cap *= 2;
	if (cap > SIZE_MAX / SQP_VERITY_DIGEST_SIZE)
		return SQP_ERR_NOMEM;
	p = realloc(v->digests, (size_t)cap * SQP_VERITY_DIGEST_SIZE);
	if (p == NULL)
		return SQP_ERR_NOMEM;
	v->digests = p;
	v->digest_cap = cap;
	return 0;
}

/* Hash n whole blocks at ring offset off; they are blocks first.. */
static int hash_run(struct verity *v, EVP_MD_CTX *work, size_t off, uint64_t n, uint64_t first)
{
	uint32_t bs = v->desc.block_size;
	int ret = grow_digests(v, first + n);
	uint64_t i;

	for (i = 0; ret == 0 && i < n; i++)
		ret = verity_hash(v->salted, work, v->ring + off + i * bs, bs,
				  v->digests + (first + i) * SQP_VERITY_DIGEST_SIZE);
	return ret;
}

static void *hasher_main(void *arg)
{
	struct verity *v = arg;
	uint32_t bs = v->desc.block_size;
	EVP_MD_CTX *work = EVP_MD_CTX_new();
	uint64_t n;
	size_t off;
	int ret = work != NULL ? 0 : SQP_ERR_NOMEM;

	pthread_mutex_lock(&v->lock);
	while (ret == 0) {
		while (!v->done && v->head - v->tail < WAKE_BYTES) {
			v->idle = 1;
			pthread_cond_wait(&v->wake, &v->lock);
			v->idle = 0;
		}
		off = (size_t)(v->tail % RING_SIZE);
		n = (v->head - v->tail) / bs;
		/* Blocks never wrap (RING_SIZE % bs == 0); a run may. */
		if (n > (RING_SIZE - off) / bs)
			n = (RING_SIZE - off) / bs;
		if (n == 0)
			break; /* done, and every whole block hashed */
		pthread_mutex_unlock(&v->lock);
		ret = hash_run(v, work, off, n, 1 + v->hashed);
		pthread_mutex_lock(&v->lock);
		v->hashed += n;
		v->tail += n * bs;
		pthread_cond_signal(&v->room);
	}
	v->failed = ret != 0;
	pthread_cond_signal(&v->room);
	pthread_mutex_unlock(&v->lock);
	EVP_MD_CTX_free(work);
	return NULL;
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
		  struct sqp_errbuf *err, struct verity **out)
{
	struct verity *v = calloc(1, sizeof(*v));
	int ret;

	*out = v;
	if (v == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	v->desc = *desc;
	v->err = err;
	pthread_mutex_init(&v->lock, NULL);
	pthread_cond_init(&v->wake, NULL);
	pthread_cond_init(&v->room, NULL);
	if (v->desc.block_size == 0)
		v->desc.block_size = 4096;
	ret = check_desc(&v->desc, err);
	if (ret == 0)
		ret = resolve_salt(v, derive, derive_len);
	if (ret != 0)
		return ret;
	v->digest_cap = 1024;
	v->digests = malloc((size_t)v->digest_cap * SQP_VERITY_DIGEST_SIZE);
	v->block0 = malloc(v->desc.block_size);
	v->ring = malloc(RING_SIZE);
	v->salted = verity_salted_ctx(v->desc.salt, v->desc.salt_len);
	if (v->digests == NULL || v->block0 == NULL || v->ring == NULL || v->salted == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	if (pthread_create(&v->thread, NULL, hasher_main, v) != 0)
		return sqp_err(err, SQP_ERR_NOMEM, "cannot start the verity hashing thread");
	v->started = 1;
	return 0;
}

/* Stop and join the thread; 0, or the error it stopped on. */
static int stop_thread(struct verity *v)
{
	if (!v->started)
		return 0;
	pthread_mutex_lock(&v->lock);
	v->done = 1;
	pthread_cond_signal(&v->wake);
	pthread_mutex_unlock(&v->lock);
	pthread_join(v->thread, NULL);
	v->started = 0;
	return v->failed ? SQP_ERR_NOMEM : 0;
}

void verity_destroy(struct verity *v)
{
	if (v == NULL)
		return;
	stop_thread(v);
	pthread_cond_destroy(&v->room);
	pthread_cond_destroy(&v->wake);
	pthread_mutex_destroy(&v->lock);
	EVP_MD_CTX_free(v->salted);
	free(v->ring);
	free(v->block0);
	free(v->digests);
	free(v->tree);
	free(v);
}

uint32_t verity_block_size(const struct verity *v)
{
	return v->desc.block_size;
}

/* Copy len bytes into the ring, waiting for room; wake the thread once a
 * batch is there. */
static int feed_ring(struct verity *v, const uint8_t *p, size_t len)
{
	size_t off, n;
	int wake;

	while (len > 0) {
		pthread_mutex_lock(&v->lock);
		while (v->head - v->tail == RING_SIZE && !v->failed)
			pthread_cond_wait(&v->room, &v->lock);
		if (v->failed) {
			pthread_mutex_unlock(&v->lock);
			return sqp_err(v->err, SQP_ERR_NOMEM, "out of memory for verity digests");
		}
		off = (size_t)(v->head % RING_SIZE);
		n = RING_SIZE - (size_t)(v->head - v->tail);
		if (n > RING_SIZE - off)
			n = RING_SIZE - off;
		pthread_mutex_unlock(&v->lock);
		if (n > len)
			n = len;
		/* [head, head + n) is free: the thread reads only below head. */
		memcpy(v->ring + off, p, n);
		pthread_mutex_lock(&v->lock);
		v->head += n;
		wake = v->idle && v->head - v->tail >= WAKE_BYTES;
		if (wake)
			v->idle = 0;
		pthread_mutex_unlock(&v->lock);
		if (wake)
			pthread_cond_signal(&v->wake);
		p += n;
		len -= n;
	}
	return 0;
}

int verity_feed(struct verity *v, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t n;

	if (v->fed < v->desc.block_size) {
		n = v->desc.block_size - (size_t)v->fed;
		if (n > len)
			n = len;
		memcpy(v->block0 + v->fed, p, n);
		v->fed += n;
		p += n;
		len -= n;
	}
	v->fed += len;
	return len > 0 ? feed_ring(v, p, len) : 0;
}

int verity_finish(struct verity *v, const void *head, size_t head_len,
		  const uint8_t **tree, size_t *len)
{
	uint32_t bs = v->desc.block_size;
	struct verity_tree_in in = {
		.data_blocks = v->fed / bs, .bs = bs, .with_sb = !v->desc.no_superblock,
		.salt = v->desc.salt, .salt_len = v->desc.salt_len, .uuid = v->uuid,
	};
	EVP_MD_CTX *work;
	int ret = stop_thread(v);

	if (ret != 0)
		return sqp_err(v->err, ret, "out of memory for verity digests");
	if (v->fed % bs != 0 || v->fed == 0 || head_len > bs || v->hashed + 1 != in.data_blocks)
		return sqp_err(v->err, SQP_ERR_INTERNAL, "verity: %llu bytes fed, %llu blocks "
			       "hashed", (unsigned long long)v->fed, (unsigned long long)v->hashed);
	memcpy(v->block0, head, head_len);
	work = EVP_MD_CTX_new();
	ret = work != NULL ? verity_hash(v->salted, work, v->block0, bs, v->digests)
			   : SQP_ERR_NOMEM;
	EVP_MD_CTX_free(work);
	if (ret != 0)
		return sqp_err(v->err, ret, "hashing the image's first block: %s",
			       sqp_strerror(ret));
	in.digests = v->digests;
	ret = verity_tree_build(&in, &v->tree, &v->tree_len, v->root, v->err);
	*tree = v->tree;
	*len = v->tree_len;
	return ret;
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
	r->hash_bytes = v->tree_len;
	r->has_superblock = !v->desc.no_superblock;
}
