/* SPDX-License-Identifier: MIT */
/*
 * tables.h - writing SquashFS lookup tables (fragments, export, ids, xattr
 * ids): the entries packed into metadata blocks, then the list of those
 * blocks' absolute positions, which is what the superblock points to.
 */
#ifndef SQP_WRITE_TABLES_H
#define SQP_WRITE_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/codec.h"
#include "util/spill.h"
#include "write/imgout.h"

/* Append the entries (len bytes) as metadata blocks and then, unless
 * header is non-NULL, the location list; with a header (the xattr table's
 * 16 bytes), the header goes between the blocks and the list. *pos is set
 * to where the list (or header) starts. When data lives in spill (the
 * export table of a huge tree), the arena is ticked once per block, so
 * the pass does not map all of it in; NULL: on the heap. */
int table_write(struct imgout *out, struct sqp_compressor *codec,
		const uint8_t *data, size_t len, const uint8_t *header,
		size_t header_len, struct sqp_spill *spill, uint64_t *pos);

#endif
