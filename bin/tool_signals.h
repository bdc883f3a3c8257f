/* SPDX-License-Identifier: MIT */
/*
 * tool_signals.h - what both tools do about signals: SIGINT, SIGTERM and
 * SIGHUP remove the output's temporary file and exit 1; SIGXFSZ and
 * SIGPIPE are ignored so a file size limit or a closed pipe surface as
 * write errors with a message.
 */
#ifndef SQP_BIN_TOOL_SIGNALS_H
#define SQP_BIN_TOOL_SIGNALS_H

/* Install the handlers; message is printed when interrupted. */
void tool_signals_install(const char *message);
/* The temporary file to remove on a signal (NULL: none any more). */
void tool_signals_temp(const char *path);
/* Hold the fatal signals from before the temporary file is created until
 * it is registered, so none can leave it behind: a signal held meanwhile
 * is delivered at the release (and then removes the file). Hold and
 * release in one thread, before any other thread starts. */
void tool_signals_hold(void);
void tool_signals_release(void);

#endif
