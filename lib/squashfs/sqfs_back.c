/* SPDX-License-Identifier: MIT */
/*
 * sqfs_back.c - the SquashFS back end's table (struct rd_format) and what
 * the core asks of it beyond inodes and listings: the directory index
 * a lookup starts from, the export table, a directory's parent, the
 * image's info, a file's data and holes, and a file as stored for a
 * SquashFS writer to copy.
 *
 * The index is only a shortcut: each index entry names the first entry
 * of a header run and where that run starts. We take the last index
 * entry whose name sorts at or before the wanted name and scan the
 * listing from there, so a lookup in a directory of 100,000 entries
 * reads one or two metadata blocks of its listing. Index entries are
 * checked to lie inside the listing and to increase, so a corrupt index
 * can give a wrong "not found" but never a read outside the listing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "sqpack/reader.h"
#include "util/array.h"
#include "util/endian.h"

/* Move it to the header run the index says holds name, if any. */
static int index_seek(struct sqp_image *img, const struct rd_inode *dir,
		      const char *name, size_t len, struct rd_dir *it)
{
	uint32_t listing = sqi(dir)->raw.u.dir.size - SQFS_DIR_SIZE_BIAS, prev = 0;
	struct meta_pos p = sqi(dir)->blocks;
	char iname[SQFS_NAME_MAX + 1];
	uint8_t raw[SQFS_DIR_INDEX_SIZE];
	struct sqfs_dir_index x;
	int ret;

	if (sqi(dir)->raw.type != SQFS_LDIR)
		return 0;
	for (uint32_t i = 0; i < sqi(dir)->raw.u.dir.index_count; i++) {
		if ((ret = meta_read(img, &p, raw, sizeof(raw))) != 0)
			return ret;
		sqfs_dir_index_decode(&x, raw);
		if (x.name_size == 0 || x.name_size > SQFS_NAME_MAX ||
		    x.index < prev || x.index >= listing)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: bad "
				      "directory index entry %u", img->name,
				      sqi(dir)->raw.inode_number, i);
		if ((ret = meta_read(img, &p, iname, x.name_size)) != 0)
			return ret;
		iname[x.name_size] = '\0';
		/* iname > name: the wanted run started before this one. */
		if (rd_name_cmp(iname, name, len) > 0)
			break;
		prev = x.index;
		sqd(it)->pos = (struct meta_pos){ sq(img)->sb.dir_table, x.start_block,
			(uint32_t)((sqi(dir)->raw.u.dir.offset + x.index) % SQFS_META_SIZE) };
		sqd(it)->left = listing - x.index;
		sqd(it)->run_left = 0;
		it->prev[0] = '\0';
	}
	return 0;
}

static int export_ref(struct sqp_image *img, uint32_t n, uint64_t *ref)
{
	uint8_t raw[SQFS_EXPORT_ENTRY_SIZE];
	uint64_t r;
	int ret;

	if (sq(img)->export_locs == NULL)
		return SQP_ERR_UNSUPPORTED;
	if (n == 0 || n > sq(img)->sb.inode_count)
		return SQP_ERR_NOT_FOUND;
	ret = rd_table_entry(img, sq(img)->export_locs, sq(img)->export_loc_count,
			     n - 1, SQFS_EXPORT_ENTRY_SIZE, raw, "export");
	if (ret != 0)
		return ret;
	r = sqp_get64(raw);
	if (sqfs_ref_block(r) >= sq(img)->sb.dir_table - sq(img)->sb.inode_table)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: export table entry %u "
			      "points outside the inode table", img->name, n);
	*ref = r;
	return 0;
}

static int parent(struct sqp_image *img, const struct rd_inode *dir,
		  uint32_t *out)
{
	(void)img;
	*out = sqi(dir)->raw.u.dir.parent;
	return 0;
}

static void info(const struct sqp_image *img, struct sqp_image_info *all)
{
	all->codec = sq(img)->sb.compressor;
	all->mod_time = sq(img)->sb.mod_time;
	all->format = SQP_FORMAT_SQUASHFS;
	all->codecs = 1u << sq(img)->sb.compressor;
	all->inodes = sq(img)->sb.inode_count;
	all->decode_unit = img->block_size;
}

/* Each block's size word from the block list: 0 is a hole; the tail in
 * a fragment block is data. */
static int pieces(struct sqp_image *img, const struct rd_inode *ino,
		  rd_piece_fn fn, void *user)
{
	uint32_t bs = img->block_size;
	struct meta_pos bl = sqi(ino)->blocks;
	uint64_t size = ino->size, off = 0;
	uint8_t word[4];
	int ret;

	for (uint64_t i = 0; i < ino->block_count; i++, off += bs) {
		uint64_t len = size - off < bs ? size - off : bs;

		if ((ret = meta_read(img, &bl, word, 4)) != 0 ||
		    (ret = fn(user, off, len, (sqp_get32(word) &
					       SQFS_BLOCK_SIZE_MASK) == 0)) != 0)
			return ret;
	}
	if (sqi(ino)->raw.u.file.frag_index != SQFS_NO_FRAGMENT)
		return fn(user, off, size - off, 0);
	return 0;
}

static int stored(struct sqp_image *img, const struct rd_inode *ino,
		  struct rd_stored *s)
{
	struct meta_pos pos = sqi(ino)->blocks;
	struct sqfs_frag_entry fe;
	uint64_t count = ino->block_count;
	int ret;

	/* The list is in the inode table: longer than the image, corrupt. */
	if (count > img->file_size / 4)
		return SQP_ERR_CORRUPT;
	if (count > s->words_cap) {
		uint32_t *w = realloc(s->words, count * sizeof(*w));

		if (w == NULL)
			return SQP_ERR_NOMEM;
		s->words = w;
		s->words_cap = count;
	}
	if (count > 0 && (ret = meta_read(img, &pos, s->words,
					  count * sizeof(*s->words))) != 0)
		return ret;
	for (uint64_t i = 0; i < count; i++)
		s->words[i] = sqp_get32((const uint8_t *)&s->words[i]);
	s->size = ino->size;
	s->blocks_start = sqi(ino)->raw.u.file.blocks_start;
	s->count = count;
	s->has_tail = sqi(ino)->raw.u.file.frag_index != SQFS_NO_FRAGMENT;
	s->tail_index = sqi(ino)->raw.u.file.frag_index;
	s->tail_offset = sqi(ino)->raw.u.file.frag_offset;
	if (!s->has_tail)
		return 0;
	if ((ret = rd_fragment(img, s->tail_index, &fe)) != 0)
		return ret;
	s->tail_start = fe.start;
	s->tail_word = fe.size;
	return 0;
}

static uint32_t stored_tails(const struct sqp_image *img)
{
	return sq(img)->sb.frag_count;
}

const struct rd_format rd_sqfs_format = {
	.format = SQP_FORMAT_SQUASHFS,
	.own_codec = 0,
	.dense_numbers = 1,
	.destroy = rd_sqfs_free,
	.info = info,
	.layout = rd_sqfs_layout,
	.inode_read = rd_sqfs_inode_read,
	.inode_ref = export_ref,
	.parent = parent,
	.dir_open = rd_sqfs_dir_open,
	.dir_next = rd_sqfs_dir_next,
	.dir_seek = index_seek,
	.xattrs = rd_sqfs_xattrs,
	.pieces = pieces,
	.file_layout = rd_sqfs_file_layout,
	.file_open = rd_sqfs_file_open,
	.file_pread = rd_sqfs_file_pread,
	.file_close = rd_sqfs_file_close,
	.file_span = rd_sqfs_file_span,
	.fragment = rd_sqfs_fragment,
	.jobs = rd_sqfs_jobs,
	.share_plan = rd_sqfs_share_plan,
	.zdecode = NULL,
	.check_file = rd_sqfs_check_file,
	.check_dir = rd_sqfs_check_dir,
	.check_dir_done = rd_sqfs_check_index,
	.check_tables = rd_sqfs_check_tables,
	.stored = stored,
	.stored_tails = stored_tails,
};
