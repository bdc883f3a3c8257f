/* SPDX-License-Identifier: MIT */
/*
 * fragpack.h - the fragment packer: file tails packed side by side into
 * fragment blocks, in the order they come, and the fragment table.
 *
 * The block being filled is a compressor job (compress.h); when the next
 * tail does not fit, it is submitted and a new one opened. Where a
 * fragment block went is known once it is retired, and is read only
 * through fragpack_wait (which retires jobs until it is) or
 * fragpack_placed (which says whether it is).
 */
#ifndef SQP_WRITE_FRAGPACK_H
#define SQP_WRITE_FRAGPACK_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"
#include "write/compress.h"

struct fragpack;

/* *out is set unless it could not be allocated. */
int fragpack_create(struct compress_stage *comp, uint32_t block_size,
		    struct sqp_errbuf *err, struct fragpack **out);
void fragpack_destroy(struct fragpack *pk);

/* Append len bytes as a new tail; says where they went. */
int fragpack_add(struct fragpack *pk, const uint8_t *bytes, uint32_t len,
		 uint32_t *frag_index, uint32_t *offset);
/* The index of a fragment block that comes stored already (a base
 * image's, basecopy.h): the caller submits its job with that index. */
int fragpack_reserve(struct fragpack *pk, uint32_t *index);
/* Submit the block being filled, if any. */
int fragpack_flush(struct fragpack *pk);
/* The compressors wrote fragment block index at pos (compress.h). */
void fragpack_written(struct fragpack *pk, uint32_t index, uint64_t pos,
		      uint32_t size_word);

size_t fragpack_count(const struct fragpack *pk);
/* Fragment block index is the one being filled: 1 and its bytes so far
 * (exactly what will be stored), else 0. */
int fragpack_open_bytes(const struct fragpack *pk, uint32_t index,
			const uint8_t **data, uint32_t *len);
/* Where block index is stored: 1 if retired, 0 if not yet. */
int fragpack_placed(const struct fragpack *pk, uint32_t index, uint64_t *start,
		    uint32_t *size_word);
/* The same, retiring jobs until it is. */
int fragpack_wait(struct fragpack *pk, uint32_t index, uint64_t *start,
		  uint32_t *size_word);

#endif
