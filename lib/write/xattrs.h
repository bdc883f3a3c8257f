/* SPDX-License-Identifier: MIT */
/*
 * xattrs.h - extended attribute sets, deduplicated.
 *
 * Each inode's attributes are put in a canonical order and interned: equal
 * sets (common for SELinux labels or capabilities) are stored once and
 * share one xattr id. A set's blob is a run of records: a u16 prefix id
 * (WR_XATTR_*), a u16 name size, the name without its prefix, a u32 value
 * size and the value, little-endian: SquashFS's own form, which its back
 * end writes as it is and EROFS's re-encodes.
 */
#ifndef SQP_WRITE_XATTRS_H
#define SQP_WRITE_XATTRS_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/codec.h"
#include "sqpack/entry.h"
#include "util/errbuf.h"
#include "write/imgout.h"
#include "write/words.h"

/* The prefix ids of the records: SquashFS's (its back end checks that
 * they agree), the only prefixes both formats can store. */
#define WR_XATTR_USER     0
#define WR_XATTR_TRUSTED  1
#define WR_XATTR_SECURITY 2

struct xattr_set {
	uint8_t *blob;          /* key/value records as stored */
	uint32_t len;
	uint32_t count;
	uint64_t hash;
};

struct xattr_store {
	struct xattr_set *sets;
	size_t count;
	size_t cap;
	uint32_t *slots;        /* open addressing: set index + 1 */
	size_t slot_count;
	struct sqp_errbuf *err;
	sqp_warn_fn warn;
	void *warn_user;
};

int xattr_store_init(struct xattr_store *s, struct sqp_errbuf *err,
		     sqp_warn_fn warn, void *warn_user);
void xattr_store_cleanup(struct xattr_store *s);

/* Intern the attributes of the entry at path; *id is WR_NO_XATTR when
 * none are left after dropping prefixes SquashFS cannot store (warned). */
int xattr_store_intern(struct xattr_store *s, const char *path,
		       const struct sqp_xattr *xattrs, size_t count, uint32_t *id);

/* *out = set id (WR_NO_XATTR: none) with key = value (len bytes)
 * added, or replacing that key's value. Set id stays as it was: other
 * inodes may share it. */
int xattr_store_with(struct xattr_store *s, const char *path, uint32_t id,
		     const char *key, const uint8_t *value, size_t len, uint32_t *out);

#endif
