/* SPDX-License-Identifier: MIT */
/*
 * erofs_open.c - recognising an EROFS image and checking its superblock
 * before anything else of it is read.
 *
 * The core's image fields: the root is the root nid, the inode number
 * range is every nid whose 32-byte slot lies inside the image (so the
 * walk's bitmap is bounded by the file's size, not by a count the image
 * claims), and the end is what the superblock's block count says,
 * which must fit in the file.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/erofs_super.h"
#include "erofs/rd_erofs.h"
#include "sqpack/codec.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* Incompatible features with meaning for uncompressed data: the
 * compression ones only tell how compressed files are stored, which are
 * refused file by file. Anything else (a feature this reader has never
 * heard of) refuses the image. Extra devices are read where the device
 * table maps them into the image (appended to it, as the kernel reads
 * an image mounted without device=); without the device table feature
 * the extra device count means nothing, to the kernel as here. */
#define KNOWN_INCOMPAT (EROFS_IN_ZERO_PADDING | EROFS_IN_COMPR_CFGS | \
			EROFS_IN_CHUNKED_FILE | EROFS_IN_ZTAILPACKING | \
			EROFS_IN_FRAGMENTS | EROFS_IN_XATTR_PREFIX | \
			EROFS_IN_DEVICE_TABLE | EROFS_IN_METABOX | EROFS_IN_48BIT)
/* The device table's place (in 128-byte slots) and a slot's fields. */
#define DEVT_SLOTOFF_AT 88
#define DEVT_SLOT_SIZE 128u
#define DEVT_BLOCKS_AT 64
#define DEVT_MAPPED_AT 68
/* Where the superblock keeps its build time's nanoseconds. */
#define BUILD_NSEC_AT 32
#define UUID_AT 48
/* A whole xattr name is at most 255 bytes: so is a prefix. */
#define PREFIX_MAX 255u

int rd_erofs_probe(struct sqp_image *img)
{
	uint8_t m[4];

	if (img->file_size < EROFS_SUPER_OFFSET + EROFS_SUPER_SIZE)
		return 0;
	if (rd_read_at(img, EROFS_SUPER_OFFSET, m, 4, "the superblock") != 0)
		return img->err.code;
	return sqp_get32(m) == EROFS_MAGIC;
}

static int check_super(struct sqp_image *img, const struct erofs_super *sb)
{
	uint64_t end;

	if (sb->blkszbits < 9 || sb->blkszbits > 16)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: EROFS block size "
			      "2^%u; 512 to 65536 bytes are read", img->name,
			      sb->blkszbits);
	if (sb->feature_incompat & ~KNOWN_INCOMPAT)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: EROFS features "
			      "0x%x not supported yet", img->name,
			      sb->feature_incompat & ~KNOWN_INCOMPAT);
	/* Listings are read a block at a time: larger directory blocks
	 * would be read wrong, so they are refused until read. */
	if (sb->dirblkbits != 0)
		return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: EROFS directory "
			      "blocks 2^%u times the block size not "
			      "supported yet", img->name, sb->dirblkbits);
	/* 48-bit block counts: compared before the shift can wrap. */
	end = sb->blocks > img->file_size >> sb->blkszbits ? UINT64_MAX :
	      sb->blocks << sb->blkszbits;
	if (end > img->file_size || end < EROFS_SUPER_OFFSET + EROFS_SUPER_SIZE)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the image claims %llu "
			      "bytes but the file has %llu (truncated?)",
			      img->name, (unsigned long long)end,
			      (unsigned long long)img->file_size);
	if (((uint64_t)sb->meta_blkaddr << sb->blkszbits) >= end ||
	    ((uint64_t)sb->xattr_blkaddr << sb->blkszbits) > end)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: EROFS metadata or "
			      "xattr area outside the image", img->name);
	/* What else the kernel refuses at mount (erofs_super.c). */
	return rd_erofs_super_check(img, sb);
}

int rd_erofs_read(struct sqp_image *img, uint64_t pos, void *buf, size_t n,
		  const char *what)
{
	struct rd_erofs *e = rd_ero(img);

	if (pos < RD_EROFS_MBOX_POS)
		return rd_read_at(img, pos, buf, n, what);
	pos -= RD_EROFS_MBOX_POS;
	if (pos > e->mbox_len || n > e->mbox_len - pos)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: %s past the end of the "
			      "metabox", img->name, what);
	memcpy(buf, e->mbox + pos, n);
	return 0;
}

/* The window holding [pos, pos + n), or -1. */
static int window_of(const struct rd_erofs *e, uint64_t pos, size_t n)
{
	for (int i = 0; i < RD_EROFS_WINS; i++)
		if (e->wins[i].len != 0 && pos >= e->wins[i].pos &&
		    pos - e->wins[i].pos <= e->wins[i].len &&
		    n <= e->wins[i].len - (pos - e->wins[i].pos))
			return i;
	return -1;
}

int rd_erofs_meta_read(struct sqp_image *img, uint64_t pos, void *buf,
		       size_t n, const char *what)
{
	struct rd_erofs *e = rd_ero(img);
	/* From the 4 KiB page holding pos, as much as the image has. */
	uint64_t start = pos & ~(uint64_t)4095;
	size_t len = RD_EROFS_WIN;
	int w, ret;

	if (pos >= RD_EROFS_MBOX_POS)
		return rd_erofs_read(img, pos, buf, n, what);
	if ((w = window_of(e, pos, n)) < 0) {
		if (pos > img->file_size || pos - start + n > RD_EROFS_WIN)
			return rd_read_at(img, pos, buf, n, what);
		if (len > img->file_size - start)
			len = (size_t)(img->file_size - start);
		if (pos - start + n > len)
			return rd_read_at(img, pos, buf, n, what);
		/* the least recently used window (an empty one first) */
		w = 0;
		for (int i = 1; i < RD_EROFS_WINS; i++)
			if (e->wins[i].used < e->wins[w].used)
				w = i;
		e->wins[w].len = 0;
		if ((ret = rd_read_at(img, start, e->win[w], len, what)) != 0)
			return ret;
		e->wins[w].pos = start;
		e->wins[w].len = (uint32_t)len;
	}
	e->wins[w].used = ++e->win_tick;
	memcpy(buf, e->win[w] + (pos - e->wins[w].pos), n);
	return 0;
}

/* n bytes of the prefix table at at: in the packed inode when the
 * image has one (where mkfs.erofs puts it then), else in the image. */
static int prefix_read(struct sqp_image *img, uint64_t at, uint8_t *buf,
		       size_t n)
{
	if (rd_ero(img)->sb.packed_nid != 0)
		return rd_erofs_packed_read(img, buf, n, at);
	return rd_read_at(img, at, buf, n, "an xattr prefix");
}

/* The long xattr name prefixes, each made whole from its standard
 * prefix and infix, read where the superblock says. */
static int load_prefixes(struct sqp_image *img, struct rd_erofs *e)
{
	uint64_t at = (uint64_t)e->sb.xattr_prefix_start * 4;
	uint8_t raw[2 + 1 + PREFIX_MAX];
	const char *base;
	int ret;

	if (!(e->sb.feature_incompat & EROFS_IN_XATTR_PREFIX) ||
	    e->sb.xattr_prefix_count == 0)
		return 0;
	e->prefixes = calloc(e->sb.xattr_prefix_count, sizeof(*e->prefixes));
	if (e->prefixes == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	for (unsigned i = 0; i < e->sb.xattr_prefix_count; i++) {
		size_t len, blen;

		if ((ret = prefix_read(img, at, raw, 3)) != 0)
			return ret;
		len = sqp_get16(raw);
		base = erofs_xattr_prefix(raw[2]);
		if (len == 0 || base == NULL ||
		    (blen = strlen(base)) + len - 1 > PREFIX_MAX)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: long xattr "
				      "prefix %u is bad", img->name, i);
		if ((ret = prefix_read(img, at + 3, raw, len - 1)) != 0)
			return ret;
		if (memchr(raw, 0, len - 1) != NULL)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: long xattr "
				      "prefix %u holds a NUL", img->name, i);
		if ((e->prefixes[i] = malloc(blen + len)) == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		e->prefix_count = i + 1;
		memcpy(e->prefixes[i], base, blen);
		memcpy(e->prefixes[i] + blen, raw, len - 1);
		e->prefixes[i][blen + len - 1] = '\0';
		at = (at + 2 + len + 3) & ~3ull;
	}
	return 0;
}

uint32_t rd_erofs_codecs(const struct rd_erofs *e)
{
	/* Each algorithm as the codec id of its kind, SQP_EROFS_* order. */
	static const int ids[SQP_EROFS_ALG_MAX] = {
		SQP_CODEC_LZ4, SQP_CODEC_LZMA, SQP_CODEC_GZIP, SQP_CODEC_ZSTD,
	};
	uint32_t out = 0;

	if (!(e->sb.feature_incompat & EROFS_IN_COMPR_CFGS))
		return (e->sb.feature_incompat & EROFS_IN_ZERO_PADDING) ?
			1u << SQP_CODEC_LZ4 : 0;
	for (unsigned a = 0; a < SQP_EROFS_ALG_MAX; a++)
		if (e->sb.compr_algs & (1u << a))
			out |= 1u << ids[a];
	return out;
}

/* Device 1 from its own file (sqp_image_desc.device) of blocks
 * blocks, at its place in the image (mapped_blkaddr; after the image's
 * blocks where the table maps it nowhere), past the image's own end. */
static int place_device(struct sqp_image *img, struct rd_erofs *e, uint64_t blocks)
{
	uint64_t at, len = blocks << e->bits;

	if (e->dev_map[0] == 0)
		e->dev_map[0] = (uint32_t)e->sb.blocks;
	at = (uint64_t)e->dev_map[0] << e->bits;
	if (at < img->end || len > img->dev_size)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the device (%llu bytes) "
			      "does not hold the %llu bytes at block %u the device "
			      "table says", img->name, (unsigned long long)img->dev_size,
			      (unsigned long long)len, e->dev_map[0]);
	img->dev_at = at;
	img->file_size = at + img->dev_size;
	img->end = at + len;
	return 0;
}

/* The extra devices' places in the image; the image's end moves past
 * the mapped ones that the file holds whole. */
static int load_devices(struct sqp_image *img, struct rd_erofs *e, const uint8_t *raw)
{
	uint64_t at = (uint64_t)sqp_get16(raw + DEVT_SLOTOFF_AT) * DEVT_SLOT_SIZE, end;
	uint8_t slot[DEVT_SLOT_SIZE];
	int ret;

	if (!(e->sb.feature_incompat & EROFS_IN_DEVICE_TABLE) || e->sb.extra_devices == 0)
		return 0;
	e->dev_map = calloc(e->sb.extra_devices, sizeof(*e->dev_map));
	if (e->dev_map == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	e->dev_count = e->sb.extra_devices;
	for (unsigned i = 0; i < e->dev_count; i++, at += DEVT_SLOT_SIZE) {
		if ((ret = rd_read_at(img, at, slot, sizeof(slot), "the device table")) != 0)
			return ret;
		e->dev_map[i] = sqp_get32(slot + DEVT_MAPPED_AT);
		end = ((uint64_t)e->dev_map[i] + sqp_get32(slot + DEVT_BLOCKS_AT)) << e->bits;
		if (i == 0 && img->dev_fd >= 0) {
			if ((ret = place_device(img, e, sqp_get32(slot + DEVT_BLOCKS_AT))) != 0)
				return ret;
			continue;
		}
		/* Not wholly in the file: not appended (the index alone). */
		if (end > img->file_size)
			e->dev_map[i] = 0;
		else if (e->dev_map[i] != 0 && end > img->end)
			img->end = end;
	}
	return 0;
}

void rd_erofs_free(struct sqp_image *img)
{
	struct rd_erofs *e = rd_ero(img);

	if (e == NULL)
		return;
	for (unsigned i = 0; i < e->prefix_count; i++)
		free(e->prefixes[i]);
	free(e->prefixes);
	free(e->dblk);
	free(e->dev_map);
	rd_zfile_close(e->packed);
	rd_zfile_close(e->zdir);
	sqp_erofs_unz_free(e->unz);
	free(e->mbox);
	free(e);
}

/* The metabox's data, read whole through its inode (a regular file
 * of the area, as the kernel refuses one in the metabox itself); its
 * inodes then count after the area's. */
static int load_mbox(struct sqp_image *img, struct rd_erofs *e)
{
	struct rd_zfile *f = NULL;
	struct rd_inode ino;
	uint8_t raw[8];
	uint64_t nid;
	int ret;

	if (!(e->sb.feature_incompat & EROFS_IN_METABOX))
		return 0;
	if (e->sb.sb_extslots < 1)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: a metabox but no superblock "
			      "slot for it", img->name);
	if ((ret = rd_read_at(img, EROFS_SUPER_OFFSET + EROFS_SUPER_MBOX_NID, raw, 8,
			      "the superblock")) != 0)
		return ret;
	nid = sqp_get64(raw);
	if (nid >= e->nid_count)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the metabox inode (nid %llu) "
			      "outside the image", img->name, (unsigned long long)nid);
	if ((ret = rd_erofs_inode_read(img, nid, &ino)) != 0)
		return ret;
	ret = !S_ISREG(ino.mode) ? rd_err(img, SQP_ERR_CORRUPT, "%s: the metabox "
					  "inode is not a regular file", img->name) :
	      eri(&ino)->size > RD_EROFS_MBOX_MAX ||
	      e->nid_count + eri(&ino)->size / EROFS_SLOT_SIZE > UINT32_MAX - 1 ?
	      rd_err(img, SQP_ERR_LIMIT, "%s: a metabox of %llu bytes", img->name,
		     (unsigned long long)eri(&ino)->size) :
	      rd_zfile_open(img, eri(&ino), &f);
	rd_inode_free(&ino);
	if (ret == 0 && (e->mbox = malloc(f->e.size ? f->e.size : 1)) == NULL)
		ret = rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0 && (ret = rd_zfile_pread(img, f, e->mbox, f->e.size, 0)) == 0) {
		e->mbox_len = f->e.size;
		img->inode_count = (uint32_t)(e->nid_count + e->mbox_len / EROFS_SLOT_SIZE);
	}
	rd_zfile_close(f);
	return ret;
}

int rd_erofs_open(struct sqp_image *img)
{
	uint8_t raw[EROFS_SUPER_SIZE];
	struct rd_erofs *e;
	uint64_t end;
	int ret;

	if ((ret = rd_read_at(img, EROFS_SUPER_OFFSET, raw, sizeof(raw),
			      "the superblock")) != 0)
		return ret;
	if ((e = calloc(1, sizeof(*e))) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	img->back = e;
	erofs_super_decode(&e->sb, raw);
	e->build_nsec = sqp_get32(raw + BUILD_NSEC_AT);
	memcpy(e->uuid, raw + UUID_AT, sizeof(e->uuid));
	if ((ret = check_super(img, &e->sb)) != 0)
		return ret;
	e->bits = e->sb.blkszbits;
	e->bs = 1u << e->bits;
	e->meta = (uint64_t)e->sb.meta_blkaddr << e->bits;
	e->xattrs = (uint64_t)e->sb.xattr_blkaddr << e->bits;
	end = (uint64_t)e->sb.blocks << e->bits;
	e->nid_count = (end - e->meta) / EROFS_SLOT_SIZE;
	/* Inode numbers are nid + 1 in 32 bits. */
	if (e->nid_count > UINT32_MAX - 1)
		e->nid_count = UINT32_MAX - 1;
	img->inode_count = (uint32_t)e->nid_count;
	img->block_size = e->bs;
	img->end = end;
	if ((ret = load_devices(img, e, raw)) != 0 || (ret = load_mbox(img, e)) != 0)
		return ret;
	/* mkfs.erofs 1.9 puts the root in the metabox too: checked once
	 * the metabox is loaded. */
	if (!rd_erofs_nid_ok(e, e->sb.root_nid))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: root inode %llu outside "
			      "the image", img->name, (unsigned long long)e->sb.root_nid);
	img->root = e->sb.root_nid;
	if ((ret = rd_erofs_mount_inodes(img)) != 0)
		return ret;
	return load_prefixes(img, e);
}
