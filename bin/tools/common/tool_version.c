/* SPDX-License-Identifier: MIT */
/*
 * tool_version.c - every tool's --version: sqpack's version, then each
 * codec of this build with the library that does its work, as that
 * library reports itself at run time. A bug report then says which zstd
 * or liblzma made (or failed to read) an image, which the package
 * version alone does not: distributions update codec libraries under a
 * built sqpack.
 */
#include <stdio.h>

#include "sqpack/sqpack.h"
#include "tool_version.h"

void tool_print_version(const char *prog)
{
	char lib[128];
	const char *sep = "codecs: ";

	printf("%s (sqpack) %s\n", prog, sqp_version());
	for (int id = 1; id <= SQP_CODEC_MAX; id++) {
		if (sqp_codec_library(id, lib, sizeof(lib)) != 0)
			continue;
		printf("%s%s (%s)", sep, sqp_codec_name(id), lib);
		sep = ", ";
	}
	printf("\n");
}
