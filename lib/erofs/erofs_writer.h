/* SPDX-License-Identifier: MIT */
/*
 * erofs_writer.h - the EROFS back end of the image writer: the same
 * entries, the same tree (fstree.h) and the same policy as SquashFS's,
 * another data path and another finish.
 *
 * Layout (4 KiB blocks): block 0 holds the superblock at 1024 (written
 * last); then every file's full blocks in the order files arrive, each
 * file's contiguous; then the directories' and long symlinks' blocks;
 * then the metadata area (meta_blkaddr): every inode, its inline
 * xattrs and its inline tail, the root first so that its nid fits the
 * superblock's 16 bits.
 */
#ifndef SQP_WRITE_EROFS_WRITER_H
#define SQP_WRITE_EROFS_WRITER_H

#include <stdint.h>
#include <xxhash.h>

#include "erofs/erofs_format.h"
#include "sqpack/entry.h"
#include "sqpack/codec.h"
#include "util/chunkarr.h"
#include "util/hchain.h"
#include "write/fstree.h"
#include "write/writer_impl.h"

#define EROFS_W_BLOCK 4096u
/* The tail arena's unit: an inode slot, so that a 32-bit index reaches
 * 128 GiB of tails. */
#define EROFS_W_TAIL_UNIT 32u

/* Compressed files: each segment of a file (the last one shorter) is
 * one pool job, cut into physical clusters independently of the
 * others, so the image does not depend on -j. A segment holds at least
 * EROFS_W_SEG_PCLUSTERS of the file's largest pclusters' worth of
 * output, so that the re-cut at each seam (erofs_seam.c), which redoes
 * a cluster or two, stays a small part of the segment's work: with
 * 8 MiB segments and lzma in 1 MiB pclusters a segment held one to
 * three clusters and the re-cut compressed most of the next segment
 * again (coreos's line on rootfs-small's 50 MB Packages, one worker:
 * 35.0 s of CPU, 29.0 s with 32 MiB segments and 0.6% fewer bytes).
 * Segments of EROFS_W_SEGMENT up to pclusters of 256 KiB, where they
 * already held many: their images are unchanged. */
#define EROFS_W_SEGMENT (8u << 20)
/* lz4's (and lz4hc's) segment: mkfs.erofs 1.9's (c_mkfs_segment_size),
 * whose lz4 cut is ours, so that seams fall where its do. With 8 MiB,
 * Packages had 5 seams to its 2 and in 64 KiB lz4 clusters took 2
 * blocks more than mkfs.erofs 1.9.3's (19,030,016 bytes against
 * 19,021,824); at 16 MiB, without the re-cut, exactly its bytes in
 * 64 KiB lz4 and lz4hc clusters, and the re-cut takes a block off each.
 * Whole images of rootfs-small, blocks against 8 MiB: lz4 64K -3,
 * 64K+z -3, lz4hc 64K -1, 64K+z -1, 64K+f -9, 4K and 1M the same, but
 * lz4 64K+f +8 (still 5 under mkfs.erofs's; 8 MiB for the packed inode
 * alone made it +7 and lz4hc's -2). The other codecs keep 8 MiB: at
 * 16 MiB zstd's 64 KiB images took 4 blocks more (rootfs-big's 4 over
 * mkfs.erofs 1.9.3's), its 64K+f 8 and deflate's 1; lzma's 64K took
 * 2 fewer, still 36 over mkfs.erofs's. */
#define EROFS_W_SEGMENT_LZ4 (16u << 20)
#define EROFS_W_SEG_PCLUSTERS 32u
/* The most input one cluster takes, whatever the segment: its logical
 * clusters stay under the 2048 an index can count back and its data
 * under the kernel's 12 MiB. */
#define EROFS_W_EXTENT (8u << 20)

/* The segment of a file whose pclusters take at most cap bytes,
 * compressed with EROFS algorithm alg (EROFS_ALG_*). */
static inline uint32_t erofs_w_segment(uint32_t cap, int alg)
{
	uint32_t seg = alg == EROFS_ALG_LZ4 ? EROFS_W_SEGMENT_LZ4 : EROFS_W_SEGMENT;

	return cap > seg / EROFS_W_SEG_PCLUSTERS ? cap * EROFS_W_SEG_PCLUSTERS : seg;
}
/* fs_inode.u.file.ero_zip of a compressed file: its ero_rec is then
 * its record in the index arena: 8 bytes of the compressed block
 * count (32 bits), the inline tail pcluster's size (16 bits, 0 for
 * none), the fragment's kind (8 bits, EROFS_FRAG_*) and the codec's
 * index (8 bits, ZREC_CODEC), 8 of the
 * tail's index in the tail arena or the fragment's offset, then from
 * ZREC_INDEXES one index per logical cluster. 0 for every other file. */
#define EROFS_W_ZIP 1u
#define ZREC_INDEXES 2u
#define ZREC_KIND 6u
#define ZREC_CODEC 7u
/* fs_inode.u.file.ero_zip of a chunk-based file (erofs_chunk.c): its
 * ero_rec is then its map in the chunk map arena. */
#define EROFS_W_CHUNKED 2u
/* The largest chunk size taken: one chunk is held in memory. */
#define EROFS_CHUNK_MAX (1u << 30)

/* Fragments (erofs_frag.c): the kind of a compressed file's fragment,
 * in byte ZREC_KIND of its index record (0: none); the second 8 bytes hold
 * its offset in the log named. */
#define EROFS_FRAG_TAIL    1u /* the file's end, in the tail log */
#define EROFS_FRAG_TAIL_W  2u /* the file's end, in the whole files' log */
#define EROFS_FRAG_WHOLE_T 3u /* the whole file, in the tail log */
#define EROFS_FRAG_WHOLE_W 4u /* the whole file, in the whole files' log */

struct sqp_writer;
struct sqp_pool;
struct codec_dest_ops;
struct erofs_zjob;
struct erofs_zbuf;
struct erofs_seam;

/* A log of bytes in a temporary file (erofs_flog.c). All zeros: empty. */
struct erofs_flog {
	uint8_t *buf;            /* [base, len) of the log; NULL until used */
	int fd;                  /* the file, -1 until the buffer first fills */
	uint64_t base, len;
};

struct erofs_frag {
	int on;                  /* SQP_WRITE_EROFS_FRAGMENTS with a codec */
	int mbox;                /* a metabox asked for (the desc's pcluster) */
	struct fs_irec mbox_irec; /* the metabox inode, once stored */
	int packing;             /* finish: the packed inode's own data */
	int present;             /* the packed inode is in the image */
	struct erofs_flog tails, whole;
	struct erofs_flog dirs;  /* listings, SQP_WRITE_EROFS_COMPRESS_DIRS */
	uint64_t reserved;       /* the most the tail log may hold so far */
	/* erofs_frag_whole's split, for erofs_zip_add: the bytes of the
	 * file's end that are a fragment already (0: none), at cut_off of
	 * the whole files' log. */
	uint64_t cut, cut_off;
	struct fs_irec irec;     /* the packed inode */
	/* writer_test.h's fail_log_read, and the logs' reads so far. */
	uint64_t fail_read, reads;
};

/* Dedup (erofs_dedup.c): one record per file that stored its data. */
#define EROFS_DD_FLAT  1u /* stored as it is: ref its first block, aux 1 with a tail block */
#define EROFS_DD_ZIP   2u /* compressed: ref its index record, aux its first block */
#define EROFS_DD_WHOLE 3u /* a whole fragment: aux its offset in the whole files' log */
/* fragdedupe's search (erofs_frag.c): a fragment's end, aux, in the
 * tail log or the whole files' log, keyed by its last bytes; size 0. */
#define EROFS_DD_END_T 4u
#define EROFS_DD_END_W 5u

struct erofs_ddrec {
	uint64_t size;
	uint32_t kind, ref;
	uint64_t aux;
};

struct erofs_dedup {
	int on;                  /* erofs_dedup_shares */
	int whole;               /* fragments too: DEDUPE or FRAGDEDUPE */
	unsigned hash_bits;      /* writer_test.h's hook */
	struct hchain idx;       /* the records by key */
	struct chunkarr recs;    /* struct erofs_ddrec */
	XXH3_state_t *st;        /* a whole fragment's hash as it is read */
	uint8_t *buf;            /* a block read back */
};

/* Extent dedupe (erofs_xdedup.c): every pcluster a compressed file
 * stored, by a hash of its input, so that a later cluster of the same
 * input names it instead of storing its own. */
struct erofs_xrec {
	uint32_t blk, len;       /* its first block, its input's bytes */
	uint16_t blocks;         /* its blocks */
	uint8_t plain;           /* stored as it is */
	uint8_t zc;              /* else its file's codec (zdest's index) */
};

struct sqp_erofs_unz;

struct erofs_xdedup {
	int on;                  /* erofs_dedup_shares */
	struct hchain idx;       /* the records by key */
	struct chunkarr recs;    /* struct erofs_xrec */
	uint8_t *back, *out;     /* a pcluster read back; its input decoded */
	size_t out_cap;
	struct sqp_erofs_unz *unz; /* the caller's thread's decoders */
};

/* The current file's heads as compact indexes would pack them
 * (erofs_xdedup.c): whether they can. */
struct erofs_xpack {
	uint32_t xsize;          /* the file's xattrs' bytes */
	unsigned mod32;          /* its compact indexes' start, mod 32 */
	uint64_t id;             /* the pack of the last head */
	uint64_t next;           /* the block a next head there must name */
	int full;                /* a pack's heads do not follow: full indexes */
	int shared;              /* some head names another file's blocks */
};
/* In byte 5 of a compressed file's index record (above the inline
 * tail's 12-bit size): its indexes are full, not compact. */
#define EROFS_W_ZFULL 0x8000u

/* Chunk-based files (erofs_chunk.c): the descriptor asks a chunk size. */
struct erofs_chunks {
	unsigned bits;           /* log2 of the chunk size; 0: off */
	unsigned blk_bits;       /* log2 of the block size (a chunk format's base) */
	unsigned hash_bits;      /* writer_test.h's hook */
	int blob;                /* chunks go to the blob (extra device 1) */
	int indexes;             /* 8-byte chunk indexes, not a block map */
	int out_open;            /* out is the blob's, to clean up */
	struct imgout out;       /* the blob */
	uint8_t *buf;            /* one chunk */
	uint8_t *back;           /* a block read back */
	struct hchain idx;       /* stored chunks by hash */
	struct chunkarr recs;    /* stored chunks: first block, bytes */
	struct chunkarr maps;    /* each file's map, 4-byte records */
};

/* The codecs a writer may take: the descriptor's codec and its second. */
#define EROFS_W_CODECS 2u

/* A file's compression (erofs_zhint.c): the codec's index and the
 * most bytes of its pclusters (0: stored as it is). */
struct erofs_zsel {
	unsigned zc;
	uint32_t cap;
};
struct erofs_hint;

struct erofs_wstate {
	uint32_t bs;             /* the block size: codec.block_size's (512 to
				  * EROFS_W_BLOCK), 512 for a tar's index */
	int tidx;                /* EROFS_TIDX_* (erofs_tidx.c), 0: neither */
	int xfilter;             /* some inode's xattr name filter has a bit */
	uint64_t tar_end;        /* the end of the last file's bytes in the tar */
	struct chunkarr tails;   /* inline tails, EROFS_W_TAIL_UNIT records */
	uint8_t *block;          /* one block of file data (heap) */
	XXH3_state_t *hash;      /* every byte after block 0: the derived UUID */

	/* Compression (erofs_zip.c); dest NULL: data stored as it is,
	 * else zdest[0]. Each worker has a state of each of the ncodec
	 * codecs (zcfg). */
	const struct codec_dest_ops *dest;
	const struct codec_dest_ops *zdest[EROFS_W_CODECS];
	struct sqp_codec_config zcfg[EROFS_W_CODECS];
	unsigned ncodec;
	struct erofs_hint *hints;  /* erofs_zhint.c */
	size_t nhints;
	struct erofs_zsel sel;     /* the file being added */
	uint32_t pcl_def;          /* a file's pcluster without a hint */
	struct sqp_pool *pool;
	struct erofs_zjob *jobs;  /* a ring of the pool's capacity */
	unsigned njobs;
	uint32_t seg;             /* the largest segment (erofs_w_segment of pcluster) */
	struct erofs_zbuf *bigs;  /* the big buffer sets, nbig of them, seg bytes each */
	struct erofs_zbuf *free_bigs;
	unsigned nbig;
	uint64_t submitted;
	struct chunkarr zidx;     /* 8-byte records, see EROFS_W_ZIP */
	int compressed;           /* some file is: the superblock says 0padding */
	int ztail;                /* some file has its last pcluster inline */
	uint32_t pcluster;        /* the most bytes of any pcluster (> BS: big ones) */
	uint32_t max_extent;      /* the most input bytes one takes (none: ~0) */
	struct {                  /* the file whose clusters are being stored */
		uint32_t rec;
		uint64_t nlc;         /* its logical clusters */
		uint64_t prev;        /* the last head's logical cluster */
		uint32_t prev_blocks; /* its pcluster's blocks */
		int prev_plain;       /* and whether it is stored as it is */
		uint32_t blocks;
		int raw;              /* every segment so far stored as it is */
		uint64_t start;       /* the block its first segment went to */
		uint64_t size;        /* its bytes */
		int dedup;            /* dedup on for this file (not the packed inode) */
		uint64_t key;         /* its first segment's hash */
		uint32_t like;        /* the equal file it shares with so far */
		uint64_t like_base;   /* and that one's first block */
		struct erofs_xpack xp; /* extent dedupe */
	} cur;
	struct erofs_frag frag;
	struct erofs_dedup dd;
	struct erofs_xdedup xd;
	struct erofs_chunks chunks;
	struct erofs_seam *seam;  /* erofs_seam.c: a segment's last cluster held */
};

static inline struct erofs_wstate *erofs_of(const struct sqp_writer *w)
{
	return w->fmt_state;
}

/* A device number as the kernel's EROFS reads it (new_decode_dev's
 * form: 12-bit major, 20-bit minor; check_entry refused wider ones). */
static inline uint32_t erofs_rdev(uint32_t major, uint32_t minor)
{
	return (minor & 0xFFu) | (major << 8) | ((minor & ~0xFFu) << 12);
}

/* The block that holds the superblock (at 1024): 0, or 2 with 512-byte
 * blocks; the blocks up to it and its room before EROFS_COMPR_CFGS_OFFSET
 * are the image's head. */
static inline uint32_t erofs_head_blk(const struct sqp_writer *w)
{
	return EROFS_SUPER_OFFSET / erofs_of(w)->bs;
}

/* erofs_tidx.c, an index of a tar (SQP_WRITE_EROFS_TAR_INDEX): a
 * regular file of e's points to its bytes in the tar (device 1), chunk
 * based (with SQP_WRITE_EROFS_TAR_HEADERBALL, its chunks are holes):
 * erofs_tidx_add fills *f (size, blocks_start: its first block in the
 * tar; a sparse member's chunk addresses in block_sizes, one word
 * each, block_count of them); erofs_tidx_chunks gives a file's chunk
 * format (i_u) and returns its chunk count; erofs_tidx_encode writes
 * the map.
 * erofs_tidx_super sets the superblock's chunk bit and block size (the
 * device table's fields: erofs_head.c, as for a blob);
 * erofs_tidx_blocks is the tar's size in blocks, the device's (its
 * slot at EROFS_TIDX_SLOT_AT, erofs_head.c, as a blob's). */
#define EROFS_TIDX_INDEX 1      /* SQP_WRITE_EROFS_TAR_INDEX */
#define EROFS_TIDX_HEADERBALL 2 /* SQP_WRITE_EROFS_TAR_HEADERBALL: no data */
#define EROFS_TIDX_SLOT_AT (EROFS_SUPER_OFFSET + EROFS_SUPER_SIZE)
#define EROFS_TIDX_HEAD_END (EROFS_TIDX_SLOT_AT + 128u)
int erofs_tidx_add(struct sqp_writer *w, const struct sqp_entry *e, struct fs_inode *f);
uint64_t erofs_tidx_chunks(const struct sqp_writer *w, const struct fs_inode *f,
			   uint32_t *format);
void erofs_tidx_encode(const struct sqp_writer *w, const struct fs_inode *f, uint8_t *out);
struct erofs_super;
void erofs_tidx_super(const struct sqp_writer *w, struct erofs_super *sb);
uint64_t erofs_tidx_blocks(const struct sqp_writer *w);

/* erofs_chunk.c, chunk-based files (a chunk size asked): add
 * stores a file of size bytes read from src and fills *f (ero_zip
 * EROFS_W_CHUNKED); shape gives map rec's chunk format (i_u) and
 * returns its entry count; encode writes the map (4-byte block
 * addresses, or with a blob or when asked 8-byte indexes); flush writes out the
 * blob; blob_blocks is its size in blocks (0: none). */
int erofs_chunk_init(struct sqp_writer *w, unsigned hash_bits);
void erofs_chunk_cleanup(struct sqp_writer *w);
int erofs_chunk_add(struct sqp_writer *w, uint64_t size,
		    const struct sqp_data_source *src, struct fs_inode *f);
/* The same from size bytes in memory. */
int erofs_chunk_mem(struct sqp_writer *w, const uint8_t *data, uint64_t size,
		    struct fs_inode *f);
/* A file of size bytes stored already, one run of blocks from block
 * start (each chunk its part of the run). */
int erofs_chunk_run(struct sqp_writer *w, uint64_t start, uint64_t size, struct fs_inode *f);
uint64_t erofs_chunk_shape(const struct sqp_writer *w, uint32_t rec, uint32_t *format);
void erofs_chunk_encode(const struct sqp_writer *w, uint32_t rec, uint8_t *out);
int erofs_chunk_flush(struct sqp_writer *w);
uint64_t erofs_chunk_blob_blocks(const struct sqp_writer *w);

/* Whether pclusters may be more than a block (then every compressed
 * file's map header says so and the superblock has a record of it). */
static inline int erofs_w_big_pclusters(const struct sqp_writer *w)
{
	return erofs_of(w)->dest != NULL && erofs_of(w)->pcluster > erofs_of(w)->bs;
}

/* Append bytes to the image (and to the UUID's hash). */
int erofs_w_append(struct sqp_writer *w, const void *data, size_t len);
/* Feed bytes of the image to the hash a derived UUID is made of (none
 * when the UUID is given: then nothing). */
void erofs_w_hash(struct sqp_writer *w, const void *data, size_t len);
/* Append len bytes at off of file fd, copied in the kernel (imgout_copy),
 * never read: the UUID's hash takes id (the UUID of the image they are
 * copied from, itself a hash of its bytes) and where they lie in it. */
int erofs_w_copy(struct sqp_writer *w, const uint8_t *id, int fd, uint64_t off,
		 uint64_t len);

/* A regular file's data: full blocks appended now, the tail kept for
 * its inode when it fits there with the inode and its xattr area of
 * xattr_size bytes, else stored as a last block. Fills *f: size,
 * blocks_start (first block, 0 for none) and ero_rec (the tail's
 * arena index, FS_NONE when none is kept). */
int erofs_w_add_file(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		     uint32_t xattr_size, const struct sqp_data_source *src,
		     struct fs_inode *f);

/* The same file stored as it is (no codec tried): its full blocks, its
 * tail inline or a block of its own, shared with an equal earlier
 * file's under dedup. */
/* The first blocks of a flat file as a base image stores them, for
 * erofs_w_add_flat to copy (erofs_w_copy) instead of reading them from
 * the source, which it skips past them: blocks of them at off of fd,
 * id the base's UUID. */
struct erofs_flat_copy {
	const uint8_t *id;
	int fd;
	uint64_t off, blocks;
};
int erofs_w_add_flat(struct sqp_writer *w, uint64_t size, uint32_t xattr_size,
		     const struct sqp_data_source *src, struct fs_inode *f,
		     const struct erofs_flat_copy *cp);

/* erofs_zcopy.c, a base EROFS image's files (lib/rebuild through the
 * table's base_fits and add_base): fits says whether the writer takes
 * img's clusters as they are; add stores one file (size bytes, xattr
 * area of xattr_size) from b, copied where it can be, else read
 * decoded from b->src as erofs_w_add_file reads any file. */
int erofs_zcopy_fits(struct sqp_writer *w, struct sqp_image *img);
int erofs_zcopy_add(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		    uint32_t xattr_size, const struct writer_base *b, struct fs_inode *f);

/* Whether a plain file's tail of tail bytes goes in a block of its own:
 * no room beside the inode, or SQP_WRITE_EROFS_NO_INLINE. */
int erofs_w_tail_blocked(const struct sqp_writer *w, uint32_t tail, uint32_t xattr_size);

/* Keep a file's tail of tail bytes (data) for its inode if it fits
 * there beside xattr_size bytes of xattrs, else append it as a block;
 * sets f's ero_rec. */
int erofs_w_put_tail(struct sqp_writer *w, const uint8_t *data, uint32_t tail,
		     uint32_t xattr_size, struct fs_inode *f);

/* erofs_zhint.c: load reads the descriptor's hints (e->pcluster
 * grows to their largest); pick sets e->sel for the file at path
 * (NULL: the defaults, as for the packed inode). */
int erofs_hints_load(struct sqp_writer *w, const char *text);
void erofs_hints_pick(struct erofs_wstate *e, const char *path);
void erofs_hints_cleanup(struct erofs_wstate *e);

/* erofs_zip.c: the compressed data path. init does nothing without a
 * codec. add takes a file that erofs_zip_fits (more than one block, or
 * with ztailpacking more than none, and fewer than 2^20
 * logical clusters (the caller stores others as they are, after
 * drain). drain stores every cluster still in the pool. */
int erofs_zip_init(struct sqp_writer *w);
void erofs_zip_cleanup(struct sqp_writer *w);
int erofs_zip_fits(const struct sqp_writer *w, uint64_t size);
int erofs_zip_add(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		  uint32_t xattr_size, const struct sqp_data_source *src,
		  struct fs_inode *f);
int erofs_zip_drain(struct sqp_writer *w);

/* erofs_flog.c, the fragment logs. room: where the next bytes go
 * (*room of them; NULL on failure), which the caller writes there and
 * then adds to l->len. read: len bytes at off, all in the log. same:
 * 1 when the len bytes at off are those at p, 0 when not or not all in
 * the log; equal, the same for the len bytes at a and those at b. cut:
 * the log back to len bytes. Errors through writer_fail. */
uint8_t *erofs_flog_room(struct sqp_writer *w, struct erofs_flog *l, size_t *room);
int erofs_flog_append(struct sqp_writer *w, struct erofs_flog *l, const uint8_t *p,
		      size_t n);
int erofs_flog_has(const struct erofs_flog *l, uint64_t off, uint64_t len);
int erofs_flog_read(struct sqp_writer *w, const struct erofs_flog *l, uint64_t off,
		    void *buf, size_t len);
int erofs_flog_same(struct sqp_writer *w, const struct erofs_flog *l, uint64_t off,
		    const uint8_t *p, size_t len);
int erofs_flog_equal(struct sqp_writer *w, const struct erofs_flog *l, uint64_t a,
		     uint64_t b, uint64_t len);
void erofs_flog_cut(struct erofs_flog *l, uint64_t len);
void erofs_flog_free(struct erofs_flog *l);

/* erofs_frag.c. A compressed file's end from its last segment (len
 * bytes at data, the whole file when whole) into the tail log, its kind
 * and offset into rec (its index record); with like (dedup: an equal
 * file's index record, or NULL) that file's fragment when its bytes are
 * the same. */
int erofs_frag_tail(struct sqp_writer *w, const uint8_t *data, uint32_t len,
		    int whole, uint8_t *rec, const uint8_t *like);
/* A file of a pcluster or less (any, with all-fragments), wholly a
 * fragment, read now; or, split (SQP_WRITE_EROFS_FRAGDEDUPE_FULL), its
 * front compressed (erofs_zip_add) and its end an earlier fragment's. */
int erofs_frag_whole(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		     uint32_t xattr_size, const struct sqp_data_source *src,
		     struct fs_inode *f);
/* A split file's index record rec: its end is at off of the whole
 * files' log. */
void erofs_frag_cut_mark(uint8_t *rec, uint64_t off);
/* The fragment's kind (0: none) of index record rec, and its offset in
 * the packed inode (final only once every file is in). */
unsigned erofs_frag_of(const struct erofs_wstate *e, const uint8_t *rec, uint64_t *off);
/* Every directory's listing (L's nids final) appended to the packed
 * inode's data, where each starts there into L->doff: once both logs
 * of files are complete, before erofs_frag_finish; buf: a block. */
struct erofs_wlayout;
int erofs_frag_dirs(struct erofs_wlayout *L, uint8_t *buf);
/* The metabox inode's data (size bytes at area, the records of the
 * inodes it holds) stored as a file with the metabox's codec and
 * pcluster: after the packed inode, before the metadata area. */
int erofs_frag_mbox(struct sqp_writer *w, const uint8_t *area, uint64_t size,
		    int64_t mod_time);
/* After the last file's clusters (and listings): the packed inode's
 * data stored. */
int erofs_frag_finish(struct sqp_writer *w, int64_t mod_time);
void erofs_frag_cleanup(struct sqp_writer *w);

/* erofs_dedup.c. Keys: a 64-bit hash of a file's first bytes seeded
 * with its size (cut by the test hook in erofs_dedup_key). next walks
 * the records of key, kind and size after record after (HCHAIN_END:
 * from the first). */
int erofs_dedup_init(struct sqp_writer *w, unsigned hash_bits);
/* Whether files and clusters are shared: SQP_WRITE_EROFS_DEDUPE, or
 * fragments with a codec, as mkfs.erofs 1.9 shares compressed extents
 * whenever it makes fragments (its -E fragments images were 12% smaller
 * than ours without: twin .gz files in usr/share/doc). Their tails in
 * the packed inode are shared only with DEDUPE or FRAGDEDUPE. */
int erofs_dedup_shares(const struct sqp_writer *w);
void erofs_dedup_cleanup(struct sqp_writer *w);
uint64_t erofs_dedup_key(const struct erofs_dedup *d, uint64_t h);
uint32_t erofs_dedup_next(const struct erofs_dedup *d, uint32_t after, uint64_t key,
			  unsigned kind, uint64_t size, struct erofs_ddrec *r);
int erofs_dedup_add(struct sqp_writer *w, uint64_t key, const struct erofs_ddrec *r);
/* A file stored as it is, read from src, its blocks shared with an
 * equal earlier one's where there is one (as erofs_w_add_file). */
int erofs_dedup_flat_stream(struct sqp_writer *w, uint64_t size, uint32_t xsize,
			    const struct sqp_data_source *src, struct fs_inode *f);
/* A file of size bytes at data about to be stored as it is from block
 * *start: 1 with *start an equal earlier file's first block, 0 when it
 * is stored (recorded for later ones), or < 0. */
int erofs_dedup_flat_mem(struct sqp_writer *w, const uint8_t *data, uint64_t size,
			 uint32_t xsize, uint64_t *start);
/* The bytes of xattr set id's inline area (0 for WR_NO_XATTR), or a
 * negative error for a set EROFS cannot hold inline. */
int erofs_w_xattr_size(struct sqp_writer *w, uint32_t id, uint32_t *size);
/* Encode set id's area (size from erofs_w_xattr_size) into out. */
void erofs_w_xattr_encode(const struct sqp_writer *w, uint32_t id, uint8_t *out);

/* finish's view of the tree, per inode index: where each inode went
 * (UINT64_MAX: not in the image), a directory's parent inode and its
 * listing's size (a symlink's: its target's length), and the first data
 * block of a directory or symlink that has blocks. */
struct erofs_wlayout {
	struct sqp_writer *w;
	struct fstree *t;
	uint32_t count;
	uint32_t slots;         /* count, one more with a packed inode (at count) */
	uint32_t root;          /* the root's inode index */
	uint64_t *nid;
	uint32_t *up;
	uint64_t *dsize;
	uint32_t *blk;
	uint64_t *doff;         /* a compressed directory's listing in the packed inode */
	int root_plain;         /* the root's listing wholly in blocks, no inline tail */
};

/* erofs_head.c: the head block's first free byte after the superblock
 * and its records; the superblock (and what follows it) written once
 * the image's blocks are all out, meta_blkaddr and the inode count
 * known. */
uint32_t erofs_w_head_from(const struct erofs_wlayout *L);
/* The second compact inodes' times count from, for build time bt: bt
 * itself, or with SQP_WRITE_EROFS_48BIT the earliest base that keeps bt
 * within 32 bits after it (0 until 2106), as mkfs.erofs 1.9 picks it. */
int64_t erofs_w_epoch(const struct sqp_writer *w, int64_t bt);
int erofs_w_write_super(struct erofs_wlayout *L, int64_t bt, uint64_t meta_blkaddr,
			uint64_t inos);

/* Directory dir's listing, one block at a time ("." and ".." merged in
 * name order): fn gets each block (buf, zero padded) with the bytes it
 * uses and whether it is the last; fn NULL only measures. *size: the
 * listing's size (full blocks, then the last one's used bytes). */
typedef int (*erofs_dirblock_fn)(void *user, const uint8_t *blk, uint32_t used,
				 int last);
int erofs_w_dir_pack(const struct erofs_wlayout *L, uint32_t dir, uint8_t *buf,
		     erofs_dirblock_fn fn, void *user, uint64_t *size);

/* erofs_fit.c: places in the metadata area (zero the struct, then set
 * blocks to the area's first block). A record of bytes whose last tail
 * bytes must not cross a block (0: none; bytes: the whole record, or
 * when longer than a block, its start on a block's): *at is its byte
 * position in the image. blocks: the next block a record may start. */
struct erofs_fit_stack {
	uint64_t *blk;
	size_t n, cap;
};
struct erofs_fit {
	struct erofs_fit_stack room[EROFS_W_BLOCK / 32]; /* by free slots */
	uint32_t slots;          /* 32-byte slots a block holds */
	uint64_t blocks;
	uint32_t front;          /* free slots of block blocks - 1, in its stack */
};
int erofs_fit_place(struct erofs_fit *f, uint64_t bytes, uint64_t tail, uint64_t *at);
/* Offer the last free_slots slots of block blk, outside the area. */
int erofs_fit_room(struct erofs_fit *f, uint64_t blk, uint32_t free_slots);
void erofs_fit_cleanup(struct erofs_fit *f);

/* erofs_record.c, for finish: an inode's record. Its shape: */
struct erofs_shape {
	struct erofs_inode ei;
	uint32_t isize, xsize, inl; /* inode, xattr area, inline tail */
	uint64_t nblocks;           /* a directory's or symlink's blocks */
	uint64_t nlc;               /* a compressed file's logical clusters */
	uint32_t head;              /* inode, xattrs, inline data: as encoded */
	uint64_t total;             /* the record's bytes, indexes included */
	uint64_t tail;              /* its last bytes that must share one block */
};
/* Inode i's record: the tree's, or past its end the packed inode and
 * the metabox inode. */
const struct fs_irec *erofs_rec_of(const struct erofs_wlayout *L, uint32_t i);
/* Inode i's shape into *s, from the tree and bt, the build time. */
int erofs_shape_of(const struct erofs_wlayout *L, uint32_t i, int64_t bt,
		   struct erofs_shape *s);
/* Inode i's record (shape s, i_ino ino_number) at area; scratch: two
 * blocks. */
int erofs_put_record(struct erofs_wlayout *L, uint32_t i, const struct erofs_shape *s,
		     uint8_t *area, uint32_t ino_number, uint8_t *scratch);
/* erofs_w_dir_pack's block function: a listing's blocks appended
 * (the last one not, when it goes inline), or its inline tail copied
 * to dest. */
struct erofs_dirblocks {
	struct sqp_writer *w;
	int skip_last;   /* the last block goes inline */
	uint8_t *dest;   /* meta pass: where the inline tail goes */
};
int erofs_put_dirblock(void *user, const uint8_t *blk, uint32_t used, int last);

/* erofs_zidx.c, for finish: a compressed file's map header into out
 * (8 bytes) from its index record zr, its indexes compact or full and
 * its inline tail pcluster of inl bytes; its full indexes (extent
 * dedupe named pclusters that compact ones cannot count on to), nlc of
 * them at idx, into out, from index record rec. */
void erofs_zidx_header(const struct sqp_writer *w, int compact, uint32_t inl,
		       const uint8_t *zr, uint8_t *out);
void erofs_zidx_full(const struct sqp_writer *w, uint64_t nlc, uint32_t rec,
		     const uint8_t *idx, uint8_t *out);

/* Everything after the last entry: directories, inodes, superblock. */
int erofs_w_finish(struct sqp_writer *w, int64_t mod_time);

/* erofs_data.c: the back end's table, for lib/formats to pick. */
extern const struct writer_format writer_erofs;

#endif
