/* SPDX-License-Identifier: MIT */
/*
 * blockrd.h - the ordered parallel block reader: file data of an image,
 * decompressed on a pool of workers and delivered to one consumer in
 * exactly the order it was asked for, within a bounded window.
 *
 * The consumer adds entries (its own structs embedding struct rd_bentry)
 * in the order it wants them, each with the regular file whose data it
 * carries or none. The reader calls back, always on the caller's thread:
 * start(e) when e becomes the oldest entry, data(e, ...) for each piece
 * of its data in file order, end(e) when it has all of it. Entries
 * without data still go through start/end in order, which is what
 * img2tar (headers between data) and img2dir (directory times) need.
 *
 * A consumer whose output takes pieces in any order (img2dir's pwrite)
 * may give put(): each data block is then handed to it on the worker
 * that decompressed it, and not to data(); only holes and tails still
 * come through data() on the caller's thread. That takes the copying of
 * most bytes off the one thread every entry goes through.
 *
 * Once added, an entry belongs to the reader: end() or, after an error
 * or at destruction, drop() is called for it exactly once.
 */
#ifndef SQP_READ_BLOCKRD_H
#define SQP_READ_BLOCKRD_H

#include "read/rd_image.h"

struct rd_bentry {
	const char *name;           /* for messages (a path); the consumer's */
	uint64_t jobs_total, jobs_done;   /* reader-private from here on */
	int all_added, started;
	struct rd_bentry *next;
};

struct rd_blockrd_ops {
	int (*start)(void *user, struct rd_bentry *e);
	/* The len bytes of e's data at pos (the next ones in file order);
	 * data is NULL for a hole (zeros). */
	int (*data)(void *user, struct rd_bentry *e, uint64_t pos,
		    const uint8_t *data, uint32_t len);
	int (*end)(void *user, struct rd_bentry *e);
	void (*drop)(void *user, struct rd_bentry *e);
	/* Optional: a block that cannot be read or decompresses to the
	 * wrong size. Return 0 to go on without its bytes (the checker),
	 * an error to stop; without it the error latches in the image. */
	int (*bad)(void *user, struct rd_bentry *e, const char *msg);
	/* Optional, runs on a worker, possibly before start(e), concurrently
	 * with other calls (of any entry): a data block's len bytes at pos.
	 * May only use what e held when it was added. Returns 0 or a
	 * negative errno, which latches as "'NAME': writing: ...". */
	int (*put)(void *user, struct rd_bentry *e, uint64_t pos,
		   const uint8_t *data, uint32_t len);
};

struct rd_blockrd_desc {
	struct sqp_image *img;
	unsigned jobs;              /* threads; 0: CPUs, 1: serial */
	const struct rd_blockrd_ops *ops;
	void *user;
	/* Entries added and not yet ended, at most (0: 4096). A consumer
	 * holding a descriptor per entry keeps it under the fd limit. */
	unsigned max_entries;
	/* Set: data() may take the decoded extents of one file that a run
	 * holds one after another in one call, not one call each (the
	 * checker counts its calls as blocks, so it does not set it). */
	int spans;
};

struct rd_blockrd;

int rd_blockrd_create(const struct rd_blockrd_desc *desc,
		      struct rd_blockrd **out);
/* Add e, with the data of the regular file ino (NULL: no data). Block
 * positions are checked against the image before any is read. */
int rd_blockrd_add(struct rd_blockrd *b, struct rd_bentry *e,
		   const struct rd_inode *ino);
/* Deliver everything added so far. */
int rd_blockrd_flush(struct rd_blockrd *b);
/* Wait for the workers; drop() what was not delivered. NULL is fine. */
void rd_blockrd_destroy(struct rd_blockrd *b);

#endif
