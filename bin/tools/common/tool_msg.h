/* SPDX-License-Identifier: MIT */
/*
 * tool_msg.h - what every program's messages share, written once: the
 * program's name they start with, the warning callback handed to the
 * library, and the line that closes a usage error.
 */
#ifndef SQP_BIN_TOOL_MSG_H
#define SQP_BIN_TOOL_MSG_H

/* The name messages start with ("tar2img", "sqpack-mksquashfs"...): set
 * once by each program's main(), before anything is reported. */
void tool_set_progname(const char *name);
const char *tool_progname(void);

/* What tool_warn does with the library's warnings when its user pointer
 * is one (NULL: print each). */
struct tool_warnings {
	int quiet;            /* -q: count them, print none */
	unsigned long count;  /* warnings so far */
};

/* The library's warning callback: "PROG: warning: MSG" on stderr. */
void tool_warn(void *user, const char *msg);

/* "Try 'PROG --help'." on stderr: the last line of every usage error. */
void tool_try_help(void);

/* "PROG: " fmt (one %s: arg), then the line above. Returns 2, the exit
 * status for bad usage. */
int tool_bad_usage(const char *fmt, const char *arg);

#endif
