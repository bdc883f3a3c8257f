/* SPDX-License-Identifier: MIT */
/*
 * chunkarr.h - a growable array of fixed-size records in equal chunks.
 *
 * For tables of millions of small records: no allocation (and no malloc
 * header) per record, no reallocation that copies the whole table and
 * briefly needs it twice, and a record never moves, so pointers to it
 * stay valid. Records are named by a 32-bit index; UINT32_MAX is never
 * handed out. With a record size of 1 it is an arena of byte strings
 * (a run of records is contiguous in memory: it never straddles two
 * chunks, or, longer than a chunk, has whole chunks of its own, taken
 * as one allocation).
 */
#ifndef SQP_UTIL_CHUNKARR_H
#define SQP_UTIL_CHUNKARR_H

#include <stddef.h>
#include <stdint.h>

struct sqp_spill;

struct chunkarr {
	struct sqp_spill *spill; /* where chunks come from (NULL = heap) */
	uint8_t **chunk;
	/* Per chunk, how many chunks the allocation that starts there
	 * spans (1, or a long run's), 0 inside a long run's: what to free. */
	uint32_t *span;
	size_t chunks;      /* chunks allocated */
	size_t chunk_cap;   /* room in chunk[] */
	size_t span_cap;    /* room in span[] */
	size_t elem;        /* bytes per record */
	unsigned shift;     /* 2^shift records per chunk */
	uint32_t count;     /* records handed out (the next index) */
};

/* 2^shift records of elem bytes make a chunk; shift <= 24. Chunks come
 * from spill (see util/spill.h; NULL = the heap). */
void chunkarr_init(struct chunkarr *a, size_t elem, unsigned shift,
		   struct sqp_spill *spill);
void chunkarr_cleanup(struct chunkarr *a);

/* n (1 or more) consecutive zeroed records, contiguous in memory: in one
 * chunk, or when n is more than 2^shift in whole chunks from a chunk's
 * start (a compressed file's cluster indexes past 4 GiB). *index is the
 * first one's. Returns 0, SQP_ERR_NOMEM, or SQP_ERR_LIMIT when n is 0
 * or the indices run out. */
int chunkarr_add(struct chunkarr *a, uint32_t n, uint32_t *index);

static inline void *chunkarr_at(const struct chunkarr *a, uint32_t i)
{
	return a->chunk[i >> a->shift] +
	       (size_t)(i & ((UINT32_C(1) << a->shift) - 1)) * a->elem;
}

#endif
