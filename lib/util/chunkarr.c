/* SPDX-License-Identifier: MIT */
/*
 * chunkarr.c - records in equal chunks (see chunkarr.h).
 *
 * Invariant: indices below count are backed by allocated chunks; a run
 * handed out by chunkarr_add lies inside one chunk, skipping the rest of
 * the current chunk when it would not fit there.
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
		sqp_spill_free(a->spill, a->chunk[i], a->elem << a->shift);
	free(a->chunk);
	a->chunk = NULL;
	a->chunks = a->chunk_cap = 0;
	a->count = 0;
}

static int new_chunk(struct chunkarr *a)
{
	uint8_t **list = sqp_array_grow(a->chunk, &a->chunk_cap, a->chunks + 1,
					sizeof(*list), 16);
	uint8_t *c;

	if (list == NULL)
		return SQP_ERR_NOMEM;
	a->chunk = list;
	c = sqp_spill_alloc(a->spill, a->elem << a->shift);
	if (c == NULL)
		return SQP_ERR_NOMEM;
	a->chunk[a->chunks++] = c;
	return 0;
}

int chunkarr_add(struct chunkarr *a, uint32_t n, uint32_t *index)
{
	uint64_t size = UINT64_C(1) << a->shift;
	uint64_t first = a->count, end;
	int ret;

	if (n == 0 || n > size)
		return SQP_ERR_LIMIT;
	if (first / size != (first + n - 1) / size)
		first = (first / size + 1) * size; /* start the next chunk */
	end = first + n;
	if (end >= UINT32_MAX)
		return SQP_ERR_LIMIT;
	while ((uint64_t)a->chunks * size < end) {
		ret = new_chunk(a);
		if (ret != 0)
			return ret;
	}
	a->count = (uint32_t)end;
	*index = (uint32_t)first;
	memset(chunkarr_at(a, *index), 0, n * a->elem);
	return 0;
}
