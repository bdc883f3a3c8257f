/* SPDX-License-Identifier: MIT */
/*
 * image_info.h - how an open image is laid out on disk: superblock flags,
 * compressor options, the bytes each part takes, where a regular file's
 * blocks and fragment tail are stored, and where its holes are.
 *
 * For inspection tools (imginfo) and sqpack-fuse's lseek; reading an
 * image needs none of this.
 * Same thread contract and error latching as reader.h: one thread per
 * image at a time; a corrupt table latches the image's error.
 */
#ifndef SQPACK_IMAGE_INFO_H
#define SQPACK_IMAGE_INFO_H

/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/image_info.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/codec.h"
#include "sqpack/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Superblock flags, as stored. */
#define SQP_SB_UNCOMPRESSED_INODES    0x0001
#define SQP_SB_UNCOMPRESSED_DATA      0x0002
#define SQP_SB_CHECK                  0x0004
#define SQP_SB_UNCOMPRESSED_FRAGMENTS 0x0008
#define SQP_SB_NO_FRAGMENTS           0x0010
#define SQP_SB_ALWAYS_FRAGMENTS       0x0020
#define SQP_SB_DEDUPLICATED           0x0040
#define SQP_SB_EXPORTABLE             0x0080
#define SQP_SB_UNCOMPRESSED_XATTRS    0x0100
#define SQP_SB_NO_XATTRS              0x0200
#define SQP_SB_COMPRESSOR_OPTIONS     0x0400
#define SQP_SB_UNCOMPRESSED_IDS       0x0800

struct sqp_image_layout {
	uint16_t flags;            /* SQP_SB_* */
	uint32_t frag_count;       /* fragment blocks */
	uint32_t id_count;         /* distinct owner ids */
	uint32_t xattr_id_count;   /* distinct xattr sets */
	int has_export;            /* an export (NFS) table is present */
	int has_xattr_table;
	uint64_t file_size;        /* of the image file, padding included */
	uint64_t bytes_used;       /* the superblock's */
	uint32_t options_bytes;    /* options block, header included; 0: none */
	struct sqp_codec_config codec;  /* options in force (defaults when
					   the image has no options block) */
	/* Bytes on disk of each part. With the superblock (96 bytes) and
	 * the options block they add up to bytes_used unless a packer left
	 * gaps between tables. */
	uint64_t data_bytes;       /* regular file blocks */
	uint64_t fragment_bytes;   /* fragment blocks */
	uint64_t inode_bytes, dir_bytes;
	uint64_t frag_table_bytes, export_bytes, id_bytes, xattr_bytes;
	/* EROFS: what the image shows of the options it was built with,
	 * for a merge of shards that builds with them (img2img --shards).
	 * erofs_pcluster: the largest physical cluster, in bytes, whose
	 * history (as this library's writer sizes it from the pcluster)
	 * the image's compression record covers: lz4's record names it
	 * (no record: one block); lzma's dictionary and zstd's window grow
	 * with it, so a record that several sizes give names the largest;
	 * 0 when the record does not depend on it (deflate), when the
	 * codec is not built, or for no codec or several. erofs_features:
	 * SQP_EROFS_SHOWS_* bits, each set only when some file uses it, as
	 * the superblock's features say. */
	uint32_t erofs_pcluster;
	unsigned erofs_features;
};
#define SQP_EROFS_SHOWS_ZTAILPACKING 0x1u  /* a last pcluster inline */
#define SQP_EROFS_SHOWS_FRAGMENTS    0x2u  /* tails in the packed inode */

/* Fill *out; reads the fragment table (bounded by frag_count) to tell
 * fragment blocks from data blocks. Returns 0 or an error (the image's
 * tables contradict each other: SQP_ERR_CORRUPT, latched). */
SQP_API int sqp_image_get_layout(struct sqp_image *img,
				 struct sqp_image_layout *out);

#define SQP_NO_FRAGMENT 0xFFFFFFFFu

struct sqp_file_layout {
	uint64_t blocks_start;     /* disk position of the first block */
	uint64_t block_count;      /* blocks in the list (tail excluded) */
	uint64_t stored_bytes;     /* their bytes on disk */
	uint64_t hole_blocks;      /* blocks stored as holes (size 0) */
	uint64_t raw_blocks;       /* blocks stored uncompressed */
	uint64_t sparse;           /* extended inodes: bytes in holes */
	uint32_t frag_index;       /* SQP_NO_FRAGMENT: no tail fragment */
	uint32_t frag_offset;      /* tail's offset in the fragment block */
	uint32_t tail_bytes;       /* tail length */
	uint64_t frag_start;       /* fragment block's disk position */
	uint32_t frag_size;        /* and its bytes on disk */
	int frag_raw;              /* stored uncompressed */
	uint32_t xattr_index;      /* 0xFFFFFFFF: none */
};

/* The layout of regular file ref: walks its block list (streamed, no
 * allocation). SQP_ERR_ARG (not latched): not a regular file. */
SQP_API int sqp_image_file_layout(struct sqp_image *img, uint64_t ref,
				  struct sqp_file_layout *out);

/* SEEK_DATA (data nonzero) or SEEK_HOLE in open file f, holes being
 * what the image records as holes (SquashFS's sparse blocks, EROFS's
 * unmapped ranges; stored zeros are data): *out is the first byte at or
 * after off that is data, or that is in a hole, the end of the file
 * counting as one. SQP_ERR_NOT_FOUND (not latched): off at or past the
 * end, or no data after off (the caller's ENXIO). Walks the block list
 * from the start of the file (no allocation). */
SQP_API int sqp_file_seek(struct sqp_file *f, uint64_t off, int data,
			  uint64_t *out);

/* Where an open file's bytes are, for a reader that takes them from
 * the image itself instead of through sqp_file_pread: sqpack-fuse hands
 * stored blocks to the kernel from the image file (splice), and decodes
 * a block several files' tails share once for all its threads. */
enum sqp_span_kind {
	/* Compressed, a hole, or laid out otherwise: read them with
	 * sqp_file_pread. Where the format decodes them as part of one
	 * unit larger than what is asked (an EROFS compressed extent, up
	 * to several MiB), pos is the file offset of the unit's first byte
	 * and shared its length (len still ends at max): a reader that
	 * caches the unit whole decodes it once, not once per piece it
	 * asks for. shared is 0 where no unit is known. */
	SQP_SPAN_DECODE,
	/* Stored as they are: len bytes at pos of the image's file (the
	 * descriptor sqp_image_desc.fd, its offset counted), checked to lie
	 * inside the image. */
	SQP_SPAN_STORED,
	/* SquashFS: a tail in fragment block `shared`, at pos in the block
	 * as decoded (sqp_image_fragment). */
	SQP_SPAN_FRAGMENT,
	/* EROFS: bytes of the packed inode (sqp_image_info.packed_ref),
	 * from its byte pos on. */
	SQP_SPAN_PACKED,
};

struct sqp_file_span {
	int kind;                  /* enum sqp_span_kind */
	uint64_t len;              /* bytes from the asked offset on */
	uint64_t pos;
	uint32_t shared;
};

/* The span of file f that starts at off (< its size) and holds at
 * least one byte: its kind and where it is; len is at most max (> 0),
 * less where the layout changes sooner. 0, or an error (latched). */
SQP_API int sqp_file_span(struct sqp_file *f, uint64_t off, uint64_t max,
			  struct sqp_file_span *out);

/* SquashFS fragment block index, decoded into buf (cap bytes: the
 * block size suffices), *len its bytes: 0, or an error (latched; an
 * index past the fragment table is corrupt). */
SQP_API int sqp_image_fragment(struct sqp_image *img, uint32_t index,
			       void *buf, size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
