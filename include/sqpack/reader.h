/* SPDX-License-Identifier: MIT */
/*
 * reader.h - open SquashFS 4.0 images (written by anyone) and browse
 * them: tables, inodes, directories, file contents. Conversions built on
 * it have their own headers (img2tar.h, img2dir.h, check.h).
 *
 * Everything read from an image is checked before it is used: a corrupt
 * or hostile image gives an error with a message, never a crash, a loop
 * or an allocation the image's size does not justify.
 */
#ifndef SQPACK_READER_H
#define SQPACK_READER_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_image;

struct sqp_image_desc {
	size_t struct_size;  /* sizeof(struct sqp_image_desc): see sqpack/api.h */
	int fd;              /* the image; borrowed, read with pread only */
	const char *name;    /* for messages; borrowed */
	sqp_warn_fn warn;    /* optional: skipped sockets, odd xattrs */
	void *warn_user;
	/* Where the superblock is in fd (0: at its start), for an image
	 * inside another file (an AppImage): every position the image holds
	 * counts from there, and its end is the file's. */
	uint64_t offset;
	/* EROFS: the file of the image's extra device 1 (a blob of
	 * chunks, mkfs.erofs --blobdev; a tar an index was made of,
	 * --tar=i), read where the device table maps it, as if appended
	 * to the image; NULL: none (an appended one is read). Opened
	 * read-only by create and closed by destroy; an image without an
	 * extra device refuses it. Borrowed until create returns. */
	const char *device;
};

/* Open an image: validate the superblock and load the id, fragment,
 * export and xattr lookup tables. Returns 0, or a negative error with
 * *out NULL or a failed image that sqp_image_error() explains (the
 * convention of sqpack/error.h). */
SQP_API int sqp_image_create(const struct sqp_image_desc *desc,
			     struct sqp_image **out);
SQP_API void sqp_image_destroy(struct sqp_image *img);

/* The last error's message with context. Never NULL; "" when none. */
SQP_API const char *sqp_image_error(const struct sqp_image *img);

struct sqp_image_info {
	size_t struct_size;  /* sizeof(struct sqp_image_info): see sqpack/api.h */
	int codec;           /* enum sqp_codec_id */
	uint32_t block_size;
	uint32_t inode_count;
	uint32_t mod_time;
	uint64_t bytes_used;
	/* Added after the first version (which ended at bytes_used): */
	int format;          /* enum sqp_image_format */
	/* The codecs the image's data may be compressed with, a bit
	 * (1u << id) per enum sqp_codec_id; 0: stored as it is. SquashFS:
	 * its codec's bit. EROFS: the superblock's algorithms, each as the
	 * codec id of its kind (lz4: LZ4, MicroLZMA: LZMA, raw deflate:
	 * GZIP, zstd: ZSTD); an image without the compression-config
	 * feature can only use lz4, and says so by its 0padding feature
	 * (an image of mkfs.erofs -E legacy-compress shows 0). codec, above,
	 * is the lowest of these ids (0 when none). */
	uint32_t codecs;
	/* The superblock's count of inodes: SquashFS's inode count, EROFS's
	 * inos (inode_count is there the range of slots that inode numbers
	 * are drawn from, larger). */
	uint64_t inodes;
	/* EROFS: the ref of the packed inode (the superblock's packed nid),
	 * whose data is the fragments: compressed files' tails and small
	 * files, compressed together; 0 when there is none, and SquashFS. */
	uint64_t packed_ref;
	/* The most bytes of a file that are decoded as one, so that a
	 * reader caching decoded data in pieces this large decodes each
	 * unit about once: SquashFS's block size; EROFS's largest physical
	 * cluster as its compression record bounds it (a block where
	 * nothing is compressed); 0 where the image does not say (EROFS
	 * with several codecs, or one whose record names no size). */
	uint32_t decode_unit;
};
/* 0, or SQP_ERR_ARG when info->size is unset (a code only: the image
 * is const). */
SQP_API int sqp_image_get_info(const struct sqp_image *img,
			       struct sqp_image_info *info);

/* ------------------------------------------------------------------ */
/* Browsing an image                                                   */
/* ------------------------------------------------------------------ */
/*
 * Inodes are named by their 64-bit reference (the position of the inode
 * in the image): sqp_image_root() gives the root's, sqp_image_lookup() and
 * sqp_dir_next() give the others'.
 *
 * Thread contract: an image and the directories and files opened on it
 * share one metadata cache and one decompressor, so all calls on one
 * image come from one thread at a time. Open the same fd twice for
 * parallel readers. (The conversions run their own worker threads.)
 *
 * Errors: a corrupt image latches its error in the image (message in
 * sqp_image_error()), and every later call on it returns that error.
 * "Not found" and "wrong type" do not latch.
 */
struct sqp_inode_info {
	size_t struct_size;  /* sizeof(struct sqp_inode_info): see sqpack/api.h */
	uint64_t ref;           /* this inode's reference */
	uint32_t inode_number;  /* 1..inode_count */
	uint32_t nlink;
	uint32_t mode;          /* full st_mode: S_IFxxx | 07777 */
	uint32_t uid, gid;
	int64_t mtime;
	uint64_t size;          /* files: bytes (holes included); symlinks:
				   target bytes; directories: listing bytes */
	uint32_t dev_major, dev_minor;  /* devices */
	uint32_t parent;        /* directories: the parent's inode number */
	int has_xattrs;
};

SQP_API uint64_t sqp_image_root(const struct sqp_image *img);
SQP_API int sqp_image_stat(struct sqp_image *img, uint64_t ref,
			   struct sqp_inode_info *info);

/*
 * The inode at path, relative to the root ("", "/", "." name the root;
 * empty and "." components are skipped). Symlinks are not followed and
 * ".." is refused (SQP_ERR_ARG). Large directories are searched through
 * their directory index. Returns 0, SQP_ERR_NOT_FOUND, or an error.
 */
SQP_API int sqp_image_lookup(struct sqp_image *img, const char *path,
			     uint64_t *ref);

/* The reference of inode number n through the export table; returns
 * SQP_ERR_UNSUPPORTED when the image has none (mksquashfs -no-exports). */
SQP_API int sqp_image_inode_ref(struct sqp_image *img, uint32_t n,
				uint64_t *ref);

/* A symlink's target, NUL-terminated and cut to size - 1 bytes. Returns
 * the full target length (>= 0) or an error (SQP_ERR_ARG: not a link). */
SQP_API int sqp_image_readlink(struct sqp_image *img, uint64_t ref,
			       char *buf, size_t size);

/* The inode's extended attributes (full keys, "user.x"). The array and
 * what it points to belong to the image and stay valid until the next
 * sqp_image_xattrs() call on it or its destruction. */
SQP_API int sqp_image_xattrs(struct sqp_image *img, uint64_t ref,
			     const struct sqp_xattr **xattrs, size_t *count);

/* Directory listings, in stored order. A listing that is not strictly
 * sorted (strcmp), so also one holding a name twice, is corrupt. */
struct sqp_dir;
struct sqp_dirent {
	size_t struct_size;  /* sizeof(struct sqp_dirent): see sqpack/api.h */
	char name[257];         /* 1..256 bytes, never "/", "." or ".." */
	uint64_t ref;
	uint32_t inode_number;
	uint32_t type;          /* S_IFxxx of the entry, as the listing says */
};
/* The image must outlive the directory. SQP_ERR_ARG: not a directory. */
SQP_API int sqp_dir_open(struct sqp_image *img, uint64_t ref,
			 struct sqp_dir **out);
/* 1 with *e filled, 0 at the end, or a negative error. */
SQP_API int sqp_dir_next(struct sqp_dir *dir, struct sqp_dirent *e);
SQP_API void sqp_dir_close(struct sqp_dir *dir);

/* Regular file contents: blocks, fragment tails, holes (read as zeros).
 * The image must outlive the file. SQP_ERR_ARG: not a regular file. */
struct sqp_file;
SQP_API int sqp_file_open(struct sqp_image *img, uint64_t ref,
			  struct sqp_file **out);
/* Read up to n bytes at off into buf; *got is n unless the file ends
 * first (0 at or past the end). Sequential reads decompress each block
 * once. Returns 0 or an error. */
SQP_API int sqp_file_pread(struct sqp_file *f, void *buf, size_t n,
			   uint64_t off, size_t *got);
SQP_API void sqp_file_close(struct sqp_file *f);

/* ------------------------------------------------------------------ */
/* Walking the tree                                                    */
/* ------------------------------------------------------------------ */
/*
 * The tree in pre-order, pulled one entry at a time; the reader's own
 * walk (img2tar, img2dir and the checker walk with it). Memory: one open
 * directory per level of depth and one bit per inode of the image, to
 * tell hard links and to refuse a directory reached twice (a loop, or
 * two parents); nothing grows with the number of entries. Directories
 * are entered only above depth 1024, which a hostile image cannot pass.
 */

struct sqp_walk;

struct sqp_walk_desc {
	size_t struct_size;  /* sizeof(struct sqp_walk_desc): see sqpack/api.h */
	struct sqp_image *img;  /* borrowed */
	const char *path;       /* where to start; NULL, "" or "/": the root */
	unsigned max_depth;     /* 0: everything below; 1: the start and,
				   if a directory, its entries; ... */
};

struct sqp_walk_entry {
	size_t struct_size;  /* sizeof(struct sqp_walk_entry): see sqpack/api.h */
	const char *path;       /* normalised, relative to the root ("" is
				   the root); valid until the next call */
	const char *name;       /* last component ("" for the root) */
	unsigned depth;         /* 0 for the start */
	int hardlink;           /* the inode was reached before in this walk */
	struct sqp_inode_info info;
};

/* Start a walk: SQP_ERR_NOT_FOUND when path does not exist, or another
 * error; *out is then NULL or a failed walk that sqp_walk_error()
 * explains (the convention of sqpack/error.h). */
SQP_API int sqp_walk_create(const struct sqp_walk_desc *desc,
			    struct sqp_walk **out);
/* The next entry in pre-order (a directory before its entries, entries
 * in directory order): 1 and *e filled, 0 at the end, or a negative
 * error, latched (message in sqp_walk_error()). */
SQP_API int sqp_walk_next(struct sqp_walk *w, struct sqp_walk_entry *e);
/* Do not enter the directory the last sqp_walk_next() gave: the walk
 * goes on after it (a merge of two walks skips what one side lacks). */
SQP_API void sqp_walk_skip(struct sqp_walk *w);
SQP_API const char *sqp_walk_error(const struct sqp_walk *w);
SQP_API void sqp_walk_destroy(struct sqp_walk *w);


#ifdef __cplusplus
}
#endif
#endif
