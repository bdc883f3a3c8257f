/* SPDX-License-Identifier: MIT */
/*
 * erofs_zread.c - reading an EROFS file's bytes at any offset, one
 * thread, whatever its layout: the browsing API (sqp_file_pread),
 * fragments in the packed inode, and so the checker and imginfo cat.
 *
 * A compressed file keeps the extent it decoded last, so reads smaller
 * than an extent decode each extent once when they go forward. Buffers
 * grow to the largest pcluster and extent met, which the map bounds
 * (1 MiB and 12 MiB; a fragment comes in pieces of 1 MiB); the
 * decoders are the image's (rd_erofs.unz). A fragment is read from
 * the packed inode, opened once per image; the packed inode may not
 * itself hold a fragment, which is what stops a fragment from reading
 * itself.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/rd_erofs.h"
#include "sqpack/error.h"
#include "sqpack/image_info.h"

int rd_zfile_open(struct sqp_image *img, const struct rd_einode *e,
		  struct rd_zfile **out)
{
	struct rd_zfile *f = calloc(1, sizeof(*f));
	int ret;

	*out = NULL;
	if (f == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	f->e = *e;
	if (rd_erofs_compressed(e) &&
	    (ret = rd_erofs_zmap_init(img, e, &f->z)) != 0) {
		free(f);
		return ret;
	}
	*out = f;
	return 0;
}

void rd_zfile_close(struct rd_zfile *f)
{
	if (f == NULL)
		return;
	free(f->in);
	free(f->out);
	free(f);
}

/* *buf holds at least n bytes (zext bounds n: 1 MiB in, 12 MiB out). */
static int grow(uint8_t **buf, size_t *cap, uint64_t n)
{
	uint8_t *p;

	if (n <= *cap)
		return 0;
	if ((p = realloc(*buf, n)) == NULL)
		return -1;
	*buf = p;
	*cap = n;
	return 0;
}

/* Make the extent holding off the decoded one. */
static int decode_at(struct sqp_image *img, struct rd_zfile *f, uint64_t off)
{
	struct rd_extent x;
	int ret;

	if (f->x.llen != 0 && off >= f->x.la && off - f->x.la < f->x.llen)
		return 0;
	f->x.llen = 0;
	if ((ret = rd_erofs_zext(img, &f->e, &f->z, off, &x)) != 0)
		return ret;
	if (grow(&f->in, &f->in_cap, x.plen) != 0 ||
	    grow(&f->out, &f->out_cap, x.llen) != 0)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if (x.fmt == RD_Z_FRAGMENT)
		ret = rd_erofs_packed_read(img, f->out, x.llen, x.pa);
	else if ((ret = rd_erofs_read(img, x.pa, f->in, x.plen,
				     "a pcluster")) == 0 &&
		   (ret = rd_erofs_zdecode(rd_ero(img), &x, f->in, f->out,
					   &rd_ero(img)->unz)) != 0) {
		ret = rd_erofs_zfail(img, &f->e, &x, ret);
	}
	if (ret == 0)
		f->x = x;
	return ret;
}

/* An extent asked for whole, from its first byte on (n bytes at dst
 * from off), not the one decoded last and not a fragment: decoded
 * straight into dst, its length in *took (1), or 0 when it is not so.
 * Why: a reader that caches extents whole (sqpack-fuse's units of
 * several MiB) would otherwise have each one decoded into f->out and
 * copied, and each file it keeps open grow f->out to the largest
 * extent met (10 pool images: up to 120 MiB besides its cache). */
static int decode_into(struct sqp_image *img, struct rd_zfile *f,
		       uint8_t *dst, size_t n, uint64_t off, size_t *took)
{
	struct rd_extent x;
	int ret;

	if (f->x.llen != 0 && off >= f->x.la && off - f->x.la < f->x.llen)
		return 0;
	if ((ret = rd_erofs_zext(img, &f->e, &f->z, off, &x)) != 0)
		return ret;
	if (x.la != off || x.llen > n || x.fmt == RD_Z_FRAGMENT)
		return 0;
	if (grow(&f->in, &f->in_cap, x.plen) != 0)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if ((ret = rd_erofs_read(img, x.pa, f->in, x.plen, "a pcluster")) != 0)
		return ret;
	if ((ret = rd_erofs_zdecode(rd_ero(img), &x, f->in, dst,
				    &rd_ero(img)->unz)) != 0)
		return rd_erofs_zfail(img, &f->e, &x, ret);
	*took = (size_t)x.llen;
	return 1;
}

int rd_zfile_pread(struct sqp_image *img, struct rd_zfile *f, uint8_t *dst,
		   size_t n, uint64_t off)
{
	uint64_t mask = rd_ero(img)->bs - 1, phys;
	uint32_t len;
	size_t take = 0;
	int ret;

	if (off > f->e.size || n > f->e.size - off)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: a read past the end "
			      "of its file", img->name);
	for (; n > 0; dst += take, off += take, n -= take) {
		if (rd_erofs_compressed(&f->e)) {
			if ((ret = decode_into(img, f, dst, n, off, &take)) != 0) {
				if (ret < 0)
					return ret;
				continue;
			}
			if ((ret = decode_at(img, f, off)) != 0)
				return ret;
			take = (size_t)(f->x.la + f->x.llen - off);
			take = take < n ? take : n;
			memcpy(dst, f->out + (off - f->x.la), take);
			continue;
		}
		if ((ret = rd_erofs_map(img, &f->e, off & ~mask, &phys,
					&len)) != 0)
			return ret;
		take = len - (size_t)(off & mask);
		take = take < n ? take : n;
		if (phys == UINT64_MAX)
			memset(dst, 0, take);
		else if ((ret = rd_erofs_read(img, phys + (off & mask), dst, take,
					   "file data")) != 0)
			return ret;
	}
	return 0;
}

int rd_erofs_packed_read(struct sqp_image *img, uint8_t *dst, size_t n,
			 uint64_t off)
{
	struct rd_erofs *ero = rd_ero(img);
	struct rd_zfile *p = NULL;
	struct rd_inode ino;
	int ret;

	if (ero->packed == NULL) {
		if (ero->sb.packed_nid == 0 || ero->sb.packed_nid >= ero->nid_count)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: a fragment but "
				      "no packed inode", img->name);
		if ((ret = rd_erofs_inode_read(img, ero->sb.packed_nid,
					       &ino)) != 0)
			return ret;
		ret = S_ISREG(ino.mode) ? rd_zfile_open(img, eri(&ino), &p) :
		      rd_err(img, SQP_ERR_CORRUPT, "%s: the packed inode is not "
			     "a regular file", img->name);
		rd_inode_free(&ino);
		if (ret != 0)
			return ret;
		/* Its own map may not send a read back into it. */
		if (rd_erofs_compressed(&p->e) &&
		    (p->z.h.advise & EROFS_Z_FRAGMENT_PCLUSTER)) {
			rd_zfile_close(p);
			return rd_err(img, SQP_ERR_CORRUPT, "%s: a fragment in "
				      "the packed inode", img->name);
		}
		ero->packed = p;
	}
	if (off > ero->packed->e.size || n > ero->packed->e.size - off)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: a fragment past the end "
			      "of the packed inode", img->name);
	return rd_zfile_pread(img, ero->packed, dst, n, off);
}

/* Stored bytes at phys..phys + len are in the image's own file (not
 * on its extra device) and inside the image. */
static int in_file(const struct sqp_image *img, uint64_t phys, uint64_t len)
{
	uint64_t end = img->dev_fd >= 0 && img->dev_at < img->end ?
		       img->dev_at : img->end;

	return end <= img->file_size && phys <= end && len <= end - phys;
}

/* Byte i of rotated extent x as stored (rd_erofs_zdecode): its first
 * bytes sit from where the extent starts in its block on, the rest
 * before them; a span never runs over from one part to the other. */
static void rotated(const struct sqp_image *img, const struct rd_extent *x,
		    uint64_t i, struct sqp_file_span *s)
{
	uint64_t skip = x->la & (rd_ero(img)->bs - 1), right;

	if (skip >= x->plen)
		return;     /* corrupt: decoding says so */
	right = x->plen - skip < x->llen ? x->plen - skip : x->llen;
	s->kind = SQP_SPAN_STORED;
	if (i < right) {
		s->pos = img->base + x->pa + skip + i;
		s->len = right - i < s->len ? right - i : s->len;
	} else {
		s->pos = img->base + x->pa + (i - right);
	}
}

/* A compressed file's span: its extent's, stored (a raw pcluster, a
 * rotated one's part), packed (a fragment) or decoded. */
static int zspan(struct sqp_image *img, struct rd_zfile *f, uint64_t off,
		 uint64_t max, struct sqp_file_span *s)
{
	struct rd_extent x;
	int ret;

	if ((ret = rd_erofs_zext(img, &f->e, &f->z, off, &x)) != 0)
		return ret;
	if (off < x.la || off - x.la >= x.llen)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: an extent that does "
			      "not hold the offset it was found for", img->name);
	s->len = x.la + x.llen - off < max ? x.la + x.llen - off : max;
	if (x.fmt == RD_Z_FRAGMENT) {
		s->kind = SQP_SPAN_PACKED;
		s->pos = x.pa + (off - x.la);
	} else if (x.fmt == RD_Z_RAW && in_file(img, x.pa, x.llen)) {
		s->kind = SQP_SPAN_STORED;
		s->pos = img->base + x.pa + (off - x.la);
	} else if (x.fmt == RD_Z_INTERLACED && in_file(img, x.pa, x.plen)) {
		rotated(img, &x, off - x.la, s);
	}
	/* Decoded as one whatever part is asked (decode_at): the unit. */
	if (s->kind == SQP_SPAN_DECODE && x.llen <= UINT32_MAX) {
		s->pos = x.la;
		s->shared = (uint32_t)x.llen;
	}
	return 0;
}

/* sqp_file_span: a plain or chunk-based file's blocks, as long as they
 * follow each other in the image (up to max bytes); a compressed file's
 * extent (zspan). */
int rd_erofs_file_span(struct sqp_file *pub, uint64_t off, uint64_t max,
		       struct sqp_file_span *s)
{
	struct sqp_image *img = pub->img;
	struct rd_zfile *f = pub->own;
	uint64_t mask = rd_ero(img)->bs - 1, phys, at, run;
	uint32_t len;
	int ret;

	if (rd_erofs_compressed(&f->e))
		return zspan(img, f, off, max, s);
	if ((ret = rd_erofs_map(img, &f->e, off & ~mask, &phys, &len)) != 0)
		return ret;
	run = len - (off & mask);
	if (phys == UINT64_MAX || !in_file(img, phys, len)) {
		s->len = run < max ? run : max;
		return 0;
	}
	at = phys + (off & mask);
	while (run < max && off + run < f->e.size) {
		if ((ret = rd_erofs_map(img, &f->e, off + run, &phys,
					&len)) != 0)
			return ret;
		if (phys != at + run || !in_file(img, phys, len))
			break;
		run += len;
	}
	s->kind = SQP_SPAN_STORED;
	s->pos = img->base + at;
	s->len = run < max ? run : max;
	return 0;
}
