/* SPDX-License-Identifier: MIT */
/*
 * rd_erofs.h - the reader's EROFS back end: the core's struct sqp_image,
 * rd_inode and rd_dir filled from an EROFS image, reached by the core
 * only through rd_erofs_format (erofs_ops.c). Files: erofs_open.c
 * (superblock, detection, the metabox), erofs_inode.c (inodes, where a
 * file's blocks are), erofs_listing.c (directory blocks), erofs_xattr.c (inline and
 * shared xattrs), erofs_zmap.c and erofs_zread.c (compressed files),
 * blockrd_erofs.c (block reader jobs), erofs_ops.c (the table, layouts,
 * runs), erofs_check.c (the checker's EROFS part).
 *
 * An inode's reference is its nid and its number nid + 1 (one in the
 * metabox: after the area's, rd_erofs_ino), so the walk's one bit per
 * inode number works over the nids the image can hold.
 */
#ifndef SQP_READ_RD_EROFS_H
#define SQP_READ_RD_EROFS_H

#include "codec/erofs_unz.h"
#include "erofs/erofs_format.h"
#include "read/rd_image.h"

/* An inode's own part (rd_inode.own): where it is and how its data is
 * laid out. may_alias: the room is bytes of the core's record. */
struct __attribute__((may_alias)) rd_einode {
	uint64_t pos;               /* the inode's position in the image */
	uint32_t data_off;          /* from pos: inode and xattr bytes, where
				       inline data or a chunk index starts */
	uint16_t xattr_icount;
	uint8_t layout;             /* enum erofs_layout */
	uint32_t u;                 /* raw_blkaddr or chunk format */
	uint64_t size;
	uint16_t u_hi;              /* 48-bit layout: raw_blkaddr's bits 32.. */
};
_Static_assert(sizeof(struct rd_einode) <= RD_OWN_BYTES,
	       "an EROFS inode's part fits in rd_inode.own");

static inline struct rd_einode *eri(const struct rd_inode *ino)
{
	return (struct rd_einode *)(uintptr_t)ino->own;
}

/* Larger regular files are refused: a chunk index of a few bytes can
 * claim a hole of 2^43 bytes, and no file system holds 2^48. */
#define RD_EROFS_SIZE_MAX (1ull << 48)

/* The metabox (EROFS_IN_METABOX): its inode's data is read whole at
 * open (at most RD_EROFS_MBOX_MAX bytes); an inode in it (its nid has
 * EROFS_NID_MBOX) lies at RD_EROFS_MBOX_POS plus its place there, a
 * position no image reaches, which rd_erofs_meta_read and rd_erofs_read
 * take from that copy. Its inodes are numbered after the area's. */
#define RD_EROFS_MBOX_POS (1ull << 62)
#define RD_EROFS_MBOX_MAX (1ull << 30)

/* Bytes of metadata one read brings in (struct rd_erofs.win), and how
 * many such windows are kept. */
#define RD_EROFS_WIN (16u << 10)
#define RD_EROFS_WINS 4

struct rd_erofs {
	struct erofs_super sb;
	uint32_t build_nsec;    /* the build time's nanoseconds */
	uint8_t uuid[16];       /* the superblock's (all zero: none) */
	unsigned bits;          /* block size, log2 */
	uint32_t bs;
	uint64_t meta;          /* where nid 0 is */
	uint64_t xattrs;        /* where shared xattr id 0 is */
	uint64_t nid_count;     /* nids that lie inside the image */
	/* Extra devices (the device table): each one's first block in
	 * the image's flat address space (mapped_blkaddr), where the
	 * device is appended (a tar after its index, mkfs.erofs --tar=i);
	 * 0 when it is not mapped there. */
	uint32_t *dev_map;
	uint16_t dev_count;
	/* The compression records (EROFS_IN_COMPR_CFGS), read at open:
	 * each algorithm's history, the bytes its decoder keeps (lzma's
	 * dictionary, deflate's and zstd's window; 0: lz4, or no record),
	 * and lz4's most blocks of a pcluster (0: no record, one block). */
	uint32_t history[SQP_EROFS_ALG_MAX];
	uint16_t lz4_blocks;
	/* The directory block read last, whole (len 0: none): a listing's
	 * entries are parsed from it, read once. A flat listing's block
	 * is named by its position (dblk_dir UINT64_MAX); a compressed
	 * listing's (mkfs.erofs --zD) by its directory's inode position
	 * and its offset in the listing, decoded through zdir, the last
	 * compressed listing opened. */
	uint8_t *dblk;
	uint64_t dblk_pos, dblk_dir;
	uint32_t dblk_len;
	struct rd_zfile *zdir;
	/* Long xattr name prefixes, whole ("user.long."), NUL-ended. */
	char **prefixes;
	unsigned prefix_count;
	/* The packed inode, opened when a fragment is first read. */
	struct rd_zfile *packed;
	/* The decoders of the files opened on the image (rd_zfile),
	 * made on first use and kept until it closes: its files are read
	 * one thread at a time. Kept a file each, lzma's 8 MiB dictionary
	 * was mapped again for every file opened, and every page the
	 * decoder wrote faulted in fresh: sqpack-fuse reading big.tar's
	 * tree from an lzma image, 6,069 dictionaries and 300,000 page
	 * faults. */
	struct sqp_erofs_unz *unz;
	/* The metabox's data (NULL: none) and its bytes. */
	uint8_t *mbox;
	uint64_t mbox_len;
	/* The metadata read last (rd_erofs_meta_read): an inode, its
	 * xattrs, map header and cluster indexes lie together, and a
	 * walk meets the inodes of a directory one after the other, so
	 * one read serves them all (len 0: nothing held). Several
	 * windows, the least recently used replaced: a walk goes down
	 * into a subdirectory and back, and with one window the
	 * parent's listing and inodes were read again each time
	 * (small.tar's EROFS merge: 8,900 preads). */
	struct {
		uint64_t pos;
		uint32_t len;
		uint32_t used;  /* win_tick when last read from */
	} wins[RD_EROFS_WINS];
	uint32_t win_tick;
	uint8_t win[RD_EROFS_WINS][RD_EROFS_WIN];
};

/* A compressed file's map header and what follows from it. */
struct rd_zmap {
	struct erofs_zheader h;
	unsigned lcbits;        /* logical cluster size, log2 */
	uint64_t lclusters;     /* logical clusters the size needs */
	uint64_t index;         /* where the lcluster indexes start */
	uint64_t init4, n2b;    /* compact: 4-byte entries, then 2-byte */
	uint64_t tail_head;     /* the HEAD lcluster of the last extent */
	uint64_t idata;         /* where the inline pcluster is */
	/* Encoded extents (erofs_zenc.c; recsz 0: lcluster indexes): the
	 * record size, the records (16 and 32 bytes) and, for records of
	 * 4, where the pcluster of lcluster run_lcn starts, so that a walk
	 * sums each record once. */
	unsigned recsz;
	uint64_t extents;
	uint64_t run_lcn, run_pa;
};

/* The formats of an extent past the algorithms: stored raw, raw but
 * rotated in its block, in the packed inode. */
enum { RD_Z_RAW = SQP_EROFS_ALG_MAX, RD_Z_INTERLACED, RD_Z_FRAGMENT };

/* One extent (struct rd_extent): file bytes la .. la + llen decode from
 * plen bytes at pa (RD_Z_FRAGMENT: from the packed inode's bytes at pa,
 * a piece of at most RD_Z_FRAG_PIECE of the fragment). */
#define RD_Z_FRAG_PIECE (1u << 20)

/* A file read at any offset, compressed or not, one extent kept
 * decoded: for the browsing API, symlinks and fragments. */
struct rd_zfile {
	struct rd_einode e;
	struct rd_zmap z;
	struct rd_extent x;        /* decoded in out (llen 0: none) */
	uint8_t *in, *out;
	size_t in_cap, out_cap;
};

/* A listing's own part (rd_dir.own): the directory, the block being
 * read and its next entry. */
struct __attribute__((may_alias)) er_dir {
	struct rd_einode edir;
	uint64_t eblk;              /* the next block to read */
	uint64_t ephys;             /* where the current one is ... */
	uint32_t elen;              /* ... and its bytes */
	uint32_t eidx, ecount;
	unsigned edots;             /* "." (1) and ".." (2) met */
	uint32_t eparent;           /* what ".." names (its inode number) */
};
_Static_assert(sizeof(struct er_dir) <= RD_OWN_BYTES,
	       "an EROFS listing's part fits in rd_dir.own");

static inline struct er_dir *erd(const struct rd_dir *it)
{
	return (struct er_dir *)(uintptr_t)it->own;
}

extern const struct rd_format rd_erofs_format;

/* The back end's state. */
static inline struct rd_erofs *rd_ero(const struct sqp_image *img)
{
	return img->back;
}

/* Whether nid names an inode of the image, and its inode number:
 * nid + 1, or after the area's for one in the metabox. */
static inline int rd_erofs_nid_ok(const struct rd_erofs *e, uint64_t nid)
{
	return nid & EROFS_NID_MBOX ? (nid & ~EROFS_NID_MBOX) < e->mbox_len / EROFS_SLOT_SIZE :
	       nid < e->nid_count;
}

static inline uint32_t rd_erofs_ino(const struct rd_erofs *e, uint64_t nid)
{
	return (uint32_t)(nid & EROFS_NID_MBOX ? e->nid_count + (nid & ~EROFS_NID_MBOX) + 1 :
			  nid + 1);
}

/* Where the bytes that pos lies among end: the image's or the
 * metabox's. */
static inline uint64_t rd_erofs_end(const struct sqp_image *img, uint64_t pos)
{
	const struct rd_erofs *e = img->back;

	return pos >= RD_EROFS_MBOX_POS ? RD_EROFS_MBOX_POS + e->mbox_len : img->end;
}

/* The superblock at 1024 holds EROFS's magic: 1 yes, 0 no, < 0 error. */
int rd_erofs_probe(struct sqp_image *img);
/* Validate the superblock and set img up as an EROFS image. */
int rd_erofs_open(struct sqp_image *img);
void rd_erofs_free(struct sqp_image *img);
/* n bytes of metadata at pos, as rd_read_at, through the window of
 * struct rd_erofs (caller's thread only); rd_erofs_read without it.
 * Both take a position in the metabox from its copy. */
int rd_erofs_meta_read(struct sqp_image *img, uint64_t pos, void *buf,
		       size_t n, const char *what);
int rd_erofs_read(struct sqp_image *img, uint64_t pos, void *buf, size_t n,
		  const char *what);
/* The codecs the image may use, as sqp_image_info.codecs says. */
uint32_t rd_erofs_codecs(const struct rd_erofs *e);

int rd_erofs_inode_read(struct sqp_image *img, uint64_t nid,
			struct rd_inode *ino);
/* Where logical block lblk of the inode's data is (*phys, *len bytes of
 * it), or a hole (*phys UINT64_MAX); every mapped range lies inside
 * the image. Not for compressed layouts (erofs_zmap.c maps those). */
int rd_erofs_map(struct sqp_image *img, const struct rd_einode *e,
		 uint64_t lblk, uint64_t *phys, uint32_t *len);

static inline int rd_erofs_compressed(const struct rd_einode *e)
{
	return e->layout == EROFS_COMPRESSED_FULL ||
	       e->layout == EROFS_COMPRESSED_COMPACT;
}
/* Read e's map header (erofs_zmap.c). */
int rd_erofs_zmap_init(struct sqp_image *img, const struct rd_einode *e,
		       struct rd_zmap *z);
/* The extent holding byte off of the file, whole; its pcluster lies
 * in the image and within the format's bounds. */
int rd_erofs_zext(struct sqp_image *img, const struct rd_einode *e,
		  struct rd_zmap *z, uint64_t off, struct rd_extent *x);
/* A message on a compressed file's map into img (SQP_ERR_CORRUPT). */
int rd_erofs_zerr(struct sqp_image *img, const struct rd_einode *e,
		  const char *what);
/* erofs_zenc.c: encoded extents. zmap_init's part for a file that has
 * them (raw: its map header, at: where it is), and zext's. */
int rd_erofs_zenc_init(struct sqp_image *img, const struct rd_einode *e,
		       struct rd_zmap *z, const uint8_t *raw, uint64_t at);
int rd_erofs_zenc_find(struct sqp_image *img, const struct rd_einode *e,
		       struct rd_zmap *z, uint64_t off, struct rd_extent *x);
/* A fragment's extent x cut to the piece holding off (erofs_zmap.c). */
void rd_erofs_frag_piece(struct rd_extent *x, uint64_t off);
/* A compressed file's extents in order, each starting where the last
 * ended, from byte 0 to the file's end: the one walk of the block
 * reader's jobs and the checker's map walk. */
struct rd_zwalk {
	const struct rd_einode *e;  /* borrowed */
	struct rd_zmap z;
	uint64_t off;               /* where the next extent must start */
};
/* Read e's map header; the walk starts at byte 0. */
int rd_erofs_zwalk_init(struct sqp_image *img, const struct rd_einode *e,
			struct rd_zwalk *w);
/* The next extent into x: 1, 0 past the file's end, or a negative
 * error latched in img (an extent that does not start where the last
 * ended is corrupt: two extents overlap). */
int rd_erofs_zwalk_next(struct sqp_image *img, struct rd_zwalk *w,
			struct rd_extent *x);
/* x's llen bytes into out from its pcluster's plen bytes in in, with
 * the calling thread's decoders (unz: see sqp_erofs_unz); any thread (rd_erofs_zext refused what this build cannot decode). 0,
 * SQP_ERR_BAD_DATA, SQP_ERR_NOMEM, or SQP_ERR_UNSUPPORTED from a
 * libzstd too old to bound the window. */
int rd_erofs_zdecode(const struct rd_erofs *ero, const struct rd_extent *x,
		     const uint8_t *in, uint8_t *out, struct sqp_erofs_unz **unz);
/* A message for zdecode's failure into img (erofs_zmap.c). */
int rd_erofs_zfail(struct sqp_image *img, const struct rd_einode *e,
		   const struct rd_extent *x, int code);

/* erofs_zread.c: the reader of any layout, at any offset. */
int rd_zfile_open(struct sqp_image *img, const struct rd_einode *e,
		  struct rd_zfile **out);
void rd_zfile_close(struct rd_zfile *f);
int rd_zfile_pread(struct sqp_image *img, struct rd_zfile *f, uint8_t *dst,
		   size_t n, uint64_t off);
struct sqp_file_span;
int rd_erofs_file_span(struct sqp_file *pub, uint64_t off, uint64_t max,
		       struct sqp_file_span *s);
/* n bytes at off of the packed inode (a fragment's). */
int rd_erofs_packed_read(struct sqp_image *img, uint8_t *dst, size_t n,
			 uint64_t off);

int rd_erofs_dir_open(struct sqp_image *img, const struct rd_inode *dir,
		      struct rd_dir *it);
int rd_erofs_dir_next(struct sqp_image *img, struct rd_dir *it,
		      struct rd_dirent *e);
/* A directory's parent, as its ".." entry names it (0: none). */
int rd_erofs_parent(struct sqp_image *img, const struct rd_inode *dir,
		    uint32_t *parent);
int rd_erofs_xattrs(struct sqp_image *img, const struct rd_einode *e,
		    struct rd_xattrs *x);

/* blockrd_erofs.c: a file's block reader jobs. */
int rd_erofs_jobs(struct rd_blockrd *b, struct rd_bentry *e,
		  const struct rd_inode *ino);
/* erofs_ops.c: layouts. */
int rd_erofs_file_layout(struct sqp_image *img, const struct rd_inode *ino,
			 struct sqp_file_layout *o);
/* erofs_check.c: the checker's part. */
int rd_erofs_check_file(struct sqp_image *img, struct rd_checker *k,
			const char *path, const struct rd_inode *ino);
int rd_erofs_check_dir(struct sqp_image *img, struct rd_checker *k,
		       const char *path, const struct rd_inode *dir,
		       uint32_t parent);

#endif
