/* SPDX-License-Identifier: MIT */
/*
 * sqfs_format.h - the SquashFS 4.0 on-disk format: constants, the host-side
 * form of each record, and their encoders and decoders.
 *
 * This layer only converts between byte buffers and structs. It does no
 * I/O and knows nothing of the pipeline; the writer (lib/write) and the
 * reader (lib/read) both build on it and never on each other. Decoders
 * check only what the bytes alone can tell (sizes, ranges of a field);
 * consistency with the rest of an image is the reader's job.
 */
#ifndef SQP_FORMAT_SQFS_FORMAT_H
#define SQP_FORMAT_SQFS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define SQFS_MAGIC            0x73717368u
#define SQFS_VERSION_MAJOR    4
#define SQFS_VERSION_MINOR    0
#define SQFS_SUPER_SIZE       96
#define SQFS_DEVBLK_SIZE      4096

#define SQFS_BLOCK_SIZE_MIN   4096u
#define SQFS_BLOCK_SIZE_MAX   1048576u
#define SQFS_BLOCK_LOG_MIN    12
#define SQFS_BLOCK_LOG_MAX    20

/* Metadata blocks: 8 KiB uncompressed, a 16-bit header in front. */
#define SQFS_META_SIZE        8192u
#define SQFS_META_UNCOMPRESSED 0x8000u
#define SQFS_META_SIZE_MASK   0x7FFFu

/* Data and fragment block size words. */
#define SQFS_BLOCK_UNCOMPRESSED (1u << 24)
#define SQFS_BLOCK_SIZE_MASK  0x00FFFFFFu

#define SQFS_NO_FRAGMENT      0xFFFFFFFFu
#define SQFS_NO_XATTR         0xFFFFFFFFu
#define SQFS_NO_TABLE         0xFFFFFFFFFFFFFFFFull

#define SQFS_DIR_MAX_RUN      256    /* entries after one directory header */
#define SQFS_NAME_MAX         256    /* bytes in one file name */
#define SQFS_DIR_SIZE_BIAS    3      /* dir inode sizes count "." and ".." */
#define SQFS_MAX_IDS          65535  /* id_count is a u16 */

/* Entries per metadata block of the lookup tables. */
#define SQFS_FRAG_ENTRY_SIZE   16
#define SQFS_XATTR_ID_SIZE     16
#define SQFS_ID_ENTRY_SIZE     4
#define SQFS_EXPORT_ENTRY_SIZE 8

/* Superblock flags. */
enum {
	SQFS_FLAG_UNCOMPRESSED_INODES = 0x0001,
	SQFS_FLAG_UNCOMPRESSED_DATA = 0x0002,
	SQFS_FLAG_CHECK = 0x0004,
	SQFS_FLAG_UNCOMPRESSED_FRAGMENTS = 0x0008,
	SQFS_FLAG_NO_FRAGMENTS = 0x0010,
	SQFS_FLAG_ALWAYS_FRAGMENTS = 0x0020,
	SQFS_FLAG_DEDUPLICATED = 0x0040,
	SQFS_FLAG_EXPORTABLE = 0x0080,
	SQFS_FLAG_UNCOMPRESSED_XATTRS = 0x0100,
	SQFS_FLAG_NO_XATTRS = 0x0200,
	SQFS_FLAG_COMPRESSOR_OPTIONS = 0x0400,
	SQFS_FLAG_UNCOMPRESSED_IDS = 0x0800,
};

/* Inode types; the extended type of a basic one is basic + 7. */
enum sqfs_inode_type {
	SQFS_DIR = 1,
	SQFS_FILE = 2,
	SQFS_SYMLINK = 3,
	SQFS_BLKDEV = 4,
	SQFS_CHRDEV = 5,
	SQFS_FIFO = 6,
	SQFS_SOCKET = 7,
	SQFS_LDIR = 8,
	SQFS_LFILE = 9,
	SQFS_LSYMLINK = 10,
	SQFS_LBLKDEV = 11,
	SQFS_LCHRDEV = 12,
	SQFS_LFIFO = 13,
	SQFS_LSOCKET = 14,
};
#define SQFS_EXT_OFFSET 7

/* Xattr key prefixes. */
enum {
	SQFS_XATTR_USER = 0,
	SQFS_XATTR_TRUSTED = 1,
	SQFS_XATTR_SECURITY = 2,
	SQFS_XATTR_VALUE_OOL = 0x0100, /* value is a reference, not inline */
};

/* A metadata reference: block position (relative to its table) << 16 |
 * offset into the uncompressed block. */
static inline uint64_t sqfs_ref(uint64_t block, uint32_t offset)
{
	return (block << 16) | (offset & 0xFFFFu);
}
static inline uint64_t sqfs_ref_block(uint64_t ref) { return ref >> 16; }
static inline uint32_t sqfs_ref_offset(uint64_t ref) { return ref & 0xFFFFu; }

/* ------------------------------------------------------------------ */

struct sqfs_super {
	uint32_t magic;
	uint32_t inode_count;
	uint32_t mod_time;
	uint32_t block_size;
	uint32_t frag_count;
	uint16_t compressor;
	uint16_t block_log;
	uint16_t flags;
	uint16_t id_count;
	uint16_t version_major;
	uint16_t version_minor;
	uint64_t root_inode;
	uint64_t bytes_used;
	uint64_t id_table;
	uint64_t xattr_table;
	uint64_t inode_table;
	uint64_t dir_table;
	uint64_t frag_table;
	uint64_t export_table;
};

void sqfs_super_encode(const struct sqfs_super *sb, uint8_t out[SQFS_SUPER_SIZE]);
void sqfs_super_decode(struct sqfs_super *sb, const uint8_t in[SQFS_SUPER_SIZE]);

/* ------------------------------------------------------------------ */
/* Inodes                                                              */
/* ------------------------------------------------------------------ */

/*
 * Host form of any inode. Fields a type does not have are 0 (xattr:
 * SQFS_NO_XATTR). Variable parts (block sizes, symlink target) are
 * borrowed pointers on encode; on decode they are not filled, the caller
 * reads them from the stream after the fixed part (see
 * sqfs_inode_fixed_size).
 */
struct sqfs_inode {
	uint16_t type;
	uint16_t mode;          /* permission bits only (07777) */
	uint16_t uid_idx;
	uint16_t gid_idx;
	uint32_t mtime;
	uint32_t inode_number;

	uint32_t nlink;
	uint32_t xattr_idx;

	union {
		struct {
			uint32_t start_block; /* dir table block position */
			uint32_t size;        /* listing size + 3 */
			uint16_t offset;      /* offset in that block */
			uint32_t parent;      /* parent's inode number */
			uint16_t index_count; /* extended only */
		} dir;
		struct {
			uint64_t blocks_start;
			uint64_t size;
			uint64_t sparse;      /* extended only */
			uint32_t frag_index;
			uint32_t frag_offset;
			const uint32_t *block_sizes; /* encode: block_count words */
			uint32_t block_count;
		} file;
		struct {
			uint32_t target_size;
			const char *target;   /* encode: target_size bytes */
		} symlink;
		struct {
			uint32_t rdev;        /* Linux new_encode_dev() form */
		} dev;
	} u;
};

/* Bytes of the fixed part of an inode of this type (header included,
 * block list / symlink target / directory index / trailing symlink xattr
 * excluded); 0 for an unknown type. */
size_t sqfs_inode_fixed_size(unsigned type);

/* Total encoded size of an inode, directory index excluded. */
size_t sqfs_inode_encoded_size(const struct sqfs_inode *ino);

/* Encode the whole inode (block list and symlink target included, directory
 * index excluded) into out, which holds sqfs_inode_encoded_size() bytes. */
void sqfs_inode_encode(const struct sqfs_inode *ino, uint8_t *out);

/* Decode the fixed part; in holds sqfs_inode_fixed_size(type) bytes, where
 * type is the first u16. Returns 0, or -1 for an unknown type. The
 * extended symlink's xattr index follows the target and is not decoded. */
int sqfs_inode_decode_fixed(struct sqfs_inode *ino, const uint8_t *in, size_t len);

/* Number of entries in a file's block list. */
uint64_t sqfs_file_block_count(uint64_t file_size, uint32_t block_size,
			       int has_fragment);

/* Linux device number encoding used by SquashFS. */
uint32_t sqfs_encode_rdev(uint32_t major, uint32_t minor);
void sqfs_decode_rdev(uint32_t rdev, uint32_t *major, uint32_t *minor);
/* The basic inode type (enum sqfs_inode_type) of a full st_mode's file
 * type, 0 when it has none: the reader's EROFS inodes and the writer's
 * records name their type through it. */
unsigned sqfs_basic_type(uint32_t mode);

/* ------------------------------------------------------------------ */
/* Directories                                                         */
/* ------------------------------------------------------------------ */

#define SQFS_DIR_HEADER_SIZE 12
#define SQFS_DIR_ENTRY_SIZE  8   /* plus the name */
#define SQFS_DIR_INDEX_SIZE  12  /* plus the name */

struct sqfs_dir_header {
	uint32_t count;         /* entries that follow (stored minus one) */
	uint32_t start_block;   /* inode table block of those entries */
	uint32_t inode_number;  /* base for the entries' deltas */
};

struct sqfs_dir_entry {
	uint16_t offset;        /* inode offset in its metadata block */
	int16_t inode_delta;
	uint16_t type;          /* basic inode type */
	uint16_t name_size;     /* actual name length (stored minus one) */
};

struct sqfs_dir_index {
	uint32_t index;         /* listing byte offset of the header */
	uint32_t start_block;   /* dir table block holding that header */
	uint32_t name_size;     /* actual name length (stored minus one) */
};

void sqfs_dir_header_encode(const struct sqfs_dir_header *h, uint8_t out[SQFS_DIR_HEADER_SIZE]);
void sqfs_dir_header_decode(struct sqfs_dir_header *h, const uint8_t in[SQFS_DIR_HEADER_SIZE]);
void sqfs_dir_entry_encode(const struct sqfs_dir_entry *e, uint8_t out[SQFS_DIR_ENTRY_SIZE]);
void sqfs_dir_entry_decode(struct sqfs_dir_entry *e, const uint8_t in[SQFS_DIR_ENTRY_SIZE]);
void sqfs_dir_index_encode(const struct sqfs_dir_index *x, uint8_t out[SQFS_DIR_INDEX_SIZE]);
void sqfs_dir_index_decode(struct sqfs_dir_index *x, const uint8_t in[SQFS_DIR_INDEX_SIZE]);

/* ------------------------------------------------------------------ */
/* Tables                                                              */
/* ------------------------------------------------------------------ */

struct sqfs_frag_entry {
	uint64_t start;
	uint32_t size;          /* on-disk size word (SQFS_BLOCK_UNCOMPRESSED) */
};

struct sqfs_xattr_id {
	uint64_t ref;           /* key/value metadata reference */
	uint32_t count;         /* key/value pairs */
	uint32_t size;          /* bytes of those pairs as stored */
};

/* The uncompressed header the superblock's xattr field points to; the
 * lookup table's block locations follow it. */
struct sqfs_xattr_table {
	uint64_t kv_start;
	uint32_t count;
};
#define SQFS_XATTR_TABLE_SIZE 16

void sqfs_frag_entry_encode(const struct sqfs_frag_entry *f, uint8_t out[SQFS_FRAG_ENTRY_SIZE]);
void sqfs_frag_entry_decode(struct sqfs_frag_entry *f, const uint8_t in[SQFS_FRAG_ENTRY_SIZE]);
void sqfs_xattr_id_encode(const struct sqfs_xattr_id *x, uint8_t out[SQFS_XATTR_ID_SIZE]);
void sqfs_xattr_id_decode(struct sqfs_xattr_id *x, const uint8_t in[SQFS_XATTR_ID_SIZE]);
void sqfs_xattr_table_encode(const struct sqfs_xattr_table *t, uint8_t out[SQFS_XATTR_TABLE_SIZE]);
void sqfs_xattr_table_decode(struct sqfs_xattr_table *t, const uint8_t in[SQFS_XATTR_TABLE_SIZE]);

/* Number of metadata blocks a lookup table of count entries needs. */
static inline uint64_t sqfs_table_blocks(uint64_t count, unsigned entry_size)
{
	return (count * entry_size + SQFS_META_SIZE - 1) / SQFS_META_SIZE;
}

/* Xattr prefixes: the id for a full key ("user.x" -> SQFS_XATTR_USER and
 * *name_off = 5), -1 for a prefix SquashFS cannot store; and the prefix
 * string for an id (NULL if unknown; the OOL flag is ignored). */
int sqfs_xattr_prefix_id(const char *key, size_t *name_off);
const char *sqfs_xattr_prefix(unsigned id);

#endif
