/* SPDX-License-Identifier: MIT */
/*
 * codec_impl.h - what one codec file provides to the plugin table.
 *
 * Each codec lives in its own file and exports one const struct
 * sqp_codec_ops. codec.c lists them in a table indexed by SquashFS id and
 * does everything that is the same for all codecs (option string
 * tokenising, the options-block dispatch, the compressor object). A codec
 * only knows its own library; the pipeline only knows codec.h.
 */
#ifndef SQP_CODEC_IMPL_H
#define SQP_CODEC_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/codec.h"
#include "sqpack/error.h"
#include "util/endian.h"

struct sqp_codec_ops {
	int id;
	const char *name;
	const char *help;      /* one option per line, "    key=VALUE  text\n" */
	const char *list_key;  /* option whose value is a comma list, or NULL */

	/* Defaults for a block size (cfg->id and block_size already set). */
	void (*defaults)(struct sqp_codec_config *cfg);
	/* One option: value is NULL for a bare flag. 0 or SQP_ERR_ARG with a
	 * message in msg. */
	int (*parse)(struct sqp_codec_config *cfg, const char *key,
		     const char *value, char *msg, size_t msg_size);
	/* Options block payload; *len = 0 when none is needed. */
	int (*encode)(const struct sqp_codec_config *cfg, uint8_t *buf,
		      size_t *len);
	/* Fill cfg from a payload (NULL/0 when the image has none). */
	int (*decode)(struct sqp_codec_config *cfg, const uint8_t *buf,
		      size_t len);

	/* Per-thread state. */
	int (*create)(const struct sqp_codec_config *cfg, void **state);
	void (*destroy)(void *state);
	/* Compress into out: return the size, 0 when the result does not
	 * fit in out_cap (which the caller keeps below in_len), or < 0. */
	int (*compress)(void *state, const uint8_t *in, size_t in_len,
			uint8_t *out, size_t out_cap);
	int (*decompress)(void *state, const uint8_t *in, size_t in_len,
			  uint8_t *out, size_t out_cap);
};

extern const struct sqp_codec_ops sqp_codec_gzip_ops;
extern const struct sqp_codec_ops sqp_codec_lzma_ops;
extern const struct sqp_codec_ops sqp_codec_lzo_ops;
extern const struct sqp_codec_ops sqp_codec_xz_ops;
extern const struct sqp_codec_ops sqp_codec_lz4_ops;
extern const struct sqp_codec_ops sqp_codec_zstd_ops;

/* The largest input a compressor takes: a data block, or a metadata
 * block (8 KiB), which is larger than a 4 KiB data block. Codecs size
 * their buffers with this. */
static inline size_t codec_max_input(const struct sqp_codec_config *cfg)
{
	return cfg->block_size > 8192 ? cfg->block_size : 8192;
}

/* Helpers shared by the codec files (codec_util.c). */

/* Parse a decimal number in [lo, hi] with an optional K/M suffix when
 * sizes is set. 0 or SQP_ERR_ARG with a message naming key. */
int codec_parse_uint(const char *key, const char *value, unsigned long lo,
		     unsigned long hi, int sizes, unsigned long *out,
		     char *msg, size_t msg_size);
/* A message "unknown option 'key'" (or "'key' needs a value") plus the
 * codec's help. Returns SQP_ERR_ARG. */
int codec_bad_option(const struct sqp_codec_ops *ops, const char *key,
		     const char *why, char *msg, size_t msg_size);

#endif
