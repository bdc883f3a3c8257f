/* SPDX-License-Identifier: MIT */
/*
 * tool_run.h - what both packers do around their input: the policy, the
 * output file (temporary until complete, signals remove it), the bytes in
 * front of an --offset image, the progress display, the writer, and the
 * final commit and summary.
 */
#ifndef SQP_BIN_TOOL_RUN_H
#define SQP_BIN_TOOL_RUN_H

#include "tool_options.h"
#include "tool_progress.h"

struct tool_run {
	struct tool_options *opt;
	struct sqp_policy *policy;
	struct sqp_outfile *of;
	struct sqp_outfile *blob_of;  /* --blobdev's, or NULL */
	struct tool_progress progress;
	struct sqp_writer *w;
};

/* Policy, output file, offset prefix, signals. Returns an exit status;
 * on non-zero, tool_run_end is still called. */
int tool_run_begin(struct tool_run *r, struct tool_options *opt);

/* Start the progress display and create the writer. Returns 0 or 1. */
int tool_run_writer(struct tool_run *r);

/* After the input: finish, commit, summary (what: the input's name and
 * kind for the summary line). ret is the input stage's status (0 = fed
 * completely); returns the exit status. */
int tool_run_finish(struct tool_run *r, int ret, const char *what);

void tool_run_end(struct tool_run *r);

#endif
