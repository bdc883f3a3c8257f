/* SPDX-License-Identifier: MIT */
/*
 * tool_args.h - what img2tar, img2dir and imginfo parse alike: the
 * bad-usage message, the -j value and the --offset value.
 */
#ifndef SQP_BIN_TOOL_ARGS_H
#define SQP_BIN_TOOL_ARGS_H

#include <stdint.h>

/* "PROG: <fmt, arg>" and "Try 'PROG --help'." on stderr; returns 2, the
 * exit status for bad usage. */
int tool_bad_usage(const char *prog, const char *fmt, const char *arg);

/* A job count (0..1024) from arg into *jobs; 0, or -1 when arg is not
 * one. */
int tool_jobs(const char *arg, unsigned *jobs);

/* A byte position (decimal digits only) from arg into *out; 0, or -1
 * when arg is not one. */
int tool_offset(const char *arg, uint64_t *out);

#endif
