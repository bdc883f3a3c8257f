/* SPDX-License-Identifier: MIT */
/*
 * sqfs_format.c - encoders and decoders for SquashFS 4.0 records.
 *
 * Every function here is a pure conversion between a little-endian byte
 * buffer and a host struct, so the writer and the reader share exactly one
 * description of the layout. The field order of each record follows the
 * kernel's fs/squashfs/squashfs_fs.h.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "squashfs/sqfs_format.h"
#include "util/endian.h"

void sqfs_super_encode(const struct sqfs_super *sb, uint8_t out[SQFS_SUPER_SIZE])
{
	sqp_put32(out + 0, sb->magic);
	sqp_put32(out + 4, sb->inode_count);
	sqp_put32(out + 8, sb->mod_time);
	sqp_put32(out + 12, sb->block_size);
	sqp_put32(out + 16, sb->frag_count);
	sqp_put16(out + 20, sb->compressor);
	sqp_put16(out + 22, sb->block_log);
	sqp_put16(out + 24, sb->flags);
	sqp_put16(out + 26, sb->id_count);
	sqp_put16(out + 28, sb->version_major);
	sqp_put16(out + 30, sb->version_minor);
	sqp_put64(out + 32, sb->root_inode);
	sqp_put64(out + 40, sb->bytes_used);
	sqp_put64(out + 48, sb->id_table);
	sqp_put64(out + 56, sb->xattr_table);
	sqp_put64(out + 64, sb->inode_table);
	sqp_put64(out + 72, sb->dir_table);
	sqp_put64(out + 80, sb->frag_table);
	sqp_put64(out + 88, sb->export_table);
}

void sqfs_super_decode(struct sqfs_super *sb, const uint8_t in[SQFS_SUPER_SIZE])
{
	sb->magic = sqp_get32(in + 0);
	sb->inode_count = sqp_get32(in + 4);
	sb->mod_time = sqp_get32(in + 8);
	sb->block_size = sqp_get32(in + 12);
	sb->frag_count = sqp_get32(in + 16);
	sb->compressor = sqp_get16(in + 20);
	sb->block_log = sqp_get16(in + 22);
	sb->flags = sqp_get16(in + 24);
	sb->id_count = sqp_get16(in + 26);
	sb->version_major = sqp_get16(in + 28);
	sb->version_minor = sqp_get16(in + 30);
	sb->root_inode = sqp_get64(in + 32);
	sb->bytes_used = sqp_get64(in + 40);
	sb->id_table = sqp_get64(in + 48);
	sb->xattr_table = sqp_get64(in + 56);
	sb->inode_table = sqp_get64(in + 64);
	sb->dir_table = sqp_get64(in + 72);
	sb->frag_table = sqp_get64(in + 80);
	sb->export_table = sqp_get64(in + 88);
}

/* ------------------------------------------------------------------ */

#define INODE_HEADER_SIZE 16

size_t sqfs_inode_fixed_size(unsigned type)
{
	switch (type) {
	case SQFS_DIR: return INODE_HEADER_SIZE + 16;
	case SQFS_FILE: return INODE_HEADER_SIZE + 16;
	case SQFS_SYMLINK: return INODE_HEADER_SIZE + 8;
	case SQFS_BLKDEV: case SQFS_CHRDEV: return INODE_HEADER_SIZE + 8;
	case SQFS_FIFO: case SQFS_SOCKET: return INODE_HEADER_SIZE + 4;
	case SQFS_LDIR: return INODE_HEADER_SIZE + 24;
	case SQFS_LFILE: return INODE_HEADER_SIZE + 40;
	case SQFS_LSYMLINK: return INODE_HEADER_SIZE + 8;
	case SQFS_LBLKDEV: case SQFS_LCHRDEV: return INODE_HEADER_SIZE + 12;
	case SQFS_LFIFO: case SQFS_LSOCKET: return INODE_HEADER_SIZE + 8;
	default: return 0;
	}
}

size_t sqfs_inode_encoded_size(const struct sqfs_inode *ino)
{
	size_t size = sqfs_inode_fixed_size(ino->type);

	switch (ino->type) {
	case SQFS_FILE:
	case SQFS_LFILE:
		size += (size_t)ino->u.file.block_count * 4;
		break;
	case SQFS_SYMLINK:
		size += ino->u.symlink.target_size;
		break;
	case SQFS_LSYMLINK:
		size += ino->u.symlink.target_size + 4;
		break;
	default:
		break;
	}
	return size;
}

void sqfs_inode_encode(const struct sqfs_inode *ino, uint8_t *out)
{
	uint8_t *p = out + INODE_HEADER_SIZE;
	uint32_t i;

	sqp_put16(out + 0, ino->type);
	sqp_put16(out + 2, ino->mode);
	sqp_put16(out + 4, ino->uid_idx);
	sqp_put16(out + 6, ino->gid_idx);
	sqp_put32(out + 8, ino->mtime);
	sqp_put32(out + 12, ino->inode_number);

	switch (ino->type) {
	case SQFS_DIR:
		sqp_put32(p + 0, ino->u.dir.start_block);
		sqp_put32(p + 4, ino->nlink);
		sqp_put16(p + 8, (uint16_t)ino->u.dir.size);
		sqp_put16(p + 10, ino->u.dir.offset);
		sqp_put32(p + 12, ino->u.dir.parent);
		break;
	case SQFS_LDIR:
		sqp_put32(p + 0, ino->nlink);
		sqp_put32(p + 4, ino->u.dir.size);
		sqp_put32(p + 8, ino->u.dir.start_block);
		sqp_put32(p + 12, ino->u.dir.parent);
		sqp_put16(p + 16, ino->u.dir.index_count);
		sqp_put16(p + 18, ino->u.dir.offset);
		sqp_put32(p + 20, ino->xattr_idx);
		break;
	case SQFS_FILE:
		sqp_put32(p + 0, (uint32_t)ino->u.file.blocks_start);
		sqp_put32(p + 4, ino->u.file.frag_index);
		sqp_put32(p + 8, ino->u.file.frag_offset);
		sqp_put32(p + 12, (uint32_t)ino->u.file.size);
		p += 16;
		for (i = 0; i < ino->u.file.block_count; ++i, p += 4)
			sqp_put32(p, ino->u.file.block_sizes[i]);
		break;
	case SQFS_LFILE:
		sqp_put64(p + 0, ino->u.file.blocks_start);
		sqp_put64(p + 8, ino->u.file.size);
		sqp_put64(p + 16, ino->u.file.sparse);
		sqp_put32(p + 24, ino->nlink);
		sqp_put32(p + 28, ino->u.file.frag_index);
		sqp_put32(p + 32, ino->u.file.frag_offset);
		sqp_put32(p + 36, ino->xattr_idx);
		p += 40;
		for (i = 0; i < ino->u.file.block_count; ++i, p += 4)
			sqp_put32(p, ino->u.file.block_sizes[i]);
		break;
	case SQFS_SYMLINK:
	case SQFS_LSYMLINK:
		sqp_put32(p + 0, ino->nlink);
		sqp_put32(p + 4, ino->u.symlink.target_size);
		memcpy(p + 8, ino->u.symlink.target, ino->u.symlink.target_size);
		if (ino->type == SQFS_LSYMLINK)
			sqp_put32(p + 8 + ino->u.symlink.target_size, ino->xattr_idx);
		break;
	case SQFS_BLKDEV:
	case SQFS_CHRDEV:
	case SQFS_LBLKDEV:
	case SQFS_LCHRDEV:
		sqp_put32(p + 0, ino->nlink);
		sqp_put32(p + 4, ino->u.dev.rdev);
		if (ino->type >= SQFS_LDIR)
			sqp_put32(p + 8, ino->xattr_idx);
		break;
	case SQFS_FIFO:
	case SQFS_SOCKET:
	case SQFS_LFIFO:
	case SQFS_LSOCKET:
		sqp_put32(p + 0, ino->nlink);
		if (ino->type >= SQFS_LDIR)
			sqp_put32(p + 4, ino->xattr_idx);
		break;
	default:
		break;
	}
}

int sqfs_inode_decode_fixed(struct sqfs_inode *ino, const uint8_t *in, size_t len)
{
	const uint8_t *p = in + INODE_HEADER_SIZE;
	size_t need;

	if (len < INODE_HEADER_SIZE)
		return -1;
	memset(ino, 0, sizeof(*ino));
	ino->type = sqp_get16(in + 0);
	need = sqfs_inode_fixed_size(ino->type);
	if (need == 0 || len < need)
		return -1;
	ino->mode = sqp_get16(in + 2);
	ino->uid_idx = sqp_get16(in + 4);
	ino->gid_idx = sqp_get16(in + 6);
	ino->mtime = sqp_get32(in + 8);
	ino->inode_number = sqp_get32(in + 12);
	ino->xattr_idx = SQFS_NO_XATTR;

	switch (ino->type) {
	case SQFS_DIR:
		ino->u.dir.start_block = sqp_get32(p + 0);
		ino->nlink = sqp_get32(p + 4);
		ino->u.dir.size = sqp_get16(p + 8);
		ino->u.dir.offset = sqp_get16(p + 10);
		ino->u.dir.parent = sqp_get32(p + 12);
		break;
	case SQFS_LDIR:
		ino->nlink = sqp_get32(p + 0);
		ino->u.dir.size = sqp_get32(p + 4);
		ino->u.dir.start_block = sqp_get32(p + 8);
		ino->u.dir.parent = sqp_get32(p + 12);
		ino->u.dir.index_count = sqp_get16(p + 16);
		ino->u.dir.offset = sqp_get16(p + 18);
		ino->xattr_idx = sqp_get32(p + 20);
		break;
	case SQFS_FILE:
		ino->nlink = 1;
		ino->u.file.blocks_start = sqp_get32(p + 0);
		ino->u.file.frag_index = sqp_get32(p + 4);
		ino->u.file.frag_offset = sqp_get32(p + 8);
		ino->u.file.size = sqp_get32(p + 12);
		break;
	case SQFS_LFILE:
		ino->u.file.blocks_start = sqp_get64(p + 0);
		ino->u.file.size = sqp_get64(p + 8);
		ino->u.file.sparse = sqp_get64(p + 16);
		ino->nlink = sqp_get32(p + 24);
		ino->u.file.frag_index = sqp_get32(p + 28);
		ino->u.file.frag_offset = sqp_get32(p + 32);
		ino->xattr_idx = sqp_get32(p + 36);
		break;
	case SQFS_SYMLINK:
	case SQFS_LSYMLINK:
		ino->nlink = sqp_get32(p + 0);
		ino->u.symlink.target_size = sqp_get32(p + 4);
		break;
	case SQFS_BLKDEV:
	case SQFS_CHRDEV:
	case SQFS_LBLKDEV:
	case SQFS_LCHRDEV:
		ino->nlink = sqp_get32(p + 0);
		ino->u.dev.rdev = sqp_get32(p + 4);
		if (ino->type >= SQFS_LDIR)
			ino->xattr_idx = sqp_get32(p + 8);
		break;
	default: /* fifo, socket */
		ino->nlink = sqp_get32(p + 0);
		if (ino->type >= SQFS_LDIR)
			ino->xattr_idx = sqp_get32(p + 4);
		break;
	}
	return 0;
}

uint64_t sqfs_file_block_count(uint64_t file_size, uint32_t block_size,
			       int has_fragment)
{
	if (has_fragment)
		return file_size / block_size;
	return (file_size + block_size - 1) / block_size;
}

/* Same as the kernel's new_encode_dev(): 12-bit major, 20-bit minor, with
 * the low minor byte kept where 8-bit minors always were. */
uint32_t sqfs_encode_rdev(uint32_t major, uint32_t minor)
{
	return (minor & 0xFFu) | ((major & 0xFFFu) << 8) |
	       ((minor & ~0xFFu) << 12);
}

void sqfs_decode_rdev(uint32_t rdev, uint32_t *major, uint32_t *minor)
{
	*major = (rdev & 0xFFF00u) >> 8;
	*minor = (rdev & 0xFFu) | ((rdev >> 12) & 0xFFF00u);
}

unsigned sqfs_basic_type(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return SQFS_DIR;
	case S_IFREG: return SQFS_FILE;
	case S_IFLNK: return SQFS_SYMLINK;
	case S_IFBLK: return SQFS_BLKDEV;
	case S_IFCHR: return SQFS_CHRDEV;
	case S_IFIFO: return SQFS_FIFO;
	case S_IFSOCK: return SQFS_SOCKET;
	default: return 0;
	}
}

/* ------------------------------------------------------------------ */

void sqfs_dir_header_encode(const struct sqfs_dir_header *h, uint8_t out[SQFS_DIR_HEADER_SIZE])
{
	sqp_put32(out + 0, h->count - 1);
	sqp_put32(out + 4, h->start_block);
	sqp_put32(out + 8, h->inode_number);
}

void sqfs_dir_header_decode(struct sqfs_dir_header *h, const uint8_t in[SQFS_DIR_HEADER_SIZE])
{
	h->count = sqp_get32(in + 0) + 1;
	h->start_block = sqp_get32(in + 4);
	h->inode_number = sqp_get32(in + 8);
}

void sqfs_dir_entry_encode(const struct sqfs_dir_entry *e, uint8_t out[SQFS_DIR_ENTRY_SIZE])
{
	sqp_put16(out + 0, e->offset);
	sqp_put16(out + 2, (uint16_t)e->inode_delta);
	sqp_put16(out + 4, e->type);
	sqp_put16(out + 6, (uint16_t)(e->name_size - 1));
}

void sqfs_dir_entry_decode(struct sqfs_dir_entry *e, const uint8_t in[SQFS_DIR_ENTRY_SIZE])
{
	e->offset = sqp_get16(in + 0);
	e->inode_delta = (int16_t)sqp_get16(in + 2);
	e->type = sqp_get16(in + 4);
	e->name_size = (uint16_t)(sqp_get16(in + 6) + 1);
}

void sqfs_dir_index_encode(const struct sqfs_dir_index *x, uint8_t out[SQFS_DIR_INDEX_SIZE])
{
	sqp_put32(out + 0, x->index);
	sqp_put32(out + 4, x->start_block);
	sqp_put32(out + 8, x->name_size - 1);
}

void sqfs_dir_index_decode(struct sqfs_dir_index *x, const uint8_t in[SQFS_DIR_INDEX_SIZE])
{
	x->index = sqp_get32(in + 0);
	x->start_block = sqp_get32(in + 4);
	x->name_size = sqp_get32(in + 8) + 1;
}

/* ------------------------------------------------------------------ */

void sqfs_frag_entry_encode(const struct sqfs_frag_entry *f, uint8_t out[SQFS_FRAG_ENTRY_SIZE])
{
	sqp_put64(out + 0, f->start);
	sqp_put32(out + 8, f->size);
	sqp_put32(out + 12, 0);
}

void sqfs_frag_entry_decode(struct sqfs_frag_entry *f, const uint8_t in[SQFS_FRAG_ENTRY_SIZE])
{
	f->start = sqp_get64(in + 0);
	f->size = sqp_get32(in + 8);
}

void sqfs_xattr_id_encode(const struct sqfs_xattr_id *x, uint8_t out[SQFS_XATTR_ID_SIZE])
{
	sqp_put64(out + 0, x->ref);
	sqp_put32(out + 8, x->count);
	sqp_put32(out + 12, x->size);
}

void sqfs_xattr_id_decode(struct sqfs_xattr_id *x, const uint8_t in[SQFS_XATTR_ID_SIZE])
{
	x->ref = sqp_get64(in + 0);
	x->count = sqp_get32(in + 8);
	x->size = sqp_get32(in + 12);
}

void sqfs_xattr_table_encode(const struct sqfs_xattr_table *t, uint8_t out[SQFS_XATTR_TABLE_SIZE])
{
	sqp_put64(out + 0, t->kv_start);
	sqp_put32(out + 8, t->count);
	sqp_put32(out + 12, 0);
}

void sqfs_xattr_table_decode(struct sqfs_xattr_table *t, const uint8_t in[SQFS_XATTR_TABLE_SIZE])
{
	t->kv_start = sqp_get64(in + 0);
	t->count = sqp_get32(in + 8);
}

/* ------------------------------------------------------------------ */

static const char *const xattr_prefixes[] = {
	[SQFS_XATTR_USER] = "user.",
	[SQFS_XATTR_TRUSTED] = "trusted.",
	[SQFS_XATTR_SECURITY] = "security.",
};

int sqfs_xattr_prefix_id(const char *key, size_t *name_off)
{
	size_t i, n;

	for (i = 0; i < sizeof(xattr_prefixes) / sizeof(xattr_prefixes[0]); ++i) {
		n = strlen(xattr_prefixes[i]);
		if (strncmp(key, xattr_prefixes[i], n) == 0) {
			*name_off = n;
			return (int)i;
		}
	}
	return -1;
}

const char *sqfs_xattr_prefix(unsigned id)
{
	id &= ~(unsigned)SQFS_XATTR_VALUE_OOL;
	if (id >= sizeof(xattr_prefixes) / sizeof(xattr_prefixes[0]))
		return NULL;
	return xattr_prefixes[id];
}
