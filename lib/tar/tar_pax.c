/* SPDX-License-Identifier: MIT */
/*
 * tar_pax.c - POSIX pax extended header records ("LEN key=value\n").
 *
 * Records are parsed in place: keys and values are NUL-terminated inside
 * the pax buffer and the entry points into it, so the buffer lives until
 * the next entry. Every length is checked against the record and the
 * buffer before it is used. Global headers carry defaults for later
 * entries; of those only the numeric attributes are honoured.
 *
 * Extended attributes come as SCHILY.xattr.NAME (raw value, GNU tar and
 * star) or LIBARCHIVE.xattr.URLENCODED-NAME (base64 value, bsdtar); the
 * same name given twice keeps the last value. GNU tar stores the SELinux
 * label as RHT.security.selinux. ACLs have no place in SquashFS: warned
 * about once and dropped.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "tar/tar_impl.h"
#include "util/array.h"

static int add_xattr(struct sqp_tar_reader *r, const char *key,
		     const uint8_t *value, size_t len)
{
	for (size_t i = 0; i < r->xattr_count; i++) {
		if (strcmp(r->xattrs[i].key, key) == 0) {
			r->xattrs[i].value = value;
			r->xattrs[i].value_len = len;
			return 0;
		}
	}
	if (r->xattr_count == r->xattr_cap) {
		struct sqp_xattr *x = sqp_array_grow(r->xattrs, &r->xattr_cap,
						     r->xattr_count + 1,
						     sizeof(*x), 8);

		if (x == NULL)
			return tar_err(r, SQP_ERR_NOMEM, "out of memory");
		r->xattrs = x;
	}
	r->xattrs[r->xattr_count++] = (struct sqp_xattr){ key, value, len };
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* %XX decoding in place; -1 on a bad escape or an encoded NUL. */
static int url_decode(char *s)
{
	char *d = s;

	for (; *s != '\0'; s++) {
		if (*s == '%') {
			int hi = hexval(s[1]), lo = hi < 0 ? -1 : hexval(s[2]);

			if (lo < 0 || (hi | lo) == 0)
				return -1;
			*d++ = (char)(hi << 4 | lo);
			s += 2;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
	return 0;
}

static int b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Base64 decoding in place (the output is shorter); padding optional. */
static long b64_decode(char *s, size_t len)
{
	uint32_t acc = 0;
	size_t out = 0;
	int bits = 0;

	for (size_t i = 0; i < len && s[i] != '='; i++) {
		int v = b64val(s[i]);

		if (v < 0)
			return -1;
		acc = acc << 6 | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			s[out++] = (char)(acc >> bits);
		}
	}
	return (long)out;
}

/* Leading decimal digits of v (at most len bytes); how many there were.
 * A value too large saturates (times are clamped later anyway). */
static size_t leading_digits(const char *v, size_t len, uint64_t *out)
{
	size_t i = 0;

	*out = 0;
	for (; i < len && v[i] >= '0' && v[i] <= '9'; i++)
		*out = *out > (uint64_t)INT64_MAX / 20 ? (uint64_t)INT64_MAX / 2 :
		       *out * 10 + (uint64_t)(v[i] - '0');
	return i;
}

/*
 * "[-]SECONDS[.FRACTION]", floored to whole seconds. What follows the
 * number is ignored, as bsdtar does (some writers append junk); there
 * must be a number, though.
 */
static int parse_time(const char *v, size_t len, int64_t *sec, uint32_t *nsec)
{
	int neg = len > 0 && v[0] == '-';
	uint64_t whole, frac = 0;
	size_t n;

	v += neg;
	len -= (size_t)neg;
	n = leading_digits(v, len, &whole);
	if (n == 0)
		return -1;
	if (n < len && v[n] == '.') {
		/* nine digits at most; a fraction cut short by junk is
		 * padded with zeros */
		int stop = 0;

		for (size_t i = n + 1; i < n + 10; i++) {
			stop |= i >= len || v[i] < '0' || v[i] > '9';
			frac = frac * 10 + (stop ? 0 : (uint64_t)(v[i] - '0'));
		}
	}
	if (!neg) {
		*sec = (int64_t)whole;
		*nsec = (uint32_t)frac;
	} else if (frac == 0) {
		*sec = -(int64_t)whole;
		*nsec = 0;
	} else {
		*sec = -(int64_t)whole - 1;
		*nsec = (uint32_t)(1000000000u - frac);
	}
	return 0;
}

static int number(struct sqp_tar_reader *r, const char *key, const char *v,
		  size_t len, uint64_t *out)
{
	if (tar_decimal_u64(v, len, out) != 0)
		return tar_err(r, SQP_ERR_BAD_TAR,
			       "pax header: '%s' is not a number: '%.40s'", key,
			       v);
	return 0;
}

/*
 * The keys we act on, one row each. A handler gets the row, so one
 * handler serves every key of its kind: numbers, names and xattrs differ
 * only in the field or prefix the row names.
 */
struct pax_key;
typedef int (*pax_handler)(struct sqp_tar_reader *r, struct pax_fields *px,
			   const struct pax_key *k, char *key, char *v,
			   size_t vlen);

struct pax_key {
	const char *key;
	size_t len;        /* strlen(key) */
	int prefix;        /* key is a prefix; what follows it is a name */
	int global;        /* also honoured in a global header */
	unsigned have;     /* PAX_* bit the key sets, or 0 */
	size_t field;      /* offsetof the pax_fields member it fills */
	pax_handler fn;
};

#define PAX_FIELD(px, k, type) ((type *)(void *)((char *)(px) + (k)->field))

static int pax_number(struct sqp_tar_reader *r, struct pax_fields *px,
		      const struct pax_key *k, char *key, char *v, size_t vlen)
{
	return number(r, key, v, vlen, PAX_FIELD(px, k, uint64_t));
}

static int pax_mtime(struct sqp_tar_reader *r, struct pax_fields *px,
		     const struct pax_key *k, char *key, char *v, size_t vlen)
{
	(void)k;
	(void)key;
	if (parse_time(v, vlen, &px->mtime, &px->mtime_nsec) != 0)
		return tar_err(r, SQP_ERR_BAD_TAR, "pax header: bad mtime "
			       "'%.40s'", v);
	return 0;
}

/* A NUL inside cuts the name there, as in bsdtar: the value is read as
 * a C string. */
static int pax_name(struct sqp_tar_reader *r, struct pax_fields *px,
		    const struct pax_key *k, char *key, char *v, size_t vlen)
{
	(void)r;
	(void)key;
	(void)vlen;
	*PAX_FIELD(px, k, const char *) = v;
	return 0;
}

/* SCHILY.xattr.NAME, raw value; an empty NAME is no attribute. */
static int pax_xattr(struct sqp_tar_reader *r, struct pax_fields *px,
		     const struct pax_key *k, char *key, char *v, size_t vlen)
{
	(void)px;
	if (key[k->len] == '\0')
		return 0;
	return add_xattr(r, key + k->len, (const uint8_t *)v, vlen);
}

static int pax_selinux(struct sqp_tar_reader *r, struct pax_fields *px,
		       const struct pax_key *k, char *key, char *v, size_t vlen)
{
	(void)px;
	(void)k;
	(void)key;
	return add_xattr(r, "security.selinux", (const uint8_t *)v, vlen);
}

/* LIBARCHIVE.xattr.URLENCODED-NAME, base64 value. */
static int pax_xattr_b64(struct sqp_tar_reader *r, struct pax_fields *px,
			 const struct pax_key *k, char *key, char *v,
			 size_t vlen)
{
	long n;

	(void)px;
	if (key[k->len] == '\0')
		return 0;
	if (url_decode(key + k->len) != 0 || (n = b64_decode(v, vlen)) < 0)
		return tar_err(r, SQP_ERR_BAD_TAR, "pax header: bad encoding "
			       "in '%.80s'", key);
	return add_xattr(r, key + k->len, (const uint8_t *)v, (size_t)n);
}

static int pax_acl(struct sqp_tar_reader *r, struct pax_fields *px,
		   const struct pax_key *k, char *key, char *v, size_t vlen)
{
	(void)px;
	(void)k;
	(void)v;
	(void)vlen;
	if (!r->acl_warned)
		tar_warn(r, "ACLs cannot be stored in SquashFS; dropped "
			 "(first: '%s')", key);
	r->acl_warned = 1;
	return 0;
}

static int pax_sparse_map(struct sqp_tar_reader *r, struct pax_fields *px,
			  const struct pax_key *k, char *key, char *v,
			  size_t vlen)
{
	(void)px;
	(void)k;
	(void)key;
	if (strlen(v) != vlen) /* a NUL inside */
		return tar_err(r, SQP_ERR_BAD_TAR, "pax header: bad "
			       "GNU.sparse.map");
	return tar_sparse_map_01(r, v);
}

/* Sparse format 0.0: offset/numbytes pairs as repeated records. */
static int pax_sparse_offset(struct sqp_tar_reader *r, struct pax_fields *px,
			     const struct pax_key *k, char *key, char *v,
			     size_t vlen)
{
	(void)k;
	px->sparse_offset_set = 1;
	return number(r, key, v, vlen, &px->sparse_offset);
}

static int pax_sparse_bytes(struct sqp_tar_reader *r, struct pax_fields *px,
			    const struct pax_key *k, char *key, char *v,
			    size_t vlen)
{
	uint64_t n;
	int ret;

	(void)k;
	if (!px->sparse_offset_set)
		return tar_err(r, SQP_ERR_BAD_TAR, "pax header: "
			       "GNU.sparse.numbytes without offset");
	if ((ret = number(r, key, v, vlen, &n)) != 0)
		return ret;
	px->sparse_offset_set = 0;
	return tar_sparse_add(r, px->sparse_offset, n);
}

#define KEY(s) s, sizeof(s) - 1
#define AT(m) offsetof(struct pax_fields, m)

/* Global headers carry defaults for later entries; of those only the
 * numeric attributes are honoured: names, sizes and xattrs belong to
 * one entry. */
static const struct pax_key pax_keys[] = {
	{ KEY("uid"), 0, 1, PAX_UID, AT(uid), pax_number },
	{ KEY("gid"), 0, 1, PAX_GID, AT(gid), pax_number },
	{ KEY("mtime"), 0, 1, PAX_MTIME, 0, pax_mtime },
	{ KEY("path"), 0, 0, PAX_PATH, AT(path), pax_name },
	{ KEY("linkpath"), 0, 0, PAX_LINK, AT(link), pax_name },
	{ KEY("GNU.sparse.name"), 0, 0, PAX_SPARSE_NAME, AT(sparse_name),
	  pax_name },
	{ KEY("size"), 0, 0, PAX_SIZE, AT(size), pax_number },
	{ KEY("SCHILY.devmajor"), 0, 0, PAX_DEVMAJOR, AT(devmajor),
	  pax_number },
	{ KEY("SCHILY.devminor"), 0, 0, PAX_DEVMINOR, AT(devminor),
	  pax_number },
	{ KEY("SCHILY.xattr."), 1, 0, 0, 0, pax_xattr },
	{ KEY("RHT.security.selinux"), 0, 0, 0, 0, pax_selinux },
	{ KEY("LIBARCHIVE.xattr."), 1, 0, 0, 0, pax_xattr_b64 },
	{ KEY("SCHILY.acl."), 1, 0, 0, 0, pax_acl },
	{ KEY("LIBARCHIVE.acl"), 1, 0, 0, 0, pax_acl },
	{ KEY("GNU.sparse.major"), 0, 0, PAX_SPARSE_MAJOR, AT(sparse_major),
	  pax_number },
	{ KEY("GNU.sparse.minor"), 0, 0, PAX_SPARSE_MINOR, AT(sparse_minor),
	  pax_number },
	{ KEY("GNU.sparse.size"), 0, 0, PAX_SPARSE_SIZE, AT(sparse_size),
	  pax_number },
	{ KEY("GNU.sparse.realsize"), 0, 0, PAX_SPARSE_SIZE, AT(sparse_size),
	  pax_number },
	{ KEY("GNU.sparse.map"), 0, 0, PAX_SPARSE_MAP, 0, pax_sparse_map },
	{ KEY("GNU.sparse.offset"), 0, 0, 0, 0, pax_sparse_offset },
	{ KEY("GNU.sparse.numbytes"), 0, 0, PAX_SPARSE_MAP, 0,
	  pax_sparse_bytes },
};

static int record(struct sqp_tar_reader *r, struct pax_fields *px,
		  int global, char *key, size_t keylen, char *v, size_t vlen)
{
	if (keylen != strlen(key) && (strncmp(key, "SCHILY.xattr.", 13) == 0 ||
				      strncmp(key, "LIBARCHIVE.xattr.", 17) == 0))
		return tar_err(r, SQP_ERR_BAD_TAR, "pax header: the name of "
			       "extended attribute '%s' contains a NUL byte", key);

	for (size_t i = 0; i < sizeof(pax_keys) / sizeof(pax_keys[0]); i++) {
		const struct pax_key *k = &pax_keys[i];
		int ret;

		if (k->prefix ? strncmp(key, k->key, k->len) != 0 :
				strcmp(key, k->key) != 0)
			continue;
		if (global && !k->global)
			return 0;
		/* A failure is latched in r and ends the archive, so the
		 * bit only matters on success. */
		ret = k->fn(r, px, k, key, v, vlen);
		if (ret == 0)
			px->have |= k->have;
		return ret;
	}
	return 0; /* atime, ctime, uname, gname, comment, ...: not stored */
}

int tar_pax_parse(struct sqp_tar_reader *r, char *buf, size_t len,
		  struct pax_fields *px, int global)
{
	size_t pos = 0;

	while (pos < len) {
		size_t reclen = 0, i = pos;
		char *key, *eq, *v;

		if (buf[pos] == '\0') /* NUL padding after the last record */
			break;
		while (i < len && buf[i] >= '0' && buf[i] <= '9' &&
		       reclen <= len) {
			reclen = reclen * 10 + (size_t)(buf[i] - '0');
			i++;
		}
		if (i == pos || i >= len || buf[i] != ' ' || reclen > len - pos ||
		    reclen < (i - pos) + 4 || buf[pos + reclen - 1] != '\n')
			return tar_err(r, SQP_ERR_BAD_TAR, "pax header: bad "
				       "record length at byte %zu", pos);
		key = buf + i + 1;
		buf[pos + reclen - 1] = '\0';
		eq = memchr(key, '=', (size_t)(buf + pos + reclen - 1 - key));
		if (eq == NULL || eq == key)
			return tar_err(r, SQP_ERR_BAD_TAR, "pax header: record "
				       "without 'key=' at byte %zu", pos);
		*eq = '\0';
		v = eq + 1;
		if (record(r, px, global, key, (size_t)(eq - key), v,
			   (size_t)(buf + pos + reclen - 1 - v)) != 0)
			return r->err.code;
		pos += reclen;
	}
	return 0;
}
