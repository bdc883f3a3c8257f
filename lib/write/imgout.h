/* SPDX-License-Identifier: MIT */
/*
 * imgout.h - the image file as the writer sees it: an append-only stream
 * with a write buffer, plus reads of anything already written (dedup
 * read-back) and one positioned write at the end (the superblock).
 *
 * Only the writer's orchestrator thread calls these.
 */
#ifndef SQP_WRITE_IMGOUT_H
#define SQP_WRITE_IMGOUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

struct imgout {
	int fd;
	uint64_t base;         /* file offset of image position 0 */
	uint64_t pos;          /* logical end: bytes appended so far */
	uint64_t flushed;      /* bytes handed to the kernel */
	uint8_t *buf;          /* pending bytes, [flushed, pos) */
	size_t cap;
	struct sqp_errbuf *err; /* the owner's; I/O errors are latched there */
};

int imgout_init(struct imgout *o, int fd, uint64_t start, struct sqp_errbuf *err);
void imgout_cleanup(struct imgout *o);

/* Append len bytes. */
int imgout_append(struct imgout *o, const void *data, size_t len);

/* Append len zero bytes. */
int imgout_append_zeros(struct imgout *o, size_t len);

/* Hand everything appended so far to the kernel. */
int imgout_flush(struct imgout *o);

/* Read len bytes at off, which must lie below imgout.flushed. Returns 0
 * or a negative sqp_error and leaves latching it to the caller. Workers
 * read flushed ranges with sqp_pread_full() on the fd instead. */
int imgout_pread(const struct imgout *o, uint64_t off, void *buf, size_t len);

/* Overwrite len bytes at off (below flushed), e.g. the superblock. */
int imgout_pwrite(struct imgout *o, uint64_t off, const void *data, size_t len);

#endif
