/* SPDX-License-Identifier: MIT */
/*
 * tool_usage.h - the program name in messages and the --help texts.
 */
#ifndef SQP_BIN_TOOL_USAGE_H
#define SQP_BIN_TOOL_USAGE_H

#include <stdio.h>

/* The --help text of tool (enum tool_kind). */
void tool_usage(int tool, FILE *f);

#endif
