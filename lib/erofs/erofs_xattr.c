/* SPDX-License-Identifier: MIT */
/*
 * erofs_xattr.c - an EROFS inode's xattrs into the reader's struct
 * rd_xattrs, as SquashFS's are given.
 *
 * An inode's xattr area (its size from i_xattr_icount, at most 256 KiB)
 * holds a 12-byte header, the 4-byte ids of shared entries (kept once in
 * the shared area, for xattrs many inodes have) and the inode's own
 * entries. Each entry is a 4-byte head, the name without its prefix and
 * the value, padded to 4 bytes; it is read only inside its area (an
 * inline one) or the image (a shared one). The name's prefix comes from
 * the standard table, or a long prefix from the superblock's table
 * (erofs_open.c). They are given sorted by key, as sqpack's SquashFS
 * images store them (shared ones come first in EROFS), so both formats
 * of one tree convert to the same tar; a key twice is refused.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "erofs/rd_erofs.h"
#include "sqpack/error.h"
#include "util/array.h"
#include "util/endian.h"

/* Append key (prefix + name) and value to x, as offsets into the blob
 * (fixed up once all are in, since the blob may move). */
static int add(struct sqp_image *img, struct rd_xattrs *x, const char *pre,
	       const uint8_t *name, size_t nlen, const uint8_t *val,
	       size_t vlen)
{
	size_t plen = strlen(pre), need = plen + nlen + 1 + vlen + 1;
	struct sqp_xattr *it;
	uint8_t *b;

	if ((it = sqp_array_grow(x->items, &x->cap, x->count + 1,
				 sizeof(*it), 8)) == NULL ||
	    (b = sqp_array_grow(x->blob, &x->blob_cap, x->blob_len + need, 1,
				1024)) == NULL) {
		if (it != NULL)
			x->items = it;
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	}
	x->items = it;
	x->blob = b;
	b += x->blob_len;
	memcpy(b, pre, plen);
	memcpy(b + plen, name, nlen);
	b[plen + nlen] = 0;
	memcpy(b + plen + nlen + 1, val, vlen);
	b[plen + nlen + 1 + vlen] = 0;
	it[x->count].key = (const char *)(uintptr_t)x->blob_len;
	it[x->count].value = (const uint8_t *)(uintptr_t)(x->blob_len + plen +
							  nlen + 1);
	it[x->count].value_len = vlen;
	x->count++;
	x->blob_len += need;
	return 0;
}

/* The entry whose len bytes are at p (head included): *size is its
 * padded size. */
static int one(struct sqp_image *img, struct rd_xattrs *x, const uint8_t *p,
	       size_t len, size_t *size)
{
	struct erofs_xattr_head h;
	const char *pre;

	if (len < 4)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: a truncated xattr",
			      img->name);
	erofs_xattr_head_decode(&h, p);
	*size = (4 + (size_t)h.name_len + h.value_size + 3) & ~(size_t)3;
	if (4 + (size_t)h.name_len + h.value_size > len)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: an xattr runs past "
			      "its area", img->name);
	if (h.name_index & EROFS_XATTR_LONG_PREFIX) {
		unsigned i = h.name_index & ~EROFS_XATTR_LONG_PREFIX;

		if (i >= rd_ero(img)->prefix_count)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: an xattr with "
				      "long prefix %u of %u", img->name, i,
				      rd_ero(img)->prefix_count);
		pre = rd_ero(img)->prefixes[i];
	} else {
		pre = erofs_xattr_prefix(h.name_index);
	}
	if (pre == NULL ||
	    (h.name_len == 0 && pre[strlen(pre) - 1] == '.') ||
	    memchr(p + 4, 0, h.name_len) != NULL)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: an xattr with name "
			      "index %u and a bad name", img->name,
			      h.name_index);
	return add(img, x, pre, p + 4, h.name_len, p + 4 + h.name_len,
		   h.value_size);
}

/* Shared entry id: read whole (at most 4 + 255 + 65535 bytes). */
static int shared(struct sqp_image *img, struct rd_xattrs *x, uint32_t id,
		  uint8_t *buf)
{
	uint64_t at = rd_ero(img)->xattrs + (uint64_t)id * 4;
	size_t len, size;
	int ret;

	if ((ret = rd_erofs_meta_read(img, at, buf, 4,
				      "a shared xattr")) != 0)
		return ret;
	len = 4 + (size_t)buf[0] + sqp_get16(buf + 2);
	if ((ret = rd_erofs_meta_read(img, at, buf, len,
				      "a shared xattr")) != 0)
		return ret;
	return one(img, x, buf, len, &size);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sqp_xattr *)a)->key,
		      ((const struct sqp_xattr *)b)->key);
}

int rd_erofs_xattrs(struct sqp_image *img, const struct rd_einode *e,
		    struct rd_xattrs *x)
{
	uint32_t size = erofs_xattr_ibody_size(e->xattr_icount), off, n;
	uint8_t *area, *buf = NULL;
	int ret = 0;

	x->count = 0;
	x->blob_len = 0;
	if (size == 0)
		return 0;
	if ((area = malloc(size)) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	ret = rd_erofs_meta_read(img, e->pos + e->data_off - size, area,
				 size, "an xattr area");
	n = ret == 0 ? area[4] : 0;
	off = 12 + 4 * n;
	if (ret == 0 && off > size)
		ret = rd_err(img, SQP_ERR_CORRUPT, "%s: %u shared xattrs in an "
			     "area of %u bytes", img->name, n, size);
	if (ret == 0 && n > 0 && (buf = malloc(4 + 255 + 65535)) == NULL)
		ret = rd_err(img, SQP_ERR_NOMEM, "out of memory");
	for (uint32_t i = 0; ret == 0 && i < n; i++)
		ret = shared(img, x, sqp_get32(area + 12 + 4 * i), buf);
	while (ret == 0 && off < size) {
		size_t esize;

		ret = one(img, x, area + off, size - off, &esize);
		off += (uint32_t)esize;
	}
	for (size_t i = 0; ret == 0 && i < x->count; i++) {
		x->items[i].key = (const char *)x->blob +
				  (uintptr_t)x->items[i].key;
		x->items[i].value = x->blob + (uintptr_t)x->items[i].value;
	}
	if (ret == 0 && x->count > 1) {
		qsort(x->items, x->count, sizeof(*x->items), key_cmp);
		for (size_t i = 1; ret == 0 && i < x->count; i++)
			if (strcmp(x->items[i - 1].key, x->items[i].key) == 0)
				ret = rd_err(img, SQP_ERR_CORRUPT, "%s: the xattr "
					     "'%s' twice", img->name,
					     x->items[i].key);
	}
	if (ret != 0)
		x->count = 0;
	free(buf);
	free(area);
	return ret;
}
