/* SPDX-License-Identifier: MIT */
/*
 * tool_progress.h - the progress display on stderr: one rewritten line on
 * a terminal, or one JSON object per line (--progress=json) for build
 * systems, at least once a second, the last one with the totals.
 */
#ifndef SQP_BIN_TOOL_PROGRESS_H
#define SQP_BIN_TOOL_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

struct tool_progress {
	int mode;                     /* PROGRESS_NONE, _TTY or _JSON once started */
	_Atomic uint64_t entries, bytes;
	_Atomic uint64_t total_entries, total_bytes; /* 0 = unknown */
	double start;
	pthread_t thread;
	pthread_mutex_t lock;         /* protects stop, with cond */
	pthread_cond_t cond;
	int stop;
	int running;
	const char *json_extra;       /* more fields for the final JSON record */
};

/* Resolve mode (enum progress_mode; auto = tty when stderr is a terminal)
 * and start the display thread when there is something to show. */
void tool_progress_start(struct tool_progress *p, int mode, int quiet);

/* Totals, when known (dir2img after the scan, tar2img from the file size). */
void tool_progress_totals(struct tool_progress *p, uint64_t entries, uint64_t bytes);

/* The writer's progress callback (sqp_progress_fn); user is the progress. */
void tool_progress_update(void *user, uint64_t entries, uint64_t bytes);

/* Stop the thread; print the final line (JSON: with "done" and ok). */
void tool_progress_end(struct tool_progress *p, int ok);

#endif
