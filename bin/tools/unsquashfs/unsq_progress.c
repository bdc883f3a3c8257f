/* SPDX-License-Identifier: MIT */
/*
 * unsq_progress.c - unsquashfs's progress bar, and -percentage.
 *
 * Why here and not in the library: the bar is for people, on stdout,
 * in unsquashfs's shape ("[===\    ] done/total  pct%", one unit per
 * inode and per data block). On a terminal it is redrawn as img2dir
 * makes entries (its entered() callback, on the extracting thread, so
 * no thread of our own and no lock), at most every REDRAW_NS; elsewhere
 * it is drawn once, full, at the end, so that a log holds one line.
 * -percentage prints bare percentages instead, one a line as they grow,
 * for a gauge (dialog --gauge) reading a pipe. A unit is counted when
 * its entry is made, before its data is written: the bar runs a file
 * ahead of the disk, and is clamped to its total.
 */
#include "config.h"

#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "unsq.h"

#define REDRAW_NS 100000000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Nothing to do is all done. */
static int pct_of(const struct unsq_progress *pg)
{
	return pg->total ? (int)(pg->done * 100 / pg->total) : 100;
}

static void draw(struct unsq_progress *pg)
{
	static const char spin[] = "|/-\\";
	struct winsize ws;
	unsigned long long total = pg->total ? pg->total : 1;
	int columns = 80, digits = snprintf(NULL, 0, "%llu", pg->total), bar, used;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		columns = ws.ws_col;
	bar = columns - (digits * 2 + 11);
	used = bar > 0 ? (int)((unsigned long long)bar * pg->done / total) : 0;
	putchar('\r');
	putchar('[');
	for (int i = 0; i < bar; i++)
		putchar(i < used ? '=' : i == used ? spin[pg->spin++ & 3] : ' ');
	printf("%c] %*llu/%llu %3d%%", pg->done == pg->total ? '|' :
	       used == bar ? spin[pg->spin & 3] : ' ', digits, pg->done,
	       pg->total, pct_of(pg));
	fflush(stdout);
}

void unsq_progress_init(struct unsq_progress *pg, const struct unsq_opts *o,
			unsigned long long total)
{
	*pg = (struct unsq_progress){ .total = total, .last_pct = -1 };
	pg->percentage = o->percentage;
	/* -i's lines would be torn by a bar redrawn between them. */
	pg->live = !o->percentage && !o->no_progress && !o->info &&
		   isatty(STDOUT_FILENO);
	if (pg->live || pg->percentage)
		unsq_progress_add(pg, 0);
}

void unsq_progress_add(struct unsq_progress *pg, unsigned long long units)
{
	long long t;

	pg->done = pg->done + units > pg->total ? pg->total : pg->done + units;
	if (pg->percentage) {
		int pct = pct_of(pg);

		if (pct != pg->last_pct) {
			printf("%d\n", pct);
			fflush(stdout);
			pg->last_pct = pct;
		}
		return;
	}
	if (!pg->live || ((t = now_ns()) - pg->last_ns < REDRAW_NS &&
			  pg->last_ns != 0))
		return;
	pg->last_ns = t;
	draw(pg);
}

void unsq_progress_halt(struct unsq_progress *pg)
{
	if (pg->percentage)
		return;       /* where it stands is printed already */
	draw(pg);
	putchar('\n');
}

void unsq_progress_end(struct unsq_progress *pg)
{
	pg->done = pg->total;
	if (pg->percentage)
		unsq_progress_add(pg, 0);
	else
		unsq_progress_halt(pg);
}
