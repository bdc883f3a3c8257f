/* SPDX-License-Identifier: MIT */
/*
 * tool_mains.h - the packers as functions: each program's main() sets its
 * name and calls its _main, which parses the command line into a struct
 * tool_options and runs it; the front ends for mksquashfs's and
 * mkfs.erofs's lines fill that structure themselves and call the _run
 * functions, so nothing is spelled out as a command line and parsed
 * again. Each returns the exit status: 0 ok, 1 failure, 2 bad usage.
 * Messages start with the name given to tool_set_progname().
 */
#ifndef SQP_BIN_TOOL_MAINS_H
#define SQP_BIN_TOOL_MAINS_H

#include "tool_msg.h"
#include "tool_options.h"

int dir2img_main(int argc, char **argv);
int tar2img_main(int argc, char **argv);
int img2img_main(int argc, char **argv);

/* Pack what opt describes (OUTPUT and the DIRs or tar inputs included);
 * opt is freed (tool_options_free) either way. */
int dir2img_run(struct tool_options *opt);
int tar2img_run(struct tool_options *opt);

#endif
