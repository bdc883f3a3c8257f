/* SPDX-License-Identifier: MIT */
/*
 * tool_progress.c - progress on stderr, drawn by its own thread.
 *
 * The writer reports through a callback that only stores two counters, so
 * the hot path costs two atomic stores. A separate thread draws: this way
 * a line appears every second even while nothing reports (the scan of a
 * large tree, one huge file, the final tables), which a build system's
 * watchdog needs. Nothing is ever written to stdout.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tool_mains.h"
#include "tool_options.h"
#include "tool_progress.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void draw_tty(struct tool_progress *p, double t)
{
	uint64_t e = atomic_load(&p->entries), b = atomic_load(&p->bytes);
	uint64_t te = atomic_load(&p->total_entries), tb = atomic_load(&p->total_bytes);
	double rate = t > 0 ? (double)b / t : 0;
	char eta[32] = "";

	if (tb > 0 && rate > 0 && b <= tb)
		snprintf(eta, sizeof(eta), ", ETA %.0fs", (double)(tb - b) / rate);
	if (te > 0)
		fprintf(stderr, "\r%s: %llu/%llu entries, %.1f/%.1f MiB, %.1f MiB/s%s\033[K",
			tool_progname(), (unsigned long long)e, (unsigned long long)te,
			(double)b / 1048576, (double)tb / 1048576, rate / 1048576, eta);
	else
		fprintf(stderr, "\r%s: %llu entries, %.1f MiB, %.1f MiB/s%s\033[K",
			tool_progname(), (unsigned long long)e, (double)b / 1048576,
			rate / 1048576, eta);
}

static void draw_json(struct tool_progress *p, double t, int final, int ok)
{
	fprintf(stderr, "{\"entries\":%llu,\"bytes\":%llu,\"total_entries\":%llu,"
		"\"total_bytes\":%llu,\"elapsed\":%.3f,\"done\":%s",
		(unsigned long long)atomic_load(&p->entries),
		(unsigned long long)atomic_load(&p->bytes),
		(unsigned long long)atomic_load(&p->total_entries),
		(unsigned long long)atomic_load(&p->total_bytes), t,
		final ? "true" : "false");
	if (final)
		fprintf(stderr, ",\"ok\":%s%s", ok ? "true" : "false",
			ok && p->json_extra != NULL ? p->json_extra : "");
	fputs("}\n", stderr);
}

static void *run(void *arg)
{
	struct tool_progress *p = arg;
	struct timespec until;
	long step_ns = p->mode == PROGRESS_JSON ? 1000000000L : 250000000L;

	pthread_mutex_lock(&p->lock);
	clock_gettime(CLOCK_REALTIME, &until);
	while (!p->stop) {
		pthread_mutex_unlock(&p->lock);
		if (p->mode == PROGRESS_JSON)
			draw_json(p, now() - p->start, 0, 0);
		else
			draw_tty(p, now() - p->start);
		pthread_mutex_lock(&p->lock);
		until.tv_nsec += step_ns;
		while (until.tv_nsec >= 1000000000L) {
			until.tv_nsec -= 1000000000L;
			until.tv_sec++;
		}
		while (!p->stop && pthread_cond_timedwait(&p->cond, &p->lock, &until) == 0)
			;
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void tool_progress_start(struct tool_progress *p, int mode, int quiet)
{
	memset(p, 0, sizeof(*p));
	if (quiet)
		mode = PROGRESS_NONE;
	if (mode == PROGRESS_AUTO)
		mode = isatty(STDERR_FILENO) ? PROGRESS_TTY : PROGRESS_NONE;
	p->mode = mode;
	p->start = now();
	if (mode == PROGRESS_NONE)
		return;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->running = pthread_create(&p->thread, NULL, run, p) == 0;
}

void tool_progress_totals(struct tool_progress *p, uint64_t entries, uint64_t bytes)
{
	atomic_store(&p->total_entries, entries);
	atomic_store(&p->total_bytes, bytes);
}

void tool_progress_update(void *user, uint64_t entries, uint64_t bytes)
{
	struct tool_progress *p = user;

	atomic_store_explicit(&p->entries, entries, memory_order_relaxed);
	atomic_store_explicit(&p->bytes, bytes, memory_order_relaxed);
}

void tool_progress_end(struct tool_progress *p, int ok)
{
	if (p->mode == PROGRESS_NONE)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = 1;
		pthread_cond_signal(&p->cond);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	if (p->mode == PROGRESS_JSON) {
		draw_json(p, now() - p->start, 1, ok);
	} else {
		draw_tty(p, now() - p->start);
		fputc('\n', stderr);
	}
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	p->mode = PROGRESS_NONE;
}
