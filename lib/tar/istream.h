/* SPDX-License-Identifier: MIT */
/*
 * istream.h - a forward-only buffered byte stream over a file descriptor
 * that transparently decompresses gzip, xz, zstd, lz4 (frame and legacy)
 * and bzip2 input, detected from the first bytes (past zstd/lz4
 * skippable frames). Works on pipes; never seeks.
 */
#ifndef SQP_TAR_ISTREAM_H
#define SQP_TAR_ISTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

struct istream;

/* A decompressor of one input format (istream_codecs.c). */
struct istream_decoder {
	const char *name;
	int (*create)(void **state);
	/* Consume from (*in, *in_len), produce into (*out, *out_len) (both
	 * advanced). Sets *end when the stream (all members) is complete.
	 * Returns 0 or SQP_ERR_BAD_DATA / SQP_ERR_NOMEM. */
	int (*run)(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int *end);
	/* For formats without an end mark (NULL otherwise): may the input
	 * end here? */
	int (*clean_end)(void *state);
	void (*destroy)(void *state);
};

#ifdef WITH_LZ4
extern const struct istream_decoder istream_dec_lz4legacy;
#endif

/* The decoder whose magic starts buf (len bytes), NULL for plain data.
 * *name is set to the detected format even when this build lacks it, so
 * the caller can say so; then the function returns NULL with *missing. */
const struct istream_decoder *istream_detect(const uint8_t *buf, size_t len,
					     const char **name, int *missing);

int istream_create(int fd, const char *name, struct sqp_errbuf *err,
		   struct istream **out);
void istream_destroy(struct istream *s);

/* Read up to n bytes; returns the count (0 only at the end of input) or
 * a negative error (latched in err). */
long istream_read_some(struct istream *s, void *buf, size_t n);
/* Exactly n bytes or SQP_ERR_TRUNCATED. */
int istream_read(struct istream *s, void *buf, size_t n);
/* Drop n bytes; SQP_ERR_TRUNCATED if the input ends first. */
int istream_skip(struct istream *s, uint64_t n);
/* Consume the rest of the input (so a writer into a pipe is not killed
 * by SIGPIPE), decompressing it to check it is intact. */
int istream_drain(struct istream *s);

/* Bytes of (decompressed) stream consumed so far. */
uint64_t istream_offset(const struct istream *s);
/* "none", "gzip", "xz", ... once the first read happened. */
const char *istream_compression(const struct istream *s);

#endif
