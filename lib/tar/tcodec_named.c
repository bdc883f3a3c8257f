/* SPDX-License-Identifier: MIT */
/*
 * tcodec_named.c - formats recognised only to name them: there is no
 * library for these here, and the user is better told "this is lzip"
 * than "bad tar header".
 */
#include "config.h"

#include "tar/tcodec.h"

const struct tar_codec tar_codec_lzip = {
	.name = "lzip", .magic = { 'L', 'Z', 'I', 'P' }, .magic_len = 4,
};

const struct tar_codec tar_codec_compress = {
	.name = "compress (.Z)", .magic = { 0x1f, 0x9d }, .magic_len = 2,
};
