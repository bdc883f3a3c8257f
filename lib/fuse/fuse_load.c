/* SPDX-License-Identifier: MIT */
/*
 * fuse_load.c - what the shared cache loads, each through an image of
 * the pool: a chunk of a file's data (decompressed by the file reader of
 * the library, which checks every block against the image), or a
 * directory's whole listing (so lookups are a binary search and a
 * readdir at any offset costs no rescan).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_fs.h"

/* Chunk idx of the file ref whose size *arg is. */
static int load_chunk(struct fs *fs, struct pool_img *pi, uint64_t ref,
		      uint64_t idx, uint64_t size, uint8_t **data,
		      size_t *len)
{
	uint64_t off = idx * fs->chunk;
	size_t n, got = 0;
	int ret = 0;

	if (off >= size)
		return SQP_ERR_ARG;
	n = size - off < fs->chunk ? (size_t)(size - off) : fs->chunk;
	if ((ret = pool_file(pi, ref)) != 0)
		return ret;
	if ((*data = malloc(n)) == NULL)
		return SQP_ERR_NOMEM;
	if ((ret = sqp_file_pread(pi->file, *data, n, off, &got)) == 0 &&
	    got != n)
		ret = SQP_ERR_CORRUPT;
	*len = n;
	return ret;
}

struct names {
	struct fs_dirent *ents;
	size_t count, cap;
	char *buf;
	size_t len, bcap;
};

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if ((q = realloc(*p, n * elem)) == NULL)
		return SQP_ERR_NOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int add(struct names *a, const struct sqp_dirent *d)
{
	size_t nl = strlen(d->name) + 1;

	if (grow((void **)&a->ents, &a->cap, a->count + 1, sizeof(*a->ents)) ||
	    grow((void **)&a->buf, &a->bcap, a->len + nl, 1))
		return SQP_ERR_NOMEM;
	a->ents[a->count].ref = d->ref;
	a->ents[a->count].ino = d->inode_number;
	a->ents[a->count].type = d->type;
	a->ents[a->count].name_off = (uint32_t)a->len;
	memcpy(a->buf + a->len, d->name, nl);
	a->count++;
	a->len += nl;
	return 0;
}

/* The listing of ref in one block: struct fs_listing, then names. */
static int load_listing(struct pool_img *pi, uint64_t ref, uint8_t **data,
			size_t *len)
{
	struct sqp_dirent d = { .struct_size = sizeof(d) };
	struct names a = { 0 };
	struct sqp_dir *dir = NULL;
	struct fs_listing *l;
	size_t head;
	int ret;

	if ((ret = sqp_dir_open(pi->img, ref, &dir)) != 0)
		return ret;
	while ((ret = sqp_dir_next(dir, &d)) == 1)
		if ((ret = add(&a, &d)) != 0)
			break;
	sqp_dir_close(dir);
	head = sizeof(*l) + a.count * sizeof(l->ents[0]);
	if (ret == 0 && head + a.len > UINT32_MAX)
		ret = SQP_ERR_LIMIT;    /* name_off is 32 bits */
	if (ret == 0 && (l = malloc(head + a.len)) != NULL) {
		l->count = a.count;
		for (size_t i = 0; i < a.count; i++) {
			l->ents[i] = a.ents[i];
			l->ents[i].name_off += (uint32_t)head;
		}
		if (a.len > 0)      /* an empty listing has no buffer */
			memcpy((char *)l + head, a.buf, a.len);
		*data = (uint8_t *)l;
		*len = head + a.len;
	} else if (ret == 0) {
		ret = SQP_ERR_NOMEM;
	}
	free(a.ents);
	free(a.buf);
	return ret;
}

int fs_load(void *user, uint64_t ref, uint64_t idx, const void *arg,
	    uint8_t **data, size_t *len)
{
	struct fs *fs = user;
	struct pool_img *pi;
	int ret;

	if ((ret = pool_get(&fs->pool, &pi)) != 0)
		return ret;
	if (idx == FS_LISTING)
		ret = load_listing(pi, ref, data, len);
	else
		ret = load_chunk(fs, pi, ref, idx, *(const uint64_t *)arg,
				 data, len);
	if (ret != 0 && fs->o.warn != NULL) {
		char msg[512];

		snprintf(msg, sizeof(msg), "inode %llu: %s",
			 (unsigned long long)ref, sqp_image_error(pi->img));
		fs->o.warn(fs->o.warn_user, msg);
	}
	pool_put(&fs->pool, pi, ret);
	if (ret == SQP_ERR_ARG && idx == FS_LISTING)
		return -ENOTDIR;
	return -pool_errno(ret);
}
