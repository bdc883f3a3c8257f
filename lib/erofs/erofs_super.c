/* SPDX-License-Identifier: MIT */
/*
 * erofs_super.c - what Linux refuses in an EROFS superblock at mount,
 * refused here too before anything else of the image is read: the
 * superblock checksum when the image asks for one, the superblock's
 * extension slots, the compression configuration records, and the root
 * (and packed) inode, which must read, the root as a directory.
 *
 * Why: every tool reads an image through rd_erofs_open, and an image
 * the kernel will not mount is a broken image; reading it anyway hands
 * the user a tree from a superblock nobody vouches for (a checksum that
 * fails says the bytes changed after mkfs). The checks follow
 * fs/erofs/super.c (erofs_read_superblock, erofs_fc_fill_super) and the
 * decompressors' config loaders, each tried against Linux 6.18 by
 * tests/erofs/hostile.sh. Where the kernel's limit is its page size,
 * the limit here is that of a kernel whose page is the image's block,
 * 4 KiB at least (x86's, for the images mkfs.erofs writes by default).
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "erofs/erofs_super.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* EROFS_FEATURE_COMPAT_SB_CHKSUM: a CRC32C of the superblock's block. */
#define COMPAT_SB_CHKSUM 0x1u
/* The known algorithms' bits in compr_algs (lz4, lzma, deflate, zstd). */
#define KNOWN_ALGS 0xFu
/* Limits of the algorithms' records, as the kernel's loaders set them:
 * a physical cluster of 1 MiB at most, lzma's dictionary up to 8 of
 * them, deflate's window up to 2^15, zstd's up to one cluster. */
#define PCLUSTER_MAX (1u << 20)
#define LZMA_DICT_MIN 4096u
#define LZMA_DICT_MAX (8u * PCLUSTER_MAX)
#define DEFLATE_WBITS_MAX 15u
#define ZSTD_WLOG_MAX (20u - 10u)   /* stored as log2(window) - 10 */

/* CRC32C (Castagnoli, reflected), without the final inversion: the
 * value the kernel's crc32c(~0, ...) gives and mkfs.erofs stores. A bit
 * at a time: it runs once per image, over one block. */
static uint32_t crc32c_raw(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n-- > 0) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
	}
	return crc;
}

/* The bytes the checksum covers: from the superblock to the end of its
 * block, or a block's worth when blocks are 1 KiB or less. */
static int check_csum(struct sqp_image *img, const struct erofs_super *sb)
{
	uint32_t len = 1u << sb->blkszbits, stored, crc;
	uint8_t *buf;
	int ret;

	if (len > EROFS_SUPER_OFFSET)
		len -= EROFS_SUPER_OFFSET;
	if (EROFS_SUPER_OFFSET + (uint64_t)len > img->file_size)
		return rd_err(img, SQP_ERR_TRUNCATED, "%s: the EROFS superblock's "
			      "block is cut short", img->name);
	if ((buf = malloc(len)) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	ret = rd_read_at(img, EROFS_SUPER_OFFSET, buf, len, "the superblock");
	if (ret == 0) {
		stored = sqp_get32(buf + 4);
		sqp_put32(buf + 4, 0);
		crc = crc32c_raw(0xFFFFFFFFu, buf, len);
		if (crc != stored)
			ret = rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS superblock "
				     "checksum 0x%08x, but its bytes give 0x%08x "
				     "(changed after it was written?)", img->name,
				     stored, crc);
	}
	free(buf);
	return ret;
}

/* One algorithm's record, body bytes long (what the kernel's loader
 * for it refuses); what it says is kept in the image's struct
 * rd_erofs, for a writer that copies the image's pclusters. */
static int check_cfg(struct sqp_image *img, unsigned alg, const uint8_t *body,
		     uint32_t len, uint32_t bs)
{
	static const char *const names[] = { "lz4", "lzma", "deflate", "zstd" };
	static const uint32_t need[] = { 14, 14, 6, 6 };
	struct rd_erofs *e = rd_ero(img);
	uint32_t v;

	if (len < need[alg])
		return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS %s configuration "
			      "of %u bytes; %u at least", img->name, names[alg],
			      len, need[alg]);
	switch (alg) {
	case 0:
		if ((v = sqp_get16(body + 2)) > PCLUSTER_MAX / bs)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS lz4 physical "
				      "clusters of %u blocks; %u at most", img->name,
				      v, PCLUSTER_MAX / bs);
		e->lz4_blocks = (uint16_t)v;
		return 0;
	case 1:
		v = sqp_get32(body);
		if (sqp_get16(body + 4) != 0 || v < LZMA_DICT_MIN || v > LZMA_DICT_MAX)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS lzma format %u "
				      "with a dictionary of %u bytes; format 0 and "
				      "4 KiB to 8 MiB are read", img->name,
				      sqp_get16(body + 4), v);
		e->history[alg] = v;
		return 0;
	case 2:
		if (body[0] > DEFLATE_WBITS_MAX)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS deflate window "
				      "of 2^%u bytes; 2^15 at most", img->name, body[0]);
		e->history[alg] = 1u << body[0];
		return 0;
	default:
		if (body[0] != 0 || body[1] > ZSTD_WLOG_MAX)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS zstd format %u "
				      "with a window of 2^%u bytes; format 0 and 2^20 "
				      "at most are read", img->name, body[0], body[1] + 10u);
		e->history[alg] = 1u << (body[1] + 10u);
		return 0;
	}
}

/* The records after the superblock and its extension slots, one per
 * algorithm the image says it uses, each 4-aligned: a 16-bit length
 * (0 for 65536) and the body. */
static int check_cfgs(struct sqp_image *img, const struct erofs_super *sb)
{
	uint64_t at = EROFS_SUPER_OFFSET + EROFS_SUPER_SIZE +
		      (uint64_t)sb->sb_extslots * EROFS_SB_EXTSLOT_SIZE;
	uint8_t head[2], body[16];
	uint32_t len;
	int ret;

	if (sb->compr_algs & ~KNOWN_ALGS)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: EROFS compression "
			      "algorithms 0x%x not known", img->name,
			      sb->compr_algs & ~KNOWN_ALGS);
	for (unsigned alg = 0; alg < 4; alg++) {
		if (!(sb->compr_algs & (1u << alg)))
			continue;
		at = (at + 3) & ~3ull;
		if ((ret = rd_read_at(img, at, head, 2, "a compression "
				      "configuration")) != 0)
			return ret;
		len = sqp_get16(head);
		len = len != 0 ? len : 65536u;
		if (at + 2 + len > img->file_size)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS compression "
				      "configuration past the end", img->name);
		if ((ret = rd_read_at(img, at + 2, body, len < sizeof(body) ?
				      len : sizeof(body), "a compression "
				      "configuration")) != 0 ||
		    (ret = check_cfg(img, alg, body, len, 1u << sb->blkszbits)) != 0)
			return ret;
		at += 2 + len;
	}
	return 0;
}

int rd_erofs_super_check(struct sqp_image *img, const struct erofs_super *sb)
{
	/* The kernel's limit is its page less the superblock's offset. */
	uint32_t room = (sb->blkszbits > 12 ? 1u << sb->blkszbits : 4096u) -
			EROFS_SUPER_OFFSET;
	int ret;

	if ((sb->feature_compat & COMPAT_SB_CHKSUM) &&
	    (ret = check_csum(img, sb)) != 0)
		return ret;
	if (EROFS_SUPER_SIZE + (uint32_t)sb->sb_extslots * EROFS_SB_EXTSLOT_SIZE > room)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS superblock of %u "
			      "extension slots, past its block", img->name,
			      sb->sb_extslots);
	if (sb->feature_incompat & EROFS_IN_COMPR_CFGS)
		return check_cfgs(img, sb);
	return 0;
}

/* An inode the kernel reads at mount: it must decode; its type is
 * returned for the caller's test. */
static int mount_inode(struct sqp_image *img, uint64_t nid, const char *what,
		       uint16_t *mode)
{
	struct rd_inode ino;
	int ret;

	if (!rd_erofs_nid_ok(rd_ero(img), nid))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS %s inode (nid %llu) "
			      "outside the image", img->name, what,
			      (unsigned long long)nid);
	if ((ret = rd_erofs_inode_read(img, nid, &ino)) != 0)
		return ret;
	*mode = (uint16_t)ino.mode;
	rd_inode_free(&ino);
	return 0;
}

int rd_erofs_mount_inodes(struct sqp_image *img)
{
	const struct erofs_super *sb = &rd_ero(img)->sb;
	uint16_t mode;
	int ret;

	if ((sb->feature_incompat & EROFS_IN_FRAGMENTS) && sb->packed_nid != 0 &&
	    (ret = mount_inode(img, sb->packed_nid, "packed", &mode)) != 0)
		return ret;
	if ((ret = mount_inode(img, sb->root_nid, "root", &mode)) != 0)
		return ret;
	if (!S_ISDIR(mode))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the EROFS root inode (nid "
			      "%llu) is not a directory (mode 0%o)", img->name,
			      (unsigned long long)sb->root_nid, mode);
	return 0;
}
