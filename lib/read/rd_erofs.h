/* SPDX-License-Identifier: MIT */
/*
 * rd_erofs.h - the reader's EROFS side: the same struct sqp_image,
 * rd_inode and rd_dir as SquashFS's, filled from an EROFS image, so the
 * walk, the browsing API and the conversions run unchanged on top.
 * Files: erofs_open.c (superblock, detection), erofs_inode.c (inodes,
 * where a file's blocks are), erofs_dir.c (directory blocks),
 * erofs_xattr.c (inline and shared xattrs).
 *
 * The shape, for what comes later: the SquashFS entry points (rd_inode_
 * read, rd_dir_open, rd_dir_next, rd_xattrs_of, file and block reading)
 * test img->ero once and hand EROFS images to these functions; nothing
 * on the SquashFS path changes. An inode's reference is its nid and its
 * number nid + 1, so the walk's one bit per inode number works as it
 * does for SquashFS, over the nids the image can hold.
 */
#ifndef SQP_READ_RD_EROFS_H
#define SQP_READ_RD_EROFS_H

#include "format/erofs_format.h"
#include "read/rd_image.h"

/* Larger regular files are refused: a chunk index of a few bytes can
 * claim a hole of 2^43 bytes, and no file system holds 2^48. */
#define RD_EROFS_SIZE_MAX (1ull << 48)

struct rd_erofs {
	struct erofs_super sb;
	unsigned bits;          /* block size, log2 */
	uint32_t bs;
	uint64_t meta;          /* where nid 0 is */
	uint64_t xattrs;        /* where shared xattr id 0 is */
	uint64_t nid_count;     /* nids that lie inside the image */
	/* The directory block read last, whole (len 0: none): a listing's
	 * entries are parsed from it, read once. */
	uint8_t *dblk;
	uint64_t dblk_pos;
	uint32_t dblk_len;
	/* Long xattr name prefixes, whole ("user.long."), NUL-ended. */
	char **prefixes;
	unsigned prefix_count;
};

/* The superblock at 1024 holds EROFS's magic (a SquashFS image's
 * check failed first): 1 yes, 0 no, < 0 error. */
int rd_erofs_probe(struct sqp_image *img);
/* Validate the superblock and set img up as an EROFS image. */
int rd_erofs_open(struct sqp_image *img);
void rd_erofs_free(struct rd_erofs *e);

int rd_erofs_inode_read(struct sqp_image *img, uint64_t nid,
			struct rd_inode *ino);
/* Where logical block lblk of the inode's data is (*phys, *len bytes of
 * it), or a hole (*phys UINT64_MAX); every mapped range lies inside
 * the image. Compressed layouts are refused here. */
int rd_erofs_map(struct sqp_image *img, const struct rd_einode *e,
		 uint64_t lblk, uint64_t *phys, uint32_t *len);

int rd_erofs_dir_open(struct sqp_image *img, const struct rd_inode *dir,
		      struct rd_dir *it);
int rd_erofs_dir_next(struct sqp_image *img, struct rd_dir *it,
		      struct rd_dirent *e);
/* A directory's parent, as its ".." entry names it (0: none). */
int rd_erofs_parent(struct sqp_image *img, const struct rd_inode *dir,
		    uint32_t *parent);
int rd_erofs_xattrs(struct sqp_image *img, const struct rd_einode *e,
		    struct rd_xattrs *x);

#endif
