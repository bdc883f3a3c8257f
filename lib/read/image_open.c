/* SPDX-License-Identifier: MIT */
/*
 * image_open.c - sqp_image_create(): validate the superblock field by
 * field, set up the compressor from the options block, and load the
 * lookup tables. Nothing is trusted: each check names what is wrong, so
 * "not a SquashFS image" and "truncated image" read differently. An
 * image without SquashFS's magic that has EROFS's is EROFS's
 * (erofs_open.c).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_erofs.h"
#include "read/rd_image.h"
#include "sqpack/error.h"
#include "util/abi.h"
#include "util/endian.h"

static int check_super(struct sqp_image *img)
{
	const struct sqfs_super *sb = &img->sb;
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
	const struct sqfs_super *sb = &img->sb;
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
	ret = sqp_compressor_create(&img->codec_cfg, &img->codec);
	if (ret != 0)
		return rd_err(img, ret, "%s: setting up %s: %s", img->name,
			      sqp_codec_name(sb->compressor), sqp_strerror(ret));
	return 0;
}

static int load_tables(struct sqp_image *img)
{
	const struct sqfs_super *sb = &img->sb;
	uint64_t *id_locs = NULL;
	size_t id_loc_count = 0;
	uint8_t hdr[SQFS_XATTR_TABLE_SIZE];
	struct meta_pos p;
	int ret;

	ret = rd_read_locations(img, sb->id_table, sb->id_count, 4, &id_locs,
				&id_loc_count, "id");
	if (ret != 0)
		return ret;
	img->ids = calloc(sb->id_count, sizeof(uint32_t));
	if (img->ids == NULL) {
		free(id_locs);
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	}
	for (size_t b = 0; ret == 0 && b < id_loc_count; b++) {
		size_t first = b * (SQFS_META_SIZE / 4);
		size_t n = sb->id_count - first;

		if (n > SQFS_META_SIZE / 4)
			n = SQFS_META_SIZE / 4;
		p = (struct meta_pos){ id_locs[b], 0, 0 };
		ret = meta_read(img, &p, img->ids + first, n * 4);
	}
	free(id_locs);
	if (ret != 0)
		return ret;
	for (uint32_t i = 0; i < sb->id_count; i++)
		img->ids[i] = sqp_get32((const uint8_t *)&img->ids[i]);
	if (sb->frag_count > 0 &&
	    (ret = rd_read_locations(img, sb->frag_table, sb->frag_count,
				     SQFS_FRAG_ENTRY_SIZE, &img->frag_locs,
				     &img->frag_loc_count, "fragment")) != 0)
		return ret;
	if (sb->export_table != SQFS_NO_TABLE &&
	    (ret = rd_read_locations(img, sb->export_table, sb->inode_count,
				     SQFS_EXPORT_ENTRY_SIZE, &img->export_locs,
				     &img->export_loc_count, "export")) != 0)
		return ret;
	if (sb->xattr_table == SQFS_NO_TABLE)
		return 0;
	if ((ret = rd_read_at(img, sb->xattr_table, hdr, sizeof(hdr),
			      "the xattr table")) != 0)
		return ret;
	sqfs_xattr_table_decode(&img->xattr_hdr, hdr);
	if (img->xattr_hdr.kv_start >= sb->bytes_used)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: xattr table outside "
			      "the image", img->name);
	return rd_read_locations(img, sb->xattr_table + SQFS_XATTR_TABLE_SIZE,
				 img->xattr_hdr.count, SQFS_XATTR_ID_SIZE,
				 &img->xattr_locs, &img->xattr_loc_count,
				 "xattr");
}

SQP_API int sqp_image_create(const struct sqp_image_desc *desc,
			     struct sqp_image **out)
{
	struct sqp_image_desc d;
	struct sqp_image *img;
	uint8_t raw[SQFS_SUPER_SIZE];
	struct stat st;
	int ret;

	if (out == NULL)
		return SQP_ERR_ARG;
	*out = NULL;
	img = calloc(1, sizeof(*img));
	if (img == NULL)
		return SQP_ERR_NOMEM;
	*out = img; /* on failure too: it explains (sqpack/error.h) */
	ret = sqp_abi_in(&img->err, "sqp_image_desc", &d, sizeof(d),
			 SQP_SIZE_TO(struct sqp_image_desc, offset), desc);
	if (ret != 0)
		return ret;
	desc = &d; /* the caller's struct only up to its size */
	if (desc->fd < 0)
		return rd_err(img, SQP_ERR_ARG, "no image file");
	img->fd = desc->fd;
	img->name = desc->name != NULL ? desc->name : "image";
	img->warn = desc->warn;
	img->warn_user = desc->warn_user;
	img->cache = calloc(META_SLOTS, sizeof(*img->cache));
	img->cbuf = malloc(SQFS_META_SIZE);
	if (img->cache == NULL || img->cbuf == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if (fstat(desc->fd, &st) != 0)
		return rd_err(img, sqp_errno_code(errno), "%s: %s", img->name,
			      strerror(errno));
	/* Its size is whatever its file system says, not EISDIR: say it. */
	if (S_ISDIR(st.st_mode))
		return rd_err(img, sqp_errno_code(EISDIR), "%s: %s", img->name,
			      strerror(EISDIR));
	if ((uint64_t)st.st_size < desc->offset)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the offset %llu lies past "
			      "the end of the file (%llu bytes)", img->name,
			      (unsigned long long)desc->offset,
			      (unsigned long long)st.st_size);
	img->base = desc->offset;
	img->file_size = (uint64_t)st.st_size - desc->offset;
	if ((ret = rd_read_at(img, 0, raw, sizeof(raw), "the superblock")) != 0)
		return ret;
	sqfs_super_decode(&img->sb, raw);
	/* Not SquashFS: EROFS has its superblock at 1024. */
	if (img->sb.magic != SQFS_MAGIC && (ret = rd_erofs_probe(img)) != 0)
		return ret < 0 ? ret : rd_erofs_open(img);
	if ((ret = check_super(img)) != 0 || (ret = setup_codec(img)) != 0)
		return ret;
	return load_tables(img);
}

SQP_API void sqp_image_destroy(struct sqp_image *img)
{
	if (img == NULL)
		return;
	sqp_compressor_destroy(img->codec);
	free(img->cache);
	free(img->cbuf);
	free(img->ids);
	free(img->frag_locs);
	free(img->xattr_locs);
	free(img->export_locs);
	rd_xattrs_free(&img->xscratch);
	for (unsigned i = 0; i < RD_FRAG_SLOTS; i++)
		free(img->frags[i].buf);
	rd_erofs_free(img->ero);
	free(img);
}

SQP_API const char *sqp_image_error(const struct sqp_image *img)
{
	return img != NULL ? sqp_errmsg(&img->err) : "";
}

SQP_API int sqp_image_get_info(const struct sqp_image *img,
			       struct sqp_image_info *info)
{
	struct sqp_image_info all = {
		.codec = img->sb.compressor,
		.block_size = img->sb.block_size,
		.inode_count = img->sb.inode_count,
		.mod_time = img->sb.mod_time,
		.bytes_used = img->sb.bytes_used,
		.format = SQP_FORMAT_SQUASHFS,
		.codecs = 1u << img->sb.compressor,
		.inodes = img->sb.inode_count,
	};

	if (img->ero != NULL) {
		all.format = SQP_FORMAT_EROFS;
		all.codecs = rd_erofs_codecs(img->ero);
		all.inodes = img->ero->sb.inos;
		all.packed_ref = img->ero->sb.packed_nid;
		/* The lowest id, 0 for none: what a caller of the first
		 * version, which knows one codec, sees. */
		all.codec = 0;
		for (int id = SQP_CODEC_MAX; id > 0; id--)
			if (all.codecs & (1u << id))
				all.codec = id;
	}

	return sqp_abi_out(NULL, "sqp_image_info", info, &all, sizeof(all),
			   SQP_SIZE_TO(struct sqp_image_info, bytes_used));
}
