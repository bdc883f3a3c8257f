/* SPDX-License-Identifier: MIT */
/*
 * istream.h - a forward-only buffered byte stream over a file descriptor
 * that transparently decompresses gzip, xz, zstd, lz4 (frame and legacy)
 * and bzip2 input, detected from the first bytes (past zstd/lz4
 * skippable frames). Works on pipes; seeks only to skip, and only plain
 * input in a regular file. A reader thread of its own reads and decodes
 * ahead (a few MiB), unless the caller asks for a window: then the input
 * is read on the caller's thread, a window at a time, when a byte is
 * needed (for a caller that skips most of it). The functions below are
 * for one thread, the caller's.
 */
#ifndef SQP_TAR_ISTREAM_H
#define SQP_TAR_ISTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

struct istream;

/* window: 0 for the read-ahead thread, else the bytes of one read. */
int istream_create(int fd, const char *name, size_t window, struct sqp_errbuf *err,
		   struct istream **out);
void istream_destroy(struct istream *s);
/* Read another input, fd, from its start, as a new istream would, in the
 * same read-ahead buffers (their pages stay mapped: a new stream's 8 MiB
 * would be faulted in again). On failure the stream only reports it. */
int istream_reset(struct istream *s, int fd, const char *name);

/* Read up to n bytes; returns the count (0 only at the end of input) or
 * a negative error (latched in err). */
long istream_read_some(struct istream *s, void *buf, size_t n);
/* Exactly n bytes or SQP_ERR_TRUNCATED. */
int istream_read(struct istream *s, void *buf, size_t n);
/* Drop n bytes; SQP_ERR_TRUNCATED if the input ends first. Plain input
 * in a regular file seeks past what was not read ahead yet. */
int istream_skip(struct istream *s, uint64_t n);
/* Consume the rest of the input (so a writer into a pipe is not killed
 * by SIGPIPE), decompressing it to check it is intact. */
int istream_drain(struct istream *s);

/* Bytes of (decompressed) stream consumed so far. */
uint64_t istream_offset(const struct istream *s);
/* "none", "gzip", "xz", ... once the first read happened. */
const char *istream_compression(const struct istream *s);
/* Plain input in a regular file: 1, with the descriptor and the file
 * offset of the next byte to consume, where pread() finds it again;
 * otherwise 0 (compressed input, a pipe, nothing read yet). */
int istream_file_at(const struct istream *s, int *fd, uint64_t *off);

#endif
