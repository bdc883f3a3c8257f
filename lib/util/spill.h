/* SPDX-License-Identifier: MIT */
/*
 * spill.h - memory for a build's big tables, kept within a budget by
 * moving what does not fit into a temporary file.
 *
 * The tree, the dedup records and the tables of an image grow with the
 * number of entries; a hundred million entries do not fit in memory. Each
 * such table allocates through a spill arena. Up to 3/8 of the budget comes
 * from the heap, most of it kept for the hash tables (sqp_spill_alloc_hot):
 * records appended in order fault a page in once per page, a hash table
 * once per access. Past that, allocations are mappings of a temporary file
 * (MAP_SHARED), created next to the output on first need and unlinked at
 * once, so no exit path can leave it behind. Pointers stay valid: the
 * tables keep using plain addresses.
 *
 * What keeps the file-backed part within its share is the sweep: every so
 * many ticks the arena asks the kernel how many file pages this process
 * has mapped and, past another 3/8 of the budget, drops them from the
 * process (madvise MADV_DONTNEED). The last quarter is headroom. The bytes stay in the file and the page cache,
 * which the kernel writes back and reclaims as it needs; the next access
 * faults the page back in. Owners call sqp_spill_tick() once per unit of
 * work (an entry added, an inode written) so the sweep runs during long
 * passes too.
 *
 * File space is reserved (fallocate) before it is mapped, so a full disk
 * is an allocation error with a message, never a SIGBUS.
 *
 * A NULL arena is valid everywhere and means the plain heap: tables that
 * need no budget pay nothing. One arena belongs to one thread.
 */
#ifndef SQP_UTIL_SPILL_H
#define SQP_UTIL_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

struct sqp_spill;

struct sqp_spill_desc {
	uint64_t budget;        /* bytes; 0 = no budget (heap only) */
	const char *dir;        /* where the file goes; NULL = P_tmpdir */
	struct sqp_errbuf *err; /* borrowed: why an allocation failed */
};

struct sqp_spill_stats {
	uint64_t file_bytes;    /* bytes ever allocated in the file */
};

/* A NULL *out with budget 0 is not an error: the heap is used. */
int sqp_spill_create(const struct sqp_spill_desc *desc, struct sqp_spill **out);
void sqp_spill_destroy(struct sqp_spill *s);

/* size zeroed bytes, or NULL (the arena's errbuf says why when it was not
 * simply the heap). */
void *sqp_spill_alloc(struct sqp_spill *s, size_t size);

/* p (size old) moved or resized to size new; bytes past old are
 * undefined. NULL on failure, p then still valid. p may be NULL. */
void *sqp_spill_resize(struct sqp_spill *s, void *p, size_t old, size_t size);

/* The same for a table read and written at random places (a hash
 * table): those cost a page fault per access once spilled, so they may
 * use the whole heap share, while other allocations leave it 3/4 of it. */
void *sqp_spill_alloc_hot(struct sqp_spill *s, size_t size);

/* Give back p, allocated with size bytes. */
void sqp_spill_free(struct sqp_spill *s, void *p, size_t size);

/* An array of *cap elements of elem bytes grown to hold need, doubling
 * from first, as sqp_array_grow does. */
void *sqp_spill_grow(struct sqp_spill *s, void *old, size_t *cap, size_t need,
		     size_t elem, size_t first);

/* One unit of work done: now and then, sweep the file pages. */
void sqp_spill_tick(struct sqp_spill *s);

/* Sweep now if the file pages mapped in are over their share: after a
 * pass over many megabytes that took no ticks. */
void sqp_spill_check(struct sqp_spill *s);

/* A new temporary file, unlinked, in the directory the arena makes its
 * own in (P_tmpdir for a NULL arena): for bytes an owner writes and
 * reads back itself (pwrite, pread), which then sit in the page cache,
 * never in this process's memory, whatever the budget. Returns the
 * descriptor (the caller closes it), or a negative error with the
 * message in err. */
int sqp_spill_tmpfile(const struct sqp_spill *s, struct sqp_errbuf *err);

void sqp_spill_get_stats(const struct sqp_spill *s, struct sqp_spill_stats *st);

#endif
