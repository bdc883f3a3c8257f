/* SPDX-License-Identifier: MIT */
/*
 * metawriter.c - metadata block packing (see metawriter.h).
 *
 * Records may straddle block boundaries; the format allows it as long as
 * the blocks are stored back to back, which an in-memory table guarantees.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "squashfs/metawriter.h"
#include "util/array.h"
#include "util/endian.h"

int meta_init(struct metawriter *m, struct sqp_compressor *codec,
	      struct sqp_errbuf *err)
{
	memset(m, 0, sizeof(*m));
	m->codec = codec;
	m->err = err;
	m->scratch = malloc(SQFS_META_SIZE + 2);
	if (m->scratch == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

void meta_cleanup(struct metawriter *m)
{
	free(m->scratch);
	free(m->out);
	m->scratch = NULL;
	m->out = NULL;
}

int meta_encode_block(struct sqp_compressor *codec, const uint8_t *src,
		      size_t len, uint8_t *dst)
{
	int n = 0;

	if (codec != NULL) {
		n = sqp_compress(codec, src, len, dst + 2, SQFS_META_SIZE);
		if (n < 0)
			return sqp_compress_status(n);
	}
	if (n > 0) {
		sqp_put16(dst, (uint16_t)n);
		return n + 2;
	}
	sqp_put16(dst, (uint16_t)(len | SQFS_META_UNCOMPRESSED));
	memcpy(dst + 2, src, len);
	return (int)len + 2;
}

static int flush_block(struct metawriter *m)
{
	int n;

	if (m->out_cap - m->out_len < SQFS_META_SIZE + 2) {
		uint8_t *p = sqp_array_grow(m->out, &m->out_cap, m->out_len +
					    SQFS_META_SIZE + 2, 1, 64 * 1024);

		if (p == NULL)
			return sqp_err(m->err, SQP_ERR_NOMEM, "out of memory");
		m->out = p;
	}
	n = meta_encode_block(m->codec, m->block, m->fill, m->out + m->out_len);
	if (n < 0)
		return sqp_err(m->err, n, "compressing a metadata block: %s",
			       sqp_strerror(n));
	m->out_len += (size_t)n;
	m->fill = 0;
	return 0;
}

int meta_append(struct metawriter *m, const void *data, size_t len)
{
	const uint8_t *p = data;
	int ret;

	m->total_in += len;
	while (len > 0)
		if (meta_fill_block(m->block, &m->fill, &p, &len) &&
		    (ret = flush_block(m)) != 0)
			return ret;
	return 0;
}

int meta_finish(struct metawriter *m)
{
	if (m->fill == 0)
		return 0;
	return flush_block(m);
}
