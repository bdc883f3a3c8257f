/* SPDX-License-Identifier: MIT */
/*
 * chunkarr.c - records in equal chunks (see chunkarr.h).
 *
 * Invariant: indices below count are backed by allocated chunks; a run
 * handed out by chunkarr_add lies inside one chunk, skipping the rest of
 * the current chunk when it would not fit there, or, longer than a
 * chunk, starts a chunk and spans chunks allocated together (one
 * allocation, so contiguous), whose last one later runs go on filling.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "util/chunkarr.h"
#include "util/spill.h"

void chunkarr_init(struct chunkarr *a, size_t elem, unsigned shift,
		   struct sqp_spill *spill)
{
	memset(a, 0, sizeof(*a));
	a->spill = spill;
	a->elem = elem;
	a->shift = shift;
}

void chunkarr_cleanup(struct chunkarr *a)
{
	size_t i;

	for (i = 0; i < a->chunks; ++i)
		if (a->span[i] > 0)
			sqp_spill_free(a->spill, a->chunk[i],
				       (a->elem << a->shift) * a->span[i]);
	free(a->chunk);
	free(a->span);
	a->chunk = NULL;
	a->span = NULL;
	a->chunks = a->chunk_cap = a->span_cap = 0;
	a->count = 0;
}

/* k chunks more, as one allocation. */
static int new_chunks(struct chunkarr *a, uint64_t k)
{
	const size_t one = a->elem << a->shift;
	uint8_t **list;
	uint32_t *span;
	uint8_t *c;

	if (k > SIZE_MAX / one)
		return SQP_ERR_NOMEM;
	list = sqp_array_grow(a->chunk, &a->chunk_cap, a->chunks + k,
			      sizeof(*list), 16);
	if (list == NULL)
		return SQP_ERR_NOMEM;
	a->chunk = list;
	span = sqp_array_grow(a->span, &a->span_cap, a->chunks + k,
			      sizeof(*span), 16);
	if (span == NULL)
		return SQP_ERR_NOMEM;
	a->span = span;
	c = sqp_spill_alloc(a->spill, one * (size_t)k);
	if (c == NULL)
		return SQP_ERR_NOMEM;
	for (uint64_t j = 0; j < k; j++) {
		a->chunk[a->chunks] = c + one * (size_t)j;
		a->span[a->chunks++] = j == 0 ? (uint32_t)k : 0;
	}
	return 0;
}

int chunkarr_add(struct chunkarr *a, uint32_t n, uint32_t *index)
{
	uint64_t size = UINT64_C(1) << a->shift;
	uint64_t first = a->count, end;
	int ret;

	if (n == 0)
		return SQP_ERR_LIMIT;
	if (first / size != (first + n - 1) / size)
		first = (first + size - 1) / size * size; /* start a chunk */
	end = first + n;
	if (end >= UINT32_MAX)
		return SQP_ERR_LIMIT;
	/* The chunks end where first is when it had to start one. */
	if ((uint64_t)a->chunks * size < end &&
	    (ret = new_chunks(a, (end - (uint64_t)a->chunks * size + size - 1) / size)) != 0)
		return ret;
	a->count = (uint32_t)end;
	*index = (uint32_t)first;
	memset(chunkarr_at(a, *index), 0, n * a->elem);
	return 0;
}
