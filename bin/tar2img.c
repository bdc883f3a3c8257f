/* SPDX-License-Identifier: MIT */
/*
 * tar2img.c - tar2img: a tar stream in, a SquashFS image out.
 *
 * The tool only wires the library together and reports; tool_run.c keeps
 * OUTPUT complete or absent. The progress total is known when the input is
 * a regular file: its size (compressed, for a compressed tar, so the bytes
 * shown are an estimate there).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tool_mains.h"
#include "tool_run.h"

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

static int feed(struct tool_run *r, int in_fd, const char *name, char *what, size_t len)
{
	struct sqp_tar_reader_desc rd = { .struct_size = sizeof(rd),
		.fd = in_fd, .name = name, .warn = tool_warn };
	struct sqp_tar_reader *tr = NULL;
	struct stat st;
	int ret;

	ret = sqp_tar_reader_create(&rd, &tr);
	if (ret != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), name,
			tr ? sqp_tar_reader_error(tr) : sqp_strerror(ret));
		sqp_tar_reader_destroy(tr);
		return 1;
	}
	if (fstat(in_fd, &st) == 0 && S_ISREG(st.st_mode))
		tool_progress_totals(&r->progress, 0, (uint64_t)st.st_size);
	ret = sqp_writer_add_tar(r->w, tr);
	if (ret != 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
			sqp_writer_error(r->w));
	snprintf(what, len, "tar compression: %s", sqp_tar_reader_compression(tr));
	sqp_tar_reader_destroy(tr);
	return ret == 0 ? 0 : 1;
}

int tar2img_main(int argc, char **argv)
{
	struct tool_options opt;
	struct tool_run run;
	char what[64] = "";
	int in_fd = -1, ret;

	ret = tool_parse_options(TOOL_TAR2IMG, argc, argv, &opt);
	if (ret != 0) {
		tool_options_free(&opt);
		return ret < 0 ? 0 : ret;
	}
	if (open_input(opt.input, &in_fd) != 0) {
		tool_options_free(&opt);
		return 1;
	}
	ret = tool_run_begin(&run, &opt);
	if (ret == 0)
		ret = tool_run_writer(&run);
	if (ret == 0) {
		ret = feed(&run, in_fd, opt.input && strcmp(opt.input, "-") != 0 ?
			   opt.input : "stdin", what, sizeof(what));
		ret = tool_run_finish(&run, ret, what);
	}
	tool_run_end(&run);
	if (in_fd != STDIN_FILENO)
		close(in_fd);
	return ret;
}
