/* SPDX-License-Identifier: MIT */
/*
 * fuse_load.c - what the shared cache loads, each through an image of
 * the pool: a chunk of a file's data (decompressed by the file reader of
 * the library, which checks every block against the image), or a
 * directory's whole listing (so lookups are a binary search and a
 * readdir at any offset costs no rescan).
 *
 * A chunk that needs no decoding of its own is loaded as where its
 * pieces are (fs_piece): stored as they are in the image (the reply is
 * made from the image file), or a tail in data several files share (a
 * SquashFS fragment block, EROFS's packed inode), which is cached once
 * in chunks of its own: each image of the pool would otherwise decode a
 * shared block into its own small cache, N threads N times; or parts of
 * units decoded whole (pieces()), each cached once for every chunk it
 * spans.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_fs.h"
#include "sqpack/image_info.h"

/* Span sp, at offset at of file ref, as a piece: 1, or 0 when it needs
 * decoding of its own (or says what no piece may: a tail past its
 * fragment block, past the packed inode, a unit that does not hold
 * it). */
static int piece_of(const struct fs *fs, uint64_t ref, uint64_t at,
		    const struct sqp_file_span *sp, struct fs_piece *p)
{
	*p = (struct fs_piece){ FS_IMAGE_FILE, sp->pos, sp->len, 0, 0 };
	switch (sp->kind) {
	case SQP_SPAN_DECODE:
		if (sp->shared == 0 || sp->pos > at || sp->pos >= FS_UNIT_MAX ||
		    at - sp->pos >= sp->shared ||
		    sp->len > sp->shared - (at - sp->pos))
			return 0;
		*p = (struct fs_piece){ ref, at - sp->pos, sp->len, sp->pos,
					sp->shared };
		return 1;
	case SQP_SPAN_STORED:
		return 1;
	case SQP_SPAN_FRAGMENT:
		/* Fragment block i is FS_FRAGMENTS' chunk i (a chunk holds
		 * a block); a tail past the block is the reader's to refuse. */
		if (sp->pos > fs->chunk || sp->len > fs->chunk - sp->pos)
			return 0;
		p->ref = FS_FRAGMENTS;
		p->pos += (uint64_t)sp->shared * fs->chunk;
		return 1;
	case SQP_SPAN_PACKED:
		if (sp->pos > fs->packed_size ||
		    sp->len > fs->packed_size - sp->pos)
			return 0;
		p->ref = fs->info.packed_ref;
		return 1;
	default:
		return 0;
	}
}

/* The n bytes of file ref (open as f) from off on as pieces, an
 * FS_PIECES entry (1), or 0 when one of them needs decoding or they lie
 * in more than FS_PIECES_MAX pieces: a chunk of stored blocks and an
 * inline tail, of raw pclusters and a tail in the packed inode, of a
 * rotated pcluster's two parts, of decoded units.
 *
 * Why units: an EROFS extent of big pclusters (lzma, -C1048576) decodes
 * to several MiB, which is decoded whole whatever part is read. Were
 * each chunk decoded, each of the chunks it spans would decode it
 * again; as pieces of the unit, cached whole, it is decoded once for
 * all of them. A chunk of small units only (4 KiB pclusters) is
 * decoded instead: one entry, not one a unit, and each unit decoded
 * about once already. */
static int pieces(struct fs *fs, uint64_t ref, struct sqp_file *f,
		  uint64_t off, size_t n, struct fc_load *out)
{
	struct fs_piece p[FS_PIECES_MAX];
	struct sqp_file_span sp;
	size_t count = 0;
	uint64_t got = 0;
	int ret, units = 0, big = 0;

	while (got < n) {
		if (count == FS_PIECES_MAX)
			return 0;
		if ((ret = sqp_file_span(f, off + got, n - got, &sp)) != 0)
			return ret;
		if (sp.len == 0 || sp.len > n - got ||
		    !piece_of(fs, ref, off + got, &sp, &p[count]))
			return 0;
		if (p[count].unit_len != 0) {
			units = 1;
			big |= p[count].unit_len >= fs->chunk / 4;
		}
		/* Where one piece follows on from the last, one buffer. */
		if (count > 0 && p[count].ref == p[count - 1].ref &&
		    p[count].unit == p[count - 1].unit &&
		    p[count].unit_len == p[count - 1].unit_len &&
		    p[count - 1].pos + p[count - 1].len == p[count].pos)
			p[count - 1].len += sp.len;
		else
			count++;
		got += sp.len;
	}
	if (units && !big)
		return 0;
	if ((out->data = malloc(count * sizeof(p[0]))) == NULL)
		return SQP_ERR_NOMEM;
	memcpy(out->data, p, count * sizeof(p[0]));
	out->len = count * sizeof(p[0]);
	out->kind = FS_PIECES;
	return 1;
}

/* Chunk idx of the file ref whose size *arg is: its bytes, or where
 * they are when they need no decoding of their own. */
static int load_chunk(struct fs *fs, struct pool_img *pi, uint64_t ref,
		      uint64_t idx, uint64_t size, struct fc_load *out)
{
	uint64_t off = idx * fs->chunk;
	size_t n, got = 0;
	int ret = 0;

	if (off >= size)
		return SQP_ERR_ARG;
	n = size - off < fs->chunk ? (size_t)(size - off) : fs->chunk;
	if ((ret = pool_file(pi, ref)) != 0 ||
	    (ret = pieces(fs, ref, pi->file, off, n, out)) != 0)
		return ret < 0 ? ret : 0;
	if (fc_buffer(fs->cache, n, out) != 0)
		return SQP_ERR_NOMEM;
	if ((ret = sqp_file_pread(pi->file, out->data, n, off, &got)) == 0 &&
	    got != n)
		ret = SQP_ERR_CORRUPT;
	out->len = n;
	return ret;
}

/* The decoded unit of file ref that starts at its offset la, len bytes
 * (pieces() found them so), whole. */
static int load_unit(struct fs *fs, struct pool_img *pi, uint64_t ref,
		     uint64_t la, uint64_t len, struct fc_load *out)
{
	size_t got = 0;
	int ret;

	if (len == 0 || len > SIZE_MAX)
		return SQP_ERR_CORRUPT;
	if ((ret = pool_file(pi, ref)) != 0)
		return ret;
	if (fc_buffer(fs->cache, (size_t)len, out) != 0)
		return SQP_ERR_NOMEM;
	if ((ret = sqp_file_pread(pi->file, out->data, (size_t)len, la,
				  &got)) == 0 && got != len)
		ret = SQP_ERR_CORRUPT;
	out->len = (size_t)len;
	return ret;
}

/* SquashFS fragment block idx, decoded once for every file whose tail
 * it holds. */
static int load_fragment(struct fs *fs, struct pool_img *pi, uint64_t idx,
			 struct fc_load *out)
{
	if (idx > UINT32_MAX)
		return SQP_ERR_CORRUPT;
	if (fc_slab(fs->cache, out) != 0)
		return SQP_ERR_NOMEM;
	return sqp_image_fragment(pi->img, (uint32_t)idx, out->data,
				  fs->chunk, &out->len);
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
static int load_listing(struct pool_img *pi, uint64_t ref,
			struct fc_load *out)
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
		out->data = (uint8_t *)l;
		out->len = head + a.len;
	} else if (ret == 0) {
		ret = SQP_ERR_NOMEM;
	}
	free(a.ents);
	free(a.buf);
	return ret;
}

int fs_load(void *user, uint64_t ref, uint64_t idx, const void *arg,
	    struct fc_load *out)
{
	struct fs *fs = user;
	struct fuse_pool *pool = idx != FS_LISTING && ref != FS_FRAGMENTS &&
				 (idx & FS_UNIT) ? &fs->units : &fs->pool;
	struct pool_img *pi;
	int ret;

	if ((ret = pool_get(pool, &pi)) != 0)
		return ret;
	if (idx == FS_LISTING)
		ret = load_listing(pi, ref, out);
	else if (ref == FS_FRAGMENTS)
		ret = load_fragment(fs, pi, idx, out);
	else if (idx & FS_UNIT)
		ret = load_unit(fs, pi, ref, idx & ~FS_UNIT,
				*(const uint64_t *)arg, out);
	else
		ret = load_chunk(fs, pi, ref, idx, *(const uint64_t *)arg,
				 out);
	if (ret != 0 && fs->o.warn != NULL) {
		char msg[512];

		snprintf(msg, sizeof(msg), "inode %llu: %s",
			 (unsigned long long)ref, sqp_image_error(pi->img));
		fs->o.warn(fs->o.warn_user, msg);
	}
	pool_put(pool, pi, ret);
	if (ret == SQP_ERR_ARG && idx == FS_LISTING)
		return -ENOTDIR;
	return -pool_errno(ret);
}
