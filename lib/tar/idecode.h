/* SPDX-License-Identifier: MIT */
/*
 * idecode.h - decoded bytes of a tar input descriptor: plain, or gzip,
 * xz, zstd, lz4 (frame and legacy), bzip2, detected from the first bytes
 * (past zstd/lz4 skippable frames). Works on pipes; seeks only when
 * asked, and only plain input in a regular file. Used by istream.c's
 * reader thread only (or its caller's, with a window): one thread at a
 * time.
 */
#ifndef SQP_TAR_IDECODE_H
#define SQP_TAR_IDECODE_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

struct idecode;

/* err must outlive the object: every error is latched there. */
int idecode_create(int fd, const char *name, struct sqp_errbuf *err,
		   struct idecode **out);
void idecode_destroy(struct idecode *s);

/* Before the first fill: wait for input with poll() and give up with
 * SQP_ERR_CANCELED once cancel_fd is readable (for pipes and terminals,
 * whose read() may block for ever). */
void idecode_set_cancel(struct idecode *s, int cancel_fd);

/* Up to cap decoded bytes into dst: the count, 0 only at the end of the
 * input, or a negative error (latched). */
long idecode_fill(struct idecode *s, uint8_t *dst, size_t cap);
/* After the end: read what follows a compressed stream, so that a writer
 * into a pipe is not killed by SIGPIPE. */
int idecode_finish(struct idecode *s);

/* 1 once the first fill found plain input in a regular file, where
 * idecode_seek() works; 0 otherwise (a pipe, compressed input). */
int idecode_seekable(const struct idecode *s);
/* Seekable input only: the next fill gives the decoded byte at offset
 * (counted from where the descriptor stood at create). */
int idecode_seek(struct idecode *s, uint64_t offset);

/* "none", "gzip", "xz", ... once the first fill happened. */
const char *idecode_compression(const struct idecode *s);
/* The descriptor and, when it is a regular file, where it stood at
 * create (1); 0 for a pipe. Fixed for the decoder's life, so any thread
 * may ask. */
int idecode_origin(const struct idecode *s, int *fd, uint64_t *base);

#endif
