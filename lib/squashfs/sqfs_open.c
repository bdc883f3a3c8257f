/* SPDX-License-Identifier: MIT */
/*
 * sqfs_open.c - the SquashFS back end's open: validate the superblock
 * field by field, set up the compressor from the options block, and
 * load the lookup tables. Nothing is trusted: each check names what is
 * wrong, so "not a SquashFS image" and "truncated image" read
 * differently.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "util/abi.h"
#include "util/endian.h"

static int check_super(struct sqp_image *img)
{
	const struct sqfs_super *sb = &sq(img)->sb;
	const uint64_t tables[] = { sb->inode_table, sb->dir_table,
				    sb->id_table };

	if (sb->magic != SQFS_MAGIC)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: not a SquashFS image "
			      "(bad magic)", img->name);
	if (sb->version_major != 4 || sb->version_minor != 0)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: SquashFS version "
			      "%u.%u; only 4.0 is supported", img->name,
			      sb->version_major, sb->version_minor);
	if (sb->block_size < SQFS_BLOCK_SIZE_MIN ||
	    sb->block_size > SQFS_BLOCK_SIZE_MAX ||
	    sb->block_log > 31 || (1u << sb->block_log) != sb->block_size)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: bad block size %u "
			      "(log %u)", img->name, sb->block_size,
			      sb->block_log);
	if (sb->bytes_used > img->file_size || sb->bytes_used < SQFS_SUPER_SIZE)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the image claims %llu "
			      "bytes but the file has %llu (truncated?)",
			      img->name, (unsigned long long)sb->bytes_used,
			      (unsigned long long)img->file_size);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i] < SQFS_SUPER_SIZE || tables[i] >= sb->bytes_used)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: a table offset "
				      "(%llu) lies outside the image", img->name,
				      (unsigned long long)tables[i]);
	if (sb->inode_table >= sb->dir_table ||
	    sqfs_ref_block(sb->root_inode) >= sb->dir_table - sb->inode_table)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode table or root "
			      "inode out of place", img->name);
	if (sb->id_count == 0 || sb->inode_count == 0)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: no ids or no inodes",
			      img->name);
	if (sb->frag_count > 0 && (sb->frag_table < SQFS_SUPER_SIZE ||
				   sb->frag_table >= sb->bytes_used))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: fragment table "
			      "outside the image", img->name);
	if (sb->xattr_table != SQFS_NO_TABLE &&
	    (sb->xattr_table < SQFS_SUPER_SIZE ||
	     sb->xattr_table >= sb->bytes_used))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: xattr table outside "
			      "the image", img->name);
	if (sb->export_table != SQFS_NO_TABLE &&
	    (sb->export_table < SQFS_SUPER_SIZE ||
	     sb->export_table >= sb->bytes_used))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: export table outside "
			      "the image", img->name);
	return 0;
}

static int setup_codec(struct sqp_image *img)
{
	const struct sqfs_super *sb = &sq(img)->sb;
	uint8_t opts[2 + SQFS_META_SIZE];
	size_t len = 0;
	int ret;

	if (sqp_codec_name(sb->compressor) == NULL)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: unknown compressor "
			      "id %u", img->name, sb->compressor);
	if (!sqp_codec_available(sb->compressor))
		return rd_err(img, SQP_ERR_NO_CODEC, "%s: the image is %s-"
			      "compressed and this build has no %s",
			      img->name, sqp_codec_name(sb->compressor),
			      sqp_codec_name(sb->compressor));
	if (sb->flags & SQFS_FLAG_COMPRESSOR_OPTIONS) {
		if ((ret = rd_read_at(img, SQFS_SUPER_SIZE, opts, 2,
				      "compressor options")) != 0)
			return ret;
		len = sqp_get16(opts) & SQFS_META_SIZE_MASK;
		if (!(sqp_get16(opts) & SQFS_META_UNCOMPRESSED) || len == 0 ||
		    len > 64)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: malformed "
				      "compressor options block", img->name);
		if ((ret = rd_read_at(img, SQFS_SUPER_SIZE + 2, opts, len,
				      "compressor options")) != 0)
			return ret;
	}
	ret = sqp_codec_options_decode(&img->codec_cfg, sb->compressor,
				       sb->block_size, len ? opts : NULL, len);
	if (ret != 0)
		return rd_err(img, ret, "%s: %s compressor options are invalid",
			      img->name, sqp_codec_name(sb->compressor));
	ret = sqp_compressor_create(&img->codec_cfg, &sq(img)->codec);
	if (ret != 0)
		return rd_err(img, ret, "%s: setting up %s: %s", img->name,
			      sqp_codec_name(sb->compressor), sqp_strerror(ret));
	return 0;
}

static int load_tables(struct sqp_image *img)
{
	const struct sqfs_super *sb = &sq(img)->sb;
	uint64_t *id_locs = NULL;
	size_t id_loc_count = 0;
	uint8_t hdr[SQFS_XATTR_TABLE_SIZE];
	struct meta_pos p;
	int ret;

	ret = rd_read_locations(img, sb->id_table, sb->id_count, 4, &id_locs,
				&id_loc_count, "id");
	if (ret != 0)
		return ret;
	sq(img)->ids = calloc(sb->id_count, sizeof(uint32_t));
	if (sq(img)->ids == NULL) {
		free(id_locs);
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	}
	for (size_t b = 0; ret == 0 && b < id_loc_count; b++) {
		size_t first = b * (SQFS_META_SIZE / 4);
		size_t n = sb->id_count - first;

		if (n > SQFS_META_SIZE / 4)
			n = SQFS_META_SIZE / 4;
		p = (struct meta_pos){ id_locs[b], 0, 0 };
		ret = meta_read(img, &p, sq(img)->ids + first, n * 4);
	}
	free(id_locs);
	if (ret != 0)
		return ret;
	for (uint32_t i = 0; i < sb->id_count; i++)
		sq(img)->ids[i] = sqp_get32((const uint8_t *)&sq(img)->ids[i]);
	if (sb->frag_count > 0 &&
	    (ret = rd_read_locations(img, sb->frag_table, sb->frag_count,
				     SQFS_FRAG_ENTRY_SIZE, &sq(img)->frag_locs,
				     &sq(img)->frag_loc_count, "fragment")) != 0)
		return ret;
	if (sb->export_table != SQFS_NO_TABLE &&
	    (ret = rd_read_locations(img, sb->export_table, sb->inode_count,
				     SQFS_EXPORT_ENTRY_SIZE, &sq(img)->export_locs,
				     &sq(img)->export_loc_count, "export")) != 0)
		return ret;
	if (sb->xattr_table == SQFS_NO_TABLE)
		return 0;
	if ((ret = rd_read_at(img, sb->xattr_table, hdr, sizeof(hdr),
			      "the xattr table")) != 0)
		return ret;
	sqfs_xattr_table_decode(&sq(img)->xattr_hdr, hdr);
	if (sq(img)->xattr_hdr.kv_start >= sb->bytes_used)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: xattr table outside "
			      "the image", img->name);
	return rd_read_locations(img, sb->xattr_table + SQFS_XATTR_TABLE_SIZE,
				 sq(img)->xattr_hdr.count, SQFS_XATTR_ID_SIZE,
				 &sq(img)->xattr_locs, &sq(img)->xattr_loc_count,
				 "xattr");
}

int rd_sqfs_probe(struct sqp_image *img)
{
	uint8_t raw[SQFS_SUPER_SIZE];
	int ret;

	if ((ret = rd_read_at(img, 0, raw, sizeof(raw), "the superblock")) != 0)
		return ret;
	return sqp_get32(raw) == SQFS_MAGIC;
}

int rd_sqfs_open(struct sqp_image *img)
{
	uint8_t raw[SQFS_SUPER_SIZE];
	struct rd_sqfs *s;
	int ret;

	if ((s = img->back = calloc(1, sizeof(*s))) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if ((ret = rd_read_at(img, 0, raw, sizeof(raw), "the superblock")) != 0)
		return ret;
	sqfs_super_decode(&s->sb, raw);
	s->cache = calloc(META_SLOTS, sizeof(*s->cache));
	s->cbuf = malloc(SQFS_META_SIZE);
	if (s->cache == NULL || s->cbuf == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if ((ret = check_super(img)) != 0 || (ret = setup_codec(img)) != 0)
		return ret;
	img->root = s->sb.root_inode;
	img->inode_count = s->sb.inode_count;
	img->block_size = s->sb.block_size;
	img->end = s->sb.bytes_used;
	return load_tables(img);
}

void rd_sqfs_free(struct sqp_image *img)
{
	if (sq(img) == NULL)
		return;
	sqp_compressor_destroy(sq(img)->codec);
	free(sq(img)->cache);
	free(sq(img)->cbuf);
	free(sq(img)->dbuf);
	free(sq(img)->ids);
	free(sq(img)->frag_locs);
	free(sq(img)->xattr_locs);
	free(sq(img)->export_locs);
	for (unsigned i = 0; i < RD_FRAG_SLOTS; i++)
		free(sq(img)->frags[i].buf);
	free(img->back);
	img->back = NULL;
}

