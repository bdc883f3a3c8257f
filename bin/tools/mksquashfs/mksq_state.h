/* SPDX-License-Identifier: MIT */
/*
 * mksq_state.h - what sqpack-mksquashfs's options set, shared by the
 * parser (mksq_args.c) and what fills the packer's options from it
 * (mksq_emit.c).
 */
#ifndef MKSQ_STATE_H
#define MKSQ_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "mksq_args.h"

/* Everything the options set, before it becomes the packer's options. */
struct mksq_state {
	const char *comp, *jobs, *level, *bcj, *dict, *window, *strategy, *algo;
	const char *mkfs_time, *all_time, *sort, *root_mode, *root_time;
	const char *root_becomes;    /* -root-becomes NAME: used on append */
	const char *shard, *shard_plan; /* -shard I/N, -shard-plan N */
	const struct mksq_base *base; /* NULL unless appending */
	uint64_t block, offset, mem;  /* mem 0: not given */
	long long uid, gid;          /* -1: not forced */
	long long root_uid, root_gid; /* -1: not set */
	int hc, exports, tailends;   /* -1: mksquashfs's default */
	int no_fragments, no_xattrs, no_pad, no_dedup, no_hardlinks, keep_dir;
	int no_strip, one_fs, quiet, info, progress, wildcards, tar, noappend;
	int noI, noD, noF, noX;
	int first_exclude;           /* argv index after -e, or 0 */
	struct tool_pargs spec;      /* -p lines and -pf files, in order given */
	struct mksq_argv ef;         /* -ef files */
	struct tool_verity *verity;  /* sqpack's own --verity options */
	struct mksq_argv *warn;      /* where dropped -p lines are told */
};

/* Write a message into msg and return status (1 or 2). */
int mksq_fail(char *msg, size_t size, int status, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* N with an optional K, M (and G when allow_g) suffix. */
int mksq_parse_size(const char *s, int allow_g, uint64_t *out);

/* Check the options as a whole and fill a->opt and a->dirs from them. */
int mksq_emit(struct mksq_state *st, struct mksq_args *a, char **src_v,
	      int nsrc, int argc, char **argv, const char *sde, char *msg,
	      size_t size);

#endif
