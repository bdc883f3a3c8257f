/* SPDX-License-Identifier: MIT */
/*
 * tar.h - streaming tar reader.
 *
 * The reader takes a file descriptor (a file or a pipe), detects from the
 * first bytes whether the stream is compressed (gzip, xz, zstd, lz4, and
 * bzip2 when built with it) and decodes v7, ustar, GNU (long names, long
 * link targets, base-256 numbers, old GNU sparse) and POSIX pax (local and
 * global headers, GNU sparse 0.0/0.1/1.0, SCHILY.xattr / LIBARCHIVE.xattr)
 * archives in one forward pass. It never seeks backwards: on an
 * uncompressed file it seeks forward past the data the caller skips,
 * and a pipe is read through as it comes.
 *
 * It knows nothing about SquashFS. One object per thread.
 */
#ifndef SQPACK_TAR_H
#define SQPACK_TAR_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Reader                                                              */
/* ------------------------------------------------------------------ */

struct sqp_tar_reader;

struct sqp_tar_reader_desc {
	size_t struct_size;  /* sizeof(struct sqp_tar_reader_desc): see sqpack/api.h */
	int fd;              /* input; borrowed, must stay open until destroy */
	const char *name;    /* for messages ("stdin", "root.tar"); borrowed */
	sqp_warn_fn warn;    /* optional: receives warnings (skipped records) */
	void *warn_user;
	unsigned flags;      /* SQP_TAR_READ_* */
};

/* A "headerball" (mkfs.erofs --tar=headerball): the headers of a tar
 * (extension headers whole) without the members' data, which the
 * reader then neither skips nor gives: reading a member's data is an
 * error, its size is what its header says. */
#define SQP_TAR_READ_HEADERS_ONLY 0x1
/* For an index of the tar (mkfs.erofs --tar=i), a caller that reads the
 * headers and skips nearly every member's data: no read-ahead, the input
 * is read in small windows when needed and, in a regular file, a skip is
 * a seek, so the data is never read. The data can still be read, only
 * more slowly. */
#define SQP_TAR_READ_INDEX 0x2

SQP_API int sqp_tar_reader_create(const struct sqp_tar_reader_desc *desc,
				  struct sqp_tar_reader **out);
SQP_API void sqp_tar_reader_destroy(struct sqp_tar_reader *r);

/*
 * Read another archive, from fd (named name in messages; both borrowed
 * as in the desc), from its first byte, exactly as a new reader with the
 * same warn callback would, but in this reader's buffers: for a stack of
 * layers read one after another, a new reader per layer would map and
 * fault in its read-ahead (8 MiB) again. What was left of the archive
 * before is dropped unread. A reader that failed keeps its error (0 or a
 * negative error, as sqp_tar_next).
 */
SQP_API int sqp_tar_reader_reset(struct sqp_tar_reader *r, int fd, const char *name);

/*
 * Advance to the next entry. Returns 1 and sets *entry (valid until the
 * next call to sqp_tar_next or destroy), 0 at the end of the archive, or a
 * negative error (see sqp_tar_reader_error). Data of the previous entry
 * that was not read is skipped. At the end the rest of the input is
 * drained, so a producer writing into a pipe never sees EPIPE.
 *
 * Paths are normalised as described in entry.h; a path with a ".."
 * component is an error naming the entry. A hard link's target is
 * normalised the same way.
 */
SQP_API int sqp_tar_next(struct sqp_tar_reader *r,
			 const struct sqp_entry **entry);

/*
 * The current regular file's contents as a pull source (see entry.h). Holes
 * of sparse files read as zeros and are reported by hole(). Reading past
 * the entry's size is an error.
 */
SQP_API struct sqp_data_source sqp_tar_data(struct sqp_tar_reader *r);

/*
 * Where the current regular file's bytes lie in the input, for a caller
 * that skips them now and may want them later (tar2img's layers: a hard
 * link further on names a file an upper layer replaced). Returns 1 when
 * the input is plain (not compressed) in a regular file and none of the
 * file's data has been read yet: *fd is the descriptor the reader reads
 * (borrowed) and *offset where pread() finds the file's stored bytes, its
 * data runs back to back for a sparse file (the entry's sparse map places
 * them). Returns 0 otherwise (a pipe, compressed input), when the data
 * must be read as it streams by.
 */
SQP_API int sqp_tar_data_at(struct sqp_tar_reader *r, int *fd, uint64_t *offset);

/*
 * Where the current regular file's bytes start in the tar itself,
 * counted from the tar's first byte, for an index that points into the
 * tar (mkfs.erofs --tar=i): 1 with *offset set when the input is not
 * compressed and none of the file's data has been read yet; 0
 * otherwise. A sparse file's data runs lie back to back from there (the
 * entry's sparse map places them; an old GNU or 1.0 map is not among
 * them). A pipe does as well as a file.
 */
SQP_API int sqp_tar_data_offset(struct sqp_tar_reader *r, uint64_t *offset);

/* Compression of the input stream as detected: "none", "gzip", "xz", ... */
SQP_API const char *sqp_tar_reader_compression(const struct sqp_tar_reader *r);

/* The last error's message with context, e.g.
 * "tar entry 'usr/bin/x': size field is not a number". Never NULL. */
SQP_API const char *sqp_tar_reader_error(const struct sqp_tar_reader *r);

#ifdef __cplusplus
}
#endif
#endif
