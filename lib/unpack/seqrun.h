/* SPDX-License-Identifier: MIT */
/*
 * seqrun.h - items run one after another, in the order they were pushed,
 * on a thread of their own (or at once on the caller's): work that must
 * keep its order but need not hold up the thread that orders it. img2dir
 * finishes its entries (making small files, attributes, closing) this
 * way while its walk goes on.
 *
 * Memory and descriptors stay bounded: push waits while max_items items
 * or max_bytes of their weight are queued.
 */
#ifndef SQP_UNPACK_SEQRUN_H
#define SQP_UNPACK_SEQRUN_H

#include <stddef.h>

#include "util/errbuf.h"

struct unp_seqrun_desc {
	int threaded;               /* 0: push runs the item at once */
	size_t max_items, max_bytes;
	/* Run item, which it then owns; 0, or a negative sqp_error with
	 * its message latched in err. After an error the items queued
	 * behind it are dropped, not run. */
	int (*run)(void *user, void *item, struct sqp_errbuf *err);
	void (*drop)(void *user, void *item);
	void *user;
};

struct unp_seqrun;

int unp_seqrun_create(const struct unp_seqrun_desc *desc,
		      struct unp_seqrun **out);
/* Queue item (bytes: its weight): run() or drop() is called for it
 * exactly once. Returns 0 or the first run error, its message latched
 * in err. */
int unp_seqrun_push(struct unp_seqrun *s, void *item, size_t bytes,
		    struct sqp_errbuf *err);
/* Wait until everything pushed has run; 0 or the first run error. */
int unp_seqrun_flush(struct unp_seqrun *s, struct sqp_errbuf *err);
/* Stop after the item being run; drop() the rest. NULL is fine. */
void unp_seqrun_destroy(struct unp_seqrun *s);

#endif
