/* SPDX-License-Identifier: MIT */
/*
 * tcodec.c - the table of tar stream formats (see tcodec.h). Order
 * matters only where magics could overlap; none do.
 */
#include "config.h"

#include <string.h>

#include "tar/tcodec.h"

static const struct tar_codec *const table[] = {
	&tar_codec_gzip,
	&tar_codec_xz,
	&tar_codec_zstd,
	&tar_codec_lz4,
	&tar_codec_lz4legacy,
	&tar_codec_bzip2,
	&tar_codec_lzip,
	&tar_codec_compress,
};

const struct tar_codec *tar_codec_detect(const uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const struct tar_codec *c = table[i];

		if (len >= c->magic_len &&
		    memcmp(buf, c->magic, c->magic_len) == 0 &&
		    (c->magic_ok == NULL || c->magic_ok(buf, len)))
			return c;
	}
	return NULL;
}

const struct tar_codec *tar_codec_for_output(int id)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (id != 0 && table[i]->out_id == id &&
		    table[i]->enc_create != NULL)
			return table[i];
	return NULL;
}
