/* SPDX-License-Identifier: MIT */
/*
 * inspect_impl.h - what walk.c and diff.c share: growable arrays, and a bit per
 * inode number, to count an inode once and to refuse a directory that a
 * hostile image makes reachable twice (a loop the walk would never
 * leave). One bit per inode of inode_count: memory is fixed by the
 * superblock, never by how many names the walk meets.
 */
#ifndef SQP_INSPECT_IMPL_H
#define SQP_INSPECT_IMPL_H

#include <stdint.h>
#include <stdlib.h>

#include "sqpack/error.h"
#include "util/array.h"

struct seen {
	uint8_t *bits;
	uint32_t count;
};

static inline int seen_init(struct seen *s, uint32_t count)
{
	s->count = count;
	s->bits = calloc((size_t)count / 8 + 1, 1);
	return s->bits != NULL ? 0 : SQP_ERR_NOMEM;
}

/* Mark inode number n (1-based): 0 the first time, 1 when marked before,
 * SQP_ERR_CORRUPT when n is not an inode number of the image. */
static inline int seen_mark(struct seen *s, uint32_t n)
{
	uint8_t bit;

	if (n == 0 || n > s->count)
		return SQP_ERR_CORRUPT;
	bit = (uint8_t)(1u << ((n - 1) % 8));
	if (s->bits[(n - 1) / 8] & bit)
		return 1;
	s->bits[(n - 1) / 8] |= bit;
	return 0;
}

static inline void seen_free(struct seen *s)
{
	free(s->bits);
	s->bits = NULL;
}

/* The path buffers and directory stacks of the walks start at 16. */
static inline void *grow(void *old, size_t *cap, size_t need, size_t size)
{
	return sqp_array_grow(old, cap, need, size, 16);
}

#endif
