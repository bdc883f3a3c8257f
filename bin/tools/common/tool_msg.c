/* SPDX-License-Identifier: MIT */
/*
 * tool_msg.c - see tool_msg.h. One warning callback and one closing line
 * for usage errors, so ten programs word them one way.
 *
 * The program name is the one mutable global of the tools: set once by
 * main(), read by every message.
 */
#include "config.h"

#include <stdio.h>

#include "tool_msg.h"

static const char *progname = "sqpack";

void tool_set_progname(const char *name)
{
	progname = name;
}

const char *tool_progname(void)
{
	return progname;
}

void tool_warn(void *user, const char *msg)
{
	struct tool_warnings *w = user;

	if (w != NULL) {
		w->count++;
		if (w->quiet)
			return;
	}
	fprintf(stderr, "%s: warning: %s\n", progname, msg);
}

void tool_try_help(void)
{
	fprintf(stderr, "Try '%s --help'.\n", progname);
}

int tool_bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", progname);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	tool_try_help();
	return 2;
}
