/* SPDX-License-Identifier: MIT */
/*
 * tool_args.c - see tool_args.h: the one option loop of the image
 * reading tools (img2tar, img2dir, imginfo's commands), so that -j,
 * --offset, -q, --help, --version and the usage errors mean and say the
 * same in each, as the packers share theirs in tool_options.c.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sqpack/sqpack.h"
#include "tool_args.h"
#include "tool_version.h"

/* A job count, 0..1024; 0, or -1 when arg is not one. */
static int parse_jobs(const char *arg, unsigned *jobs)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 0 || v > 1024)
		return -1;
	*jobs = (unsigned)v;
	return 0;
}

int tool_offset(const char *arg, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* A bad value of a shared option: named after the command, if any. */
static int bad_value(const struct tool_args *a, const char *fmt,
		     const char *arg)
{
	char buf[128];

	if (a->cmd == NULL)
		return tool_bad_usage(fmt, arg);
	snprintf(buf, sizeof(buf), "%s: %s", a->cmd, fmt);
	return tool_bad_usage(buf, arg);
}

/* One option: 0 to go on, else parsing ends with this status. */
static int one(struct tool_args *a, int c, char **argv)
{
	switch (c) {
	case 'h':
		fputs(a->help, stdout);
		return -1;
	case 'V':
		tool_print_version(a->prog);
		return -1;
	case 'q':
		a->quiet = 1;
		return 0;
	case 'j':
		if (parse_jobs(optarg, &a->jobs) != 0)
			return bad_value(a, "bad job count '%s'", optarg);
		return 0;
	case TOOL_OPT_DEVICE:
		a->device = optarg;
		return 0;
	case TOOL_OPT_OFFSET:
		if (tool_offset(optarg, &a->offset) != 0)
			return bad_value(a, "--offset '%s' is not a byte count",
					 optarg);
		return 0;
	case ':':
		return tool_bad_usage("option '%s' needs a value",
				      argv[optind - 1]);
	case '?':
		return tool_bad_usage("unknown option '%s'",
				      argv[optind - 1]);
	}
	return a->own(a->user, c, optarg);
}

int tool_args_parse(struct tool_args *a, int argc, char **argv)
{
	int c, ret;

	tool_set_progname(a->prog);
	opterr = 0; /* our own messages: argv[0] may be a libtool wrapper */
	while ((c = getopt_long(argc, argv, a->shorts, a->longs, NULL)) != -1)
		if ((ret = one(a, c, argv)) != 0)
			return ret;
	return 0;
}
