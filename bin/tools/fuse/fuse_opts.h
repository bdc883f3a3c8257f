/* SPDX-License-Identifier: MIT */
/*
 * fuse_opts.h - sqpack-fuse's command line, under each of its names:
 * sqpack-fuse, and the drop-in names squashfuse_ll, squashfuse and
 * erofsfuse, which take their peers' options (fuse_opts.c).
 */
#ifndef SQP_BIN_FUSE_OPTS_H
#define SQP_BIN_FUSE_OPTS_H

#include <fuse_lowlevel.h>
#include <stdint.h>

#include "sqpack/fuse.h"

struct cmdline {
	const char *prog;          /* the name it was called by */
	int drop_in;               /* called as a peer: its exit codes */
	char *image;
	uint64_t offset;
	char *subdir;
	char *notify_pipe;
	unsigned timeout;          /* seconds idle before unmounting; 0: never */
	char *cachesize;
	uint64_t cache_bytes;
	unsigned dbglevel;
	struct sqp_fuse_desc desc;  /* image, offset, subdir... */
	/* What fuse_opt fills before the checks. */
	unsigned uid, gid;
	unsigned umask, fmask, dmask;
	int help, version;
	struct fuse_args args;     /* what libfuse is left to parse */
	struct fuse_cmdline_opts fo;
};

/* Parse argv into c: 0 to mount, otherwise the exit status (-1: exit 0
 * after --help or --version), the message printed. */
int cmdline_parse(struct cmdline *c, int argc, char **argv);
void cmdline_free(struct cmdline *c);

#endif
