/* SPDX-License-Identifier: MIT */
/*
 * tool_args.c - see tool_args.h: option handling shared by the image
 * reading tools, so they word usage errors and take -j the same way.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "tool_args.h"

int tool_bad_usage(const char *prog, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	return 2;
}

int tool_jobs(const char *arg, unsigned *jobs)
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
