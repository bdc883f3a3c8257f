/* SPDX-License-Identifier: MIT */
/*
 * sqfs_xattrw.c - the SquashFS xattr table: the store's sets (already in
 * SquashFS's key/value record form) in metadata blocks, then the id table
 * and its header.
 */
#include "config.h"

#include <stdlib.h>

#include "sqpack/error.h"
#include "squashfs/metawriter.h"
#include "squashfs/sqfs_format.h"
#include "squashfs/sqfs_writer.h"
#include "squashfs/tables.h"

int xattr_store_write(struct xattr_store *s, struct sqp_compressor *codec,
		      struct imgout *out, uint64_t *pos)
{
	struct sqfs_xattr_table hdr;
	uint8_t hdr_bytes[SQFS_XATTR_TABLE_SIZE];
	struct metawriter kv;
	uint8_t *ids = NULL;
	size_t i;
	int ret;

	*pos = SQFS_NO_TABLE;
	if (s->count == 0)
		return 0;
	ret = meta_init(&kv, codec, s->err);
	ids = malloc(s->count * SQFS_XATTR_ID_SIZE);
	if (ret != 0 || ids == NULL)
		goto fail;
	for (i = 0; i < s->count && ret == 0; ++i) {
		struct sqfs_xattr_id xid = {
			.ref = meta_ref(&kv), .count = s->sets[i].count,
			.size = s->sets[i].len,
		};

		sqfs_xattr_id_encode(&xid, ids + i * SQFS_XATTR_ID_SIZE);
		ret = meta_append(&kv, s->sets[i].blob, s->sets[i].len);
	}
	if (ret == 0)
		ret = meta_finish(&kv);
	if (ret != 0)
		goto fail;
	hdr.kv_start = out->pos;
	hdr.count = (uint32_t)s->count;
	sqfs_xattr_table_encode(&hdr, hdr_bytes);
	ret = imgout_append(out, kv.out, kv.out_len);
	if (ret == 0)
		ret = table_write(out, codec, ids, s->count * SQFS_XATTR_ID_SIZE,
				  hdr_bytes, sizeof(hdr_bytes), NULL, pos);
fail:
	if (ids == NULL && ret == 0)
		ret = sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	meta_cleanup(&kv);
	free(ids);
	return ret;
}
