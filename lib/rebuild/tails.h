/* SPDX-License-Identifier: MIT */
/*
 * tails.h - the census's tails (expect.c), and their hashes taken on
 * the workers (tailhash.c).
 */
#ifndef SQP_REBUILD_TAILS_H
#define SQP_REBUILD_TAILS_H

#include <stddef.h>
#include <stdint.h>

#include "write/writer_impl.h"

/* A tail of a file whose size the census marked: where it is stored,
 * and the hash of its bytes once its fragment block is decoded. */
struct tail {
	uint64_t size, start;     /* start, word: its fragment block's */
	uint64_t blocks;          /* a hash of its file's size words */
	/* What nominates a file of no full blocks (expect.c's narrow): a
	 * hash of its name, its mtime; key, the one narrow sorts by. */
	uint64_t name, key;
	int64_t mtime;
	XXH128_hash_t hash;
	uint32_t word, index, offset;
	uint32_t img;             /* its record in w->expect */
	uint32_t len, block_len;  /* its bytes; its fragment block's, decoded */
	int tail_only;            /* its file has no full block */
	int keep;                 /* narrow kept it */
	int dup;                  /* another image has a tail equal to it */
};

struct tails {
	struct tail *v;
	size_t n, cap;
};

/* hash, len and block_len of every tail in t, which is sorted by image
 * and fragment block: each block that holds one decoded once, on
 * w->desc.jobs workers. 0, or the writer's latched error (a block that
 * does not decode, a tail past its end). */
int tails_hash(struct sqp_writer *w, struct tails *t);

#endif
