/* SPDX-License-Identifier: MIT */
/*
 * rd_sqfs.h - the reader's SquashFS back end: what its files give one
 * another. The core reaches it only through rd_sqfs_format (the table of
 * sqfs_back.c), chosen when an image with SquashFS's magic is opened.
 * Files: sqfs_open.c (superblock, codec, tables), image.c (metadata
 * cache, table entries), inode.c (inodes, listings, xattrs), file.c
 * (a file's bytes), blockrd_sqfs.c and sqfs_share.c (block reader
 * jobs, the plan of shared blocks), sqfs_layout.c (layouts), sqfs_back.c (the table, lookups, runs,
 * stored blocks), sqfs_check.c (the checker's SquashFS part).
 */
#ifndef SQP_READ_RD_SQFS_H
#define SQP_READ_RD_SQFS_H

#include "read/rd_image.h"
#include "squashfs/sqfs_format.h"

#define META_SLOTS 256

struct meta_slot {
	uint64_t pos;      /* absolute position of the block header */
	uint64_t next;     /* absolute position of the following block */
	uint32_t len;      /* uncompressed bytes */
	int valid;
	int recent;        /* the way of its set used last */
	uint8_t data[SQFS_META_SIZE];
};

/* Fragment blocks sqp_file keeps decompressed: tails of one directory
 * often lie in several blocks (packed in another order than sorted). */
#define RD_FRAG_SLOTS 8

/* The back end's state (img->back). */
struct rd_sqfs {
	struct sqfs_super sb;
	struct sqp_compressor *codec;  /* the calling thread's */
	struct meta_slot *cache;
	uint8_t *cbuf;                 /* one compressed metadata block */
	/* file.c: one compressed data block, which every file of the
	 * image reads through (an image is one thread's): allocated on
	 * first use, not a block a file opened. */
	uint8_t *dbuf;
	uint32_t *ids;
	uint64_t *frag_locs;
	size_t frag_loc_count;
	struct sqfs_xattr_table xattr_hdr;
	uint64_t *xattr_locs;
	size_t xattr_loc_count;
	uint64_t *export_locs;         /* NULL: no export table */
	size_t export_loc_count;
	/* file.c: decompressed fragment blocks, for the tails that share
	 * one (len 0: empty; buf allocated on first use). */
	struct rd_frag_slot {
		uint8_t *buf;
		uint32_t index, len;
		uint64_t used;
	} frags[RD_FRAG_SLOTS];
	uint64_t frag_clock;
};

static inline struct rd_sqfs *sq(const struct sqp_image *img)
{
	return img->back;
}

/* A position in a metadata table: block (relative to the table start)
 * and offset into its uncompressed data; advanced by meta_read. */
struct meta_pos {
	uint64_t table;
	uint64_t block;
	uint32_t offset;
};

int meta_read(struct sqp_image *img, struct meta_pos *pos, void *dst,
	      size_t n);

/* An inode's own part (rd_inode.own): its record, and where a file's
 * block list or an extended directory's index starts. may_alias: the
 * room is bytes of the core's record. */
struct __attribute__((may_alias)) sq_inode {
	struct sqfs_inode raw;
	struct meta_pos blocks;
};
_Static_assert(sizeof(struct sq_inode) <= RD_OWN_BYTES,
	       "a SquashFS inode's part fits in rd_inode.own");

static inline struct sq_inode *sqi(const struct rd_inode *ino)
{
	return (struct sq_inode *)(uintptr_t)ino->own;
}

/* A listing's own part (rd_dir.own). */
struct __attribute__((may_alias)) sq_dir {
	struct meta_pos pos;
	uint64_t left;              /* listing bytes not yet read */
	uint32_t run_left;          /* entries left after the last header */
	struct sqfs_dir_header hdr;
};
_Static_assert(sizeof(struct sq_dir) <= RD_OWN_BYTES,
	       "a SquashFS listing's part fits in rd_dir.own");

static inline struct sq_dir *sqd(const struct rd_dir *it)
{
	return (struct sq_dir *)(uintptr_t)it->own;
}

extern const struct rd_format rd_sqfs_format;

/* The superblock at 0 holds SquashFS's magic: 1 yes, 0 no. */
int rd_sqfs_probe(struct sqp_image *img);
/* Validate the superblock, set up the codec, load the tables. */
int rd_sqfs_open(struct sqp_image *img);
void rd_sqfs_free(struct sqp_image *img);

int rd_sqfs_inode_read(struct sqp_image *img, uint64_t ref,
		       struct rd_inode *ino);
int rd_sqfs_dir_open(struct sqp_image *img, const struct rd_inode *dir,
		     struct rd_dir *it);
int rd_sqfs_dir_next(struct sqp_image *img, struct rd_dir *it,
		     struct rd_dirent *e);
int rd_sqfs_xattrs(struct sqp_image *img, const struct rd_inode *ino,
		   struct rd_xattrs *x);
/* The xattrs of xattr index idx (SQFS_NO_XATTR: none) into x. */
int rd_xattrs_read(struct sqp_image *img, uint32_t idx, struct rd_xattrs *x);

/* image.c: table entries. */
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

int rd_sqfs_file_open(struct sqp_file *f);
int rd_sqfs_file_pread(struct sqp_file *f, uint8_t *dst, size_t n,
		       uint64_t off);
void rd_sqfs_file_close(struct sqp_file *f);
int rd_sqfs_file_span(struct sqp_file *f, uint64_t off, uint64_t max,
		      struct sqp_file_span *s);
int rd_sqfs_fragment(struct sqp_image *img, uint32_t index, uint8_t *buf,
		     size_t cap, size_t *len);

/* sqfs_layout.c */
int rd_sqfs_layout(struct sqp_image *img, struct sqp_image_layout *o);
int rd_sqfs_file_layout(struct sqp_image *img, const struct rd_inode *ino,
			struct sqp_file_layout *o);

/* blockrd_sqfs.c, sqfs_share.c */
int rd_sqfs_jobs(struct rd_blockrd *b, struct rd_bentry *e,
		 const struct rd_inode *ino);
int rd_sqfs_share_plan(struct rd_blockrd *b);

/* sqfs_check.c */
int rd_sqfs_check_file(struct sqp_image *img, struct rd_checker *k,
		       const char *path, const struct rd_inode *ino);
int rd_sqfs_check_dir(struct sqp_image *img, struct rd_checker *k,
		      const char *path, const struct rd_inode *dir,
		      uint32_t parent);
int rd_sqfs_check_index(struct sqp_image *img, struct rd_checker *k,
			const char *path, const struct rd_inode *dir);
int rd_sqfs_check_tables(struct sqp_image *img, struct rd_checker *k);

#endif
