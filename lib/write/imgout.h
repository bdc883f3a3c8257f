/* SPDX-License-Identifier: MIT */
/*
 * imgout.h - the image file as the writer sees it: an append-only stream
 * with a write buffer, plus reads of anything already written (dedup
 * read-back) and one positioned write at the end (the superblock).
 *
 * Only the writer's orchestrator thread calls these (but for
 * imgout_wait_durable); the writer thread below is imgout's own (and
 * calls the tap for the bytes it writes).
 */
#ifndef SQP_WRITE_IMGOUT_H
#define SQP_WRITE_IMGOUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

struct imgout_async;

struct imgout {
	int fd;
	uint64_t base;         /* file offset of image position 0 */
	uint64_t pos;          /* logical end: bytes appended so far */
	uint64_t flushed;      /* bytes handed to the kernel */
	uint8_t *buf;          /* pending bytes, [flushed, pos) */
	size_t cap;
	struct sqp_errbuf *err; /* the owner's; I/O errors are latched there */
	struct imgout_async *async; /* the writer thread, or NULL */
	/* --verity's hasher; NULL when off. Every appended or queued byte
	 * is handed to tap, in image order: appended ones on the owner's
	 * thread, queued ones on the writer thread once written (its idle
	 * time, off the orchestrator's critical path). tap latches nothing
	 * (imgout does); tap_reserve runs on the owner's thread before
	 * any byte below end is tapped, and latches its own errors. Both
	 * are set before imgout_start_async. */
	int (*tap)(void *ctx, const void *data, size_t len);
	int (*tap_reserve)(void *ctx, uint64_t end);
	void *tap_ctx;
	int tap_behind;        /* queued since the last wait: the writer
	                        * thread may not have tapped it yet */
};

int imgout_init(struct imgout *o, int fd, uint64_t start, struct sqp_errbuf *err);
void imgout_cleanup(struct imgout *o);

/* Append len bytes. */
int imgout_append(struct imgout *o, const void *data, size_t len);

/* Append len zero bytes. */
int imgout_append_zeros(struct imgout *o, size_t len);

/* Hand everything appended so far to the kernel (queued bytes included). */
int imgout_flush(struct imgout *o);

/* Read len bytes at off, which must lie below imgout.flushed (waits for
 * the writer thread to get there). Returns 0 or a negative sqp_error;
 * latches only the writer thread's errors. Workers read ranges already
 * read here with sqp_pread_full() on the fd instead. */
int imgout_pread(struct imgout *o, uint64_t off, void *buf, size_t len);

/* Overwrite len bytes at off (below flushed), e.g. the superblock. */
int imgout_pwrite(struct imgout *o, uint64_t off, const void *data, size_t len);

/*
 * The ordered writer (imgwriter.c): a thread of its own that writes whole
 * data blocks straight from the caller's buffers, so the write() calls and
 * the kernel's copying leave the orchestrator. imgout_queue() appends len
 * bytes at pos like imgout_append() but only takes note of them (and
 * hands them to the tap once written); the
 * caller keeps data untouched until imgout_reap() hands its token back,
 * which happens in queue order. At most max_chunks are queued and not yet
 * reaped. Every other call (append, flush, pread, pwrite) first waits
 * until all queued bytes are written, so below `flushed` everything is
 * with the kernel as before. A write error of the thread (or its tap's)
 * is latched in o->err by the next call that waits for it.
 */
int imgout_start_async(struct imgout *o, size_t max_chunks);
/* Stop the thread; queued bytes not yet written are dropped. */
void imgout_stop_async(struct imgout *o);
int imgout_queue(struct imgout *o, const void *data, size_t len, void *token);
/* A written chunk's token: 1 and *token, 0 if none (with wait: none
 * queued), or a negative error. */
int imgout_reap(struct imgout *o, int wait, void **token);
/* Wait until every queued byte below end is written (UINT64_MAX: all);
 * 0 or the latched error. */
int imgout_wait_written(struct imgout *o, uint64_t end);
/* The same wait for other threads (the dedup proofs, proof.c): touches
 * only the writer thread's state, so it latches nothing; 0, or a negative
 * error if the writer failed (the owner latches it at its next wait) or
 * was stopped first. */
int imgout_wait_durable(struct imgout_async *a, uint64_t end);
/* Write the buffered bytes (not the queued ones). */
int imgout_flush_buffer(struct imgout *o);

#endif
