/* SPDX-License-Identifier: MIT */
/*
 * erofs_format.h - the EROFS on-disk format as far as sqpack reads it:
 * constants, the host-side form of the superblock, inodes, directory
 * entries and xattr entries, and their decoders.
 *
 * Like sqfs_format.h this layer converts bytes to structs and does no
 * I/O; it sits here, next to SquashFS's, so that an EROFS writer can
 * share it with the reader later. Decoders check only what the bytes
 * alone tell; where a record points is the reader's to check.
 */
#ifndef SQP_FORMAT_EROFS_FORMAT_H
#define SQP_FORMAT_EROFS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define EROFS_MAGIC           0xE0F5E1E2u
#define EROFS_SUPER_OFFSET    1024u
#define EROFS_SUPER_SIZE      128u
#define EROFS_SLOT_SIZE       32u     /* nid unit: inode position / 32 */
#define EROFS_NULL_ADDR       0xFFFFFFFFu
#define EROFS_NAME_MAX        255u
#define EROFS_DIRENT_SIZE     12u

/* Incompatible features this reader knows; any other bit refuses. */
#define EROFS_IN_ZERO_PADDING 0x01u   /* compressed data only */
#define EROFS_IN_COMPR_CFGS   0x02u
#define EROFS_IN_CHUNKED_FILE 0x04u
#define EROFS_IN_DEVICE_TABLE 0x08u
#define EROFS_IN_ZTAILPACKING 0x10u
#define EROFS_IN_FRAGMENTS    0x20u
#define EROFS_IN_XATTR_PREFIX 0x40u
/* The metabox (Linux 6.17): an inode whose nid has EROFS_NID_MBOX set
 * lies at (nid without it) * 32 in the data of the metabox inode, whose
 * nid the superblock's extension slot holds (EROFS_SUPER_MBOX_NID). */
#define EROFS_IN_METABOX      0x100u
#define EROFS_NID_MBOX        (1ull << 63)
#define EROFS_SUPER_MBOX_NID  128u
#define EROFS_SUPER_EXTSLOT   16u
/* The 48-bit layout: block addresses and counts with 16 more bits, a
 * 64-bit root nid, and compact inodes with their own time, in seconds
 * from an epoch base (the superblock's time field) that the build time
 * too counts from. */
#define EROFS_IN_48BIT        0x80u

/* Inode data layouts (i_format bits 1..3). */
enum erofs_layout {
	EROFS_FLAT_PLAIN = 0,
	EROFS_COMPRESSED_FULL = 1,
	EROFS_FLAT_INLINE = 2,
	EROFS_COMPRESSED_COMPACT = 3,
	EROFS_CHUNK_BASED = 4,
};

/* Chunk-based inodes: i_u's low 16 bits. */
#define EROFS_CHUNK_BLKBITS_MASK 0x1Fu
#define EROFS_CHUNK_INDEXES      0x20u
#define EROFS_CHUNK_48BIT        0x40u   /* indexes' startblk_hi counts */
/* One 8-byte chunk index (EROFS_CHUNK_INDEXES): advise 0, the device
 * (0 the image, 1.. its extra devices) and the chunk's first block; a
 * hole's chunk is device 0 at EROFS_NULL_ADDR, whatever device was
 * given, as mkfs.erofs writes one. */
void erofs_chunk_index_encode(uint16_t device, uint32_t blkaddr, uint8_t *raw);

struct erofs_super {
	uint32_t magic;
	uint32_t feature_compat;
	uint8_t blkszbits;
	uint8_t sb_extslots;
	/* 16 bits at 14, or with EROFS_IN_48BIT 64 at 112 when they are not
	 * 0 (the 16 at 14 are then the high bits of blocks). */
	uint64_t root_nid;
	uint64_t inos;
	/* The build time; with EROFS_IN_48BIT the epoch base, the build
	 * time being build_delta seconds after it. */
	uint64_t build_time;
	uint32_t build_delta;
	uint64_t blocks;
	uint32_t meta_blkaddr;
	uint32_t xattr_blkaddr;
	uint32_t feature_incompat;
	uint16_t extra_devices;
	uint8_t dirblkbits;           /* directory blocks: block size << it */
	uint8_t xattr_prefix_count;
	uint32_t xattr_prefix_start;  /* long prefixes, in 4-byte units */
	uint64_t packed_nid;
	/* u1 at 84 with EROFS_IN_COMPR_CFGS: bit 1 << EROFS_ALG_* per
	 * algorithm used, each with a record after the superblock (else the
	 * field is lz4's max distance, which 0 leaves at its default). */
	uint16_t compr_algs;
};

/* Both inode versions, widened: compact inodes (32 bytes) have 16-bit
 * ids and a 32-bit time counted from the superblock's build_time (0
 * before the 48-bit layout: the build time itself). */
struct erofs_inode {
	uint8_t extended;        /* 64-byte inode */
	uint8_t layout;          /* enum erofs_layout */
	uint16_t xattr_icount;
	uint16_t mode;
	uint32_t nlink;
	uint64_t size;
	uint32_t u;              /* raw_blkaddr, rdev, or chunk format */
	uint32_t uid, gid;
	int has_mtime;           /* 0: mtime counts from build_time */
	uint64_t mtime;
	uint32_t mtime_nsec;     /* extended inodes; 0 for compact ones */
	uint16_t blk_hi;         /* bits 32..47 of a flat layout's block */
};
/* i_format bit 4: a compact non-directory inode has one link, and its
 * link count field holds blk_hi (48-bit layout); a directory has no
 * "." entry. */
#define EROFS_I_NLINK_1 0x10u

/* The superblock from its 128 bytes (at EROFS_SUPER_OFFSET). */
void erofs_super_decode(struct erofs_super *sb, const uint8_t *raw);
/* The first two bytes of an inode: how long it is (32 or 64), or 0
 * for a version this format does not know. */
unsigned erofs_inode_size(const uint8_t *raw);
/* An inode from its erofs_inode_size() bytes. */
void erofs_inode_decode(struct erofs_inode *ino, const uint8_t *raw);
/* Bytes of an inode's xattr area for its i_xattr_icount (0: none). */
uint32_t erofs_xattr_ibody_size(uint16_t icount);

struct erofs_dirent {
	uint64_t nid;
	uint16_t nameoff;
	uint8_t file_type;       /* EROFS_FT_* */
};
void erofs_dirent_decode(struct erofs_dirent *d, const uint8_t *raw);

/* Directory entry types; the same numbers as the kernel's fs_ftype. */
enum { EROFS_FT_UNKNOWN, EROFS_FT_REG, EROFS_FT_DIR, EROFS_FT_CHRDEV,
       EROFS_FT_BLKDEV, EROFS_FT_FIFO, EROFS_FT_SOCK, EROFS_FT_SYMLINK,
       EROFS_FT_MAX };

/* An xattr entry's 4-byte head; name and value follow, the whole
 * padded to 4 bytes. */
struct erofs_xattr_head {
	uint8_t name_len;
	uint8_t name_index;      /* standard prefix; bit 7: long prefix */
	uint16_t value_size;
};
void erofs_xattr_head_decode(struct erofs_xattr_head *h, const uint8_t *raw);
/* An xattr entry's name index with this bit: a long prefix, numbered
 * by the other bits, from the superblock's table. Each table entry is a
 * 16-bit length, then the standard prefix's index and the infix (the
 * rest of the prefix), padded to 4 bytes. */
#define EROFS_XATTR_LONG_PREFIX 0x80u

/* The xattr name filter (a compatible feature, mkfs.erofs -E
 * xattr-name-filter): the area header's first 4 bytes hold 32 bits, one
 * per hash of a name, set where no name of the inode hashes, so that the
 * kernel answers a lookup of a name whose bit is set as absent without
 * reading the entries. A name's bit: xxh32 of the name after its
 * standard prefix, seeded with the seed plus the prefix's index, mod 32. */
#define EROFS_COMPAT_XATTR_FILTER 0x04u
#define EROFS_XATTR_FILTER_SEED   0x25BBE08Fu

/* The standard prefix of a name index ("user." ...), NULL if unknown. */
const char *erofs_xattr_prefix(uint8_t index);

/* Compressed files: an 8-byte map header 8-aligned after the inode and
 * its xattrs, then the logical cluster indexes: full (8 bytes each,
 * after 8 more bytes) or compact (packs of 2 x 4 bytes or 16 x 2
 * bytes). Each logical cluster is a HEAD (an extent starts in it, at
 * clusterofs), PLAIN (a HEAD whose pcluster is stored raw) or NONHEAD. */
#define EROFS_Z_HEADER_SIZE        8u
#define EROFS_Z_COMPACTED_2B       0x0001u
#define EROFS_Z_BIG_PCLUSTER_1     0x0002u
#define EROFS_Z_BIG_PCLUSTER_2     0x0004u
#define EROFS_Z_INLINE_PCLUSTER    0x0008u
#define EROFS_Z_INTERLACED_PCLUSTER 0x0010u
#define EROFS_Z_FRAGMENT_PCLUSTER  0x0020u
/* The largest pcluster on disk and the most bytes one decompresses to. */
#define EROFS_Z_PCLUSTER_MAX       (1u << 20)
#define EROFS_Z_DECODED_MAX        (12u << 20)

/* Encoded extents (layout EROFS_COMPRESSED_FULL with EROFS_Z_EXTENTS,
 * which mkfs.erofs writes with the 48-bit layout): after the map
 * header, aligned to their size, records of 4, 8, 16 or 32 bytes (4 <<
 * advise bits 1..2): a 32-bit plen (its low 21 bits the bytes stored,
 * EROFS_ZE_PARTIAL, and from bit 28 the algorithm + 1, 0 for raw), a
 * 64-bit pstart (a byte position, in two halves), a 64-bit lstart
 * (likewise). Records of 4 and 8 bytes are one per logical cluster (a
 * block << the header's byte 7), those of 4 after a 64-bit pstart of
 * the first, each pcluster following the last; records of 16 and 32
 * bytes are one per extent, the header's bytes 0..3 and 6..7 their
 * count, sorted by lstart. The last extent of a file with
 * EROFS_Z_FRAGMENT_PCLUSTER is its fragment: plen and pstart's low half
 * are the offset in the packed inode. */
#define EROFS_Z_EXTENTS            0x0001u
#define EROFS_ZE_PLEN_MASK         0x1FFFFFu
#define EROFS_ZE_PARTIAL           (1u << 27)
#define EROFS_ZE_FMT_SHIFT         28

/* An index's type: PLAIN (a pcluster stored as it is), HEAD1 and HEAD2
 * (compressed with the map header's first or second algorithm), NONHEAD
 * (inside an extent that began earlier). */
enum erofs_lcluster_type {
	EROFS_LC_PLAIN, EROFS_LC_HEAD1, EROFS_LC_NONHEAD, EROFS_LC_HEAD2
};

struct erofs_zheader {
	int whole_fragment;      /* the whole file lies in the packed inode */
	uint64_t fragment_off;   /* where in it (its tail's, if not whole) */
	uint16_t idata_size;     /* bytes of the inline (tail) pcluster */
	uint16_t advise;         /* EROFS_Z_* */
	uint8_t alg[2];          /* of HEAD1 and HEAD2 lclusters */
	uint8_t lcbits_extra;    /* logical cluster = block << this */
};
void erofs_zheader_decode(struct erofs_zheader *h, const uint8_t *raw);

/* One logical cluster's index, either form. */
struct erofs_lcluster {
	uint8_t type;            /* EROFS_LC_* */
	uint8_t partial_ref;     /* HEAD: refers to a prefix of its data */
	uint16_t clusterofs;     /* HEAD: where the extent starts in it */
	uint32_t blkaddr;        /* HEAD: its pcluster's block */
	uint16_t delta0;         /* NONHEAD: lclusters back to its HEAD */
	uint16_t cblkcnt;        /* NONHEAD: pcluster blocks (0: not told) */
};
/* A full index entry (8 bytes). */
void erofs_lcluster_full_decode(struct erofs_lcluster *lc, const uint8_t *raw);
/* Entry i of a compact pack: vcnt entries (2 or 16) in pack_bytes (8 or
 * 32), the pack's base block address in its last 4 bytes. -1 when the
 * pack is inconsistent. */
int erofs_lcluster_compact_decode(struct erofs_lcluster *lc,
				  const uint8_t *pack, unsigned vcnt,
				  unsigned pack_bytes, unsigned lcbits,
				  int big_pcluster, unsigned i);

/* Encoders (erofs_encode.c), for the writer: each fills exactly its
 * record's bytes, reserved fields zero. */

/* The superblock's 128 bytes: sb's fields, plus the build time's
 * nanoseconds, the UUID and the volume label (up to 16 bytes, not
 * NUL-terminated when it fills them). */
struct erofs_super_extra {
	uint32_t build_time_nsec;
	uint8_t uuid[16];
	char volume_name[16];
};
void erofs_super_encode(const struct erofs_super *sb,
			const struct erofs_super_extra *x, uint8_t *raw);
/* An inode: 32 bytes when !ino->extended, else 64; ino_number is the
 * i_ino the kernel reports for 32-bit inode numbers. Returns the size. */
unsigned erofs_inode_encode(const struct erofs_inode *ino, uint32_t ino_number,
			    uint8_t *raw);
/* The xattr area's 12-byte header (name_filter, no shared xattrs) and
 * the icount an area of ibody bytes (header included, a multiple of 4)
 * is given. */
void erofs_xattr_ibody_header_encode(uint32_t name_filter, uint8_t *raw);
uint16_t erofs_xattr_icount(uint32_t ibody);
void erofs_xattr_head_encode(const struct erofs_xattr_head *h, uint8_t *raw);
void erofs_dirent_encode(const struct erofs_dirent *d, uint8_t *raw);
/* Compression algorithms (a map header's h_algorithmtype, the bits of
 * compr_algs). */
enum { EROFS_ALG_LZ4 = 0, EROFS_ALG_LZMA = 1, EROFS_ALG_DEFLATE = 2,
       EROFS_ALG_ZSTD = 3 };
/* The compression configuration records begin here, each at a
 * 4-byte boundary: a 16-bit length, then that many bytes. */
#define EROFS_COMPR_CFGS_OFFSET (EROFS_SUPER_OFFSET + EROFS_SUPER_SIZE)
#define EROFS_COMPR_CFG_MAX 16u
/* Algorithm alg's record, length field included, into raw; returns its
 * size. history: the decoder's history in bytes (the lzma dictionary; a
 * power of two for deflate's and zstd's window; unused for lz4, whose
 * distance stays the default); max_pclusterblks: the most blocks of a
 * pcluster (lz4's record only: big pclusters). */
size_t erofs_compr_cfg_encode(unsigned alg, uint32_t history,
			      uint16_t max_pclusterblks, uint8_t *raw);

/* Compressed files (full indexes): after the inode and its xattr area,
 * aligned to 8, an 8-byte map header, 8 reserved bytes, then one 8-byte
 * index per logical cluster. */
#define EROFS_Z_INDEX_SIZE      8u
/* The map header: advise bits (EROFS_Z_*), the inline (tail) pcluster's
 * bytes with EROFS_Z_INLINE_PCLUSTER, the algorithm of HEAD1 clusters,
 * logical cluster bits above the block's. */
void erofs_z_map_header_encode(uint16_t advise, uint16_t idata_size,
			       uint8_t algorithm, uint8_t clusterbits, uint8_t *raw);
/* A HEAD or PLAIN index: where in the logical cluster the cluster's data
 * begins and its first block. */
void erofs_z_head_encode(enum erofs_lcluster_type type, uint16_t clusterofs,
			 uint32_t blkaddr, uint8_t *raw);
/* A NONHEAD index: logical clusters back to its head and on to the next
 * head (or past the end of the file). */
void erofs_z_nonhead_encode(uint16_t back, uint16_t ahead, uint8_t *raw);

/* Compact indexes (layout EROFS_COMPRESSED_COMPACT, advise
 * EROFS_Z_COMPACTED_2B, and with big pclusters both BIG_PCLUSTER
 * bits): right after the map
 * header, packs of 2 entries in 8 bytes up to a 32-byte boundary, then
 * packs of 16 in 32 bytes, then packs of 2 again for the rest; each pack
 * ends with a 32-bit block address that its heads count on from. mod32
 * is the map header's end modulo 32 (inodes sit on 32-byte slots). */
uint64_t erofs_z_compact_size(uint64_t nlc, unsigned mod32);
/* The pack that holds logical cluster lcn's entry, counted from 0: in
 * a pack, the heads' blocks follow one another from its first head's
 * (erofs_z_compact_encode fails otherwise), which is free. */
uint64_t erofs_z_compact_pack(uint64_t nlc, unsigned mod32, uint64_t lcn);
/* The compact form of nlc full indexes (as erofs_z_head_encode and
 * erofs_z_nonhead_encode write them) into out (erofs_z_compact_size
 * bytes); big: the full ones carry CBLKCNT (big pclusters). -1 if the
 * heads' blocks do not follow each other, which compact indexes cannot
 * say. */
int erofs_z_compact_encode(const uint8_t *full, uint64_t nlc, unsigned mod32,
			   int big, uint8_t *out);

/* Big pclusters (EROFS_IN_COMPR_CFGS): the first NONHEAD after a
 * compressed HEAD carries this flag and the pcluster's blocks in place
 * of its distance back (which is then 1). */
#define EROFS_Z_D0_CBLKCNT 0x0800u

/* i_format's layout field, and the extended bit. */
#define EROFS_I_EXTENDED 1u
#define EROFS_I_LAYOUT_SHIFT 1u

#endif
