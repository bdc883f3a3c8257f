/* SPDX-License-Identifier: MIT */
/*
 * dir2img.c - dir2img: directory trees in, a SquashFS image out.
 *
 * The scan runs before the output file is made, so a typo in DIR leaves
 * nothing behind; the progress total is known from the scan. A failure
 * caused by a file (changed, vanished, unreadable) is reported with the
 * scanner's message, which names it; otherwise with the writer's.
 */
#include "config.h"

#include <stdio.h>

#include "tool_mains.h"
#include "tool_run.h"

static void on_entry(void *user, const char *path)
{
	(void)user;
	fprintf(stderr, "%s: adding '/%s'\n", tool_progname(), path);
}

static int scan(struct tool_options *opt, const struct sqp_policy *policy,
		struct sqp_dirscan **out)
{
	struct sqp_dirscan_desc d = {
		.dirs = (const char *const *)opt->dirs, .dir_count = opt->dir_count,
		.flags = opt->scan_flags, .policy = policy,
		.readers = opt->desc.jobs, .warn = tool_warn,
		.on_entry = opt->verbose ? on_entry : NULL,
	};
	int ret = sqp_dirscan_create(&d, out);

	if (ret != 0)
		fprintf(stderr, "%s: %s\n", tool_progname(),
			*out ? sqp_dirscan_error(*out) : sqp_strerror(ret));
	return ret == 0 ? 0 : ret == SQP_ERR_ARG ? 2 : 1;
}

static int feed(struct tool_run *r, struct sqp_dirscan *s)
{
	uint64_t entries, bytes;

	sqp_dirscan_totals(s, &entries, &bytes);
	tool_progress_totals(&r->progress, entries, bytes);
	if (sqp_dirscan_feed(s, r->w) == 0)
		return 0;
	fprintf(stderr, "%s: %s\n", tool_progname(), sqp_dirscan_error(s));
	return 1;
}

int dir2img_main(int argc, char **argv)
{
	struct tool_options opt;
	struct sqp_dirscan *s = NULL;
	struct tool_run run;
	char what[64];
	int ret;

	ret = tool_parse_options(TOOL_DIR2IMG, argc, argv, &opt);
	if (ret != 0) {
		tool_options_free(&opt);
		return ret < 0 ? 0 : ret;
	}
	ret = tool_run_begin(&run, &opt);
	if (ret == 0)
		ret = scan(&opt, run.policy, &s);
	if (ret == 0)
		ret = tool_run_writer(&run);
	if (ret == 0) {
		ret = feed(&run, s);
		snprintf(what, sizeof(what), "%zu director%s", opt.dir_count,
			 opt.dir_count == 1 ? "y" : "ies");
		ret = tool_run_finish(&run, ret, what);
	}
	sqp_dirscan_destroy(s);
	tool_run_end(&run);
	return ret;
}
