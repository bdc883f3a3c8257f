/* SPDX-License-Identifier: MIT */
/*
 * codec.h - the compressor plugin table.
 *
 * SquashFS names six codecs by a 16-bit id in the superblock. The library
 * knows all six by name and id, whether or not they were built; a codec
 * whose library configure did not find reports available == 0, so a tool
 * can say "this image uses lzo and this build has no lzo".
 *
 * A codec is used in three steps:
 *   1. sqp_codec_config_init() fills a configuration with the codec's
 *      defaults (those of mksquashfs, so image sizes compare), and
 *      sqp_codec_config_parse() applies "-X" style options to it.
 *   2. sqp_codec_options_encode() / _decode() write and read the optional
 *      compressor-options block that follows the superblock.
 *   3. sqp_compressor_create() makes a compressor for one thread. It holds
 *      the codec's working memory and must not be shared between threads
 *      without locking; create one per worker.
 *
 * The output of sqp_compress() depends only on the input block and the
 * configuration, never on what the same compressor compressed before:
 * images are byte-identical for any number of threads.
 *
 * Thread safety: the table functions are pure and thread-safe.
 */
#ifndef SQPACK_CODEC_H
#define SQPACK_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SquashFS compressor ids, as stored in the superblock. */
enum sqp_codec_id {
	SQP_CODEC_GZIP = 1,
	SQP_CODEC_LZMA = 2,
	SQP_CODEC_LZO = 3,
	SQP_CODEC_XZ = 4,
	SQP_CODEC_LZ4 = 5,
	SQP_CODEC_ZSTD = 6,
	SQP_CODEC_MAX = 6,
};

/* gzip strategies (bit set, as in the gzip options block) */
#define SQP_GZIP_DEFAULT      0x0001
#define SQP_GZIP_FILTERED     0x0002
#define SQP_GZIP_HUFFMAN      0x0004
#define SQP_GZIP_RLE          0x0008
#define SQP_GZIP_FIXED        0x0010

/* xz branch/call/jump filters (bit set, as in the xz options block) */
#define SQP_XZ_FILTER_X86     0x0001
#define SQP_XZ_FILTER_POWERPC 0x0002
#define SQP_XZ_FILTER_IA64    0x0004
#define SQP_XZ_FILTER_ARM     0x0008
#define SQP_XZ_FILTER_ARMTHUMB 0x0010
#define SQP_XZ_FILTER_SPARC   0x0020

/* lz4 flags */
#define SQP_LZ4_HC            0x0001

/* lzma flags: liblzma's extreme preset (slower, a little smaller);
 * mkfs.erofs's lzma level 100 + N is level N with it */
#define SQP_LZMA_EXTREME      0x0001

/* lzo algorithms (as in the lzo options block) */
enum sqp_lzo_algorithm {
	SQP_LZO1X_1 = 0,
	SQP_LZO1X_1_11 = 1,
	SQP_LZO1X_1_12 = 2,
	SQP_LZO1X_1_15 = 3,
	SQP_LZO1X_999 = 4,
};

/*
 * A codec configuration. Fill it with sqp_codec_config_init(); the fields
 * a codec does not use stay 0.
 */
struct sqp_codec_config {
	int id;              /* enum sqp_codec_id */
	uint32_t block_size; /* largest block that will be compressed */
	int level;           /* gzip 1..9, xz/lzma preset 0..9, zstd 1..22,
	                        lzo1x_999 0..9, lz4hc 1..12 */
	unsigned window;     /* gzip: window bits 8..15 */
	unsigned strategies; /* gzip: SQP_GZIP_* tried in turn, smallest kept */
	unsigned filters;    /* xz: SQP_XZ_FILTER_* tried in turn, smallest kept */
	uint32_t dict_size;  /* xz, lzma: dictionary size in bytes */
	unsigned algorithm;  /* lzo: enum sqp_lzo_algorithm */
	unsigned flags;      /* lz4: SQP_LZ4_HC; lzma: SQP_LZMA_EXTREME */
};

/* Table queries. An id outside 1..SQP_CODEC_MAX has no name (NULL). */
SQP_API const char *sqp_codec_name(int id);
SQP_API int sqp_codec_available(int id);
/* The image formats codec id can write in this build: SQP_CODEC_FOR_*
 * bits (EROFS needs compression to a fixed output size); 0 when the
 * codec is not built. */
#define SQP_CODEC_FOR_SQUASHFS 0x1u
#define SQP_CODEC_FOR_EROFS    0x2u
SQP_API unsigned sqp_codec_formats(int id);
/* The id for a name ("gzip", "zstd", ...), or SQP_ERR_ARG if unknown. */
SQP_API int sqp_codec_by_name(const char *name);
/* The library that does codec id's work and its version, as it reports
 * itself at run time ("zstd 1.5.4"; "zlib 1.2.13, libdeflate 1.14"),
 * into buf (always terminated, cut to size). 0, or SQP_ERR_UNSUPPORTED
 * when this build lacks the codec (buf is then ""). */
SQP_API int sqp_codec_library(int id, char *buf, size_t size);
/* Human-readable list of the options the codec accepts, one per line. */
SQP_API const char *sqp_codec_options_help(int id);

/*
 * Fill cfg with the defaults of codec id for blocks of block_size bytes
 * (a power of two, 4 KiB .. 1 MiB). Returns 0, SQP_ERR_ARG for an unknown
 * id or bad block size, SQP_ERR_NO_CODEC if the codec was not built.
 */
SQP_API int sqp_codec_config_init(struct sqp_codec_config *cfg, int id,
				  uint32_t block_size);

/*
 * Apply a comma separated list of options ("level=19", "hc",
 * "filters=x86,arm" ...) to cfg. On failure returns SQP_ERR_ARG and writes
 * a message naming the bad option and the valid ones into msg (msg_size
 * bytes, always NUL-terminated when msg_size > 0).
 */
SQP_API int sqp_codec_config_parse(struct sqp_codec_config *cfg,
				   const char *options,
				   char *msg, size_t msg_size);

/* Largest options block payload of any codec, in bytes. */
#define SQP_CODEC_OPTIONS_MAX 16

/*
 * Serialise the options block payload (without the metadata block header)
 * into buf (at least SQP_CODEC_OPTIONS_MAX bytes). *len is set to 0 when no
 * block is needed: the options equal what a reader assumes without one and
 * no reader requires one. Returns 0 or a negative error.
 */
SQP_API int sqp_codec_options_encode(const struct sqp_codec_config *cfg,
				     uint8_t *buf, size_t *len);

/*
 * Build a configuration from an image: the codec id and block size from
 * its superblock, and the options payload (buf may be NULL, len 0, when
 * the image has no options block). Returns 0, SQP_ERR_NO_CODEC,
 * SQP_ERR_UNSUPPORTED for an unknown id, or SQP_ERR_CORRUPT for options
 * that do not make sense.
 */
SQP_API int sqp_codec_options_decode(struct sqp_codec_config *cfg, int id,
				     uint32_t block_size,
				     const uint8_t *buf, size_t len);

/* One thread's compressor and decompressor for one configuration. */
struct sqp_compressor;

SQP_API int sqp_compressor_create(const struct sqp_codec_config *cfg,
				  struct sqp_compressor **out);
SQP_API void sqp_compressor_destroy(struct sqp_compressor *c);

/*
 * Compress in_len bytes (at most cfg->block_size) into out (out_cap bytes;
 * out_cap >= in_len is always enough). Returns the compressed size when it
 * is smaller than in_len, 0 when the block does not shrink (store it raw),
 * or a negative error.
 */
SQP_API int sqp_compress(struct sqp_compressor *c, const void *in,
			 size_t in_len, void *out, size_t out_cap);

/*
 * Decompress in_len bytes into out (out_cap bytes). Returns the size of
 * the decompressed data, or SQP_ERR_BAD_DATA if the input is corrupt or
 * would not fit in out_cap. Never reads or writes outside the buffers.
 */
SQP_API int sqp_decompress(struct sqp_compressor *c, const void *in,
			   size_t in_len, void *out, size_t out_cap);

#ifdef __cplusplus
}
#endif
#endif
