/* SPDX-License-Identifier: MIT */
/*
 * tool_optvals.h - parsing option values (tool_optvals.c). The int-returning
 * functions that report return the exit status (0 or 2); the plain parsers
 * return 0 or -1 and leave the message to the caller.
 */
#ifndef SQP_BIN_TOOL_OPTVALS_H
#define SQP_BIN_TOOL_OPTVALS_H

#include <stdint.h>
#include "tool_options.h"

/* A byte count with an optional K, M or G suffix. */
int tool_parse_bytes(const char *s, uint64_t *out);
/* A block size: tool_parse_bytes, a power of two in 4K..1M. */
int tool_parse_size(const char *s, uint32_t *out);
int tool_parse_u64(const char *s, uint64_t max, uint64_t *out);
int tool_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
int tool_parse_time(const char *opt, const char *s, int64_t *out);
int tool_parse_uncompressed(const char *list, unsigned *flags);
/* --chunk-size (and mkfs.erofs --chunksize): a power of two from 512
 * (the least block size; the block size is checked once known) to 1G
 * (K, M, G taken) into d; 0, or -1 with d unchanged. */
int tool_chunk_size(struct sqp_writer_desc *d, const char *arg);
/* A UUID in its 36-character form (hex digits, '-' after 8, 12, 16 and
 * 20 of them) into 16 bytes; 0, or -1 if s is not one. */
int tool_parse_uuid(const char *s, uint8_t out[16]);
/* mkfs.erofs's -U: "clear" (all zero), "random" (a version 4 UUID from
 * the system's random source) or a UUID as tool_parse_uuid takes it;
 * 0, -1 if s is none of them, -2 if no random bytes came. */
int tool_uuid_arg(const char *s, uint8_t out[16]);
int tool_finish_codec(struct sqp_writer_desc *desc, const char *codec,
		      const char *comp_opts, uint32_t block_size);
int tool_source_date_epoch(int64_t *out);
/*
 * One compressor option in a front end's own spelling (what: the option
 * as the user typed it, "-Xcompression-level"): KEY or KEY=VALUE applied
 * to cfg with the library's checks; with list set, VALUE may be a comma
 * separated list, each part added (-Xbcj x86,arm), else a comma in it is
 * refused (it would read as a second option). On failure "WHAT: why
 * (CODEC)" in msg, why being the library's reason without the library's
 * option names (dir2img's spelling, not the user's). Returns 0, 1
 * (memory) or 2.
 */
int tool_codec_option(struct sqp_codec_config *cfg, const char *what, const char *key,
		      const char *value, int list, char *msg, size_t size);

#endif
