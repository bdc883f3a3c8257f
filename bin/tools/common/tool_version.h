/* SPDX-License-Identifier: MIT */
/*
 * tool_version.h - what every tool's --version prints.
 */
#ifndef SQP_BIN_TOOL_VERSION_H
#define SQP_BIN_TOOL_VERSION_H

/* "PROG (sqpack) VERSION", then the codecs of this build with the
 * library each runs on and its version, on stdout. */
void tool_print_version(const char *prog);

#endif
