/* SPDX-License-Identifier: MIT */
/*
 * tool_shard.h - --shard and --shard-plan in the packers: the plan's
 * table, and for a tar the first pass over its headers that finds which
 * paths the shard holds (the second pass, the real one, keeps those).
 */
#ifndef SQP_BIN_TOOL_SHARD_H
#define SQP_BIN_TOOL_SHARD_H

#include "sqpack/shard.h"
#include "tool_options.h"

/* The plan of n shards on stdout, one line each. Returns 0 or 1 (stdout
 * failed, reported). */
int tool_shard_print(const struct sqp_shard_span *spans, unsigned n);

/* The paths a tar's shard holds, sorted. */
struct tool_keep;

/*
 * Read the headers of the tar at fd (named name), a seekable file, and
 * leave fd at its start again. With --shard-plan print the plan and set
 * *out NULL; else *out holds the paths of shard opt->shard_index.
 * Returns 0 or an exit status after a message.
 */
int tool_shard_tar(const struct tool_options *opt, int fd, const char *name,
		   struct tool_keep **out);

/* sqp_policy_set_keep's callback over a struct tool_keep. */
int tool_keep_path(void *user, const char *path);
void tool_keep_free(struct tool_keep *k);

#endif
