/* SPDX-License-Identifier: MIT */
/*
 * options.h - tar2img's command line, parsed into a writer description.
 */
#ifndef TAR2IMG_OPTIONS_H
#define TAR2IMG_OPTIONS_H

#include "sqpack/sqpack.h"

struct tar2img_options {
	struct sqp_writer_desc desc;  /* everything but fd */
	const char *output;
	const char *input;            /* NULL or "-": stdin */
	int force;
	int quiet;
};

/* Parse argv. Returns 0 to go on, -1 to exit successfully at once (after
 * --help or --version), or 2 after a usage error (already reported). */
int tar2img_parse_options(int argc, char **argv, struct tar2img_options *opt);

#endif
