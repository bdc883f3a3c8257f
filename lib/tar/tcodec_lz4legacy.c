/* SPDX-License-Identifier: MIT */
/*
 * tcodec_lz4legacy.c - the lz4 "legacy" stream (lz4 -l, the Linux
 * kernel's initramfs format): a magic number, then blocks, each a 32-bit
 * little-endian compressed size followed by one LZ4 block that expands
 * to at most 8 MiB. liblz4's frame decoder does not read it, so it is
 * decoded here block by block with LZ4_decompress_safe().
 *
 * The stream has no end mark: it ends where the input ends, which is
 * only clean between blocks (istream.c asks dec_clean_end()). The magic number
 * again in place of a block size starts a concatenated stream.
 *
 * Invariant: at most one block is held, compressed (have < need) or
 * decoded (out_pos < out_len), never both.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "tar/tcodec.h"

#ifdef WITH_LZ4
#include <lz4.h>

#define LEGACY_MAGIC 0x184C2102u
#define LEGACY_BLOCK (8u << 20)

struct lz4l {
	uint8_t word[4];      /* the magic or a block size being read */
	size_t word_have;
	int in_block;         /* word was a size; its block is being read */
	uint8_t *cbuf, *dbuf;
	size_t need, have;    /* compressed block: size, bytes so far */
	size_t out_pos, out_len;
};

static int l4l_create(void **state)
{
	struct lz4l *l = calloc(1, sizeof(*l));

	if (l == NULL)
		return SQP_ERR_NOMEM;
	l->cbuf = malloc(LZ4_COMPRESSBOUND(LEGACY_BLOCK));
	l->dbuf = malloc(LEGACY_BLOCK);
	if (l->cbuf == NULL || l->dbuf == NULL) {
		free(l->cbuf);
		free(l->dbuf);
		free(l);
		return SQP_ERR_NOMEM;
	}
	*state = l;
	return 0;
}

static size_t take(const uint8_t **in, size_t *in_len, uint8_t *dst,
		   size_t want)
{
	size_t n = *in_len < want ? *in_len : want;

	memcpy(dst, *in, n);
	*in += n;
	*in_len -= n;
	return n;
}

/* A complete size word: the magic (a stream starts) or a block size. */
static int word_done(struct lz4l *l)
{
	uint32_t v = (uint32_t)l->word[0] | (uint32_t)l->word[1] << 8 |
		     (uint32_t)l->word[2] << 16 | (uint32_t)l->word[3] << 24;

	l->word_have = 0;
	if (v == LEGACY_MAGIC)
		return 0;
	if (v == 0 || v > (uint32_t)LZ4_COMPRESSBOUND(LEGACY_BLOCK))
		return SQP_ERR_BAD_DATA;
	l->in_block = 1;
	l->need = v;
	l->have = 0;
	return 0;
}

static int l4l_run(void *state, const uint8_t **in, size_t *in_len,
		   uint8_t **out, size_t *out_len, int *end)
{
	struct lz4l *l = state;
	int ret, n;

	(void)end; /* only the end of the input ends this stream */
	while (*out_len > 0) {
		if (l->out_pos < l->out_len) {
			size_t k = l->out_len - l->out_pos;

			k = k < *out_len ? k : *out_len;
			memcpy(*out, l->dbuf + l->out_pos, k);
			l->out_pos += k;
			*out += k;
			*out_len -= k;
			continue;
		}
		if (*in_len == 0)
			break;
		if (!l->in_block) {
			l->word_have += take(in, in_len, l->word + l->word_have,
					     4 - l->word_have);
			if (l->word_have == 4 && (ret = word_done(l)) != 0)
				return ret;
			continue;
		}
		l->have += take(in, in_len, l->cbuf + l->have, l->need - l->have);
		if (l->have < l->need)
			continue;
		n = LZ4_decompress_safe((const char *)l->cbuf, (char *)l->dbuf,
					(int)l->need, LEGACY_BLOCK);
		if (n < 0)
			return SQP_ERR_BAD_DATA;
		l->in_block = 0;
		l->out_pos = 0;
		l->out_len = (size_t)n;
	}
	return 0;
}

static int l4l_clean_end(void *state)
{
	const struct lz4l *l = state;

	return !l->in_block && l->word_have == 0 && l->out_pos == l->out_len;
}

static void l4l_destroy(void *state)
{
	struct lz4l *l = state;

	free(l->cbuf);
	free(l->dbuf);
	free(l);
}

#endif

const struct tar_codec tar_codec_lz4legacy = {
	.name = "lz4", .magic = { 0x02, 0x21, 0x4c, 0x18 }, .magic_len = 4,
#ifdef WITH_LZ4
	.dec_create = l4l_create, .dec_run = l4l_run,
	.dec_clean_end = l4l_clean_end, .dec_destroy = l4l_destroy,
#endif
};
