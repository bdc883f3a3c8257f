/* SPDX-License-Identifier: MIT */
/*
 * dedup.c - candidates by hash, proof by read-back.
 *
 * A 128-bit XXH3 hash of the uncompressed bytes only nominates: before a
 * block or tail is shared, the candidate's bytes as they are stored in the
 * image are read back, decompressed if needed, and compared with the new
 * bytes. A candidate still in the pool is first written out (its job
 * retired), so the comparison is always against the image itself.
 * While a file's run is being matched the read-back itself runs on the
 * proof workers and the answer is taken as yes until it is back
 * (proof.h).
 *
 * The hash can be weakened for tests (writer_test.h: hash_bits): collisions then
 * become the rule, and only the read-back keeps the image correct.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "format/sqfs_format.h"
#include "sqpack/error.h"
#include "util/spill.h"
#include "write/datapipe.h"

/* Candidates tried per lookup: bounds the work a flood of colliding
 * hashes (only possible with a weakened hash) can cause. */
#define MAX_CANDIDATES 16

XXH128_hash_t dedup_hash(const struct datapipe *p, const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);

	p->stats->hashed++;
	if (p->store.hash_bits > 0 && p->store.hash_bits < 64) {
		h.low64 &= (UINT64_C(1) << p->store.hash_bits) - 1;
		h.high64 = 0;
	}
	return h;
}

int dedup_hash_eq(XXH128_hash_t a, XXH128_hash_t b)
{
	return a.low64 == b.low64 && a.high64 == b.high64;
}

static int grow(struct sqp_spill *spill, void **arr, size_t *cap, size_t count,
		size_t elem)
{
	void *np = sqp_spill_grow(spill, *arr, cap, count + 1, elem, 1024);

	if (np == NULL)
		return SQP_ERR_NOMEM;
	*arr = np;
	return 0;
}

int dedup_new_phys(struct datapipe *p, XXH128_hash_t hash, uint32_t raw_len,
		   uint32_t *index)
{
	struct phys_block *b;

	if (p->store.phys_count >= PHYS_NONE - 1)
		return sqp_err(p->err, SQP_ERR_LIMIT, "too many data blocks");
	if (grow(p->spill, (void **)&p->store.phys, &p->store.phys_cap, p->store.phys_count, sizeof(*p->store.phys)) != 0 ||
	    (p->dedup && hchain_insert(&p->store.phys_index, hash.low64) != 0))
		return sqp_err(p->err, SQP_ERR_NOMEM, "out of memory");
	b = &p->store.phys[p->store.phys_count];
	memset(b, 0, sizeof(*b));
	b->hash = hash;
	b->raw_len = raw_len;
	*index = (uint32_t)p->store.phys_count++;
	return 0;
}

int dedup_new_tail(struct datapipe *p, XXH128_hash_t hash, uint32_t frag_index,
		   uint32_t offset, uint32_t len)
{
	struct tail_rec *t;

	if (grow(p->spill, (void **)&p->store.tails, &p->store.tail_cap, p->store.tail_count, sizeof(*p->store.tails)) != 0 ||
	    hchain_insert(&p->store.tail_index, hash.low64) != 0)
		return sqp_err(p->err, SQP_ERR_NOMEM, "out of memory");
	t = &p->store.tails[p->store.tail_count++];
	t->frag_index = frag_index;
	t->offset = offset;
	t->len = len;
	return 0;
}

/* Make sure bytes up to end are in the image file, not in our buffer. */
static int flush_to(struct datapipe *p, uint64_t end)
{
	return end > p->out->flushed ? imgout_flush(p->out) : 0;
}

int dedup_wait_block(struct datapipe *p, uint32_t phys)
{
	int ret;

	while (!p->store.phys[phys].retired) {
		ret = datapipe_retire_one(p);
		if (ret != 0)
			return ret;
	}
	return flush_to(p, p->store.phys[phys].offset +
			   (p->store.phys[phys].size_word & SQFS_BLOCK_SIZE_MASK));
}

/* Read a stored block (data or fragment) back and decompress it into
 * dst (block_size bytes). Returns the uncompressed length or < 0. */
static int read_back(struct datapipe *p, uint64_t offset, uint32_t size_word,
		     uint8_t *dst)
{
	uint32_t disk_len = size_word & SQFS_BLOCK_SIZE_MASK;
	int ret;

	if (disk_len > p->block_size)
		return sqp_err(p->err, SQP_ERR_INTERNAL, "stored block larger than a block");
	if (size_word & SQFS_BLOCK_UNCOMPRESSED) {
		ret = imgout_pread(p->out, offset, dst, disk_len);
		return ret != 0 ? ret : (int)disk_len;
	}
	ret = imgout_pread(p->out, offset, p->store.verify_disk, disk_len);
	if (ret != 0)
		return ret;
	return sqp_decompress(p->codec, p->store.verify_disk, disk_len, dst, p->block_size);
}

int dedup_verify_block(struct datapipe *p, uint32_t phys, const uint8_t *raw,
		       uint32_t len, int *equal)
{
	const struct phys_block *b = &p->store.phys[phys];
	int n, ret;

	*equal = 0;
	if (b->raw_len != len)
		return 0;
	ret = dedup_wait_block(p, phys);
	if (ret != 0)
		return ret;
	if (p->proofs.active) {
		*equal = 1;
		return proof_submit(p, PROOF_BLOCK, b->offset, b->size_word, 0, raw, len);
	}
	n = read_back(p, b->offset, b->size_word, p->store.verify_raw);
	if (n < 0)
		return sqp_err(p->err, n, "reading back block at offset %llu: %s",
			       (unsigned long long)b->offset, sqp_strerror(n));
	*equal = (uint32_t)n == len && memcmp(p->store.verify_raw, raw, len) == 0;
	if (!*equal)
		p->stats->dedup_rejected++;
	return 0;
}

/* Stored blocks a and b hold the same bytes. Equal stored bytes are
 * enough: the codec's output depends only on its input (codec.h). */
int dedup_same_stored(struct datapipe *p, uint32_t a, uint32_t b, int *equal)
{
	uint32_t len;
	int ret;

	*equal = 0;
	if (p->store.phys[a].raw_len != p->store.phys[b].raw_len)
		return 0;
	ret = dedup_wait_block(p, a);
	if (ret == 0)
		ret = dedup_wait_block(p, b);
	if (ret != 0)
		return ret;
	if (p->store.phys[a].size_word != p->store.phys[b].size_word)
		return 0;
	/* Only now: a block's size word is known once it is retired. */
	len = p->store.phys[a].size_word & SQFS_BLOCK_SIZE_MASK;
	if (p->proofs.active) {
		*equal = 1;
		return proof_submit(p, PROOF_SAME, p->store.phys[a].offset, p->store.phys[a].size_word,
				    p->store.phys[b].offset, NULL, 0);
	}
	ret = imgout_pread(p->out, p->store.phys[a].offset, p->store.verify_disk, len);
	if (ret == 0)
		ret = imgout_pread(p->out, p->store.phys[b].offset, p->store.verify_raw, len);
	if (ret != 0)
		return sqp_err(p->err, ret, "reading back stored blocks: %s",
			       sqp_strerror(ret));
	*equal = memcmp(p->store.verify_disk, p->store.verify_raw, len) == 0;
	return 0;
}

static struct frag_cache_slot *cache_find(struct datapipe *p, uint32_t index)
{
	size_t i;

	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		if (p->store.cache[i].index == index)
			return &p->store.cache[i];
	}
	return NULL;
}

/* The least recently used slot that is not being filled and does not
 * hold block keep. */
static struct frag_cache_slot *cache_victim(struct datapipe *p, uint32_t keep)
{
	struct frag_cache_slot *v = NULL, *c;
	size_t i;

	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		c = &p->store.cache[i];
		if (c->loading || (keep != PHYS_NONE && c->index == keep))
			continue;
		if (v == NULL || c->last_use < v->last_use)
			v = c;
	}
	return v;
}

/*
 * Tails mostly match in the order they were stored (a copy of a directory
 * holds the same tails in the same order), so with proof workers the
 * fragment block after the one just used is decompressed there, one at a
 * time, before a tail asks for it. What is cached never changes an
 * answer, only who computes it.
 */
static int prefetch(struct datapipe *p, uint32_t index)
{
	const struct frag_rec *f = &p->pack.frags[index];
	struct frag_cache_slot *slot;
	size_t i;

	if (p->proofs.pool == NULL || index >= p->pack.frag_count || !f->retired ||
	    cache_find(p, index) != NULL)
		return 0;
	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		if (p->store.cache[i].loading)
			return 0;
	}
	slot = cache_victim(p, index - 1);
	slot->index = index;
	slot->last_use = ++p->store.cache_clock;
	return proof_fetch_fragment(p, f->start, f->size_word, slot);
}

/* The uncompressed bytes of fragment block index, through the cache. */
static int fragment_bytes(struct datapipe *p, uint32_t index, const uint8_t **data,
			  uint32_t *len)
{
	struct frag_cache_slot *slot = cache_find(p, index);
	const struct frag_rec *f = &p->pack.frags[index];
	int n, ret;

	if (slot != NULL) {
		ret = proof_wait_fragment(p, slot);
		if (ret != 0)
			return ret;
		goto hit;
	}
	slot = cache_victim(p, PHYS_NONE);
	while (!f->retired) {
		ret = datapipe_retire_one(p);
		if (ret != 0)
			return ret;
	}
	ret = flush_to(p, f->start + (f->size_word & SQFS_BLOCK_SIZE_MASK));
	if (ret != 0)
		return ret;
	slot->index = PHYS_NONE;
	n = read_back(p, f->start, f->size_word, slot->data);
	if (n < 0)
		return sqp_err(p->err, n, "reading back fragment block %u: %s",
			       index, sqp_strerror(n));
	slot->index = index;
	slot->len = (uint32_t)n;
hit:
	slot->last_use = ++p->store.cache_clock;
	*data = slot->data;
	*len = slot->len;
	return prefetch(p, index + 1);
}

int dedup_find_tail(struct datapipe *p, XXH128_hash_t hash, const uint8_t *buf,
		    uint32_t len, const struct tail_rec **found)
{
	uint32_t rec = hchain_first(&p->store.tail_index, hash.low64);
	const uint32_t open_index = (uint32_t)p->pack.frag_count - 1;
	unsigned tries = 0;
	const uint8_t *frag = NULL;
	uint32_t frag_len = 0;
	int ret;

	*found = NULL;
	for (; rec != HCHAIN_END && tries < MAX_CANDIDATES;
	     rec = hchain_next(&p->store.tail_index, rec, hash.low64)) {
		const struct tail_rec *t = &p->store.tails[rec];

		if (t->len != len)
			continue;
		tries++;
		if (p->pack.open_frag != NULL && t->frag_index == open_index) {
			/* Not stored yet: these are the very bytes that
			 * will be compressed and stored. */
			frag = p->pack.open_frag->raw;
			frag_len = p->pack.open_fill;
		} else {
			ret = fragment_bytes(p, t->frag_index, &frag, &frag_len);
			if (ret != 0)
				return ret;
		}
		if (t->offset + len <= frag_len &&
		    memcmp(frag + t->offset, buf, len) == 0) {
			*found = t;
			return 0;
		}
		p->stats->dedup_rejected++;
	}
	return 0;
}
