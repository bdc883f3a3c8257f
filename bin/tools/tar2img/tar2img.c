/* SPDX-License-Identifier: MIT */
/*
 * tar2img.c - tar2img: a tar stream in, a SquashFS image out.
 *
 * The tool only wires the library together and reports; tool_run.c keeps
 * OUTPUT complete or absent. The progress total is known when the inputs
 * are regular files: their size (compressed, for a compressed tar, so the
 * bytes shown are an estimate there). Several inputs are container layers
 * merged in one pass.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/tool_mains.h"
#include "../common/tool_run.h"
#include "../common/tool_shard.h"

static const char *input_name(const char *input)
{
	return input == NULL || strcmp(input, "-") == 0 ? "stdin" : input;
}

static int open_input(const char *input, int *fd)
{
	if (input == NULL || strcmp(input, "-") == 0) {
		*fd = STDIN_FILENO;
		return 0;
	}
	*fd = open(input, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), input, strerror(errno));
		return 1;
	}
	return 0;
}

/* The progress total: the sizes of the inputs that are files. */
static void totals(struct tool_run *r, const int *fds, size_t n)
{
	uint64_t bytes = 0;
	struct stat st;
	size_t i;

	for (i = 0; i < n; i++) {
		if (fstat(fds[i], &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		bytes += (uint64_t)st.st_size;
	}
	if (bytes > 0)
		tool_progress_totals(&r->progress, 0, bytes);
}

/* The next input into *tr: a new reader for the first, the same one
 * reset for each later layer (its read-ahead buffers stay mapped). */
static int open_reader(struct sqp_tar_reader **tr, int in_fd, const char *name,
		       const struct tool_options *opt)
{
	struct sqp_tar_reader_desc rd = { .struct_size = sizeof(rd),
		.fd = in_fd, .name = name, .warn = tool_warn, .warn_user = opt->warnings,
		.flags = opt->tar_read_flags };
	int ret;

	if (*tr != NULL)
		ret = sqp_tar_reader_reset(*tr, in_fd, name);
	else
		ret = sqp_tar_reader_create(&rd, tr);
	if (ret != 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), name,
			*tr ? sqp_tar_reader_error(*tr) : sqp_strerror(ret));
	return ret;
}

static int feed(struct tool_run *r, struct sqp_tar_reader **tr, int in_fd,
		const char *name, char *what, size_t len)
{
	int ret = open_reader(tr, in_fd, name, r->opt);

	if (ret != 0)
		return 1;
	ret = sqp_writer_add_tar(r->w, *tr);
	if (ret != 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
			sqp_writer_error(r->w));
	snprintf(what, len, "tar compression: %s", sqp_tar_reader_compression(*tr));
	return ret == 0 ? 0 : 1;
}

/* Several inputs are layers, lowest first on the command line: fed
 * topmost first, so what an upper layer replaces or deletes is skipped
 * unread (sqp_writer_begin_layer). */
static int feed_layers(struct tool_run *r, const int *fds, char *what, size_t len)
{
	const struct tool_options *opt = r->opt;
	struct sqp_tar_reader *tr = NULL;
	size_t i = opt->input_count;
	int ret = 0;

	while (ret == 0 && i-- > 0) {
		/* Before the topmost too: its links may name lower files. */
		if (opt->input_count > 1 && sqp_writer_begin_layer(r->w) != 0) {
			fprintf(stderr, "%s: %s: %s\n", tool_progname(), opt->output,
				sqp_writer_error(r->w));
			ret = 1;
			break;
		}
		ret = feed(r, &tr, fds[i], input_name(opt->inputs[i]), what, len);
	}
	sqp_tar_reader_destroy(tr);
	if (ret == 0 && opt->input_count > 1)
		snprintf(what, len, "%zu layers", opt->input_count);
	return ret;
}

static void close_inputs(int *fds, size_t n)
{
	size_t i;

	for (i = 0; fds != NULL && i < n; i++)
		if (fds[i] >= 0 && fds[i] != STDIN_FILENO)
			close(fds[i]);
	free(fds);
}

/* Every input opened before OUTPUT is made, so a typo leaves nothing. */
static int open_inputs(struct tool_options *opt, int **out)
{
	static char *dash = "-";
	size_t i;
	int *fds;

	if (opt->input_count == 0) {
		opt->inputs = &dash;
		opt->input_count = 1;
	}
	fds = malloc(opt->input_count * sizeof(*fds));
	if (fds == NULL) {
		fprintf(stderr, "%s: out of memory\n", tool_progname());
		return 1;
	}
	for (i = 0; i < opt->input_count; i++)
		fds[i] = -1;
	*out = fds;
	for (i = 0; i < opt->input_count; i++)
		if (open_input(opt->inputs[i], &fds[i]) != 0)
			return 1;
	return 0;
}

int tar2img_main(int argc, char **argv)
{
	struct tool_options opt;
	int ret = tool_parse_options(TOOL_TAR2IMG, argc, argv, &opt);

	if (ret != 0) {
		tool_options_free(&opt);
		return ret < 0 ? 0 : ret;
	}
	return tar2img_run(&opt);
}

/* --shard and --shard-plan: one INPUT, read for its headers first (all
 * before OUTPUT is made). Returns 0 to go on, -1 when the plan was all
 * there was to do, or an exit status. */
static int shard_first_pass(struct tool_options *opt, const int *fds, struct tool_keep **keep)
{
	int ret;

	if (opt->shard_count == 0)
		return 0;
	if (opt->input_count != 1)
		return tool_bad_usage("%s", "--shard and --shard-plan take one INPUT, "
				      "not layers");
	ret = tool_shard_tar(opt, fds[0], input_name(opt->inputs[0]), keep);
	return ret == 0 && opt->shard_plan ? -1 : ret;
}

int tar2img_run(struct tool_options *opt)
{
	struct tool_keep *keep = NULL;
	struct tool_run run;
	char what[64] = "";
	size_t count = opt->input_count;
	int *fds = NULL, ret;

	if (open_inputs(opt, &fds) != 0) {
		close_inputs(fds, count);
		tool_options_free(opt);
		return 1;
	}
	ret = shard_first_pass(opt, fds, &keep);
	if (ret != 0) {
		close_inputs(fds, opt->input_count);
		tool_options_free(opt);
		return ret < 0 ? 0 : ret;
	}
	ret = tool_run_begin(&run, opt);
	if (ret == 0 && keep != NULL)   /* tool_make_policy made one for it */
		sqp_policy_set_keep(run.policy, tool_keep_path, keep);
	if (ret == 0)
		ret = tool_run_writer(&run);
	if (ret == 0) {
		totals(&run, fds, count);
		ret = feed_layers(&run, fds, what, sizeof(what));
		if (ret == 0 && opt->after_input != NULL)
			ret = opt->after_input(opt->after_input_user) != 0;
		ret = tool_run_finish(&run, ret, what);
	}
	tool_run_end(&run);
	close_inputs(fds, count);
	tool_keep_free(keep);
	return ret;
}
