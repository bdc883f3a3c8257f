/* SPDX-License-Identifier: MIT */
/*
 * tool_codecs.h - an image's codecs named for a report (imginfo summary,
 * sqpack-unsquashfs -s, the packers' summary).
 */
#ifndef SQP_BIN_TOOL_CODECS_H
#define SQP_BIN_TOOL_CODECS_H

#include <stddef.h>

#include "sqpack/reader.h"

/* Codec id's name in an image of this format (enum sqp_image_format):
 * EROFS's raw deflate is "deflate"; "none" for 0 or an unknown id. */
const char *tool_codec_name(int format, int id);

/* The codecs of ii->codecs in id order, joined by ",", into buf (size
 * bytes, cut short if too small); "none" when there are none. */
void tool_codec_list(const struct sqp_image_info *ii, char *buf, size_t size);

#endif
