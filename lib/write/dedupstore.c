/* SPDX-License-Identifier: MIT */
/*
 * dedupstore.c - candidates by hash, proof by read-back (dedupstore.h).
 *
 * A 128-bit XXH3 hash of the uncompressed bytes only nominates: before a
 * block or tail is shared, the candidate's bytes as they are stored in the
 * image are read back, decompressed if needed, and compared with the new
 * bytes. A candidate still in the pool is first written out (its job
 * retired), so the comparison is always against the image itself; its
 * place is read only after that (block_at). While a file's run is being
 * matched the read-back runs on the proof ring and the answer is taken
 * as yes until it is back.
 *
 * The hash can be weakened for tests (writer_test.h: hash_bits): collisions then
 * become the rule, and only the read-back keeps the image correct.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/fileio.h"
#include "util/hchain.h"
#include "write/dedupstore.h"
#include "write/words.h"

/* Candidates tried per lookup: bounds the work a flood of colliding
 * hashes (only possible with a weakened hash) can cause. */
#define MAX_CANDIDATES 16
#define FRAG_CACHE_SLOTS 4

/* One data block as stored, in image order. */
struct phys_block {
	XXH128_hash_t hash;    /* of the uncompressed bytes */
	uint64_t offset;       /* once retired: block_at() */
	uint32_t size_word;    /* once retired: block_at() */
	uint32_t raw_len;
	uint8_t retired;
};

/* One file tail stored in a fragment block. Its hash is not kept: the
 * index (tail_index) holds 64 bits of it, enough to nominate a candidate,
 * and the bytes decide. 12 bytes, one per stored tail. */
struct tail_rec {
	uint32_t frag_index;
	uint32_t offset;
	uint32_t len;
};

/* A decompressed fragment block kept for tail read-back. */
struct frag_cache_slot {
	uint32_t index;        /* PHYS_NONE when empty */
	uint32_t len;
	uint64_t last_use;
	uint8_t *data;
};

struct dedup_store {
	struct dedup_store_desc d;

	struct phys_block *phys;
	size_t phys_count;
	size_t phys_cap;
	size_t retired_count;
	struct hchain phys_index;

	struct tail_rec *tails;
	size_t tail_count;
	size_t tail_cap;
	struct hchain tail_index;

	struct frag_cache_slot cache[FRAG_CACHE_SLOTS];
	struct frag_cache_slot *fetching; /* being filled on the ring */
	uint64_t cache_clock;
	uint8_t *verify_disk;          /* block_size: stored bytes read back */
	uint8_t *verify_raw;           /* block_size: decompressed */
};

int dedup_store_create(const struct dedup_store_desc *desc, struct dedup_store **out)
{
	struct dedup_store *s = calloc(1, sizeof(*s));
	size_t i;
	int ret;

	*out = s;
	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->d = *desc;
	ret = hchain_init(&s->phys_index, desc->spill);
	if (ret == 0)
		ret = hchain_init(&s->tail_index, desc->spill);
	if (ret != 0)
		return ret;
	s->verify_disk = sqp_iobuf_alloc(desc->block_size);
	s->verify_raw = sqp_iobuf_alloc(desc->block_size);
	if (s->verify_disk == NULL || s->verify_raw == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		s->cache[i].index = PHYS_NONE;
		s->cache[i].data = sqp_iobuf_alloc(desc->block_size);
		if (s->cache[i].data == NULL)
			return SQP_ERR_NOMEM;
	}
	return 0;
}

void dedup_store_destroy(struct dedup_store *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < FRAG_CACHE_SLOTS; ++i)
		free(s->cache[i].data);
	free(s->verify_disk);
	free(s->verify_raw);
	sqp_spill_free(s->d.spill, s->phys, s->phys_cap * sizeof(*s->phys));
	sqp_spill_free(s->d.spill, s->tails, s->tail_cap * sizeof(*s->tails));
	hchain_cleanup(&s->phys_index);
	hchain_cleanup(&s->tail_index);
	free(s);
}

XXH128_hash_t dedup_store_hash(const struct dedup_store *s, const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);

	s->d.stats->hashed++;
	if (s->d.hash_bits > 0 && s->d.hash_bits < 64) {
		h.low64 &= (UINT64_C(1) << s->d.hash_bits) - 1;
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

int dedup_store_add(struct dedup_store *s, XXH128_hash_t hash, uint32_t raw_len,
		    uint32_t *index)
{
	struct phys_block *b;

	if (s->phys_count >= PHYS_NONE - 1)
		return sqp_err(s->d.err, SQP_ERR_LIMIT, "too many data blocks");
	if (grow(s->d.spill, (void **)&s->phys, &s->phys_cap, s->phys_count, sizeof(*s->phys)) != 0 ||
	    (s->d.index_blocks && hchain_insert(&s->phys_index, hash.low64) != 0))
		return sqp_err(s->d.err, SQP_ERR_NOMEM, "out of memory");
	b = &s->phys[s->phys_count];
	memset(b, 0, sizeof(*b));
	b->hash = hash;
	b->raw_len = raw_len;
	*index = (uint32_t)s->phys_count++;
	return 0;
}

/* The one reader of a block's place: refuses a block not yet retired. */
static int block_at(const struct dedup_store *s, uint32_t phys, struct dedup_where *w)
{
	if (phys >= s->phys_count || !s->phys[phys].retired)
		return sqp_err(s->d.err, SQP_ERR_INTERNAL,
			       "block %u read before it was written", phys);
	w->offset = s->phys[phys].offset;
	w->size_word = s->phys[phys].size_word;
	return 0;
}

int dedup_store_copy(struct dedup_store *s, uint32_t src, uint32_t *index,
		     struct dedup_where *from)
{
	int ret = block_at(s, src, from);

	/* Hash and length first: adding may move the array. */
	if (ret == 0) {
		XXH128_hash_t hash = s->phys[src].hash;

		ret = dedup_store_add(s, hash, s->phys[src].raw_len, index);
	}
	return ret;
}

void dedup_store_written(struct dedup_store *s, uint32_t index, uint64_t pos,
			 uint32_t size_word)
{
	s->phys[index].offset = pos;
	s->phys[index].size_word = size_word;
	s->phys[index].retired = 1;
	s->retired_count++;
}

size_t dedup_store_count(const struct dedup_store *s)
{
	return s->phys_count;
}

int dedup_store_all_written(const struct dedup_store *s)
{
	return s->retired_count == s->phys_count;
}

int dedup_store_hash_is(const struct dedup_store *s, uint32_t phys, XXH128_hash_t hash)
{
	return phys < s->phys_count && dedup_hash_eq(s->phys[phys].hash, hash);
}

XXH128_hash_t dedup_store_hash_of(const struct dedup_store *s, uint32_t phys)
{
	return s->phys[phys].hash;
}

uint32_t dedup_store_next(const struct dedup_store *s, XXH128_hash_t hash, uint32_t after)
{
	uint32_t rec = after == PHYS_NONE ? hchain_first(&s->phys_index, hash.low64)
					  : hchain_next(&s->phys_index, after, hash.low64);

	for (; rec != HCHAIN_END; rec = hchain_next(&s->phys_index, rec, hash.low64)) {
		if (dedup_hash_eq(s->phys[rec].hash, hash))
			return rec;
	}
	return PHYS_NONE;
}

/* Make sure bytes up to end are in the image file, not in our buffer. */
static int flush_to(struct dedup_store *s, uint64_t end)
{
	return end > s->d.out->flushed ? imgout_flush(s->d.out) : 0;
}

int dedup_store_wait(struct dedup_store *s, uint32_t phys, struct dedup_where *w)
{
	int ret;

	if (phys >= s->phys_count)
		return sqp_err(s->d.err, SQP_ERR_INTERNAL, "no block %u", phys);
	while (!s->phys[phys].retired) {
		ret = s->d.retire_one(s->d.user);
		if (ret != 0)
			return ret;
	}
	ret = block_at(s, phys, w);
	if (ret == 0)
		ret = flush_to(s, w->offset + (w->size_word & WR_BLOCK_SIZE_MASK));
	return ret;
}

int dedup_store_where(const struct dedup_store *s, uint32_t phys, struct dedup_where *w)
{
	return block_at(s, phys, w);
}

int dedup_store_follows(const struct dedup_store *s, uint32_t b, int *yes)
{
	struct dedup_where prev = { 0, 0 }, cur = { 0, 0 };
	int ret = b == 0 ? sqp_err(s->d.err, SQP_ERR_INTERNAL, "no block before 0")
			 : block_at(s, b - 1, &prev);

	*yes = 0;
	if (ret == 0)
		ret = block_at(s, b, &cur);
	if (ret == 0)
		*yes = prev.offset + (prev.size_word & WR_BLOCK_SIZE_MASK) == cur.offset;
	return ret;
}

/* Read a stored block (data or fragment) back and decompress it into
 * dst (block_size bytes). Returns the uncompressed length or < 0. */
static int read_back(struct dedup_store *s, uint64_t offset, uint32_t size_word,
		     uint8_t *dst)
{
	uint32_t disk_len = size_word & WR_BLOCK_SIZE_MASK;
	int ret;

	if (disk_len > s->d.block_size)
		return sqp_err(s->d.err, SQP_ERR_INTERNAL, "stored block larger than a block");
	if (size_word & WR_BLOCK_RAW) {
		ret = imgout_pread(s->d.out, offset, dst, disk_len);
		return ret != 0 ? ret : (int)disk_len;
	}
	ret = imgout_pread(s->d.out, offset, s->verify_disk, disk_len);
	if (ret != 0)
		return ret;
	return sqp_decompress(s->d.codec, s->verify_disk, disk_len, dst, s->d.block_size);
}

static int deciding(const struct dedup_store *s)
{
	return s->d.ring != NULL && proof_deciding(s->d.ring);
}

int dedup_store_verify(struct dedup_store *s, uint32_t phys, const uint8_t *raw,
		       uint32_t len, int *equal)
{
	struct dedup_where w;
	int n, ret;

	*equal = 0;
	if (phys >= s->phys_count || s->phys[phys].raw_len != len)
		return 0;
	ret = dedup_store_wait(s, phys, &w);
	if (ret != 0)
		return ret;
	if (deciding(s)) {
		*equal = 1;
		return proof_submit(s->d.ring, PROOF_BLOCK, w.offset, w.size_word, 0, raw, len);
	}
	n = read_back(s, w.offset, w.size_word, s->verify_raw);
	if (n < 0)
		return sqp_err(s->d.err, n, "reading back block at offset %llu: %s",
			       (unsigned long long)w.offset, sqp_strerror(n));
	*equal = (uint32_t)n == len && memcmp(s->verify_raw, raw, len) == 0;
	if (!*equal)
		s->d.stats->dedup_rejected++;
	return 0;
}

/* Equal stored bytes are enough: the codec's output depends only on its
 * input (codec.h). The length comes from the size words, read only
 * after both blocks are retired. */
int dedup_store_same(struct dedup_store *s, uint32_t a, uint32_t b, int *equal)
{
	struct dedup_where wa, wb;
	uint32_t len;
	int ret;

	*equal = 0;
	if (a >= s->phys_count || b >= s->phys_count ||
	    s->phys[a].raw_len != s->phys[b].raw_len)
		return 0;
	ret = dedup_store_wait(s, a, &wa);
	if (ret == 0)
		ret = dedup_store_wait(s, b, &wb);
	if (ret != 0)
		return ret;
	if (wa.size_word != wb.size_word)
		return 0;
	len = wa.size_word & WR_BLOCK_SIZE_MASK;
	if (deciding(s)) {
		*equal = 1;
		return proof_submit(s->d.ring, PROOF_SAME, wa.offset, wa.size_word,
				    wb.offset, NULL, 0);
	}
	ret = imgout_pread(s->d.out, wa.offset, s->verify_disk, len);
	if (ret == 0)
		ret = imgout_pread(s->d.out, wb.offset, s->verify_raw, len);
	if (ret != 0)
		return sqp_err(s->d.err, ret, "reading back stored blocks: %s",
			       sqp_strerror(ret));
	*equal = memcmp(s->verify_disk, s->verify_raw, len) == 0;
	return 0;
}

int dedup_store_find(struct dedup_store *s, XXH128_hash_t hash, const uint8_t *raw,
		     uint32_t len, uint32_t *out)
{
	uint32_t rec = PHYS_NONE;
	unsigned tries = 0;
	int equal, ret;

	*out = PHYS_NONE;
	while (tries < MAX_CANDIDATES &&
	       (rec = dedup_store_next(s, hash, rec)) != PHYS_NONE) {
		if (s->phys[rec].raw_len != len)
			continue;
		tries++;
		ret = dedup_store_verify(s, rec, raw, len, &equal);
		if (ret != 0)
			return ret;
		if (equal) {
			*out = rec;
			return 0;
		}
	}
	return 0;
}

int dedup_store_add_tail(struct dedup_store *s, XXH128_hash_t hash,
			 uint32_t frag_index, uint32_t offset, uint32_t len)
{
	struct tail_rec *t;

	if (grow(s->d.spill, (void **)&s->tails, &s->tail_cap, s->tail_count, sizeof(*s->tails)) != 0 ||
	    hchain_insert(&s->tail_index, hash.low64) != 0)
		return sqp_err(s->d.err, SQP_ERR_NOMEM, "out of memory");
	t = &s->tails[s->tail_count++];
	t->frag_index = frag_index;
	t->offset = offset;
	t->len = len;
	return 0;
}

static struct frag_cache_slot *cache_find(struct dedup_store *s, uint32_t index)
{
	size_t i;

	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		if (s->cache[i].index == index)
			return &s->cache[i];
	}
	return NULL;
}

/* A fetch the ring has finished: its slot is an ordinary one again. */
static int collect_fetch(struct dedup_store *s, int wait)
{
	int ret;

	if (s->fetching == NULL || (!wait && proof_fetch_busy(s->d.ring)))
		return 0;
	ret = proof_fetch_wait(s->d.ring, &s->fetching->len);
	if (ret == 0)
		s->fetching = NULL;
	return ret;
}

/* The least recently used slot that is not being filled and does not
 * hold block keep. */
static struct frag_cache_slot *cache_victim(struct dedup_store *s, uint32_t keep)
{
	struct frag_cache_slot *v = NULL, *c;
	size_t i;

	for (i = 0; i < FRAG_CACHE_SLOTS; ++i) {
		c = &s->cache[i];
		if (c == s->fetching || (keep != PHYS_NONE && c->index == keep))
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
static int prefetch(struct dedup_store *s, struct fragpack *pk, uint32_t index)
{
	struct frag_cache_slot *slot;
	uint64_t start;
	uint32_t size_word;
	int ret;

	if (s->d.ring == NULL || !fragpack_placed(pk, index, &start, &size_word) ||
	    cache_find(s, index) != NULL)
		return 0;
	ret = collect_fetch(s, 0);
	if (ret != 0 || s->fetching != NULL)
		return ret;
	slot = cache_victim(s, index - 1);
	slot->index = index;
	slot->last_use = ++s->cache_clock;
	ret = proof_fetch(s->d.ring, start, size_word, slot->data);
	if (ret == 0)
		s->fetching = slot;
	return ret;
}

/* The uncompressed bytes of fragment block index, through the cache. */
static int fragment_bytes(struct dedup_store *s, struct fragpack *pk, uint32_t index,
			  const uint8_t **data, uint32_t *len)
{
	struct frag_cache_slot *slot = cache_find(s, index);
	uint64_t start;
	uint32_t size_word;
	int n, ret;

	ret = collect_fetch(s, slot != NULL && slot == s->fetching);
	if (ret != 0)
		return ret;
	if (slot != NULL)
		goto hit;
	slot = cache_victim(s, PHYS_NONE);
	ret = fragpack_wait(pk, index, &start, &size_word);
	if (ret == 0)
		ret = flush_to(s, start + (size_word & WR_BLOCK_SIZE_MASK));
	if (ret != 0)
		return ret;
	slot->index = PHYS_NONE;
	n = read_back(s, start, size_word, slot->data);
	if (n < 0)
		return sqp_err(s->d.err, n, "reading back fragment block %u: %s",
			       index, sqp_strerror(n));
	slot->index = index;
	slot->len = (uint32_t)n;
hit:
	slot->last_use = ++s->cache_clock;
	*data = slot->data;
	*len = slot->len;
	return prefetch(s, pk, index + 1);
}

int dedup_store_find_tail(struct dedup_store *s, struct fragpack *pk,
			  XXH128_hash_t hash, const uint8_t *buf, uint32_t len,
			  uint32_t *frag_index, uint32_t *offset)
{
	uint32_t rec = hchain_first(&s->tail_index, hash.low64);
	unsigned tries = 0;
	const uint8_t *frag = NULL;
	uint32_t frag_len = 0;
	int ret;

	for (; rec != HCHAIN_END && tries < MAX_CANDIDATES;
	     rec = hchain_next(&s->tail_index, rec, hash.low64)) {
		const struct tail_rec t = s->tails[rec];

		if (t.len != len)
			continue;
		tries++;
		/* The block being filled: these are the very bytes that
		 * will be compressed and stored. */
		if (!fragpack_open_bytes(pk, t.frag_index, &frag, &frag_len)) {
			ret = fragment_bytes(s, pk, t.frag_index, &frag, &frag_len);
			if (ret != 0)
				return ret;
		}
		if (t.offset + len <= frag_len &&
		    memcmp(frag + t.offset, buf, len) == 0) {
			*frag_index = t.frag_index;
			*offset = t.offset;
			return 1;
		}
		s->d.stats->dedup_rejected++;
	}
	return 0;
}
