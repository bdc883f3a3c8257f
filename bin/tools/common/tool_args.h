/* SPDX-License-Identifier: MIT */
/*
 * tool_args.h - the command line img2tar, img2dir and imginfo's commands
 * share, parsed one way, as tool_options.c does for the packers: each
 * tool's option table lists the shared options it takes (TOOL_LONG_*),
 * one loop gives each of them one meaning and one message, and hands the
 * tool only its own options.
 */
#ifndef SQP_BIN_TOOL_ARGS_H
#define SQP_BIN_TOOL_ARGS_H

#include <getopt.h>
#include <stdint.h>

#include "tool_msg.h"

/* Codes of the shared options without a short form; a tool's own long
 * options take codes from TOOL_OPT_OWN on. */
enum { TOOL_OPT_OFFSET = 256, TOOL_OPT_DEVICE, TOOL_OPT_OWN };

/* The shared options, for the tools' tables; their short forms are -j,
 * -q, -h and -V. */
#define TOOL_LONG_JOBS { "jobs", required_argument, NULL, 'j' }
#define TOOL_LONG_OFFSET { "offset", required_argument, NULL, TOOL_OPT_OFFSET }
#define TOOL_LONG_DEVICE { "device", required_argument, NULL, TOOL_OPT_DEVICE }
#define TOOL_LONG_QUIET { "quiet", no_argument, NULL, 'q' }
#define TOOL_LONG_HELP { "help", no_argument, NULL, 'h' }
#define TOOL_LONG_VERSION { "version", no_argument, NULL, 'V' }

struct tool_args {
	/* Set by the tool. */
	const char *prog;        /* "img2tar"; messages and --version */
	const char *cmd;         /* a command's value messages start
				    "cmd: " (imginfo check); or NULL */
	const char *shorts;      /* for getopt_long, ':' first */
	const struct option *longs;
	const char *help;        /* what --help prints */
	/* The tool's own option c (optarg in arg): 0, or the exit status
	 * after reporting. Needed when longs or shorts hold any. */
	int (*own)(void *user, int c, const char *arg);
	void *user;
	/* Set by the shared options. */
	uint64_t offset;         /* --offset N */
	const char *device;      /* --device FILE: EROFS's extra device */
	unsigned jobs;           /* -j N (0: the default) */
	int quiet;               /* -q */
};

/* Parse argv's options (optind is left at the first operand): 0 to go
 * on, -1 after --help or --version (exit 0), or 2 after a usage message
 * (or the tool's own exit status). */
int tool_args_parse(struct tool_args *a, int argc, char **argv);


/* A byte position (decimal digits only) from arg into *out; 0, or -1
 * when arg is not one. */
int tool_offset(const char *arg, uint64_t *out);

#endif
