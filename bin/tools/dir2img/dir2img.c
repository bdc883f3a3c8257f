/* SPDX-License-Identifier: MIT */
/*
 * dir2img.c - dir2img: directory trees in, a SquashFS image out.
 *
 * The scan runs before the output file is made, so a typo in DIR leaves
 * nothing behind; the progress total is known from the scan. A failure
 * caused by a file (changed, vanished, unreadable) is reported with the
 * scanner's message, which names it; otherwise with the writer's. With
 * --layers each DIR is a container layer (lowest first), scanned on its
 * own and merged in one pass.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "../common/tool_mains.h"
#include "../common/tool_run.h"
#include "../common/tool_shard.h"

static void on_entry(void *user, const char *path)
{
	(void)user;
	fprintf(stderr, "%s: adding '/%s'\n", tool_progname(), path);
}

static int scan(struct tool_options *opt, const struct sqp_policy *policy,
		char **dirs, size_t count, struct sqp_dirscan **out)
{
	struct sqp_dirscan_desc d = {
		.dirs = (const char *const *)dirs, .dir_count = count,
		.flags = opt->scan_flags, .policy = policy,
		.readers = opt->desc.jobs, .warn = tool_warn, .warn_user = opt->warnings,
		.on_entry = opt->verbose ? on_entry : NULL,
	};
	int ret = sqp_dirscan_create(&d, out);

	if (ret != 0)
		fprintf(stderr, "%s: %s\n", tool_progname(),
			*out ? sqp_dirscan_error(*out) : sqp_strerror(ret));
	return ret == 0 ? 0 : ret == SQP_ERR_ARG ? 2 : 1;
}

/* One scan of all DIRs, or with --layers one per DIR (each its own
 * root), all before OUTPUT is made. */
static int scan_all(struct tool_options *opt, const struct sqp_policy *policy,
		    struct sqp_dirscan **s, size_t n)
{
	size_t i;
	int ret = 0;

	if (n == 1)
		return scan(opt, policy, opt->dirs, opt->dir_count, &s[0]);
	for (i = 0; i < n && ret == 0; i++)
		ret = scan(opt, policy, opt->dirs + i, 1, &s[i]);
	return ret;
}

static int feed_one(struct tool_run *r, struct sqp_dirscan *s)
{

	if (sqp_dirscan_feed(s, r->w) == 0)
		return 0;
	fprintf(stderr, "%s: %s\n", tool_progname(), sqp_dirscan_error(s));
	return 1;
}

/* Layers are fed topmost (the last DIR) first: what an upper layer
 * replaces or deletes below it is never read (sqp_writer_begin_layer). */
static int feed(struct tool_run *r, struct sqp_dirscan **s, size_t n)
{
	uint64_t entries = 0, bytes = 0, e, b;
	size_t i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		sqp_dirscan_totals(s[i], &e, &b);
		entries += e;
		bytes += b;
	}
	tool_progress_totals(&r->progress, entries, bytes);
	if (n == 1)
		return feed_one(r, s[0]);
	for (i = n; ret == 0 && i-- > 0;) {
		if (sqp_writer_begin_layer(r->w) != 0) {
			fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
				sqp_writer_error(r->w));
			return 1;
		}
		ret = feed_one(r, s[i]);
	}
	return ret;
}

int dir2img_main(int argc, char **argv)
{
	struct tool_options opt;
	int ret = tool_parse_options(TOOL_DIR2IMG, argc, argv, &opt);

	if (ret != 0) {
		tool_options_free(&opt);
		return ret < 0 ? 0 : ret;
	}
	return dir2img_run(&opt);
}

/* --shard: cut the scan to the shard; --shard-plan: print the plan. */
static int shard(const struct tool_options *opt, struct sqp_dirscan *s)
{
	struct sqp_shard_span *spans = NULL;
	int ret;

	if (opt->shard_plan && (spans = malloc(opt->shard_count * sizeof(*spans))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", tool_progname());
		return 1;
	}
	ret = sqp_dirscan_shard(s, opt->shard_index, opt->shard_count, spans);
	if (ret != 0)
		fprintf(stderr, "%s: %s\n", tool_progname(), sqp_dirscan_error(s));
	else if (opt->shard_plan)
		ret = tool_shard_print(spans, opt->shard_count);
	free(spans);
	return ret == 0 ? 0 : 1;
}

/* --shard-plan: the scan and its plan, no image. */
static int plan_only(struct tool_options *opt)
{
	struct sqp_policy *policy = NULL;
	struct sqp_dirscan *s = NULL;
	int ret = tool_make_policy(opt, &policy);

	if (ret == 0)
		ret = scan(opt, policy, opt->dirs, opt->dir_count, &s);
	if (ret == 0)
		ret = shard(opt, s);
	sqp_dirscan_destroy(s);
	sqp_policy_destroy(policy);
	tool_options_free(opt);
	return ret;
}

int dir2img_run(struct tool_options *opt)
{
	struct sqp_dirscan **s = NULL;
	struct tool_run run;
	size_t i, n = 1;
	char what[64];
	int ret;

	if (opt->shard_count != 0 && opt->layers) {
		tool_options_free(opt);
		return tool_bad_usage("%s", "--shard and --shard-plan split one tree, not "
				      "--layers");
	}
	if (opt->shard_plan)
		return plan_only(opt);
	if (opt->layers)
		n = opt->dir_count;
	s = calloc(n, sizeof(*s));
	if (s == NULL) {
		fprintf(stderr, "%s: out of memory\n", tool_progname());
		tool_options_free(opt);
		return 1;
	}
	ret = tool_run_begin(&run, opt);
	if (ret == 0)
		ret = scan_all(opt, run.policy, s, n);
	if (ret == 0 && opt->shard_count != 0)
		ret = shard(opt, s[0]);
	if (ret == 0)
		ret = tool_run_writer(&run);
	if (ret == 0) {
		ret = feed(&run, s, n);
		if (n > 1)
			snprintf(what, sizeof(what), "%zu layers", n);
		else
			snprintf(what, sizeof(what), "%zu director%s", opt->dir_count,
				 opt->dir_count == 1 ? "y" : "ies");
		ret = tool_run_finish(&run, ret, what);
	}
	for (i = 0; i < n; i++)
		sqp_dirscan_destroy(s[i]);
	free(s);
	tool_run_end(&run);
	return ret;
}
