/* SPDX-License-Identifier: MIT */
/*
 * fuse_fs.h - the state of one sqpack-fuse mount and its operations
 * (fuse_ops.c: lookup, getattr, readdir, read... on the low-level API;
 * fuse_load.c: what the cache loads; fuse_fs.c: the setup).
 *
 * Node ids: FUSE names inodes by a 64-bit id the file system chooses.
 * Ours is the inode's reference in the image (its position) plus 2, the
 * root (of the mount: the image's root or -o subdir) being 1: nothing to
 * remember per inode, so lookups and forgets cost no memory and a node
 * id stays valid for the mount's life. st_ino is the image's inode
 * number, which hard links share.
 */
#ifndef SQP_BIN_FUSE_FS_H
#define SQP_BIN_FUSE_FS_H

#include <fuse_lowlevel.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "fuse_ahead.h"
#include "fuse_cache.h"
#include "fuse_pool.h"
#include "sqpack/entry.h"

/* The cache index of a directory's listing (file data uses 0..). */
#define FS_LISTING UINT64_MAX
/* The cache's ref of SquashFS's fragment blocks, block i at index i (no
 * inode's ref: node ids are refs plus 2). */
#define FS_FRAGMENTS UINT64_MAX

/* The cache index of a decoded unit that starts at file offset la (an
 * EROFS extent: fuse_load.c): FS_UNIT | la, apart from the chunks'
 * indexes (a file's size is below 2^62) and FS_LISTING. */
#define FS_UNIT ((uint64_t)1 << 63)
#define FS_UNIT_MAX ((uint64_t)1 << 62)
#define FS_UNIT_DECODERS 4
#define FS_UNIT_BUDGET ((uint64_t)32 << 20)
#define FS_UNIT_HELD 2
#define FS_UNIT_COST ((uint64_t)16 << 20)

/* What a chunk's cache entry holds (fc_kind). */
enum fs_chunk_kind {
	FS_BYTES,       /* the chunk's bytes */
	/* An array of struct fs_piece: where the chunk's bytes are, in
	 * order, when none needs decoding of its own. The reply is made
	 * from there: from the image file (spliced), from the shared
	 * data's own chunks, which every file whose tail they hold reads,
	 * and from the decoded units the chunk lies in. */
	FS_PIECES,
};
/* A piece of a chunk: len bytes from pos of the image file (ref
 * FS_IMAGE_FILE), or of the shared data ref (FS_FRAGMENTS, or EROFS's
 * packed inode: never 0, as packed_ref 0 means none); or, where
 * unit_len is not 0, from pos of the decoded unit of file ref that
 * starts at its offset unit (unit_len bytes, cached whole as FS_UNIT |
 * unit). */
#define FS_IMAGE_FILE 0
struct fs_piece {
	uint64_t ref, pos, len;
	uint64_t unit, unit_len;
};
/* A chunk in more pieces is decoded instead: a reply's buffers grow by
 * two a piece (a shared one may straddle two shared chunks), and the
 * pieces of a chunk scattered wider are not worth a splice each. */
#define FS_PIECES_MAX 16

struct fs_opts {
	int set_uid, set_gid;
	uid_t uid;
	gid_t gid;
	mode_t umask, fmask, dmask;  /* bits cleared from every mode */
	sqp_warn_fn warn;            /* why a load failed; NULL: not told */
	void *warn_user;
};

enum { FS_NO_OPEN = 1, FS_NO_OPENDIR = 2 };

struct fs {
	struct fuse_pool pool;
	/* The images that decode units (FS_UNIT: EROFS extents of several
	 * MiB), a few: each keeps what a unit's decoding grew (liblzma's
	 * dictionary, up to 8 MiB, and a pcluster), which with every
	 * image of the pool decoding them took 90 MiB besides the cache
	 * (lzma, 1 MiB pclusters, 10 threads). As many as the cores, up
	 * to FS_UNIT_DECODERS: more would not decode faster; and one per
	 * FS_UNIT_BUDGET of the cache's budget at most, those past
	 * FS_UNIT_HELD paid from it (fuse_fs.c). */
	struct fuse_pool units;
	struct fuse_cache *cache;
	struct ahead *ahead;         /* NULL: no prefetch */
	struct sqp_image_info info;
	uint64_t root;               /* the mount's root's reference */
	uint32_t chunk;              /* file data is cached in these */
	int fd;                      /* the image file: stored chunks */
	uint64_t packed_size;        /* EROFS's packed inode's (info's
				      * packed_ref), 0: none */
	/* Bytes answered from the image file (spliced where the kernel
	 * allows), not through the cache: what tests count. */
	atomic_ullong stored_bytes;
	struct fs_opts o;
	/* The kernel takes ENOSYS from open (FS_NO_OPEN) and opendir
	 * (FS_NO_OPENDIR) for "no open needed", and sends none again, nor
	 * releases (op_init): a file read again from the page cache costs
	 * no request. */
	atomic_int no_open;
	unsigned cores;              /* online when mounted */
	uint64_t cache_budget;       /* the cache's: the setup's less the
				      * unit decoders' past FS_UNIT_HELD */
	/* -o timeout=: requests in flight and when the last one ended. */
	atomic_uint busy;
	atomic_llong last_active;
};

extern const struct fuse_lowlevel_ops fs_ops;

/* What a mount is set up from (fs_init). */
struct fs_setup {
	struct sqp_image_desc desc;  /* its fd and name outlive the fs */
	unsigned threads;            /* images lent at once, at most */
	const char *subdir;          /* the mount's root; NULL: the image's */
	uint64_t cache_bytes;        /* the cache's budget */
	unsigned cores;              /* 0: those online (a test sets it) */
	struct fs_opts o;
};

/* fuse_fs.c: fs ready for fs_ops (no prefetch: fs->ahead is NULL), the
 * image checked: 0, or a negative SQP_ERR_* with the reason in msg
 * (starting with the image's name when it is the image's). fs_fini
 * frees what it made. */
int fs_init(struct fs *fs, const struct fs_setup *s, char *msg,
	    size_t msg_size);
void fs_fini(struct fs *fs);

/* fuse_load.c: the cache's loader (file chunks and listings). */
int fs_load(void *user, uint64_t ref, uint64_t idx, const void *arg,
	    struct fc_load *out);

/* fuse_read.c: a read's reply, bytes off..end of file ref (of size
 * fsize, end past off), as buffers into the cache's entries (or the
 * image file), pinned: 0, or a negative errno (EIO: what the cache
 * holds does not cover them, or the image file was cut short).
 * fs_reply_free unpins and frees, whatever fs_read_reply returned. */
struct fs_reply {
	struct fuse_bufvec *bv;
	size_t bv_cap;              /* buffers bv has room for */
	struct fc_entry **pins;
	size_t npins, pins_cap;
	uint64_t stored_end;        /* image file bytes the reply needs */
	uint64_t stored;            /* bytes it takes from there */
};
int fs_read_reply(struct fs *fs, uint64_t ref, uint64_t fsize,
		  uint64_t off, uint64_t end, struct fs_reply *r);
void fs_reply_free(struct fs *fs, struct fs_reply *r);
/* fuse_read.c: what a read of chunk idx of file ref (size bytes) would
 * reply, loaded and put back (fuse_ahead.h's loader): the decoded units
 * and shared chunks its pieces are in, not only the chunk's entry;
 * nothing while busy counts as many requests as cores. */
void fs_prefetch(void *user, uint64_t ref, uint64_t idx, uint64_t size);

/* A listing as cached: count entries, then their names, each
 * NUL-terminated at name_off from the blob's start, in stored (strcmp)
 * order. */
struct fs_dirent {
	uint64_t ref;
	uint32_t ino;                /* the image's inode number: d_ino */
	uint32_t type;               /* S_IFxxx */
	uint32_t name_off;
};
struct fs_listing {
	size_t count;
	struct fs_dirent ents[];
};

#endif
