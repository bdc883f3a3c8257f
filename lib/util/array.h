/* SPDX-License-Identifier: MIT */
/*
 * array.h - growing an array by doubling, written once for every list,
 * stack, arena and string buffer in the library.
 *
 * Doubling keeps appends amortised O(1); the first capacity is the
 * caller's, because a path buffer and a million-entry node list want
 * different starts. Sizes that would overflow size_t are refused like a
 * failed allocation, so a hostile count cannot wrap into a small buffer.
 */
#ifndef SQP_UTIL_ARRAY_H
#define SQP_UTIL_ARRAY_H

#include <stdint.h>
#include <stdlib.h>

/* The capacity sqp_array_grow moves *cap to for need elements of size
 * bytes: *cap (or first) doubled until it holds need; 0 when that would
 * overflow. */
static inline size_t sqp_array_next_cap(size_t cap, size_t need, size_t size,
					size_t first)
{
	size_t n = cap ? cap : first;

	while (n < need) {
		if (n > SIZE_MAX / 2)
			return 0;
		n *= 2;
	}
	if (size != 0 && n > SIZE_MAX / size)
		return 0;
	return n;
}

/* old (an array of *cap elements of size bytes, or NULL with *cap 0)
 * resized to hold at least need (>= 1) elements, starting at first and
 * doubling: the array, moved or not, with *cap updated; NULL when out of
 * memory or too large (old and *cap are then untouched). */
static inline void *sqp_array_grow(void *old, size_t *cap, size_t need,
				   size_t size, size_t first)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return old;
	n = sqp_array_next_cap(*cap, need, size, first);
	if (n == 0)
		return NULL;
	p = realloc(old, n * size);
	if (p != NULL)
		*cap = n;
	return p;
}

#endif
