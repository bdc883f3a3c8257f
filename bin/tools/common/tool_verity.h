/* SPDX-License-Identifier: MIT */
/*
 * tool_verity.h - the packers' --verity options and what follows the
 * image: the hash file, the root hash file, the summary line and the
 * JSON progress record's fields (tool_verity.c).
 */
#ifndef SQP_BIN_TOOL_VERITY_H
#define SQP_BIN_TOOL_VERITY_H

#include <stdio.h>
#include "sqpack/sqpack.h"

struct tool_verity {
	int on;                       /* --verity given */
	const char *hash_file;        /* --verity=FILE, or NULL: appended */
	const char *roothash_file;    /* --verity-roothash FILE */
	int other_given;              /* some --verity-* option */
	struct sqp_verity_desc desc;
	struct sqp_outfile *hash_of;  /* the hash file, until committed */
	struct sqp_verity_result res;
	char json[1024];              /* the final JSON record's extra fields */
};

enum tool_verity_opt {
	TOOL_VERITY, TOOL_VERITY_BLOCK_SIZE, TOOL_VERITY_SALT, TOOL_VERITY_NO_SUPERBLOCK,
	TOOL_VERITY_ROOTHASH,
};

/* One option's value; 0, or 2 after a usage message. */
int tool_verity_option(struct tool_verity *v, int which, const char *arg);
/* After all options: 0, or 2 (a --verity-* option without --verity, or
 * a build without libcrypto). */
int tool_verity_check(const struct tool_verity *v);

/* Create the hash file (if any) and point desc at v->desc. 0, or 1 after
 * a message. */
int tool_verity_begin(struct tool_verity *v, int force, struct sqp_writer_desc *desc);
/* After the image is committed: result, hash file, root hash file, JSON
 * fields. 0, or 1 after a message. */
int tool_verity_commit(struct tool_verity *v, struct sqp_writer *w);
/* The summary line. */
void tool_verity_print(const struct tool_verity *v, FILE *f);
void tool_verity_end(struct tool_verity *v);

#endif
