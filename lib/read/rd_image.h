/* SPDX-License-Identifier: MIT */
/*
 * rd_image.h - the image reader's internals: the open image, its
 * metadata-block cache, tables, inodes and directories. Files:
 * image.c (tables, metadata cache), image_open.c (superblock checks),
 * inode.c (inodes, directories, xattrs), lookup.c (indexed name lookup,
 * paths, export table), browse.c and file.c (the public browsing API),
 * blockrd.c (file data decompressed on a pool, delivered in order).
 * EROFS images fill the same structures (rd_erofs.h, erofs_*.c).
 */
#ifndef SQP_READ_RD_IMAGE_H
#define SQP_READ_RD_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "squashfs/sqfs_format.h"
#include "sqpack/codec.h"
#include "sqpack/reader.h"
#include "util/errbuf.h"

#define META_SLOTS 256

struct meta_slot {
	uint64_t pos;      /* absolute position of the block header */
	uint64_t next;     /* absolute position of the following block */
	uint32_t len;      /* uncompressed bytes */
	int valid;
	int recent;        /* the way of its set used last */
	uint8_t data[SQFS_META_SIZE];
};

/* A set of xattrs as rd_xattrs_read() fills it: items point into blob;
 * both grow as needed and are reused from one read to the next. */
struct rd_xattrs {
	struct sqp_xattr *items;
	size_t count, cap;
	uint8_t *blob;
	size_t blob_len, blob_cap;
};

/* Fragment blocks sqp_file keeps decompressed: tails of one directory
 * often lie in several blocks (packed in another order than sorted). */
#define RD_FRAG_SLOTS 8

struct sqp_image {
	struct sqp_errbuf err;
	int fd;
	uint64_t base;          /* where the image starts in fd */
	const char *name;
	sqp_warn_fn warn;
	void *warn_user;
	uint64_t file_size;
	struct sqfs_super sb;
	struct sqp_codec_config codec_cfg;
	struct sqp_compressor *codec;  /* the calling thread's */
	struct meta_slot *cache;
	uint8_t *cbuf;                 /* one compressed metadata block */
	uint32_t *ids;
	uint64_t *frag_locs;
	size_t frag_loc_count;
	struct sqfs_xattr_table xattr_hdr;
	uint64_t *xattr_locs;
	size_t xattr_loc_count;
	uint64_t *export_locs;         /* NULL: no export table */
	size_t export_loc_count;
	struct rd_xattrs xscratch;     /* what sqp_image_xattrs() returns */
	/* file.c: decompressed fragment blocks, for the tails that share
	 * one (len 0: empty; buf allocated on first use). */
	struct rd_frag_slot {
		uint8_t *buf;
		uint32_t index, len;
		uint64_t used;
	} frags[RD_FRAG_SLOTS];
	uint64_t frag_clock;
	struct rd_erofs *ero;          /* an EROFS image; NULL: SquashFS */
};

/* A position in a metadata table: block (relative to the table start)
 * and offset into its uncompressed data; advanced by meta_read. */
struct meta_pos {
	uint64_t table;
	uint64_t block;
	uint32_t offset;
};

int meta_read(struct sqp_image *img, struct meta_pos *pos, void *dst,
	      size_t n);

/* An EROFS inode: where it is and how its data is laid out. */
struct rd_einode {
	uint64_t pos;               /* the inode's position in the image */
	uint32_t data_off;          /* from pos: inode and xattr bytes, where
				       inline data or a chunk index starts */
	uint16_t xattr_icount;
	uint8_t layout;             /* enum erofs_layout */
	uint32_t u;                 /* raw_blkaddr or chunk format */
	uint64_t size;
};

/* A decoded inode with what the reader needs of it. For EROFS, raw holds
 * the fields both formats have (type, inode_number, nlink, sizes, rdev,
 * xattr_idx 0 or SQFS_NO_XATTR) and e the rest. */
struct rd_inode {
	struct sqfs_inode raw;
	uint32_t mode;              /* full st_mode */
	uint32_t uid, gid;
	struct meta_pos blocks;     /* files: where the block list starts;
				       extended dirs: the directory index */
	uint64_t block_count;
	char *target;               /* symlinks: owned, NUL-ended */
	int64_t mtime;              /* both formats: EROFS's is 64-bit */
	struct rd_einode e;         /* EROFS only */
};

int rd_inode_read(struct sqp_image *img, uint64_t ref, struct rd_inode *ino);
/* sqp_image_stat into the library's own, whole struct (browse.c). */
int rd_stat(struct sqp_image *img, uint64_t ref, struct sqp_inode_info *info);
void rd_inode_free(struct rd_inode *ino);

/* One directory entry, as iterated. */
struct rd_dirent {
	char name[SQFS_NAME_MAX + 1];
	uint64_t inode_ref;
	uint32_t inode_number;
	uint16_t type;
};

struct rd_dir {
	struct meta_pos pos;
	uint64_t left;              /* listing bytes not yet read */
	uint32_t run_left;          /* entries left after the last header */
	uint32_t inode_number;      /* the directory's, for messages */
	struct sqfs_dir_header hdr;
	/* The name before, "" at the start: names must strictly increase
	 * (strcmp), which refuses unsorted listings and duplicates. */
	char prev[SQFS_NAME_MAX + 1];
	/* EROFS: the directory, the block being read and its next entry. */
	struct rd_einode edir;
	uint64_t eblk;              /* the next block to read */
	uint64_t ephys;             /* where the current one is ... */
	uint32_t elen;              /* ... and its bytes */
	uint32_t eidx, ecount;
	unsigned edots;             /* "." (1) and ".." (2) met */
	uint32_t eparent;           /* what ".." names (its inode number) */
};

int rd_dir_open(struct sqp_image *img, const struct rd_inode *dir,
		struct rd_dir *it);
/* The rules every listing's names follow, in both formats: no '/', not
 * "." or ".." (EROFS's dot entries are taken before), each after the
 * one before it (it->prev, which this updates). 0 or a latched error. */
int rd_dir_name(struct sqp_image *img, struct rd_dir *it, const char *name);
/* 1 and *e filled, 0 at the end, < 0 for a corrupt listing: a bad
 * header, a name that is empty, ".", ".." or holds '/' or NUL, or a name
 * not after the one before it (unsorted, or the same name twice: the
 * shape of CVE-2021-41072, a symlink then a directory of one name). */
int rd_dir_next(struct sqp_image *img, struct rd_dir *it,
		struct rd_dirent *e);

/* The xattrs of xattr index idx (SQFS_NO_XATTR: none) into x. */
int rd_xattrs_read(struct sqp_image *img, uint32_t idx, struct rd_xattrs *x);
void rd_xattrs_free(struct rd_xattrs *x);
/* The xattrs of an inode, of either format. */
int rd_xattrs_of(struct sqp_image *img, const struct rd_inode *ino,
		 struct rd_xattrs *x);

/* lookup.c: the entry called name in directory dir (1 found, 0 not,
 * < 0 error), searched from its index when it has one; the inode
 * reference of a path (SQP_ERR_NOT_FOUND does not latch). */
int rd_dir_find(struct sqp_image *img, const struct rd_inode *dir,
		const char *name, size_t len, struct rd_dirent *e);
int rd_path_lookup(struct sqp_image *img, const char *path, uint64_t *ref);
/* lookup.c: inode number n (1-based) through the export table. */
int rd_export_ref(struct sqp_image *img, uint32_t n, uint64_t *ref);

int rd_xattr_id(struct sqp_image *img, uint32_t idx, struct sqfs_xattr_id *x);
int rd_fragment(struct sqp_image *img, uint32_t index,
		struct sqfs_frag_entry *f);

/* image.c: a lookup table's block positions (u64 each, at loc_pos) for
 * count entries of size bytes; checked against the file. */
int rd_read_locations(struct sqp_image *img, uint64_t loc_pos, uint64_t count,
		      unsigned size, uint64_t **out, size_t *out_count,
		      const char *what);
/* image.c: entry idx (size bytes) of a lookup table into dst. */
int rd_table_entry(struct sqp_image *img, const uint64_t *locs,
		   size_t loc_count, uint64_t idx, unsigned size, void *dst,
		   const char *what);
/* image.c: the positioned read every table access goes through. */
int rd_read_at(struct sqp_image *img, uint64_t off, void *buf, size_t len,
	       const char *what);

int rd_err(struct sqp_image *img, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Forget the latched error (the checker reports it and goes on; the
 * metadata cache only ever holds blocks that were read whole). */
void rd_err_clear(struct sqp_image *img);

#endif
