/* SPDX-License-Identifier: MIT */
/*
 * entry.h - one file system entry, as tar streams and SquashFS images both
 * describe it.
 *
 * The tar reader produces these, the image writer consumes them, the image
 * reader produces them and the tar writer consumes them. The structure says
 * nothing about either format. All pointers inside an entry are borrowed:
 * they belong to whoever produced the entry and stay valid until that
 * producer's next call.
 */
#ifndef SQPACK_ENTRY_H
#define SQPACK_ENTRY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One extended attribute. key is the full name ("user.foo"), NUL-terminated;
 * value is binary and value_len bytes long. */
struct sqp_xattr {
	const char *key;
	const uint8_t *value;
	size_t value_len;
};

/* One run of real data in a sparse file; everything outside the runs reads
 * as zero bytes. Runs are sorted and do not overlap. */
struct sqp_sparse_run {
	uint64_t offset;
	uint64_t length;
};

struct sqp_entry {
	size_t struct_size;  /* sizeof(struct sqp_entry): see sqpack/api.h */

	/* Normalised relative path: no leading "/" or "./", no "." or ".."
	 * components, no trailing "/", no doubled "/". The root directory
	 * is the empty string. */
	const char *path;

	/* Full st_mode: file type bits (S_IFREG, S_IFDIR, ...) and the 07777
	 * permission bits. For a hard link the type is the link's target's. */
	uint32_t mode;

	uint64_t uid;
	uint64_t gid;

	/* Modification time: seconds since the epoch (may be negative) and
	 * nanoseconds. */
	int64_t mtime;
	uint32_t mtime_nsec;

	/* Regular files: the logical size in bytes (holes included). */
	uint64_t size;

	/* Character and block devices. */
	uint32_t dev_major;
	uint32_t dev_minor;

	/* Symlinks: the target (any bytes but NUL). Hard links: the
	 * normalised path of the entry they link to. NULL otherwise. */
	const char *link_target;
	int is_hardlink;

	const struct sqp_xattr *xattrs;
	size_t xattr_count;

	/* Sparse regular files: the data runs (NULL and 0 for a file without
	 * holes). Producers that cannot tell leave this empty. */
	const struct sqp_sparse_run *sparse;
	size_t sparse_count;
};

/*
 * A pull interface for a regular file's contents, handed by whoever owns
 * the data (a tar reader, an image reader) to whoever stores it.
 *
 * read: fill buf with exactly n bytes of the file's logical contents (holes
 *       read as zero bytes) and return 0, or a negative sqp_error.
 * hole: optional (may be NULL); the number of bytes starting at the current
 *       position that are known to be zero without reading them. 0 when none
 *       or unknown.
 * skip: optional (may be NULL, required when hole is set); advance over n
 *       bytes that hole() reported as zero. Returns 0 or a negative error.
 */
struct sqp_data_source {
	int (*read)(void *user, void *buf, size_t n);
	uint64_t (*hole)(void *user);
	int (*skip)(void *user, uint64_t n);
	void *user;
};

/* A callback that receives warnings (skipped entries, replaced paths...).
 * msg is only valid during the call. */
typedef void (*sqp_warn_fn)(void *user, const char *msg);

#ifdef __cplusplus
}
#endif
#endif
