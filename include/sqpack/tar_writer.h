/* SPDX-License-Identifier: MIT */
/*
 * tar_writer.h - POSIX tar writer.
 *
 * The writer produces a POSIX pax archive: ustar headers, with pax extended
 * headers for whatever ustar cannot hold (long paths, big numbers, sub-second
 * times, xattrs), optionally GNU sparse 1.0 for files with holes, optionally
 * compressed. It knows nothing about SquashFS. One object per thread.
 */
#ifndef SQPACK_TAR_WRITER_H
#define SQPACK_TAR_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

struct sqp_tar_writer;

enum sqp_tar_compression {
	SQP_TAR_RAW = 0,
	SQP_TAR_GZIP,
	SQP_TAR_XZ,
	SQP_TAR_ZSTD,
	SQP_TAR_LZ4,
};

#define SQP_TAR_WRITE_SPARSE 0x0001  /* write holes as GNU sparse 1.0 */
#define SQP_TAR_WRITE_NO_XATTRS 0x0002

struct sqp_tar_writer_desc {
	size_t struct_size;  /* sizeof(struct sqp_tar_writer_desc): see sqpack/api.h */
	int fd;              /* output; borrowed */
	int compression;     /* enum sqp_tar_compression */
	unsigned flags;      /* SQP_TAR_WRITE_* */
	sqp_warn_fn warn;
	void *warn_user;
};

SQP_API int sqp_tar_writer_create(const struct sqp_tar_writer_desc *desc,
				  struct sqp_tar_writer **out);
SQP_API void sqp_tar_writer_destroy(struct sqp_tar_writer *w);

/*
 * Write one entry's header(s). For a regular file (not a hard link) the
 * caller then writes exactly the entry's data bytes with
 * sqp_tar_write_data(); with SQP_TAR_WRITE_SPARSE and entry->sparse set,
 * only the bytes of the data runs, in order. Returns 0 or an error.
 */
SQP_API int sqp_tar_write_header(struct sqp_tar_writer *w,
				 const struct sqp_entry *entry);
SQP_API int sqp_tar_write_data(struct sqp_tar_writer *w, const void *buf,
			       size_t n);

/* Write the end-of-archive marker, finish compression and flush. */
SQP_API int sqp_tar_writer_finish(struct sqp_tar_writer *w);

SQP_API const char *sqp_tar_writer_error(const struct sqp_tar_writer *w);

#ifdef __cplusplus
}
#endif
#endif
