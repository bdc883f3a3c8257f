/* SPDX-License-Identifier: MIT */
/*
 * tables.c - lookup tables (see tables.h).
 *
 * Each 8 KiB slice of the entries becomes one metadata block, so an entry
 * index maps to a block by plain division, as every reader expects. The
 * kernel checks that each table's location list ends before the next
 * table begins, which the append-only order guarantees.
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "squashfs/metawriter.h"
#include "squashfs/sqfs_format.h"
#include "squashfs/tables.h"
#include "util/endian.h"

int table_write(struct imgout *out, struct sqp_compressor *codec,
		const uint8_t *data, size_t len, const uint8_t *header,
		size_t header_len, struct sqp_spill *spill, uint64_t *pos)
{
	size_t blocks = (len + SQFS_META_SIZE - 1) / SQFS_META_SIZE, i;
	uint8_t *locs = malloc(blocks * 8 + 1);
	uint8_t *block = malloc(SQFS_META_SIZE + 2);
	int ret = 0, n;

	if (locs == NULL || block == NULL) {
		ret = sqp_err(out->err, SQP_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < blocks; ++i) {
		size_t chunk = len - i * SQFS_META_SIZE;

		if (chunk > SQFS_META_SIZE)
			chunk = SQFS_META_SIZE;
		sqp_put64(locs + i * 8, out->pos);
		n = meta_encode_block(codec, data + i * SQFS_META_SIZE, chunk, block);
		if (n < 0) {
			ret = sqp_err(out->err, n, "compressing a table: %s",
				      sqp_strerror(n));
			goto out;
		}
		ret = imgout_append(out, block, (size_t)n);
		if (ret != 0)
			goto out;
		sqp_spill_tick(spill);
	}
	*pos = out->pos;
	if (header != NULL)
		ret = imgout_append(out, header, header_len);
	if (ret == 0)
		ret = imgout_append(out, locs, blocks * 8);
out:
	free(locs);
	free(block);
	return ret;
}
