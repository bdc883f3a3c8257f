/* SPDX-License-Identifier: MIT */
/*
 * blockrd_erofs.c - the ordered block reader's jobs for EROFS files
 * (blockrd_impl.h): an uncompressed file's blocks are raw reads and its
 * holes light jobs, where the block map says; a compressed file's
 * extents are decoded on the pool, each into a buffer of its own, and a
 * fragment's pieces are read on the caller's thread from the packed
 * inode. Every position is checked by the map before a job is made, so
 * workers read only inside the image.
 */
#include "config.h"

#include <stdlib.h>

#include "read/blockrd_impl.h"
#include "erofs/rd_erofs.h"
#include "sqpack/error.h"

/* An EROFS file's jobs: its data is stored as it is, so each block is a
 * raw read on the pool and a hole run a light job, both where
 * rd_erofs_map says (which checks they lie in the image). */
static int flat_jobs(struct rd_blockrd *b, struct rd_bentry *e,
		     const struct rd_inode *ino)
{
	uint64_t off = 0;

	while (off < eri(ino)->size) {
		uint64_t phys;
		uint32_t len;
		struct bjob *j;
		int ret = rd_erofs_map(b->img, eri(ino), off, &phys, &len);

		if (ret != 0 ||
		    (ret = rd_blockrd_take_job(b, e, phys != UINT64_MAX, &j)) != 0)
			return ret;
		j->kind = phys == UINT64_MAX ? BJ_HOLE : BJ_DATA;
		j->offset = phys;
		j->disk_size = len;
		j->raw = 1;
		j->out_len = len;
		j->pos = off;
		off += len;
		rd_blockrd_submit(b, j);
	}
	return 0;
}

/* A compressed EROFS file's jobs: one per extent, decoded on the pool
 * into a buffer of its own, or read here from the packed inode (a
 * fragment). Decoded bytes in flight stay under ZMEMORY: an extent is
 * made only once the older ones leave room (or none is left). */
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
		while (b->qhead != NULL && (sqp_pool_full(b->pool) ||
		       b->zbytes + x.llen > ZMEMORY))
			if ((ret = rd_blockrd_retire_head(b, 1)) < 0)
				return ret;
		if ((buf = malloc(x.llen)) == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		if ((x.fmt == RD_Z_FRAGMENT &&
		     (ret = rd_erofs_packed_read(img, buf, x.llen, x.pa)) != 0) ||
		    (ret = rd_blockrd_take_job(b, e, 0, &j)) != 0) {
			free(buf);
			return ret;
		}
		j->kind = x.fmt == RD_Z_FRAGMENT ? BJ_FILLED : BJ_ZEXT;
		j->zx = x;
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
