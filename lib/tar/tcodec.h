/* SPDX-License-Identifier: MIT */
/*
 * tcodec.h - the stream compressions of tar archives, one file per
 * format (tcodec_NAME.c) and one line each in tcodec.c's table, the way
 * lib/codec does the image codecs. A format says how to recognise it
 * (magic bytes), how to decompress it (tar input, istream.c) and how to
 * compress it (img2tar's output, ostream.c); either side may be absent,
 * in this build (no library) or at all (formats only named). A format is
 * recognised even when its library is missing, so the user is told what
 * is missing instead of getting a "bad tar header" for compressed bytes.
 */
#ifndef SQP_TAR_TCODEC_H
#define SQP_TAR_TCODEC_H

#include <stddef.h>
#include <stdint.h>

struct tar_codec {
	const char *name;
	uint8_t magic[6];
	size_t magic_len;
	/* Further test of the bytes after the magic, or NULL. */
	int (*magic_ok)(const uint8_t *buf, size_t len);
	int out_id; /* the enum sqp_tar_compression it writes, or 0 */

	/* Decompression of one member (gzip member, xz stream, zstd or lz4
	 * frame, ...); istream.c chains members. run consumes from (*in,
	 * *in_len) and produces into (*out, *out_len), advancing both, and
	 * sets *end when the member is complete. Returns 0,
	 * SQP_ERR_BAD_DATA or SQP_ERR_NOMEM. */
	int (*dec_create)(void **state);
	int (*dec_run)(void *state, const uint8_t **in, size_t *in_len,
		       uint8_t **out, size_t *out_len, int *end);
	/* For formats without an end mark (NULL otherwise): may the input
	 * end here? */
	int (*dec_clean_end)(void *state);
	void (*dec_destroy)(void *state);

	/* Compression: the same contract; with finish the stream is ended
	 * and *end set once all of it is out. */
	int (*enc_create)(void **state);
	int (*enc_run)(void *state, const uint8_t **in, size_t *in_len,
		       uint8_t **out, size_t *out_len, int finish, int *end);
	void (*enc_destroy)(void *state);
};

extern const struct tar_codec tar_codec_gzip, tar_codec_xz, tar_codec_zstd,
	tar_codec_lz4, tar_codec_lz4legacy, tar_codec_bzip2, tar_codec_lzip,
	tar_codec_compress;

/* The format whose magic starts buf (len bytes), or NULL for none. Its
 * dec_create is NULL when this build cannot decompress it. */
const struct tar_codec *tar_codec_detect(const uint8_t *buf, size_t len);
/* The format that writes enum sqp_tar_compression id, NULL if none can
 * in this build. */
const struct tar_codec *tar_codec_for_output(int id);

#endif
