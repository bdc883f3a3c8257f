/* SPDX-License-Identifier: MIT */
/*
 * rd_image.h - the reader's neutral core: the open image, inodes,
 * listings and xattrs as records that belong to no format, and the
 * table a format's back end fills them through. Files: records.c (the
 * calls on records, errors, positioned reads), image_open.c (the image
 * file), lookup.c (names, paths, numbers), browse.c and image_info.c
 * (the public browsing API), walk.c (the tree), blockrd.c (file data
 * decompressed on a pool, delivered in order).
 *
 * The records are format-neutral (64-bit times with nanoseconds, 32-bit
 * owners and device numbers, 64-bit sizes); each back end maps its
 * on-disk records to them and keeps what only it reads in their own
 * room. It is reached only through its struct rd_format, chosen once
 * when the image is opened (by whoever knows the back ends: the core
 * never names one). Nothing outside a back end asks which format an
 * image is.
 */
#ifndef SQP_READ_RD_IMAGE_H
#define SQP_READ_RD_IMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "sqpack/codec.h"
#include "sqpack/reader.h"
#include "util/errbuf.h"

/* Names in a listing are 1 to this many bytes. */
#define RD_NAME_MAX 256

/* Room for a back end's own part of an inode or a listing (where it is
 * and how it is laid out), read by that back end alone: rd_sqfs.h and
 * rd_erofs.h each check that theirs fits. */
#define RD_OWN_BYTES 128

/* A set of xattrs as a back end fills it: items point into blob; both
 * grow as needed and are reused from one read to the next. */
struct rd_xattrs {
	struct sqp_xattr *items;
	size_t count, cap;
	uint8_t *blob;
	size_t blob_len, blob_cap;
};

struct rd_format;

/* One piece of a file's data, in file order: len bytes at off, a hole
 * (zeros) or data. */
typedef int (*rd_piece_fn)(void *user, uint64_t off, uint64_t len,
			   int hole);

struct sqp_image {
	struct sqp_errbuf err;
	int fd;
	uint64_t base;          /* where the image starts in fd */
	const char *name;
	sqp_warn_fn warn;
	void *warn_user;
	uint64_t file_size;
	/* The extra device's file (sqp_image_desc.device; -1: none): it
	 * holds the image's bytes from dev_at on (UINT64_MAX until the
	 * back end's open places it; file_size then counts to its end). */
	int dev_fd;
	uint64_t dev_at, dev_size;
	/* What every format has, set by its back end's open. */
	const struct rd_format *fmt;   /* the back end, chosen at open */
	void *back;                    /* its state (fmt->destroy frees it) */
	uint64_t root;                 /* the root inode's reference */
	uint32_t inode_count;          /* inode numbers are 1..inode_count */
	uint32_t block_size;           /* the data block size */
	uint64_t end;                  /* bytes the image holds (<= file_size) */
	/* The codec every data block of the image uses, where the format
	 * has one (the block reader's workers decode with it); else the
	 * back end decodes (rd_format.own_codec). */
	struct sqp_codec_config codec_cfg;
	struct rd_xattrs xscratch;     /* what sqp_image_xattrs() returns */
};

/* A decoded inode: the neutral part every reader of it uses, then each
 * back end's own (read by that back end alone). */
struct rd_inode {
	uint32_t inode_number;      /* 1..img->inode_count */
	uint32_t nlink;
	uint32_t mode;              /* full st_mode */
	uint32_t uid, gid;
	int64_t mtime;              /* seconds, before 1970 negative */
	uint32_t mtime_nsec;        /* 0..999999999 */
	uint64_t size;              /* files: bytes; symlinks: target bytes;
				       directories: listing bytes */
	uint32_t dev_major, dev_minor;  /* devices */
	int has_xattrs;
	char *target;               /* symlinks: owned, NUL-ended */
	/* Files: the blocks their data is read in, a tail that shares a
	 * block with other files' not counted (0: nothing of its own). */
	uint64_t block_count;
	/* The back end's own part. */
	_Alignas(8) unsigned char own[RD_OWN_BYTES];
};

int rd_inode_read(struct sqp_image *img, uint64_t ref, struct rd_inode *ino);
/* A regular file's data and holes in file order, to its size, each
 * piece to fn (pieces of one kind may follow each other); 0, fn's
 * nonzero return, or an error latched in img. */
int rd_file_pieces(struct sqp_image *img, const struct rd_inode *ino,
		   rd_piece_fn fn, void *user);
/* sqp_image_stat into the library's own, whole struct (browse.c). */
int rd_stat(struct sqp_image *img, uint64_t ref, struct sqp_inode_info *info);
void rd_inode_free(struct rd_inode *ino);

/* A listing entry's type as the core's records number them (rd_dirent's
 * type; SquashFS's basic types happen to be the same numbers). */
enum rd_type {
	RD_T_DIR = 1, RD_T_FILE, RD_T_SYMLINK, RD_T_BLKDEV, RD_T_CHRDEV,
	RD_T_FIFO, RD_T_SOCKET,
};

/* The rd_type of a full st_mode, 0 for none. */
static inline unsigned rd_type_of(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return RD_T_DIR;
	case S_IFREG: return RD_T_FILE;
	case S_IFLNK: return RD_T_SYMLINK;
	case S_IFBLK: return RD_T_BLKDEV;
	case S_IFCHR: return RD_T_CHRDEV;
	case S_IFIFO: return RD_T_FIFO;
	case S_IFSOCK: return RD_T_SOCKET;
	default: return 0;
	}
}

/* One directory entry, as iterated. */
struct rd_dirent {
	char name[RD_NAME_MAX + 1];
	uint64_t inode_ref;
	uint32_t inode_number;
	uint16_t type;
};

struct rd_dir {
	uint32_t inode_number;      /* the directory's, for messages */
	/* The name before, "" at the start: names must strictly increase
	 * (strcmp), which refuses unsorted listings and duplicates. */
	char prev[RD_NAME_MAX + 1];
	/* The back end's own part: where the listing is read. */
	_Alignas(8) unsigned char own[RD_OWN_BYTES];
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
/* lookup.c: inode number n (1-based), as the back end finds it. */
int rd_export_ref(struct sqp_image *img, uint32_t n, uint64_t *ref);
/* lookup.c: name (len bytes) against a NUL-terminated entry name, as
 * strcmp: the order of every listing. */
int rd_name_cmp(const char *ename, const char *name, size_t len);

/* image_open.c: a new image on desc's file, checked as a file: 0, or an
 * error with *out NULL or failed (sqp_image_create's convention). Its
 * back end is chosen and opened by the caller, which sets img->fmt
 * before the back end's open (whose failure img->fmt->destroy undoes). */
int rd_image_new(const struct sqp_image_desc *desc, struct sqp_image **out);

/* records.c: the positioned read every access to the image goes
 * through, checked against the file's size. */
/* len bytes at image position off, from the image's file or from the
 * extra device's where it holds them: 0 or sqp_pread_full's error. */
int rd_pread(const struct sqp_image *img, uint64_t off, void *buf, size_t len);
int rd_read_at(struct sqp_image *img, uint64_t off, void *buf, size_t len,
	       const char *what);

/* An extent a back end decodes on a block reader's worker: file bytes
 * la .. la + llen from plen bytes at pa; fmt is the back end's. as_is:
 * set by the back end when the llen bytes at pa are the file's bytes
 * (stored raw), which a worker may then hand on from where they lie. */
struct sqp_erofs_unz;

struct rd_extent {
	uint64_t la, llen, pa;
	uint32_t plen;
	unsigned fmt;
	int as_is;
};

/* A file as its image stores it, for a writer of the same format to
 * copy without decoding (lib/rebuild): where its blocks start, each
 * block's stored-size word in the format's encoding (words, grown by
 * the back end as needed), and the block its tail shares. */
struct rd_stored {
	uint64_t size, blocks_start;
	uint32_t *words;
	size_t words_cap;
	uint64_t count;
	int has_tail;
	uint32_t tail_index, tail_offset, tail_word;
	uint64_t tail_start;
};

/* What a back end's own checks report through (the checker fills it;
 * rd_check_report formats a message). */
struct rd_checker {
	void *user;
	void (*report)(void *user, const char *table, uint32_t inode,
		       const char *path, const char *msg);
	/* The image's latched error as a problem, cleared: 0 to go on, or
	 * the error when it is not the image's (memory, I/O); any: report
	 * whatever the code. */
	int (*latched)(void *user, const char *table, uint32_t inode,
		       const char *path, int any);
	/* Per inode number n, at n - 1: references the walk counted, and
	 * the reference it found the inode at. */
	const uint32_t *refs;
	const uint64_t *where;
	uint64_t fragments_used;    /* the back end counts */
};
void rd_check_report(struct rd_checker *k, const char *table,
		     uint32_t inode, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

struct rd_blockrd;
struct rd_bentry;
struct sqp_file;
struct sqp_image_info;
struct sqp_image_layout;
struct sqp_file_layout;
struct sqp_file_span;

/*
 * A format's back end: the one table the core calls, set when the image
 * is opened. Every operation takes the image and the core's records;
 * errors are latched in the image (rd_err). Optional ones are NULL.
 */
struct rd_format {
	int format;                 /* enum sqp_image_format */
	/* Blocks are decoded by zdecode, not with an image-wide codec. */
	int own_codec;
	/* Every inode number names an inode (the checker reports one the
	 * walk never reached). */
	int dense_numbers;
	/* Free the back end's state (after a failed open too). */
	void (*destroy)(struct sqp_image *img);
	/* info: what the core's fields do not say (format, codec, codecs,
	 * mod_time, inodes, packed_ref). */
	void (*info)(const struct sqp_image *img, struct sqp_image_info *all);
	int (*layout)(struct sqp_image *img, struct sqp_image_layout *o);
	int (*inode_read)(struct sqp_image *img, uint64_t ref,
			  struct rd_inode *ino);
	/* Inode number n's reference; SQP_ERR_UNSUPPORTED: no way to it. */
	int (*inode_ref)(struct sqp_image *img, uint32_t n, uint64_t *ref);
	/* The inode number a directory names as its parent (0: none). */
	int (*parent)(struct sqp_image *img, const struct rd_inode *dir,
		      uint32_t *parent);
	int (*dir_open)(struct sqp_image *img, const struct rd_inode *dir,
			struct rd_dir *it);
	int (*dir_next)(struct sqp_image *img, struct rd_dir *it,
			struct rd_dirent *e);
	/* Optional: move it, just opened on dir, to where an index says
	 * the entry called name (len bytes) would be; without it a lookup
	 * reads the listing from its start. */
	int (*dir_seek)(struct sqp_image *img, const struct rd_inode *dir,
			const char *name, size_t len, struct rd_dir *it);
	int (*xattrs)(struct sqp_image *img, const struct rd_inode *ino,
		      struct rd_xattrs *x);
	/* A regular file's data and holes, in order, to its size. */
	int (*pieces)(struct sqp_image *img, const struct rd_inode *ino,
		      rd_piece_fn fn, void *user);
	int (*file_layout)(struct sqp_image *img, const struct rd_inode *ino,
			   struct sqp_file_layout *o);
	/* sqp_file: the back end's reader of one file (f->own). */
	int (*file_open)(struct sqp_file *f);
	int (*file_pread)(struct sqp_file *f, uint8_t *dst, size_t n,
			  uint64_t off);
	void (*file_close)(struct sqp_file *f);
	/* Optional: sqp_file_span (off < size, max > 0; the core fills
	 * a DECODE span of max bytes before); sqp_image_fragment (NULL:
	 * the format has no fragment blocks). */
	int (*file_span)(struct sqp_file *f, uint64_t off, uint64_t max,
			 struct sqp_file_span *s);
	int (*fragment)(struct sqp_image *img, uint32_t index, uint8_t *buf,
			size_t cap, size_t *len);
	/* The block reader: a regular file's jobs; optional, a plan of
	 * what blocks several files share (before the first entry); the
	 * decoding of an extent job on a worker (own_codec), with the
	 * decoders the worker keeps (*unz NULL: none yet). */
	int (*jobs)(struct rd_blockrd *b, struct rd_bentry *e,
		    const struct rd_inode *ino);
	int (*share_plan)(struct rd_blockrd *b);
	int (*zdecode)(const struct sqp_image *img, const struct rd_extent *x,
		       const uint8_t *in, uint8_t *out,
		       struct sqp_erofs_unz **unz);
	/* The checker's format part: a file's layout (1 sound, 0
	 * reported, < 0 the check cannot go on); a directory met (parent:
	 * the inode number of the directory listing it); a directory done
	 * (its index); the tables, once the walk is over. */
	int (*check_file)(struct sqp_image *img, struct rd_checker *k,
			  const char *path, const struct rd_inode *ino);
	int (*check_dir)(struct sqp_image *img, struct rd_checker *k,
			 const char *path, const struct rd_inode *dir,
			 uint32_t parent);
	int (*check_dir_done)(struct sqp_image *img, struct rd_checker *k,
			      const char *path, const struct rd_inode *dir);
	int (*check_tables)(struct sqp_image *img, struct rd_checker *k);
	/* Optional, for lib/rebuild: a file as stored, and how many tail
	 * blocks the image holds. */
	int (*stored)(struct sqp_image *img, const struct rd_inode *ino,
		      struct rd_stored *s);
	uint32_t (*stored_tails)(const struct sqp_image *img);
};

/* file.c: an open regular file; the back end keeps its state in own. */
struct sqp_file {
	struct sqp_image *img;
	struct rd_inode ino;
	void *own;
};

int rd_err(struct sqp_image *img, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Forget the latched error (the checker reports it and goes on; the
 * metadata cache only ever holds blocks that were read whole). */
void rd_err_clear(struct sqp_image *img);

#endif
