/* SPDX-License-Identifier: MIT */
/*
 * check_impl.h - the checker's shared state. check.c walks the tree and
 * checks inodes and directories; check_items.c checks file block lists,
 * directory indexes, the fragment and export tables and link counts,
 * and runs the data through the ordered block reader.
 */
#ifndef SQP_CHECK_CHECK_IMPL_H
#define SQP_CHECK_CHECK_IMPL_H

#include "read/blockrd.h"
#include "read/rd_image.h"
#include "sqpack/check.h"

#define CHK_DIR_NLINK UINT32_MAX

struct chk {
	struct sqp_image *img;
	const struct sqp_check_desc *d;
	struct sqp_check_stats st;
	struct rd_blockrd *br;
	uint32_t *refs;         /* per inode number: references seen */
	uint32_t *nlink;        /* per inode number: its stated link count,
				   CHK_DIR_NLINK for directories */
	uint64_t *where;        /* per inode number: its reference */
	struct rd_xattrs xs;    /* scratch */
	struct rd_checker k;    /* what the back end's checks report to */
};

/* Report a problem (printf-style message). */
void chk_report(struct chk *c, const char *table, uint32_t inode,
		const char *path, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* Report the image's latched error as a problem and clear it; returns 0
 * to go on, or the error when it is not about the image (memory, I/O). */
int chk_latched(struct chk *c, const char *table, uint32_t inode,
		const char *path);

/* msg without the "NAME: " the reader's messages start with (the
 * report is about that image anyway). */
const char *chk_unnamed(const char *msg, const char *name);

/* check_items.c */
int chk_file(struct chk *c, const char *path, const struct rd_inode *ino);
int chk_tables(struct chk *c);
int chk_links(struct chk *c);
int chk_data_start(struct chk *c);

#endif
