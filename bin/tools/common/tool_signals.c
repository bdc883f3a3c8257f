/* SPDX-License-Identifier: MIT */
/*
 * tool_signals.c - see tool_signals.h. The handler only uses
 * async-signal-safe calls (unlink, write, _exit) on data prepared before
 * the signal can arrive.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tool_signals.h"

/* The output's temporary file, and a second one (--verity=FILE's tree). */
/* The image's, then the second outputs' (--verity=FILE's tree,
 * --blobdev's blob). */
#define TEMP_SLOTS 3
static char temp_path[TEMP_SLOTS][4096];
static volatile sig_atomic_t temp_set[TEMP_SLOTS];
static char interrupted_msg[128];
static const int fatal[] = { SIGINT, SIGTERM, SIGHUP };

static void on_signal(int sig)
{
	(void)sig;
	for (int i = 0; i < TEMP_SLOTS; i++)
		if (temp_set[i])
			unlink(temp_path[i]);
	if (write(STDERR_FILENO, interrupted_msg, strlen(interrupted_msg)) < 0) {
		/* nothing more can be done */
	}
	_exit(1);
}

void tool_signals_install(const char *message)
{
	struct sigaction sa;

	snprintf(interrupted_msg, sizeof(interrupted_msg), "%s\n", message);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* A signal the caller ignores stays ignored: nohup's SIGHUP, SIGINT
	 * in a shell's background job. */
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		struct sigaction old;

		if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(fatal[i], &sa, NULL);
	}
	signal(SIGXFSZ, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

static void set_temp(int slot, const char *path)
{
	temp_set[slot] = 0;
	if (path == NULL)
		return;
	snprintf(temp_path[slot], sizeof(temp_path[slot]), "%s", path);
	temp_set[slot] = 1;
}

void tool_signals_temp(const char *path)
{
	set_temp(0, path);
	for (int i = 1; path == NULL && i < TEMP_SLOTS; i++)
		set_temp(i, NULL);
}

static int create_in_slot(int slot, const char *path, int flags, struct sqp_outfile **out)
{
	sigset_t set, old;
	int ret;

	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaddset(&set, fatal[i]);
	sigprocmask(SIG_BLOCK, &set, &old);
	ret = sqp_outfile_create(path, flags, out);
	if (ret == 0)
		set_temp(slot, sqp_outfile_temp_path(*out));
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}

int tool_signals_create_output(const char *path, int flags, struct sqp_outfile **out)
{
	return create_in_slot(0, path, flags, out);
}

int tool_signals_create_second(const char *path, int flags, struct sqp_outfile **out)
{
	int slot = 1;

	while (slot < TEMP_SLOTS - 1 && temp_set[slot])
		slot++;
	return create_in_slot(slot, path, flags, out);
}
