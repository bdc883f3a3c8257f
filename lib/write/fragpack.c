/* SPDX-License-Identifier: MIT */
/*
 * fragpack.c - file tails into fragment blocks (see fragpack.h).
 *
 * A tail never spans two fragment blocks, and blocks are submitted in
 * the order they were opened, so the fragment table's order is the
 * image's. A block's record is filled when the compressors retire it;
 * before that its start and size are unknown, and no caller sees them.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "write/fragpack.h"
#include "write/words.h"

struct frag_rec {
	uint64_t start;        /* once retired */
	uint32_t size_word;    /* once retired */
	uint8_t retired;
};

struct fragpack {
	struct compress_stage *comp;   /* borrowed */
	struct sqp_errbuf *err;        /* borrowed */
	uint32_t block_size;
	struct frag_rec *frags;
	size_t frag_count;
	size_t frag_cap;
	struct blk_job *open;          /* fragment block being filled */
	uint32_t fill;
};

int fragpack_create(struct compress_stage *comp, uint32_t block_size,
		    struct sqp_errbuf *err, struct fragpack **out)
{
	struct fragpack *pk = calloc(1, sizeof(*pk));

	*out = pk;
	if (pk == NULL)
		return SQP_ERR_NOMEM;
	pk->comp = comp;
	pk->err = err;
	pk->block_size = block_size;
	return 0;
}

void fragpack_destroy(struct fragpack *pk)
{
	if (pk == NULL)
		return;
	free(pk->frags);
	free(pk);
}

int fragpack_reserve(struct fragpack *pk, uint32_t *index)
{
	struct frag_rec *f;

	if (pk->frag_count == pk->frag_cap) {
		f = sqp_array_grow(pk->frags, &pk->frag_cap, pk->frag_count + 1,
				   sizeof(*f), 256);
		if (f == NULL)
			return sqp_err(pk->err, SQP_ERR_NOMEM, "out of memory");
		pk->frags = f;
	}
	if (pk->frag_count >= WR_NO_FRAGMENT - 1)
		return sqp_err(pk->err, SQP_ERR_LIMIT, "too many fragment blocks");
	memset(&pk->frags[pk->frag_count], 0, sizeof(pk->frags[0]));
	*index = (uint32_t)pk->frag_count++;
	return 0;
}

static int open_block(struct fragpack *pk)
{
	uint32_t index;
	int ret = fragpack_reserve(pk, &index);

	if (ret != 0)
		return ret;
	pk->open = compress_get_job(pk->comp);
	if (pk->open == NULL)
		return pk->err->code;
	pk->open->index = index;
	pk->fill = 0;
	return 0;
}

int fragpack_flush(struct fragpack *pk)
{
	struct blk_job *job = pk->open;

	if (job == NULL)
		return 0;
	pk->open = NULL;
	job->kind = JOB_FRAGMENT;
	job->raw_len = pk->fill;
	return compress_submit(pk->comp, job);
}

int fragpack_add(struct fragpack *pk, const uint8_t *bytes, uint32_t len,
		 uint32_t *frag_index, uint32_t *offset)
{
	int ret;

	if (pk->open != NULL && pk->fill + len > pk->block_size) {
		ret = fragpack_flush(pk);
		if (ret != 0)
			return ret;
	}
	if (pk->open == NULL) {
		ret = open_block(pk);
		if (ret != 0)
			return ret;
	}
	memcpy(pk->open->raw + pk->fill, bytes, len);
	*frag_index = pk->open->index;
	*offset = pk->fill;
	pk->fill += len;
	return 0;
}

void fragpack_written(struct fragpack *pk, uint32_t index, uint64_t pos,
		      uint32_t size_word)
{
	pk->frags[index].start = pos;
	pk->frags[index].size_word = size_word;
	pk->frags[index].retired = 1;
}

size_t fragpack_count(const struct fragpack *pk)
{
	return pk->frag_count;
}

int fragpack_open_bytes(const struct fragpack *pk, uint32_t index,
			const uint8_t **data, uint32_t *len)
{
	if (pk->open == NULL || pk->open->index != index)
		return 0;
	*data = pk->open->raw;
	*len = pk->fill;
	return 1;
}

int fragpack_placed(const struct fragpack *pk, uint32_t index, uint64_t *start,
		    uint32_t *size_word)
{
	if (index >= pk->frag_count || !pk->frags[index].retired)
		return 0;
	*start = pk->frags[index].start;
	*size_word = pk->frags[index].size_word;
	return 1;
}

int fragpack_wait(struct fragpack *pk, uint32_t index, uint64_t *start,
		  uint32_t *size_word)
{
	int ret;

	if (index >= pk->frag_count || (pk->open != NULL && pk->open->index == index))
		return sqp_err(pk->err, SQP_ERR_INTERNAL,
			       "fragment block %u is not submitted", index);
	while (!fragpack_placed(pk, index, start, size_word)) {
		ret = compress_retire_one(pk->comp);
		if (ret != 0)
			return ret;
	}
	return 0;
}
