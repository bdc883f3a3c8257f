/* SPDX-License-Identifier: MIT */
/*
 * blockrd_sqfs.c - the ordered block reader's jobs for SquashFS files
 * (rd_format.jobs): each data block of the block list, checked to lie in
 * the image before its job is made (a hole, a block another file's job
 * keeps decompressed, or one to decompress), then the tail's job in its
 * fragment block, which the reader's fragment cache may already hold.
 */
#include "config.h"

#include "read/blockrd_impl.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* The jobs of a regular file's blocks, each checked to lie in the image
 * before it is made, so workers only ever read inside it. */
static int block_jobs(struct rd_blockrd *b, struct rd_bentry *e,
		      const struct rd_inode *ino)
{
	struct sqp_image *img = b->img;
	const struct sqfs_inode *r = &sqi(ino)->raw;
	uint32_t bs = img->block_size;
	uint64_t pos = r->u.file.blocks_start;
	struct meta_pos bl = sqi(ino)->blocks;
	struct bjob *j;
	uint8_t word[4];
	int ret;

	for (uint64_t i = 0; i < ino->block_count; i++) {
		uint32_t sw, disk;
		unsigned slot = 0;
		int share;

		if ((ret = meta_read(img, &bl, word, 4)) != 0)
			return ret;
		sw = sqp_get32(word);
		disk = sw & SQFS_BLOCK_SIZE_MASK;
		if (disk > bs || pos > img->end ||
		    disk > img->end - pos)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: '%s': block %llu "
				      "lies outside the image", img->name,
				      e->name, (unsigned long long)i);
		share = disk == 0 ? SHARE_NONE : rd_share_block(b, pos, sw, &slot);
		if ((ret = rd_blockrd_take_job(b, e, disk != 0 &&
					       share != SHARE_TAKE, &j)) != 0)
			return ret;
		j->kind = disk == 0 ? BJ_HOLE : share == SHARE_TAKE ?
			  BJ_DATA_SAME : BJ_DATA;
		j->keep = share == SHARE_FILL;
		j->kslot = slot;
		j->offset = pos;
		j->disk_size = disk;
		j->raw = (sw & SQFS_BLOCK_UNCOMPRESSED) != 0;
		j->out_len = i + 1 < ino->block_count ||
			     r->u.file.frag_index != SQFS_NO_FRAGMENT ||
			     r->u.file.size % bs == 0 ?
			     bs : (uint32_t)(r->u.file.size % bs);
		j->pos = i * bs;
		pos += disk;
		rd_blockrd_submit(b, j);
	}
	return 0;
}

/* The job of a file's tail in a fragment block. */
static int tail_job(struct rd_blockrd *b, struct rd_bentry *e,
		    const struct rd_inode *ino)
{
	struct sqp_image *img = b->img;
	const struct sqfs_inode *r = &sqi(ino)->raw;
	struct sqfs_frag_entry f;
	unsigned slot;
	struct bjob *j;
	uint32_t disk;
	int hit, ret;

	if ((ret = rd_fragment(img, r->u.file.frag_index, &f)) != 0)
		return ret;
	disk = f.size & SQFS_BLOCK_SIZE_MASK;
	if (disk == 0 || disk > img->block_size ||
	    f.start > img->end || disk > img->end - f.start)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: fragment %u lies "
			      "outside the image", img->name,
			      r->u.file.frag_index);
	hit = rd_blockrd_plan_frag(b, r->u.file.frag_index, &slot);
	if ((ret = rd_blockrd_take_job(b, e, !hit, &j)) != 0)
		return ret;
	j->kind = hit ? BJ_FRAG_SAME : BJ_FRAG;
	j->slot = slot;
	j->offset = f.start;
	j->disk_size = disk;
	j->raw = (f.size & SQFS_BLOCK_UNCOMPRESSED) != 0;
	j->frag_index = r->u.file.frag_index;
	j->frag_off = r->u.file.frag_offset;
	j->out_len = (uint32_t)(r->u.file.size % img->block_size);
	j->pos = r->u.file.size - j->out_len;
	rd_blockrd_submit(b, j);
	return 0;
}

int rd_sqfs_jobs(struct rd_blockrd *b, struct rd_bentry *e,
		 const struct rd_inode *ino)
{
	int ret = block_jobs(b, e, ino);

	if (ret == 0 && sqi(ino)->raw.u.file.frag_index != SQFS_NO_FRAGMENT)
		ret = tail_job(b, e, ino);
	return ret;
}

