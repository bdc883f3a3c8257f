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

/* old (an array of *cap elements of size bytes, or NULL with *cap 0)
 * resized to hold at least need (>= 1) elements, starting at first and
 * doubling: the array, moved or not, with *cap updated; NULL when out of
 * memory or too large (old and *cap are then untouched). */
static inline void *sqp_array_grow(void *old, size_t *cap, size_t need,
				   size_t size, size_t first)
{
	size_t n = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return old;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return NULL;
		n *= 2;
	}
	if (size != 0 && n > SIZE_MAX / size)
		return NULL;
	p = realloc(old, n * size);
	if (p != NULL)
		*cap = n;
	return p;
}

#endif
