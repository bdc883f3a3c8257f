/* SPDX-License-Identifier: MIT */
/*
 * erofs_format.c - decoders of the EROFS records erofs_format.h names.
 *
 * Why apart from the reader: the byte layout is shared knowledge that a
 * writer needs as much as a reader, and lib/read and lib/write never use
 * each other. Every field is little-endian; a decoder reads exactly the
 * bytes its record has and never looks further.
 */
#include "config.h"

#include <stddef.h>

#include "erofs/erofs_format.h"
#include "util/endian.h"

void erofs_super_decode(struct erofs_super *sb, const uint8_t *raw)
{
	sb->magic = sqp_get32(raw);
	sb->feature_compat = sqp_get32(raw + 8);
	sb->blkszbits = raw[12];
	sb->sb_extslots = raw[13];
	sb->root_nid = sqp_get16(raw + 14);
	sb->inos = sqp_get64(raw + 16);
	sb->build_time = sqp_get64(raw + 24);
	sb->build_delta = 0;
	sb->blocks = sqp_get32(raw + 36);
	sb->meta_blkaddr = sqp_get32(raw + 40);
	sb->xattr_blkaddr = sqp_get32(raw + 44);
	sb->feature_incompat = sqp_get32(raw + 80);
	sb->compr_algs = sqp_get16(raw + 84);
	sb->extra_devices = sqp_get16(raw + 86);
	sb->dirblkbits = raw[90];
	sb->xattr_prefix_count = raw[91];
	sb->xattr_prefix_start = sqp_get32(raw + 92);
	sb->packed_nid = sqp_get64(raw + 96);
	if (!(sb->feature_incompat & EROFS_IN_48BIT))
		return;
	sb->build_delta = sqp_get32(raw + 108);
	/* As the kernel reads it: a 64-bit root nid of 0 means the 16-bit
	 * one holds the root, and the block count has 32 bits. */
	if (sqp_get64(raw + 112) != 0) {
		sb->root_nid = sqp_get64(raw + 112);
		sb->blocks |= (uint64_t)sqp_get16(raw + 14) << 32;
	}
}

unsigned erofs_inode_size(const uint8_t *raw)
{
	uint16_t format = sqp_get16(raw);

	/* Bit 0 is the version, then the layout and EROFS_I_NLINK_1; the
	 * bits past it are reserved. */
	if (format & ~0x1Fu)
		return 0;
	return (format & 1) ? 64 : 32;
}

void erofs_inode_decode(struct erofs_inode *ino, const uint8_t *raw)
{
	uint16_t format = sqp_get16(raw);

	ino->extended = format & 1;
	ino->layout = (format >> 1) & 7;
	ino->xattr_icount = sqp_get16(raw + 2);
	ino->mode = sqp_get16(raw + 4);
	ino->u = sqp_get32(raw + 16);
	/* Bytes 6..7: a compact inode's link count, unless EROFS_I_NLINK_1
	 * says it has one; then, and in an extended inode, blk_hi. */
	ino->blk_hi = sqp_get16(raw + 6);
	if (!ino->extended) {
		ino->nlink = 1;
		if (!(format & EROFS_I_NLINK_1) || (ino->mode & 0xF000u) == 0x4000u) {
			ino->nlink = ino->blk_hi;
			ino->blk_hi = 0;
		}
		ino->size = sqp_get32(raw + 8);
		ino->uid = sqp_get16(raw + 24);
		ino->gid = sqp_get16(raw + 26);
		ino->has_mtime = 0;
		ino->mtime = sqp_get32(raw + 12);
		ino->mtime_nsec = 0;
		return;
	}
	ino->size = sqp_get64(raw + 8);
	ino->uid = sqp_get32(raw + 24);
	ino->gid = sqp_get32(raw + 28);
	ino->has_mtime = 1;
	ino->mtime = sqp_get64(raw + 32);
	ino->mtime_nsec = sqp_get32(raw + 40);
	ino->nlink = sqp_get32(raw + 44);
}

uint32_t erofs_xattr_ibody_size(uint16_t icount)
{
	/* A 12-byte header counts as the first of the 4-byte units. */
	return icount == 0 ? 0 : 12 + 4 * ((uint32_t)icount - 1);
}

void erofs_dirent_decode(struct erofs_dirent *d, const uint8_t *raw)
{
	d->nid = sqp_get64(raw);
	d->nameoff = sqp_get16(raw + 8);
	d->file_type = raw[10];
}

void erofs_xattr_head_decode(struct erofs_xattr_head *h, const uint8_t *raw)
{
	h->name_len = raw[0];
	h->name_index = raw[1];
	h->value_size = sqp_get16(raw + 2);
}

const char *erofs_xattr_prefix(uint8_t index)
{
	static const char *const names[] = {
		NULL, "user.", "system.posix_acl_access",
		"system.posix_acl_default", "trusted.", NULL, "security.",
	};

	return index < sizeof(names) / sizeof(names[0]) ? names[index] : NULL;
}
