/* SPDX-License-Identifier: MIT */
/*
 * tool_signals.h - what both tools do about signals: SIGINT, SIGTERM and
 * SIGHUP remove the output's temporary file and exit 1; SIGXFSZ and
 * SIGPIPE are ignored so a file size limit or a closed pipe surface as
 * write errors with a message.
 */
#ifndef SQP_BIN_TOOL_SIGNALS_H
#define SQP_BIN_TOOL_SIGNALS_H

#include "sqpack/outfile.h"

/* Install the handlers; message is printed when interrupted. */
void tool_signals_install(const char *message);
/* The temporary file to remove on a signal (NULL: none any more, nor a
 * second one). */
void tool_signals_temp(const char *path);
/* sqp_outfile_create, with its temporary file registered for removal.
 * The fatal signals are held from before the file exists until it is
 * registered, so none can leave it behind (one held meanwhile arrives
 * after, and removes it). flags as sqp_outfile_create's (a tool's
 * --force is SQP_OUTFILE_FORCE). Call before any other thread starts. */
int tool_signals_create_output(const char *path, int flags, struct sqp_outfile **out);
/* The same for a second output (tar2img --verity=FILE's tree,
 * --blobdev's blob; two of them at most). */
int tool_signals_create_second(const char *path, int flags, struct sqp_outfile **out);

#endif
