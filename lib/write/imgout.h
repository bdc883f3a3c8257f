/* SPDX-License-Identifier: MIT */
/*
 * imgout.h - the image file as the writer sees it: an append-only stream
 * with a write buffer, plus reads of anything already written (dedup
 * read-back) and one positioned write at the end (the superblock).
 *
 * Only the writer's orchestrator thread calls these (but for
 * imgout_wait_durable and tap.hash); the writer thread below is
 * imgout's own.
 */
#ifndef SQP_WRITE_IMGOUT_H
#define SQP_WRITE_IMGOUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/copyrange.h"
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
	/* imgout_copy's range not yet copied: the last copy_len bytes
	 * before pos, from copy_src of copy_fd (buf is empty meanwhile). */
	int copy_fd;
	uint64_t copy_src, copy_len;
	struct sqp_copier copier;
	/* --verity's hasher, when tap.feed is set (before
	 * imgout_start_async): every byte is handed to it in image order,
	 * on the owner's thread (it latches its own errors there): appended
	 * ones by imgout, queued ones by the queuer (compress.c), right
	 * before imgout_queue. */
	struct imgout_tap {
		/* Appended bytes: hashed before it returns. */
		int (*feed)(void *ctx, const void *data, size_t len);
		/* Queued bytes, whose buffer is kept until span
		 * (span_size bytes, the queuer's) is hashed: 1 when span
		 * has something to hash, 0 when not, or an error. */
		int (*place)(void *ctx, const void *data, size_t len, void *span);
		/* span's hashing, on any thread, beside other spans: 0 or
		 * an error for the owner to latch. */
		int (*hash)(void *span);
		size_t span_size;
		void *ctx;
	} tap;
};

int imgout_init(struct imgout *o, int fd, uint64_t start, struct sqp_errbuf *err);
void imgout_cleanup(struct imgout *o);

/* Append len bytes. */
int imgout_append(struct imgout *o, const void *data, size_t len);

/* Append the len bytes at off of file fd (open until the next call),
 * copied in the kernel (util/copyrange.h) when the bytes before them are
 * written: a copy that continues the last one in the same file joins it,
 * so a run of them is one copy. Not with a tap (it would not see them):
 * SQP_ERR_INTERNAL. */
int imgout_copy(struct imgout *o, int fd, uint64_t off, uint64_t len);
/* The error of a copy of len bytes at src to image position off that
 * failed with err (a negative code), set in o's message: err. */
int imgout_copy_failed(struct imgout *o, int err, uint64_t len, uint64_t src,
		       uint64_t off);

/* Appending in place, for bytes read straight into the buffer: room
 * for at least want bytes (at most the buffer's size) at the buffer's
 * end, the buffer written first if it has less; *room is how many may
 * be filled (want or more). imgout_commit(o, n) then appends the first n
 * of them as imgout_append would (the tap sees them); nothing else may
 * be called in between. NULL on an error, latched in o->err. */
uint8_t *imgout_room(struct imgout *o, size_t want, size_t *room);
int imgout_commit(struct imgout *o, size_t len);

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
 * bytes at pos like imgout_append() but only takes note of them; the
 * caller keeps data untouched until imgout_reap() hands its token back,
 * which happens in queue order, and, with a tap, until its span is
 * hashed (the queuer hands them to tap.place first). At most
 * max_chunks are queued and not yet reaped. The thread also makes
 * imgout_copy's copies (imgout_queue_copy). flush, pread and pwrite
 * first wait until the queued bytes and copies below their end are
 * written, so what they see is with the kernel. A write or copy error
 * of the thread is latched in o->err by the next call that waits for
 * it.
 */
int imgout_start_async(struct imgout *o, size_t max_chunks);
/* Stop the thread; queued bytes not yet written are dropped. */
void imgout_stop_async(struct imgout *o);
int imgout_queue(struct imgout *o, const void *data, size_t len, void *token);
/* imgout_copy's pending range (len bytes at src of fd) queued at
 * `flushed` for the writer thread to copy, with a duplicate of fd: 0,
 * 1 when no descriptor could be spared (the caller copies), or the
 * thread's latched error. */
int imgout_queue_copy(struct imgout *o, int fd, uint64_t src, uint64_t len);
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
