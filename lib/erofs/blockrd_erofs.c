/* SPDX-License-Identifier: MIT */
/*
 * blockrd_erofs.c - the ordered block reader's jobs for EROFS files
 * (blockrd_impl.h): an uncompressed file's blocks are raw extents and
 * its holes light jobs, where the block map says; a compressed file's
 * extents are decoded on the pool, in runs of the extents that follow
 * one another on disk (blockrd_run.c), and a fragment's pieces are read
 * on the caller's thread from the packed inode. Every position is
 * checked by the map before a job is made, so workers read only inside
 * the image.
 */
#include "config.h"

#include <stdlib.h>

#include "read/blockrd_impl.h"
#include "erofs/rd_erofs.h"
#include "sqpack/error.h"

/* Stored bytes the back end reads itself (an inline pcluster or
 * tail in the metadata), in a buffer of their own for the run. */
static int pre_read(struct sqp_image *img, uint64_t pa, uint32_t n,
		    uint8_t **out)
{
	int ret;

	if ((*out = malloc(n ? n : 1)) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if ((ret = rd_erofs_meta_read(img, pa, *out, n, "inline data")) != 0) {
		free(*out);
		*out = NULL;
	}
	return ret;
}

/* Room for x's decoded bytes: older extents leave ZMEMORY first. */
static int room(struct rd_blockrd *b, uint64_t llen)
{
	int ret;

	while (b->qhead != NULL && b->zbytes + llen > ZMEMORY)
		if ((ret = rd_blockrd_retire_head(b, 1)) < 0)
			return ret;
	return 0;
}

/* An EROFS file's jobs: its data is stored as it is, so its blocks are
 * raw extents, where rd_erofs_map says (which checks they lie in the
 * image), read and copied in runs as compressed ones are (blocks that
 * follow one another on disk in one read); a hole run is a light job;
 * an inline tail is read here. */
static int flat_jobs(struct rd_blockrd *b, struct rd_bentry *e,
		     const struct rd_inode *ino)
{
	const struct rd_einode *ei = eri(ino);
	uint64_t off = 0;

	while (off < ei->size) {
		struct rd_extent x = { off, 0, 0, 0, RD_Z_RAW, 1 };
		uint8_t *pre = NULL;
		uint32_t len;
		struct bjob *j;
		int ret = rd_erofs_map(b->img, ei, off, &x.pa, &len);

		if (ret != 0)
			return ret;
		off += len;
		if (x.pa == UINT64_MAX) {
			if ((ret = rd_blockrd_take_job(b, e, 0, &j)) != 0)
				return ret;
			j->kind = BJ_HOLE;
			j->offset = x.pa;
			j->out_len = len;
			j->pos = x.la;
			rd_blockrd_submit(b, j);
			continue;
		}
		x.llen = x.plen = len;
		if (ei->layout == EROFS_FLAT_INLINE &&
		    x.pa == ei->pos + ei->data_off &&
		    (ret = pre_read(b->img, x.pa, len, &pre)) != 0)
			return ret;
		if ((ret = room(b, len)) != 0 ||
		    (ret = rd_blockrd_zext(b, e, &x, pre)) != 0)
			return ret;
	}
	return 0;
}

/* A compressed EROFS file's jobs: one per extent, decoded on the pool
 * in a run with the extents next to it on disk (blockrd_run.c), the
 * inline one read here from the metadata; a fragment's read here from
 * the packed inode. Decoded bytes in flight stay under ZMEMORY: an
 * extent is made only once the older ones leave room (or none is
 * left). */
static int zjobs(struct rd_blockrd *b, struct rd_bentry *e,
		 const struct rd_inode *ino)
{
	struct sqp_image *img = b->img;
	struct rd_zwalk w;
	struct rd_extent x;
	struct bjob *j;
	uint8_t *buf;
	int ret;

	if ((ret = rd_erofs_zwalk_init(img, eri(ino), &w)) != 0)
		return ret;
	while ((ret = rd_erofs_zwalk_next(img, &w, &x)) > 0) {
		if ((ret = room(b, x.llen)) != 0)
			return ret;
		if (x.fmt != RD_Z_FRAGMENT) {
			buf = NULL;
			x.as_is = x.fmt == RD_Z_RAW;
			if ((w.z.h.advise & EROFS_Z_INLINE_PCLUSTER) &&
			    x.pa == w.z.idata && x.plen == w.z.h.idata_size &&
			    (ret = pre_read(img, x.pa, x.plen, &buf)) != 0)
				return ret;
			if ((ret = rd_blockrd_zext(b, e, &x, buf)) != 0)
				return ret;
			continue;
		}
		if ((buf = malloc(x.llen)) == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		if ((ret = rd_erofs_packed_read(img, buf, x.llen, x.pa)) != 0 ||
		    (ret = rd_blockrd_take_job(b, e, 0, &j)) != 0) {
			free(buf);
			return ret;
		}
		j->kind = BJ_FILLED;
		j->zbuf = buf;
		j->offset = x.pa;
		j->out_len = (uint32_t)x.llen;
		j->pos = x.la;
		b->zbytes += x.llen;
		rd_blockrd_submit(b, j);
	}
	return ret;
}

int rd_erofs_jobs(struct rd_blockrd *b, struct rd_bentry *e,
		  const struct rd_inode *ino)
{
	return rd_erofs_compressed(eri(ino)) ? zjobs(b, e, ino) :
	       flat_jobs(b, e, ino);
}
