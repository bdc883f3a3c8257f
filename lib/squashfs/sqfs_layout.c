/* SPDX-License-Identifier: MIT */
/*
 * sqfs_layout.c - the SquashFS back end's answers to the layout queries
 * of image_info.h: what each part of an image takes on disk, and where
 * one regular file's data is stored.
 *
 * Why here and not in the tools: the sizes come from the reader's private
 * tables (fragment, export, id and xattr location lists) and from inodes
 * the public API decodes only partly. Everything is computed from the
 * positions the superblock and tables state, each checked to lie inside
 * the image before it is used; memory stays constant (the fragment table
 * and block lists are streamed, never loaded whole).
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "sqpack/image_info.h"
#include "util/endian.h"

/* Where a lookup table's metadata blocks begin (its first listed block)
 * and its bytes up to the end of its location list; 0 bytes when absent. */
static int table_span(struct sqp_image *img, uint64_t loc_pos, uint64_t count,
		      unsigned size, uint64_t *begin, uint64_t *bytes,
		      const char *what)
{
	uint64_t blocks = sqfs_table_blocks(count, size);
	uint8_t raw[8];
	int ret;

	*begin = UINT64_MAX;
	*bytes = 0;
	if (loc_pos == SQFS_NO_TABLE || blocks == 0)
		return 0;
	if ((ret = rd_read_at(img, loc_pos, raw, 8, what)) != 0)
		return ret;
	*begin = sqp_get64(raw);
	if (*begin > loc_pos || *begin < sq(img)->sb.dir_table)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the %s table's first "
			      "block lies outside its place", img->name, what);
	*bytes = loc_pos + 8 * blocks - *begin;
	return 0;
}

/* The bytes of fragment blocks, from every fragment table entry. */
static int fragment_bytes(struct sqp_image *img, uint64_t *out)
{
	struct sqfs_frag_entry f;
	int ret;

	*out = 0;
	for (uint32_t i = 0; i < sq(img)->sb.frag_count; i++) {
		if ((ret = rd_fragment(img, i, &f)) != 0)
			return ret;
		*out += f.size & SQFS_BLOCK_SIZE_MASK;
	}
	return 0;
}

static int table_sizes(struct sqp_image *img, struct sqp_image_layout *o)
{
	const struct sqfs_super *sb = &sq(img)->sb;
	uint64_t b[4], dir_end = sb->bytes_used;
	int ret;

	if ((ret = table_span(img, sb->frag_table, sb->frag_count,
			      SQFS_FRAG_ENTRY_SIZE, &b[0], &o->frag_table_bytes,
			      "fragment")) != 0 ||
	    (ret = table_span(img, sb->export_table, sb->inode_count,
			      SQFS_EXPORT_ENTRY_SIZE, &b[1], &o->export_bytes,
			      "export")) != 0 ||
	    (ret = table_span(img, sb->id_table, sb->id_count,
			      SQFS_ID_ENTRY_SIZE, &b[2], &o->id_bytes,
			      "id")) != 0)
		return ret;
	b[3] = UINT64_MAX;
	if (sb->xattr_table != SQFS_NO_TABLE) {
		b[3] = sq(img)->xattr_hdr.kv_start;
		if (b[3] < sb->dir_table || b[3] > sb->xattr_table)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: xattr pairs "
				      "outside their place", img->name);
		o->xattr_bytes = sb->xattr_table + SQFS_XATTR_TABLE_SIZE +
			8 * sqfs_table_blocks(sq(img)->xattr_hdr.count,
					      SQFS_XATTR_ID_SIZE) - b[3];
	}
	for (int i = 0; i < 4; i++)
		if (b[i] < dir_end)
			dir_end = b[i];
	o->inode_bytes = sb->dir_table - sb->inode_table;
	o->dir_bytes = dir_end - sb->dir_table;
	return 0;
}

int rd_sqfs_layout(struct sqp_image *img, struct sqp_image_layout *o)
{
	const struct sqfs_super *sb = &sq(img)->sb;
	uint64_t data_start;
	uint8_t hdr[2];
	int ret;

	o->flags = sb->flags;
	o->frag_count = sb->frag_count;
	o->id_count = sb->id_count;
	o->has_export = sb->export_table != SQFS_NO_TABLE;
	o->has_xattr_table = sb->xattr_table != SQFS_NO_TABLE;
	o->xattr_id_count = o->has_xattr_table ? sq(img)->xattr_hdr.count : 0;
	o->file_size = img->file_size;
	o->bytes_used = sb->bytes_used;
	o->codec = img->codec_cfg;
	if (sb->flags & SQFS_FLAG_COMPRESSOR_OPTIONS) {
		if ((ret = rd_read_at(img, SQFS_SUPER_SIZE, hdr, 2,
				      "compressor options")) != 0)
			return ret;
		o->options_bytes = 2 + (sqp_get16(hdr) & SQFS_META_SIZE_MASK);
	}
	if ((ret = table_sizes(img, o)) != 0 ||
	    (ret = fragment_bytes(img, &o->fragment_bytes)) != 0)
		return ret;
	data_start = SQFS_SUPER_SIZE + o->options_bytes;
	if (sb->inode_table < data_start ||
	    sb->inode_table - data_start < o->fragment_bytes)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the fragment blocks "
			      "do not fit before the inode table", img->name);
	o->data_bytes = sb->inode_table - data_start - o->fragment_bytes;
	return 0;
}

/* Sum the block list's size words, a chunk at a time. */
static int walk_blocks(struct sqp_image *img, const struct rd_inode *ino,
		       struct sqp_file_layout *o)
{
	struct meta_pos p = sqi(ino)->blocks;
	uint8_t raw[4 * 64];
	uint64_t left = ino->block_count;
	int ret;

	while (left > 0) {
		size_t n = left < 64 ? (size_t)left : 64;

		if ((ret = meta_read(img, &p, raw, 4 * n)) != 0)
			return ret;
		for (size_t i = 0; i < n; i++) {
			uint32_t w = sqp_get32(raw + 4 * i);

			o->stored_bytes += w & SQFS_BLOCK_SIZE_MASK;
			o->hole_blocks += w == 0;
			o->raw_blocks += w != 0 && (w & SQFS_BLOCK_UNCOMPRESSED);
		}
		left -= n;
	}
	return 0;
}

int rd_sqfs_file_layout(struct sqp_image *img, const struct rd_inode *ino,
			struct sqp_file_layout *o)
{
	const struct sqfs_inode *r = &sqi(ino)->raw;
	struct sqfs_frag_entry f;
	int ret;

	o->blocks_start = r->u.file.blocks_start;
	o->block_count = ino->block_count;
	o->sparse = r->u.file.sparse;
	o->frag_index = r->u.file.frag_index;
	o->xattr_index = r->xattr_idx;
	ret = walk_blocks(img, ino, o);
	if (ret == 0 && o->frag_index != SQFS_NO_FRAGMENT) {
		o->frag_offset = r->u.file.frag_offset;
		o->tail_bytes = (uint32_t)(r->u.file.size % img->block_size);
		if ((ret = rd_fragment(img, o->frag_index, &f)) == 0) {
			o->frag_start = f.start;
			o->frag_size = f.size & SQFS_BLOCK_SIZE_MASK;
			o->frag_raw = (f.size & SQFS_BLOCK_UNCOMPRESSED) != 0;
		}
	}
	return ret;
}
