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

struct codec_dest_ops;

/*
 * A codec's options are a table, not code: each row names a key, what
 * kind of value it takes and which field of the configuration it sets,
 * and codec_util.c walks the rows for every codec, so all codecs accept
 * values by the same rules and word their refusals alike.
 */
enum codec_opt_kind {
	CODEC_OPT_UINT,  /* key=N, N in [lo, hi] */
	CODEC_OPT_SIZE,  /* key=N[K|M], N in [lo, hi] bytes */
	CODEC_OPT_ENUM,  /* key=NAME: the field is NAME's index in names */
	CODEC_OPT_BITS,  /* key=NAME,NAME..: bit (1 << index) per NAME, the
			  * codec's one list-valued key */
	CODEC_OPT_FLAG,  /* key alone: sets the field's bits lo */
};

/* The fields of struct sqp_codec_config an option may set. */
enum codec_opt_field {
	CODEC_FIELD_LEVEL,
	CODEC_FIELD_WINDOW,
	CODEC_FIELD_STRATEGIES,
	CODEC_FIELD_FILTERS,
	CODEC_FIELD_DICT_SIZE,
	CODEC_FIELD_ALGORITHM,
	CODEC_FIELD_FLAGS,
};

struct codec_opt {
	const char *key;               /* NULL ends the table */
	enum codec_opt_kind kind;
	enum codec_opt_field field;
	unsigned long lo, hi;          /* UINT, SIZE: range; FLAG: lo = bits */
	/* UINT, SIZE: when set, the upper bound, which depends on the
	 * configuration or the library's build (overrides hi). */
	unsigned long (*hi_of)(const struct sqp_codec_config *cfg);
	/* UINT, SIZE: a further rule on the value, refused with why. */
	int (*valid)(unsigned long v);
	const char *const *names;      /* ENUM, BITS: NULL-terminated */
	/* Why a value is refused: valid's rule, or "unknown strategy". */
	const char *why;
	unsigned also_flags;           /* ORed into cfg->flags when given */
};

struct sqp_codec_ops {
	int id;
	const char *name;
	const char *help;      /* one option per line, "    key=VALUE  text\n" */
	const struct codec_opt *opts;

	/* Defaults for a block size (cfg->id and block_size already set). */
	void (*defaults)(struct sqp_codec_config *cfg);
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
	/* The library that does the work, as it reports itself at run time
	 * (the one loaded, which may differ from the headers'), into buf. */
	void (*library)(char *buf, size_t size);
	/* Compression to a fixed output size (codec_dest.h), for EROFS;
	 * NULL for a codec that serves SquashFS only. */
	const struct codec_dest_ops *dest;
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

/* Apply one option through ops->opts: value is NULL for a bare word.
 * 0 or SQP_ERR_ARG with a message in msg naming the key or value and
 * listing the codec's options. */
int codec_opt_apply(const struct sqp_codec_ops *ops,
		    struct sqp_codec_config *cfg, const char *key,
		    const char *value, char *msg, size_t msg_size);
/* Whether key is the codec's list-valued option (CODEC_OPT_BITS), whose
 * value runs on over the bare words after it. */
int codec_opt_is_list(const struct sqp_codec_ops *ops, const char *key);
/* The configuration's block size, as a bound for dictionary sizes. */
unsigned long codec_opt_block_size(const struct sqp_codec_config *cfg);

#endif
