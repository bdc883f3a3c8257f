/* SPDX-License-Identifier: MIT */
/*
 * metawriter.h - packs a stream of records into SquashFS metadata blocks.
 *
 * Records (inodes, directory listings, xattr pairs, table entries) are
 * appended as bytes; every 8 KiB the block is compressed (or stored raw if
 * it does not shrink) and added, with its 16-bit header, to an in-memory
 * table. A reference (block position << 16 | offset) to the next byte is
 * available at any time: the position of the current block is known before
 * it is compressed, because it starts where the previous one ended.
 * Serial, for the xattr table; the inode and directory tables use the
 * pool (metapool.h).
 */
#ifndef SQP_WRITE_METAWRITER_H
#define SQP_WRITE_METAWRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "squashfs/sqfs_format.h"
#include "sqpack/codec.h"
#include "util/errbuf.h"

struct metawriter {
	uint8_t block[SQFS_META_SIZE];
	size_t fill;
	uint64_t total_in;     /* bytes appended, as one uncompressed stream */
	uint8_t *out;          /* finished blocks, headers included */
	size_t out_len;
	size_t out_cap;
	uint8_t *scratch;      /* compression output */
	struct sqp_compressor *codec; /* borrowed; NULL = store uncompressed */
	struct sqp_errbuf *err;       /* borrowed */
};

int meta_init(struct metawriter *m, struct sqp_compressor *codec,
	      struct sqp_errbuf *err);
void meta_cleanup(struct metawriter *m);

/* Reference of the next byte to be appended. */
static inline uint64_t meta_ref(const struct metawriter *m)
{
	return sqfs_ref(m->out_len, (uint32_t)m->fill);
}

/* Append len bytes (any size; blocks are cut every 8 KiB). */
int meta_append(struct metawriter *m, const void *data, size_t len);

/* Close the last, partial block. */
int meta_finish(struct metawriter *m);

/* Copy what fits of the *len bytes at *data into a metadata block that
 * holds *fill bytes, advancing all three; 1 when the block is full (to
 * be cut), else 0. The serial writer and the tables' pool both fill
 * their blocks through this. */
static inline int meta_fill_block(uint8_t *block, size_t *fill,
				  const uint8_t **data, size_t *len)
{
	size_t n = SQFS_META_SIZE - *fill;

	if (n > *len)
		n = *len;
	memcpy(block + *fill, *data, n);
	*fill += n;
	*data += n;
	*len -= n;
	return *fill == SQFS_META_SIZE;
}

/* Compress one metadata block payload (<= 8 KiB) into dst with its
 * header; returns the bytes produced (header included) or < 0. Shared by
 * the table writers. dst holds SQFS_META_SIZE + 2 bytes. */
int meta_encode_block(struct sqp_compressor *codec, const uint8_t *src,
		      size_t len, uint8_t *dst);

#endif
