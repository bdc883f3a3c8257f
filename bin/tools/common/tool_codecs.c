/* SPDX-License-Identifier: MIT */
/*
 * tool_codecs.c - the names of an image's codecs, shared by the reports
 * that show them (imginfo summary, sqpack-unsquashfs -s, the packers'
 * summary line), so an EROFS image's algorithms read the same in all.
 *
 * sqp_image_info maps each EROFS algorithm to the codec id of its kind;
 * the name given back is the one mkfs.erofs and the kernel use, which
 * differs only for raw deflate (the codec id of gzip).
 */
#include "config.h"

#include <stdio.h>

#include "sqpack/codec.h"
#include "tool_codecs.h"

const char *tool_codec_name(int format, int id)
{
	const char *name = sqp_codec_name(id);

	if (format == SQP_FORMAT_EROFS && id == SQP_CODEC_GZIP)
		return "deflate";
	return name != NULL ? name : "none";
}

void tool_codec_list(const struct sqp_image_info *ii, char *buf, size_t size)
{
	size_t n = 0;

	snprintf(buf, size, "none");
	for (int id = 1; id <= SQP_CODEC_MAX; id++)
		if ((ii->codecs & (1u << id)) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "",
					      tool_codec_name(ii->format, id));
}
