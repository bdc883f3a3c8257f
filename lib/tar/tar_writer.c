/* SPDX-License-Identifier: MIT */
/*
 * tar_writer.c - writes POSIX pax archives (include/sqpack/tar_writer.h).
 *
 * Each entry gets a ustar header; what ustar cannot hold (paths and link
 * targets over its fields, numbers over their octal width, sub-second or
 * negative times, xattrs as SCHILY.xattr.*) goes into a pax header just
 * before it. Sparse files, when asked for, use the GNU 1.0 layout: the
 * map as decimal lines at the start of the data. Output is deterministic:
 * no user or group names, no atime/ctime, fixed pax header names.
 *
 * Invariant between calls: data_left bytes of the current entry are
 * still owed by the caller, then pad bytes of zeros follow.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "sqpack/tar_writer.h"
#include "tar/ostream.h"
#include "util/abi.h"
#include "util/array.h"
#include "util/errbuf.h"

#define BLOCK 512
#define OCTAL7_MAX 07777777ull
#define OCTAL11_MAX 077777777777ull

struct sqp_tar_writer {
	struct sqp_errbuf err;
	struct ostream *out;
	unsigned flags;
	sqp_warn_fn warn;
	void *warn_user;
	uint64_t data_left, pad;
	char *pax;
	size_t pax_len, pax_cap;
};

static const uint8_t zeros[BLOCK];

SQP_API int sqp_tar_writer_create(const struct sqp_tar_writer_desc *desc,
				  struct sqp_tar_writer **out)
{
	struct sqp_tar_writer_desc d;
	struct sqp_tar_writer *w;
	int ret;

	if (out == NULL)
		return SQP_ERR_ARG;
	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return SQP_ERR_NOMEM;
	/* From here on a failure hands back w, whose error() says why
	 * (doc/contributing.md). */
	*out = w;
	ret = sqp_abi_in(&w->err, "sqp_tar_writer_desc", &d, sizeof(d),
			 SQP_SIZE_TO(struct sqp_tar_writer_desc, warn_user), desc);
	if (ret != 0)
		return ret;
	desc = &d; /* the caller's struct only up to its size */
	if (desc->fd < 0)
		return sqp_err(&w->err, SQP_ERR_ARG, "no output file");
	w->flags = desc->flags;
	w->warn = desc->warn;
	w->warn_user = desc->warn_user;
	ret = ostream_create(desc->fd, desc->compression, &w->err, &w->out);
	return ret;
}

SQP_API void sqp_tar_writer_destroy(struct sqp_tar_writer *w)
{
	if (w == NULL)
		return;
	ostream_destroy(w->out);
	free(w->pax);
	free(w);
}

SQP_API const char *sqp_tar_writer_error(const struct sqp_tar_writer *w)
{
	return w != NULL ? sqp_errmsg(&w->err) : "";
}

/* Append one "LEN key=value\n" record; LEN counts itself. */
static int pax_add(struct sqp_tar_writer *w, const char *key,
		   const void *value, size_t vlen)
{
	size_t body = strlen(key) + vlen + 3, len = body + 1, need;
	char digits[24];

	while ((size_t)snprintf(digits, sizeof(digits), "%zu", len) + body != len)
		len++;
	need = w->pax_len + len;
	if (need > w->pax_cap) {
		char *p = sqp_array_grow(w->pax, &w->pax_cap, need, 1, 1024);

		if (p == NULL)
			return sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
		w->pax = p;
	}
	w->pax_len += (size_t)sprintf(w->pax + w->pax_len, "%s %s=", digits, key);
	memcpy(w->pax + w->pax_len, value, vlen);
	w->pax_len += vlen;
	w->pax[w->pax_len++] = '\n';
	return 0;
}

static int pax_num(struct sqp_tar_writer *w, const char *key, uint64_t v)
{
	char buf[24];

	return pax_add(w, key, buf, (size_t)snprintf(buf, sizeof(buf), "%" PRIu64, v));
}

/* width - 1 octal digits, zero-filled, then a NUL; the callers bound v
 * to fit. By hand: snprintf's format parsing, nine times a header, was
 * a few percent of img2tar's CPU on an image of small files. */
static void octal(char *field, size_t width, uint64_t v)
{
	field[width - 1] = '\0';
	for (size_t i = width - 1; i > 0; i--) {
		field[i - 1] = (char)('0' + (v & 7));
		v >>= 3;
	}
}

static void checksum(uint8_t *h)
{
	unsigned sum = 0;

	memset(h + 148, ' ', 8);
	for (int i = 0; i < BLOCK; i++)
		sum += h[i];
	octal((char *)h + 148, 7, sum);
	h[155] = ' ';
}

/* ustar header; name is what goes in name/prefix (already shortened to
 * fit, or a stand-in when a pax path carries the real one). */
static void ustar(uint8_t *h, const char *name, const struct sqp_entry *e,
		  char type, uint64_t size, const char *link)
{
	size_t n = strlen(name);
	const char *split = NULL;

	memset(h, 0, BLOCK);
	if (n > 100) {
		/* prefix/name: the last '/' that leaves both parts fitting */
		for (const char *s = name + n - 1; s > name; s--)
			if (*s == '/' && (size_t)(s - name) <= 155 &&
			    n - (size_t)(s - name) - 1 <= 100) {
				split = s;
				break;
			}
	}
	if (split != NULL) {
		memcpy(h + 345, name, (size_t)(split - name));
		memcpy(h, split + 1, n - (size_t)(split - name) - 1);
	} else {
		memcpy(h, name, n > 100 ? 100 : n);
	}
	octal((char *)h + 100, 8, e->mode & 07777);
	octal((char *)h + 108, 8, e->uid <= OCTAL7_MAX ? e->uid : 0);
	octal((char *)h + 116, 8, e->gid <= OCTAL7_MAX ? e->gid : 0);
	octal((char *)h + 124, 12, size <= OCTAL11_MAX ? size : 0);
	octal((char *)h + 136, 12, e->mtime >= 0 &&
	      (uint64_t)e->mtime <= OCTAL11_MAX ? (uint64_t)e->mtime : 0);
	h[156] = (uint8_t)type;
	if (link != NULL)
		memcpy(h + 157, link, strlen(link) > 100 ? 100 : strlen(link));
	memcpy(h + 257, "ustar\0" "00", 8);
	if (type == '3' || type == '4') {
		octal((char *)h + 329, 8, e->dev_major <= OCTAL7_MAX ? e->dev_major : 0);
		octal((char *)h + 337, 8, e->dev_minor <= OCTAL7_MAX ? e->dev_minor : 0);
	}
	checksum(h);
}

static int path_fits(const char *p)
{
	size_t n = strlen(p);

	if (n <= 100)
		return 1;
	for (const char *s = p + n - 1; s > p; s--)
		if (*s == '/' && (size_t)(s - p) <= 155 && n - (size_t)(s - p) - 1 <= 100)
			return 1;
	return 0;
}

static int write_block(struct sqp_tar_writer *w, const void *b, size_t n)
{
	return ostream_write(w->out, b, n);
}

static char entry_type(const struct sqp_entry *e)
{
	if (e->is_hardlink)
		return '1';
	switch (e->mode & S_IFMT) {
	case S_IFDIR: return '5';
	case S_IFLNK: return '2';
	case S_IFCHR: return '3';
	case S_IFBLK: return '4';
	case S_IFIFO: return '6';
	default: return '0';
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s != NULL && s[1] != '\0' ? s + 1 : path;
}

/* "[-]SEC[.NSEC]" for pax mtime. */
static int pax_time(struct sqp_tar_writer *w, int64_t sec, uint32_t nsec)
{
	char buf[48];
	int n;

	if (nsec == 0)
		n = snprintf(buf, sizeof(buf), "%" PRId64, sec);
	else if (sec >= 0)
		n = snprintf(buf, sizeof(buf), "%" PRId64 ".%09u", sec, nsec);
	else
		n = snprintf(buf, sizeof(buf), "-%" PRId64 ".%09u", -(sec + 1),
			     1000000000u - nsec);
	return pax_add(w, "mtime", buf, (size_t)n);
}

/* The GNU sparse 1.0 map: "count\n" then "offset\nlength\n" per run. */
static char *sparse_map(const struct sqp_entry *e, size_t *len, uint64_t *data)
{
	size_t cap = 32 + e->sparse_count * 42, n;
	char *map = malloc(cap + BLOCK);

	if (map == NULL)
		return NULL;
	n = (size_t)sprintf(map, "%zu\n", e->sparse_count);
	*data = 0;
	for (size_t i = 0; i < e->sparse_count; i++) {
		n += (size_t)sprintf(map + n, "%" PRIu64 "\n%" PRIu64 "\n",
				     e->sparse[i].offset, e->sparse[i].length);
		*data += e->sparse[i].length;
	}
	memset(map + n, 0, (BLOCK - n % BLOCK) % BLOCK);
	*len = n + (BLOCK - n % BLOCK) % BLOCK;
	return map;
}

static int add_records(struct sqp_tar_writer *w, const struct sqp_entry *e,
		       const char *path, uint64_t size, int sparse)
{
	int ret = 0;

	if (!sparse && !path_fits(path))
		ret = pax_add(w, "path", path, strlen(path));
	if (ret == 0 && e->link_target != NULL && strlen(e->link_target) > 100)
		ret = pax_add(w, "linkpath", e->link_target,
			      strlen(e->link_target));
	if (ret == 0 && e->uid > OCTAL7_MAX)
		ret = pax_num(w, "uid", e->uid);
	if (ret == 0 && e->gid > OCTAL7_MAX)
		ret = pax_num(w, "gid", e->gid);
	if (ret == 0 && size > OCTAL11_MAX)
		ret = pax_num(w, "size", size);
	if (ret == 0 && (e->mtime < 0 || (uint64_t)e->mtime > OCTAL11_MAX ||
			 e->mtime_nsec != 0))
		ret = pax_time(w, e->mtime, e->mtime_nsec);
	if (ret == 0 && (e->dev_major > OCTAL7_MAX || e->dev_minor > OCTAL7_MAX)) {
		ret = pax_num(w, "SCHILY.devmajor", e->dev_major);
		if (ret == 0)
			ret = pax_num(w, "SCHILY.devminor", e->dev_minor);
	}
	for (size_t i = 0; ret == 0 && !(w->flags & SQP_TAR_WRITE_NO_XATTRS) &&
			   i < e->xattr_count; i++) {
		char key[300];

		if (strchr(e->xattrs[i].key, '=') != NULL ||
		    strlen(e->xattrs[i].key) > 255) {
			/* cannot be a pax keyword */
			if (w->warn != NULL) {
				char msg[400];

				snprintf(msg, sizeof(msg), "'%s': xattr '%.255s' "
					 "cannot be stored in a pax header; "
					 "left out", path, e->xattrs[i].key);
				w->warn(w->warn_user, msg);
			}
			continue;
		}
		snprintf(key, sizeof(key), "SCHILY.xattr.%s", e->xattrs[i].key);
		ret = pax_add(w, key, e->xattrs[i].value, e->xattrs[i].value_len);
	}
	if (ret == 0 && sparse) {
		if ((ret = pax_num(w, "GNU.sparse.major", 1)) == 0 &&
		    (ret = pax_num(w, "GNU.sparse.minor", 0)) == 0 &&
		    (ret = pax_add(w, "GNU.sparse.name", path, strlen(path))) == 0)
			ret = pax_num(w, "GNU.sparse.realsize", e->size);
	}
	return ret;
}

static int write_header(struct sqp_tar_writer *w, const struct sqp_entry *e)
{
	char type = entry_type(e), *path = NULL, *map = NULL, stand_in[128];
	int sparse = (w->flags & SQP_TAR_WRITE_SPARSE) && type == '0' &&
		     e->sparse_count > 0;
	uint64_t data = type == '0' ? e->size : 0;
	size_t map_len = 0, plen;
	uint8_t h[BLOCK];
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (w->data_left != 0 || S_ISSOCK(e->mode))
		return sqp_err(&w->err, SQP_ERR_SEQUENCE, "tar writer: "
			       "header out of sequence");
	plen = strlen(e->path);
	path = malloc(plen + 3);
	if (path == NULL)
		return sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	if (plen == 0)
		strcpy(path, "./");
	else
		sprintf(path, "%s%s", e->path, type == '5' ? "/" : "");
	if (sparse && (map = sparse_map(e, &map_len, &data)) == NULL) {
		free(path);
		return sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	}
	w->pax_len = 0;
	ret = add_records(w, e, path, data + map_len, sparse);
	if (ret == 0 && w->pax_len > 0) {
		snprintf(stand_in, sizeof(stand_in), "PaxHeaders/%.80s",
			 base_name(path));
		ustar(h, stand_in, e, 'x', w->pax_len, NULL);
		if ((ret = write_block(w, h, BLOCK)) == 0 &&
		    (ret = write_block(w, w->pax, w->pax_len)) == 0)
			ret = write_block(w, zeros, (BLOCK - w->pax_len % BLOCK) % BLOCK);
	}
	if (ret == 0) {
		const char *name = path;

		if (sparse) {
			snprintf(stand_in, sizeof(stand_in), "GNUSparseFile.0/%.80s",
				 base_name(path));
			name = stand_in;
		}
		ustar(h, name, e, type, data + map_len,
		      type == '1' || type == '2' ? e->link_target : NULL);
		ret = write_block(w, h, BLOCK);
	}
	if (ret == 0 && sparse)
		ret = write_block(w, map, map_len);
	free(path);
	free(map);
	if (ret != 0)
		return ret;
	w->data_left = data;
	w->pad = (BLOCK - data % BLOCK) % BLOCK;
	return 0;
}

SQP_API int sqp_tar_write_header(struct sqp_tar_writer *w,
				 const struct sqp_entry *entry)
{
	struct sqp_entry e;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	ret = sqp_abi_in(&w->err, "sqp_entry", &e, sizeof(e),
			 SQP_SIZE_TO(struct sqp_entry, sparse_count), entry);
	return ret != 0 ? ret : write_header(w, &e);
}

SQP_API int sqp_tar_write_data(struct sqp_tar_writer *w, const void *buf,
			       size_t n)
{
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (n > w->data_left)
		return sqp_err(&w->err, SQP_ERR_SEQUENCE, "tar writer: more "
			       "data than the entry's size");
	if ((ret = ostream_write(w->out, buf, n)) != 0)
		return ret;
	w->data_left -= n;
	if (w->data_left == 0 && w->pad > 0) {
		ret = ostream_write(w->out, zeros, (size_t)w->pad);
		w->pad = 0;
	}
	return ret;
}

SQP_API int sqp_tar_writer_finish(struct sqp_tar_writer *w)
{
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (w->data_left != 0)
		return sqp_err(&w->err, SQP_ERR_SEQUENCE, "tar writer: the last "
			       "entry's data is incomplete");
	if ((ret = ostream_write(w->out, zeros, BLOCK)) != 0 ||
	    (ret = ostream_write(w->out, zeros, BLOCK)) != 0)
		return ret;
	return ostream_finish(w->out);
}
