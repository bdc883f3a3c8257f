/* SPDX-License-Identifier: MIT */
/*
 * ostream.h - buffered output to a file descriptor, optionally through a
 * stream compressor of tcodec.h (the tar writer's output).
 */
#ifndef SQP_TAR_OSTREAM_H
#define SQP_TAR_OSTREAM_H

#include <stddef.h>

#include "util/errbuf.h"

struct ostream;

/* compression: enum sqp_tar_compression. SQP_ERR_NO_CODEC when this
 * build lacks the library. */
int ostream_create(int fd, int compression, struct sqp_errbuf *err,
		   struct ostream **out);
void ostream_destroy(struct ostream *s);
int ostream_write(struct ostream *s, const void *buf, size_t n);
/* End the compressed stream and write out everything. */
int ostream_finish(struct ostream *s);

#endif
