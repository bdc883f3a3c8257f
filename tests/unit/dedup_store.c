/* SPDX-License-Identifier: MIT */
/*
 * dedup_store.c - the dedup store on a real image file: a block's place
 * is read only once the compressors retired it (a read before is an
 * internal error, and find / verify retire what they need, no more);
 * find nominates by hash and proves by read-back, so a candidate with
 * the same hash and other bytes is refuted and counted, and the next one
 * is tried; verify and same compare stored bytes, compressed or raw;
 * follows sees a gap between two blocks. The compressors are a fake
 * that appends the pending blocks in order, compressing some.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "squashfs/sqfs_format.h"
#include "write/dedupstore.h"
#include "check.h"

#define BS 4096
#define NBLK 6

struct fake_comp {
	struct dedup_store *store;
	struct sqp_compressor *codec;
	struct imgout *out;
	uint8_t *blocks[NBLK];         /* the bytes of block i */
	int compress[NBLK];            /* stored compressed */
	int gap_before[NBLK];          /* other bytes before it */
	uint32_t next;                 /* the oldest block in flight */
	uint32_t submitted;            /* blocks added so far */
	unsigned retired;
};

/* Retire the oldest block in flight: append it, tell the store where. */
static int retire_one(void *user)
{
	struct fake_comp *f = user;
	uint32_t i = f->next, size_word = BS | SQFS_BLOCK_UNCOMPRESSED;
	uint8_t packed[BS];
	const uint8_t *bytes = f->blocks[i];
	uint64_t pos;
	int n, ret = 0;

	if (i >= f->submitted)
		return SQP_ERR_INTERNAL;
	if (f->gap_before[i])
		ret = imgout_append(f->out, "gap!", 4);
	if (f->compress[i]) {
		n = sqp_compress(f->codec, bytes, BS, packed, sizeof(packed));
		if (n <= 0)
			return SQP_ERR_COMPRESSOR;
		bytes = packed;
		size_word = (uint32_t)n;
	}
	pos = f->out->pos;
	if (ret == 0)
		ret = imgout_append(f->out, bytes, size_word & SQFS_BLOCK_SIZE_MASK);
	if (ret != 0)
		return ret;
	dedup_store_written(f->store, i, pos, size_word);
	f->next++;
	f->retired++;
	return 0;
}

static XXH128_hash_t hash_of(uint64_t v)
{
	XXH128_hash_t h = { v, 0 };

	return h;
}

static struct sqp_compressor *any_codec(void)
{
	struct sqp_codec_config cfg;
	struct sqp_compressor *c = NULL;
	int id;

	for (id = SQP_CODEC_MAX; id >= 1 && c == NULL; --id) {
		if (sqp_codec_config_init(&cfg, id, BS) == 0 &&
		    sqp_compressor_create(&cfg, &c) != 0)
			c = NULL;
	}
	return c;
}

/* Block bytes: text that compresses (seed picks the words). */
static void fill(uint8_t *b, unsigned seed)
{
	for (size_t i = 0; i < BS; i++)
		b[i] = (uint8_t)("lorem ipsum dolor "[(i + seed) % 18] + (i / 512 == seed % 8));
}

static void add(struct fake_comp *f, XXH128_hash_t h)
{
	uint32_t index = PHYS_NONE;

	CHECK(dedup_store_add(f->store, h, BS, &index) == 0 && index == f->submitted,
	      "add gives %u", index);
	f->submitted++;
}

static void check_lookups(struct fake_comp *f, struct sqp_errbuf *err,
			  struct sqp_writer_stats *st)
{
	struct dedup_where w;
	uint32_t found;
	int equal, yes;

	/* Block 0 is nominated and proven; only it is retired for that. */
	CHECK(dedup_store_find(f->store, hash_of(7), f->blocks[0], BS, &found) == 0 &&
	      found == 0, "find X: %u", found);
	CHECK(f->retired == 1, "find X retired %u blocks", f->retired);
	/* Block 1 is still in flight: its place cannot be read. */
	CHECK(dedup_store_where(f->store, 1, &w) == SQP_ERR_INTERNAL,
	      "where of a block in flight");
	CHECK(err->code == SQP_ERR_INTERNAL, "latched %d", err->code);
	memset(err, 0, sizeof(*err));
	/* Block 2 has X's hash and other bytes: X is refuted, block 2 found. */
	CHECK(dedup_store_find(f->store, hash_of(7), f->blocks[2], BS, &found) == 0 &&
	      found == 2, "find Z: %u", found);
	CHECK(st->dedup_rejected == 1, "rejected %llu", (unsigned long long)st->dedup_rejected);
	CHECK(f->retired == 3, "find Z retired %u blocks", f->retired);
	/* Bytes no candidate holds: both refuted, nothing found. */
	CHECK(dedup_store_find(f->store, hash_of(7), f->blocks[4], BS, &found) == 0 &&
	      found == PHYS_NONE, "find W: %u", found);
	CHECK(st->dedup_rejected == 3, "rejected %llu", (unsigned long long)st->dedup_rejected);
	/* A wrong length is no candidate and retires nothing. */
	CHECK(dedup_store_verify(f->store, 5, f->blocks[5], BS - 1, &equal) == 0 && !equal,
	      "verify short");
	CHECK(f->retired == 3, "verify short retired %u blocks", f->retired);
	CHECK(dedup_store_verify(f->store, 1, f->blocks[1], BS, &equal) == 0 && equal,
	      "verify raw block 1");
	CHECK(dedup_store_verify(f->store, 1, f->blocks[0], BS, &equal) == 0 && !equal,
	      "verify raw block 1 against X");
	/* Blocks 1 and 3 hold the same bytes, 1 and 4 do not. */
	CHECK(dedup_store_same(f->store, 1, 3, &equal) == 0 && equal, "same 1 3");
	CHECK(dedup_store_same(f->store, 1, 4, &equal) == 0 && !equal, "same 1 4");
	CHECK(dedup_store_follows(f->store, 2, &yes) == 0 && yes, "2 follows 1");
	CHECK(dedup_store_follows(f->store, 3, &yes) == 0 && !yes, "3 after a gap");
	CHECK(!dedup_store_all_written(f->store), "block 5 is in flight");
	CHECK(dedup_store_wait(f->store, 5, &w) == 0 && f->retired == 6 &&
	      dedup_store_all_written(f->store), "wait for 5");
	CHECK(err->code == 0, "error: %s", sqp_errmsg(err));
}

int main(void)
{
	struct sqp_writer_stats st = { 0 };
	struct sqp_errbuf err = { 0 };
	struct fake_comp f = { 0 };
	struct imgout out;
	struct dedup_store_desc d = {
		.block_size = BS, .index_blocks = 1, .out = &out, .err = &err,
		.stats = &st, .retire_one = retire_one, .user = &f,
	};
	FILE *tmp = tmpfile();
	int i;

	f.codec = any_codec();
	if (f.codec == NULL || tmp == NULL) {
		fprintf(stderr, "skip: no codec or no temporary file\n");
		return 77;
	}
	for (i = 0; i < NBLK; ++i) {
		f.blocks[i] = malloc(BS);
		if (f.blocks[i] == NULL)
			return 1;
		fill(f.blocks[i], (unsigned)i);
	}
	memcpy(f.blocks[3], f.blocks[1], BS);        /* 3 = 1 */
	memcpy(f.blocks[4], f.blocks[1], BS);
	f.blocks[4][BS - 1] ^= 1;                   /* 4 = 1 but its last byte */
	f.compress[0] = f.compress[2] = f.compress[5] = 1;
	f.gap_before[3] = 1;
	f.out = &out;
	CHECK(imgout_init(&out, fileno(tmp), 0, &err) == 0, "imgout");
	d.codec = f.codec;
	CHECK(dedup_store_create(&d, &f.store) == 0, "create");
	add(&f, hash_of(7));                         /* X */
	add(&f, hash_of(8));
	add(&f, hash_of(7));                         /* Z: X's hash, other bytes */
	add(&f, hash_of(8));
	add(&f, hash_of(9));
	add(&f, hash_of(10));
	check_lookups(&f, &err, &st);
	dedup_store_destroy(f.store);
	imgout_cleanup(&out);
	sqp_compressor_destroy(f.codec);
	for (i = 0; i < NBLK; ++i)
		free(f.blocks[i]);
	fclose(tmp);
	return check_done();
}
