/* SPDX-License-Identifier: MIT */
/*
 * erofs_encode.c - encoders of the EROFS records the writer stores: the
 * superblock, both inode versions, the xattr area's header and entry
 * heads, directory entries, and compressed files' map header and
 * logical cluster indexes.
 *
 * Why apart from erofs_format.c: that file is the reader's half and is
 * extended by the reader's work; the writer's half lives here so the two
 * grow without touching each other. The invariant is the decoders':
 * what an encoder writes, the matching decoder reads back unchanged, and
 * every byte the record has is written (reserved fields zero), so the
 * image never carries stale memory.
 */
#include "config.h"

#include <string.h>

#include "erofs/erofs_format.h"
#include "util/endian.h"

void erofs_super_encode(const struct erofs_super *sb,
			const struct erofs_super_extra *x, uint8_t *raw)
{
	size_t label = strnlen(x->volume_name, sizeof(x->volume_name));

	memset(raw, 0, EROFS_SUPER_SIZE);
	sqp_put32(raw, sb->magic);
	/* raw + 4: the checksum, checked only with the SB_CHKSUM feature,
	 * which we do not set. */
	sqp_put32(raw + 8, sb->feature_compat);
	raw[12] = sb->blkszbits;
	raw[13] = sb->sb_extslots;
	sqp_put16(raw + 14, (uint16_t)sb->root_nid);
	sqp_put64(raw + 16, sb->inos);
	sqp_put64(raw + 24, sb->build_time);
	sqp_put32(raw + 32, x->build_time_nsec);
	sqp_put32(raw + 36, (uint32_t)sb->blocks);
	sqp_put32(raw + 40, sb->meta_blkaddr);
	sqp_put32(raw + 44, sb->xattr_blkaddr);
	memcpy(raw + 48, x->uuid, 16);
	memcpy(raw + 64, x->volume_name, label);
	sqp_put32(raw + 80, sb->feature_incompat);
	sqp_put16(raw + 84, sb->compr_algs);
	sqp_put16(raw + 86, sb->extra_devices);
	raw[90] = sb->dirblkbits;
	raw[91] = sb->xattr_prefix_count;
	sqp_put32(raw + 92, sb->xattr_prefix_start);
	sqp_put64(raw + 96, sb->packed_nid);
	if (!(sb->feature_incompat & EROFS_IN_48BIT))
		return;
	sqp_put32(raw + 108, sb->build_delta);
	/* The 64-bit root nid only where 16 bits or the 32-bit block count
	 * do not do, as mkfs.erofs writes it. */
	if (sb->root_nid > UINT16_MAX || sb->blocks > UINT32_MAX) {
		sqp_put16(raw + 14, (uint16_t)(sb->blocks >> 32));
		sqp_put64(raw + 112, sb->root_nid);
	}
}

static unsigned log2_of(uint32_t v)
{
	unsigned n = 0;

	while (v > 1) {
		v >>= 1;
		n++;
	}
	return n;
}

/* The kernel's records (z_erofs_lz4_cfgs, _lzma_, _deflate_, _zstd_):
 * lz4 a 16-bit largest distance (0: the default) and the most blocks of
 * a pcluster, 14 bytes;
 * lzma a 32-bit dictionary size and a 16-bit format (0), 14 bytes;
 * deflate the window bits, 6 bytes; zstd a format (0) and the window
 * log less 10 (zstd's smallest), 6 bytes. Reserved bytes zero. */
size_t erofs_compr_cfg_encode(unsigned alg, uint32_t history,
			      uint16_t max_pclusterblks, uint8_t *raw)
{
	size_t len;

	memset(raw, 0, EROFS_COMPR_CFG_MAX);
	switch (alg) {
	case EROFS_ALG_LZ4:
		len = 14;
		sqp_put16(raw + 4, max_pclusterblks);
		break;
	case EROFS_ALG_LZMA:
		len = 14;
		sqp_put32(raw + 2, history);
		break;
	case EROFS_ALG_DEFLATE:
		len = 6;
		raw[2] = (uint8_t)log2_of(history);
		break;
	case EROFS_ALG_ZSTD:
		len = 6;
		raw[3] = (uint8_t)(log2_of(history) - 10);
		break;
	default:
		return 0;
	}
	sqp_put16(raw, (uint16_t)len);
	return 2 + len;
}

unsigned erofs_inode_encode(const struct erofs_inode *ino, uint32_t ino_number,
			    uint8_t *raw)
{
	uint16_t format = (uint16_t)(ino->layout << EROFS_I_LAYOUT_SHIFT);

	if (!ino->extended) {
		memset(raw, 0, 32);
		sqp_put16(raw, format);
		sqp_put16(raw + 2, ino->xattr_icount);
		sqp_put16(raw + 4, ino->mode);
		sqp_put16(raw + 6, (uint16_t)ino->nlink);
		sqp_put32(raw + 8, (uint32_t)ino->size);
		/* From the epoch base: the caller made it fit. */
		sqp_put32(raw + 12, (uint32_t)ino->mtime);
		sqp_put32(raw + 16, ino->u);
		sqp_put32(raw + 20, ino_number);
		sqp_put16(raw + 24, (uint16_t)ino->uid);
		sqp_put16(raw + 26, (uint16_t)ino->gid);
		return 32;
	}
	memset(raw, 0, 64);
	sqp_put16(raw, format | EROFS_I_EXTENDED);
	sqp_put16(raw + 2, ino->xattr_icount);
	sqp_put16(raw + 4, ino->mode);
	sqp_put64(raw + 8, ino->size);
	sqp_put32(raw + 16, ino->u);
	sqp_put32(raw + 20, ino_number);
	sqp_put32(raw + 24, ino->uid);
	sqp_put32(raw + 28, ino->gid);
	sqp_put64(raw + 32, ino->mtime);
	sqp_put32(raw + 40, ino->mtime_nsec);
	sqp_put32(raw + 44, ino->nlink);
	return 64;
}

void erofs_xattr_ibody_header_encode(uint32_t name_filter, uint8_t *raw)
{
	/* Shared count and reserved bytes: all zero. */
	memset(raw, 0, 12);
	sqp_put32(raw, name_filter);
}

uint16_t erofs_xattr_icount(uint32_t ibody)
{
	/* The inverse of erofs_xattr_ibody_size(). */
	return ibody == 0 ? 0 : (uint16_t)(1 + (ibody - 12) / 4);
}

void erofs_xattr_head_encode(const struct erofs_xattr_head *h, uint8_t *raw)
{
	raw[0] = h->name_len;
	raw[1] = h->name_index;
	sqp_put16(raw + 2, h->value_size);
}

void erofs_dirent_encode(const struct erofs_dirent *d, uint8_t *raw)
{
	sqp_put64(raw, d->nid);
	sqp_put16(raw + 8, d->nameoff);
	raw[10] = d->file_type;
	raw[11] = 0;
}

void erofs_z_map_header_encode(uint16_t advise, uint16_t idata_size,
			       uint8_t algorithm, uint8_t clusterbits, uint8_t *raw)
{
	/* Bytes 0-3: the fragment offset, or 2 reserved bytes and the
	 * inline pcluster's size. */
	memset(raw, 0, 4);
	sqp_put16(raw + 2, idata_size);
	sqp_put16(raw + 4, advise);
	raw[6] = algorithm & 0x0F;
	raw[7] = clusterbits & 0x07;
}

void erofs_z_head_encode(enum erofs_lcluster_type type, uint16_t clusterofs,
			 uint32_t blkaddr, uint8_t *raw)
{
	sqp_put16(raw, (uint16_t)type);
	sqp_put16(raw + 2, clusterofs);
	sqp_put32(raw + 4, blkaddr);
}

void erofs_chunk_index_encode(uint16_t device, uint32_t blkaddr, uint8_t *raw)
{
	sqp_put16(raw, 0);
	sqp_put16(raw + 2, blkaddr == EROFS_NULL_ADDR ? 0 : device);
	sqp_put32(raw + 4, blkaddr);
}

void erofs_z_nonhead_encode(uint16_t back, uint16_t ahead, uint8_t *raw)
{
	sqp_put16(raw, EROFS_LC_NONHEAD);
	sqp_put16(raw + 2, 0);
	sqp_put16(raw + 4, back);
	sqp_put16(raw + 6, ahead);
}
