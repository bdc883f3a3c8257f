/* SPDX-License-Identifier: MIT */
/*
 * erofs_inode.c - EROFS inodes into the reader's struct rd_inode, and
 * where each block of an inode's data lies.
 *
 * An inode is addressed by its nid (its position / 32 past the
 * metadata area); only nids whose slot lies inside the image are read.
 * Sizes are bounded by what the type allows before anything is mapped:
 * a directory below 2 GiB, a symlink below 4 KiB, a file below 2^48.
 * The mapping checks every block it gives against the image's end, and
 * a hole is given as one run up to the end of its chunk (at most 1 GiB),
 * so a hostile sparse file costs work in proportion to its chunks, not
 * to its claimed size. Compressed layouts are mapped by extents
 * instead (erofs_zmap.c); a symlink of any layout is read through
 * erofs_zread.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/rd_erofs.h"
#include "sqpack/error.h"
#include "util/endian.h"

#define SYMLINK_MAX 4096u
#define DIR_MAX (1u << 31)
#define HOLE_RUN_MAX (1u << 30)
/* Nanoseconds past this are no time: read as 0. */
#define NSEC_PER_SEC 1000000000u

static int read_target(struct sqp_image *img, struct rd_inode *ino)
{
	uint64_t size = eri(ino)->size, phys;
	struct rd_zfile *f;
	uint32_t len;
	int ret;

	if (size == 0 || size >= SYMLINK_MAX)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: symlink of "
			      "%llu bytes", img->name, ino->inode_number,
			      (unsigned long long)size);
	if ((ino->target = malloc(size + 1)) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	/* A flat target in one block (inline: beside its inode) through
	 * the metadata windows, as the inode was read: a pread of its
	 * own for each symlink was most of a walk's reads. Any other
	 * layout, compressed too; a hole reads as NUL bytes. */
	if (!rd_erofs_compressed(eri(ino)) &&
	    rd_erofs_map(img, eri(ino), 0, &phys, &len) == 0 &&
	    phys != UINT64_MAX && len >= size) {
		ret = rd_erofs_meta_read(img, phys, ino->target, size, "a symlink");
	} else {
		if ((ret = rd_zfile_open(img, eri(ino), &f)) == 0)
			ret = rd_zfile_pread(img, f, (uint8_t *)ino->target, size, 0);
		rd_zfile_close(f);
	}
	if (ret != 0)
		return ret;
	ino->target[size] = '\0';
	if (strlen(ino->target) != size)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: a symlink "
			      "holding a NUL byte", img->name,
			      ino->inode_number);
	return 0;
}

/* The type-dependent fields, each size bounded for its type. A device
 * number is the kernel's encoding: 12 bits of major, 20 of minor. */
static int by_type(struct sqp_image *img, struct rd_inode *ino)
{
	uint64_t size = eri(ino)->size;
	uint32_t rdev = eri(ino)->u;

	switch (ino->mode & S_IFMT) {
	case S_IFREG:
		if (size > RD_EROFS_SIZE_MAX)
			break;
		ino->size = size;
		ino->block_count = (size + rd_ero(img)->bs - 1) >>
				   rd_ero(img)->bits;
		return 0;
	case S_IFDIR:
		if (size > DIR_MAX)
			break;
		ino->size = size;
		return 0;
	case S_IFLNK:
		ino->size = size;
		return read_target(img, ino);
	case S_IFBLK:
	case S_IFCHR:
		ino->dev_major = (rdev & 0xFFF00u) >> 8;
		ino->dev_minor = (rdev & 0xFFu) | ((rdev >> 12) & 0xFFF00u);
		return 0;
	default:
		return 0;
	}
	return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: size %llu too "
		      "large for its type", img->name, ino->inode_number,
		      (unsigned long long)size);
}

int rd_erofs_inode_read(struct sqp_image *img, uint64_t nid,
			struct rd_inode *ino)
{
	struct rd_erofs *ero = rd_ero(img);
	struct erofs_inode di;
	uint8_t buf[64];
	uint64_t pos;
	unsigned isize;
	int ret;

	memset(ino, 0, sizeof(*ino));
	if (!rd_erofs_nid_ok(ero, nid))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: nid %llu out of "
			      "range", img->name, (unsigned long long)nid);
	pos = nid & EROFS_NID_MBOX ? RD_EROFS_MBOX_POS + (nid & ~EROFS_NID_MBOX) *
	      EROFS_SLOT_SIZE : ero->meta + nid * EROFS_SLOT_SIZE;
	if ((ret = rd_erofs_meta_read(img, pos, buf, 32,
				      "an inode")) != 0)
		return ret;
	if ((isize = erofs_inode_size(buf)) == 0)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: unknown "
			      "format 0x%x", img->name, (unsigned long long)nid + 1,
			      sqp_get16(buf));
	if (isize > 32 &&
	    (ret = rd_erofs_meta_read(img, pos + 32, buf + 32, 32,
				       "an inode")) != 0)
		return ret;
	erofs_inode_decode(&di, buf);
	if (rd_type_of(di.mode) == 0 || di.layout > EROFS_CHUNK_BASED)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: unknown "
			      "type or data layout", img->name,
			      (unsigned long long)nid + 1);
	ino->mode = di.mode;
	ino->uid = di.uid;
	ino->gid = di.gid;
	/* Seconds are signed, as the kernel reads them (time64_t): before
	 * 1970 is negative. A compact inode's count from the build time,
	 * the 48-bit layout's epoch base (before it, they are 0: the build
	 * time), with its nanoseconds. */
	if (!di.has_mtime) {
		di.mtime += ero->sb.build_time;
		di.mtime_nsec = ero->build_nsec;
	}
	ino->mtime = (int64_t)di.mtime;
	ino->mtime_nsec = di.mtime_nsec < NSEC_PER_SEC ? di.mtime_nsec : 0;
	ino->inode_number = rd_erofs_ino(ero, nid);
	ino->nlink = di.nlink;
	ino->has_xattrs = di.xattr_icount != 0;
	*eri(ino) = (struct rd_einode){ pos, isize +
		erofs_xattr_ibody_size(di.xattr_icount), di.xattr_icount,
		di.layout, di.u, di.size, di.blk_hi };
	if (eri(ino)->data_off > rd_erofs_end(img, pos) - pos)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: xattrs "
			      "past the end of the image", img->name,
			      (unsigned long long)nid + 1);
	if ((ret = by_type(img, ino)) != 0)
		rd_inode_free(ino);
	return ret;
}

/* An inode's number (nid + 1) for messages. */
static unsigned long long inum(const struct sqp_image *img,
			       const struct rd_einode *e)
{
	return (e->pos - rd_ero(img)->meta) / EROFS_SLOT_SIZE + 1;
}

/* The block address of the chunk holding block lblk, with the number
 * of blocks per chunk. */
static int chunk_addr(struct sqp_image *img, const struct rd_einode *e,
		      uint64_t lblk, uint64_t *addr, uint64_t *per_chunk)
{
	struct rd_erofs *ero = rd_ero(img);
	unsigned extra = e->u & EROFS_CHUNK_BLKBITS_MASK;
	uint64_t chunk = lblk >> extra, at = e->pos + e->data_off;
	uint8_t raw[8];
	unsigned dev;
	int ret;

	if ((e->u & 0xFFFFu) & ~(EROFS_CHUNK_BLKBITS_MASK | EROFS_CHUNK_INDEXES |
				 EROFS_CHUNK_48BIT) ||
	    ero->bits + extra > 48)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: bad "
			      "chunk format 0x%x", img->name,
			      inum(img, e), e->u & 0xFFFFu);
	*per_chunk = 1ull << extra;
	if (e->u & EROFS_CHUNK_INDEXES) {
		at = ((at + 7) & ~7ull) + chunk * 8;
		if ((ret = rd_erofs_meta_read(img, at, raw, 8,
					      "a chunk index")) != 0)
			return ret;
		*addr = sqp_get32(raw + 4);
		dev = sqp_get16(raw + 2);
		/* A hole is all ones in the bits the format has. */
		if (*addr == EROFS_NULL_ADDR && (!(e->u & EROFS_CHUNK_48BIT) ||
						sqp_get16(raw) == 0xFFFFu))
			return 0;
		if (e->u & EROFS_CHUNK_48BIT)
			*addr |= (uint64_t)sqp_get16(raw) << 32;
		if (dev == 0)
			return 0;
		/* On an extra device: where the image holds it. */
		if (dev > ero->dev_count || ero->dev_map[dev - 1] == 0)
			return rd_err(img, SQP_ERR_UNSUPPORTED, "%s: inode %llu: a "
				      "chunk on extra device %u, which is "
				      "neither appended to the image nor given", img->name,
				      inum(img, e), dev);
		if (*addr + ero->dev_map[dev - 1] >= EROFS_NULL_ADDR &&
		    !(e->u & EROFS_CHUNK_48BIT))
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: a "
				      "chunk past the 32-bit block range",
				      img->name, inum(img, e));
		*addr += ero->dev_map[dev - 1];
		return 0;
	}
	if ((ret = rd_erofs_meta_read(img, at + chunk * 4, raw, 4,
				      "a chunk map")) != 0)
		return ret;
	*addr = sqp_get32(raw);
	return 0;
}

int rd_erofs_map(struct sqp_image *img, const struct rd_einode *e,
		 uint64_t off, uint64_t *phys, uint32_t *len)
{
	struct rd_erofs *ero = rd_ero(img);
	uint64_t lblk = off >> ero->bits, rest = e->size - off;
	uint64_t last = (e->size - 1) >> ero->bits, per_chunk = 1, run;
	uint64_t addr = (uint64_t)e->u_hi << 32 | e->u;
	int ret;

	if (off >= e->size || (off & (ero->bs - 1)) != 0)
		return rd_err(img, SQP_ERR_INTERNAL, "%s: mapping offset %llu "
			      "of %llu", img->name, (unsigned long long)off,
			      (unsigned long long)e->size);
	*len = rest < ero->bs ? (uint32_t)rest : ero->bs;
	switch (e->layout) {
	case EROFS_FLAT_INLINE:
		if (lblk == last) {
			*phys = e->pos + e->data_off;
			if ((*phys & (ero->bs - 1)) + *len > ero->bs)
				return rd_err(img, SQP_ERR_CORRUPT, "%s: inode "
					      "%llu: inline data crosses a block",
					      img->name,
					      inum(img, e));
			break;
		}
		*phys = (addr + lblk) << ero->bits;
		break;
	case EROFS_FLAT_PLAIN:
		*phys = (addr + lblk) << ero->bits;
		break;
	case EROFS_CHUNK_BASED:
		if ((ret = chunk_addr(img, e, lblk, &addr, &per_chunk)) != 0)
			return ret;
		if (addr == EROFS_NULL_ADDR) {
			run = (per_chunk - (lblk & (per_chunk - 1))) << ero->bits;
			run = run < rest ? run : rest;
			*len = run < HOLE_RUN_MAX ? (uint32_t)run : HOLE_RUN_MAX;
			*phys = UINT64_MAX;
			return 0;
		}
		*phys = (addr + (lblk & (per_chunk - 1))) << ero->bits;
		break;
	case EROFS_COMPRESSED_FULL:
	case EROFS_COMPRESSED_COMPACT:
		/* Compressed data is read by extents (erofs_zmap.c). */
		return rd_err(img, SQP_ERR_INTERNAL, "%s: inode %llu: a "
			      "compressed file mapped by blocks", img->name,
			      inum(img, e));
	default:
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: unknown "
			      "data layout %u", img->name,
			      inum(img, e), e->layout);
	}
	if (*phys > rd_erofs_end(img, *phys) || *len > rd_erofs_end(img, *phys) - *phys)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %llu: block "
			      "%llu lies outside the image", img->name,
			      inum(img, e),
			      (unsigned long long)lblk);
	return 0;
}
