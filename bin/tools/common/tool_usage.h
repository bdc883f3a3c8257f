/* SPDX-License-Identifier: MIT */
/*
 * tool_usage.h - the --help texts of the packers.
 */
#ifndef SQP_BIN_TOOL_USAGE_H
#define SQP_BIN_TOOL_USAGE_H

#include <stdio.h>

/* The --help text of tool (enum tool_kind). */
void tool_usage(int tool, FILE *f);

#endif
