/* SPDX-License-Identifier: MIT */
/*
 * tar_impl.h - the tar reader's state, shared by its files:
 * tar_reader.c (the header loop and public API), tar_fields.c (numeric
 * fields, checksum, path rules), tar_pax.c (pax records) and
 * tar_sparse.c (GNU sparse maps and the data source with holes).
 */
#ifndef SQP_TAR_IMPL_H
#define SQP_TAR_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/entry.h"
#include "sqpack/tar.h"
#include "tar/istream.h"
#include "util/errbuf.h"

#define TAR_BLOCK 512

/* Offsets of the ustar header fields. */
enum {
	TH_NAME = 0, TH_MODE = 100, TH_UID = 108, TH_GID = 116,
	TH_SIZE = 124, TH_MTIME = 136, TH_CHKSUM = 148, TH_TYPE = 156,
	TH_LINKNAME = 157, TH_MAGIC = 257, TH_DEVMAJOR = 329,
	TH_DEVMINOR = 337, TH_PREFIX = 345,
	/* old GNU sparse */
	TH_GNU_SPARSE = 386, TH_GNU_ISEXT = 482, TH_GNU_REALSIZE = 483,
	/* star: a 131-byte prefix, then times; its old sparse header keeps
	 * the map where the prefix would be (the current one only the real
	 * size); xstar signs the header with "tar" */
	TH_STAR_PREFIX_LEN = 131, TH_STAR_ISEXT = 355, TH_STAR_SPARSE = 356,
	TH_STAR_REALSIZE = 452, TH_XSTAR_MAGIC = 508,
	/* star's original format (1985): no ustar magic but the "tar"
	 * signature at 508; a version byte where ustar has its magic, the
	 * device number whole at 278 with the count of its minor bits after
	 * it, names where ustar keeps its numbers, a 155-byte prefix */
	TH_OSTAR_VERSION = 257, TH_OSTAR_RDEV = 278, TH_OSTAR_MINORBITS = 289,
	TH_OSTAR_PREFIX_LEN = 155,
};

/* A growable byte buffer; data stays valid until the next reserve. */
struct tbuf {
	char *data;
	size_t len, cap;
};

/* What pax records (local or global) say. */
enum {
	PAX_PATH = 1 << 0, PAX_LINK = 1 << 1, PAX_SIZE = 1 << 2,
	PAX_UID = 1 << 3, PAX_GID = 1 << 4, PAX_MTIME = 1 << 5,
	PAX_DEVMAJOR = 1 << 6, PAX_DEVMINOR = 1 << 7,
	PAX_SPARSE_MAJOR = 1 << 8, PAX_SPARSE_MINOR = 1 << 9,
	PAX_SPARSE_SIZE = 1 << 10, PAX_SPARSE_NAME = 1 << 11,
	PAX_SPARSE_MAP = 1 << 12,
};

struct pax_fields {
	unsigned have;
	const char *path, *link, *sparse_name; /* into the pax buffer */
	uint64_t size, uid, gid, devmajor, devminor;
	int64_t mtime;
	uint32_t mtime_nsec;
	uint64_t sparse_major, sparse_minor, sparse_size;
	uint64_t sparse_offset;                /* 0.0: pending offset */
	int sparse_offset_set;
};

struct sqp_tar_reader {
	struct sqp_errbuf err;
	struct istream *in;
	const char *name;
	sqp_warn_fn warn;
	void *warn_user;
	int acl_warned;
	int headers_only;               /* SQP_TAR_READ_HEADERS_ONLY */
	int done;
	int seen_entry;                 /* an entry was returned */
	int have_held;                  /* held is the next header */
	uint8_t held[TAR_BLOCK];        /* read ahead (a directory's size) */

	struct sqp_entry entry;
	struct tbuf path, link;         /* normalised entry strings */
	struct tbuf gnu_longname, gnu_longlink;
	struct tbuf pax_buf;            /* local pax data; values point in */
	struct pax_fields pax, global;
	struct sqp_xattr *xattrs;
	size_t xattr_count, xattr_cap;

	/* data of the current entry */
	uint64_t stored_left;           /* bytes of archive data not consumed */
	uint64_t padding;               /* zero bytes after the data */
	uint64_t logical_pos, logical_size;
	struct sqp_sparse_run *runs;    /* sparse files only */
	size_t run_count, run_cap, run_idx;
	int sparse;
};

/* tar_fields.c */
int tbuf_reserve(struct tbuf *b, size_t n);
void tbuf_free(struct tbuf *b);
/* Parse an octal or base-256 header field. Returns 0 or -1. */
int tar_field_u64(const uint8_t *f, size_t len, uint64_t *out);
int tar_field_i64(const uint8_t *f, size_t len, int64_t *out);
int tar_checksum_ok(const uint8_t *h);
int tar_block_is_zero(const uint8_t *h);
/* Normalise a path in place (see entry.h). Returns 0, or -1 for a ".."
 * component. */
int tar_normalize_path(char *p);
/* Strict decimal, as pax values are. 0 or -1. */
int tar_decimal_u64(const char *s, size_t len, uint64_t *out);
int tar_err(struct sqp_tar_reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tar_warn(struct sqp_tar_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* tar_entry.c: 1 = an entry, 0 = a type to skip, < 0 = error */
int tar_build_entry(struct sqp_tar_reader *r, const uint8_t *h);

/* tar_pax.c */
int tar_pax_parse(struct sqp_tar_reader *r, char *buf, size_t len,
		  struct pax_fields *px, int global);

/* tar_sparse.c */
int tar_sparse_add(struct sqp_tar_reader *r, uint64_t offset, uint64_t len);
/* Old GNU ('S' with GNU magic) or star ('S' with ustar magic) map. */
int tar_sparse_old_gnu(struct sqp_tar_reader *r, const uint8_t *hdr, int star);
int tar_sparse_map_01(struct sqp_tar_reader *r, const char *map);
int tar_sparse_map_10(struct sqp_tar_reader *r);
int tar_sparse_check(struct sqp_tar_reader *r, uint64_t real_size);
int tar_data_read(void *user, void *buf, size_t n);
uint64_t tar_data_hole(void *user);
int tar_data_skip(void *user, uint64_t n);

#endif
