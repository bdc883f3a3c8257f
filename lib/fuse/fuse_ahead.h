/* SPDX-License-Identifier: MIT */
/*
 * fuse_ahead.h - sqpack-fuse's prefetch: sequential reads are detected
 * per open file (per file without opens), and the chunks after them
 * loaded into the shared cache by a few threads of its own while the
 * reader is still on the earlier ones.
 *
 * Why: a reader asks for one chunk after the other, and each miss waits
 * for its decompression (milliseconds for a 1 MiB xz block), with the
 * other cores idle. The kernel's own readahead asks a little ahead, not
 * a block ahead. Prefetched chunks go into the cache unpinned, so they
 * count against its budget like any other (the window is at most a
 * quarter of it): memory does not grow. A prefetch is advisory: when its
 * queue is full it is dropped, and a failed load is the reader's to meet.
 */
#ifndef SQP_BIN_FUSE_AHEAD_H
#define SQP_BIN_FUSE_AHEAD_H

#include <pthread.h>
#include <stdint.h>

struct ahead;

/* Load chunk idx of file ref (size bytes) into the cache, with what its
 * reply needs besides (the shared chunks, the decoded units its pieces
 * are of), and put it all back. */
typedef void (*ahead_load_fn)(void *user, uint64_t ref, uint64_t idx,
			      uint64_t size);

/* Where a file's reads were. */
struct ahead_seq {
	uint64_t next;              /* chunk after the last read's */
	unsigned streak;            /* reads in a row that followed on */
	uint64_t queued;            /* chunks below this are queued or read */
};

/* What sqpack-fuse keeps per open file (fi->fh): its size and where its
 * reads were. */
struct ahead_file {
	pthread_mutex_t lock;       /* guards seq */
	uint64_t size;
	struct ahead_seq seq;
};

/* 0, or -errno. load, user: what the loaders call; threads: loaders
 * (0: no prefetch, *out NULL, which the other calls take); chunk: the
 * cache's chunk size; budget: the cache's bytes. */
int ahead_create(ahead_load_fn load, void *user, unsigned threads,
		 uint32_t chunk, uint64_t budget, struct ahead **out);
/* Stops the loaders (queued prefetches are dropped) and frees. */
void ahead_destroy(struct ahead *a);

void ahead_file_init(struct ahead_file *f, uint64_t size);
void ahead_file_destroy(struct ahead_file *f);

/* A read of chunks first..last of file ref of size bytes (its state f;
 * NULL when the kernel opened it without us, FS_NO_OPEN: then a state
 * kept per file in a few slots, the one used least lately taken for a
 * file that has none): when it follows on from the previous read,
 * queue the chunks after it. */
void ahead_read(struct ahead *a, struct ahead_file *f, uint64_t ref,
		uint64_t size, uint64_t first, uint64_t last);

#endif
