/* SPDX-License-Identifier: MIT */
/*
 * sqfs_share.c - the SquashFS back end's plan of shared blocks
 * (rd_format.share_plan, blockrd_share.c says why): one pass over the
 * inode table, each file's block list and fragment counted as
 * references. The pass is only an optimisation: where it cannot read
 * on, it stops and clears the error, and the walk refuses what is
 * broken when it gets there.
 */
#include "config.h"

#include <stdlib.h>

#include "read/blockrd_impl.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "util/endian.h"

#define SYMLINK_SKIP_MAX (1u << 20)

/* A file inode's references: its block list, then its fragment. */
static int file_refs(struct rd_blockrd *b, struct meta_pos *p,
		     const struct sqfs_inode *r, struct rd_share_refs *l)
{
	struct sqp_image *img = b->img;
	uint32_t bs = img->block_size;
	uint64_t n = sqfs_file_block_count(r->u.file.size, bs,
					   r->u.file.frag_index != SQFS_NO_FRAGMENT);
	uint64_t pos = r->u.file.blocks_start;
	uint64_t table = sq(img)->sb.dir_table - sq(img)->sb.inode_table;
	uint8_t word[4];

	for (uint64_t i = 0; i < n; i++) {
		uint32_t sw, disk;

		if (p->block >= table || meta_read(img, p, word, 4) != 0)
			return 1;
		sw = sqp_get32(word);
		disk = sw & SQFS_BLOCK_SIZE_MASK;
		if (disk > bs || pos > img->end)
			return 1;
		if (disk != 0 && rd_share_ref(l, pos, sw) != 0)
			return 1;
		pos += disk;
	}
	return rd_share_tail_ref(b, r->u.file.frag_index);
}

/* Past the rest of a non-file inode: a symlink's target, an extended
 * directory's index. */
static int skip_tail(struct sqp_image *img, struct meta_pos *p,
		     const struct sqfs_inode *r)
{
	uint8_t entry[12];

	if (r->type == SQFS_SYMLINK || r->type == SQFS_LSYMLINK) {
		if (r->u.symlink.target_size > SYMLINK_SKIP_MAX)
			return 1;
		p->offset += r->u.symlink.target_size +
			     (r->type == SQFS_LSYMLINK ? 4 : 0);
	}
	for (unsigned i = 0; r->type == SQFS_LDIR &&
	     i < r->u.dir.index_count; i++) {
		uint32_t name;

		if (meta_read(img, p, entry, sizeof(entry)) != 0)
			return 1;
		name = sqp_get32(entry + 8);
		if (name >= SQFS_NAME_MAX)
			return 1;
		p->offset += name + 1;
	}
	return 0;
}

/* Every inode of the table in turn; nonzero where the pass stopped. */
static int scan(struct rd_blockrd *b, struct rd_share_refs *l)
{
	struct sqp_image *img = b->img;
	struct meta_pos p = { sq(img)->sb.inode_table, 0, 0 };
	uint64_t table = sq(img)->sb.dir_table - sq(img)->sb.inode_table;
	uint8_t buf[64];

	for (uint32_t n = 0; n < img->inode_count; n++) {
		struct sqfs_inode r;
		size_t fixed;

		if (p.block >= table || meta_read(img, &p, buf, 16) != 0)
			return 1;
		fixed = sqfs_inode_fixed_size(sqp_get16(buf));
		if (fixed == 0 || fixed > sizeof(buf) ||
		    meta_read(img, &p, buf + 16, fixed - 16) != 0 ||
		    sqfs_inode_decode_fixed(&r, buf, fixed) != 0)
			return 1;
		if ((r.type == SQFS_FILE || r.type == SQFS_LFILE) ?
		    file_refs(b, &p, &r, l) != 0 : skip_tail(img, &p, &r) != 0)
			return 1;
	}
	return 0;
}

int rd_sqfs_share_plan(struct rd_blockrd *b)
{
	struct sqp_image *img = b->img;
	struct rd_share_refs l = { NULL, 0, 0 };
	int ret;

	if (img->err.code != 0)
		return 0;
	if ((ret = rd_share_tails(b, sq(img)->sb.frag_count)) != 0)
		return ret;
	/* What the pass could not read is left to the walk to refuse. */
	if (scan(b, &l) != 0)
		rd_err_clear(img);
	return rd_share_pick(b, &l);
}

