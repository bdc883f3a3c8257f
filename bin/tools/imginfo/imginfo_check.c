/* SPDX-License-Identifier: MIT */
/*
 * imginfo_check.c - "imginfo check [-j N] [-q] IMAGE": run the library's
 * sqp_image_check() and print each problem on stdout, one a line, as
 * "TABLE: inode N: 'PATH': WHAT" (the parts that are known), so scripts
 * can read them; a summary goes to stderr. Exit 0 when the image is
 * sound, 1 when it is not or cannot be read, 2 on bad usage.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "imginfo.h"
#include "imginfo_check.h"
#include "../common/tool_args.h"
#include "sqpack/sqpack.h"

static void on_problem(void *user, const struct sqp_check_problem *p)
{
	(void)user;
	printf("%s:", p->table);
	if (p->inode_number != 0)
		printf(" inode %u:", p->inode_number);
	if (p->path != NULL)
		printf(" '%s':", p->path);
	printf(" %s\n", p->msg);
}

static const char check_help[] =
	"Usage: imginfo [--offset N] check [-j N] [-q] IMAGE\n"
	"Check every table, inode, directory and data block of IMAGE; print\n"
	"one line per problem, with where it is, and exit 1 when there is any.\n\n"
	"  -j, --jobs N   decompression threads (default: CPUs)\n"
	"  -q, --quiet    no summary line when there is no problem\n"
	"  -h, --help     show this help\n";

int imginfo_check_main(int argc, char **argv)
{
	static const struct option longs[] = {
		TOOL_LONG_JOBS, TOOL_LONG_QUIET, TOOL_LONG_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct tool_args a = { .prog = "imginfo", .cmd = "check",
			       .shorts = ":j:qh", .longs = longs,
			       .help = check_help };
	struct sqp_check_desc d = { .report = on_problem,
				    .offset = imginfo_offset() };
	struct sqp_check_stats st;
	int ret;

	ret = tool_args_parse(&a, argc, argv);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	d.jobs = a.jobs;
	/* The check's descriptor has no room for one (sqp_check_desc). */
	if (imginfo_device() != NULL)
		return imginfo_bad_usage("%s", "check: --device is not taken (check "
					 "the image with its device appended)");
	if (argc - optind != 1)
		return imginfo_bad_usage("%s", "check: expected one IMAGE");
	d.name = argv[optind];
	d.fd = open(d.name, O_RDONLY | O_CLOEXEC);
	if (d.fd < 0) {
		fprintf(stderr, "imginfo: %s: %s\n", d.name, strerror(errno));
		return 1;
	}
	ret = sqp_image_check(&d, &st);
	close(d.fd);
	if (fflush(stdout) != 0) {
		fprintf(stderr, "imginfo: writing the report: %s\n",
			strerror(errno));
		return 1;
	}
	if (ret != 0 && ret != SQP_ERR_CORRUPT) {
		fprintf(stderr, "imginfo: %s: checking: %s\n", d.name,
			sqp_strerror(ret));
		return 1;
	}
	if (!a.quiet || st.problems > 0)
		fprintf(stderr, "imginfo: %s: %llu problem%s; %llu inodes, %llu "
			"directories, %llu files, %llu data blocks\n", d.name,
			(unsigned long long)st.problems, st.problems == 1 ? "" : "s",
			(unsigned long long)st.inodes,
			(unsigned long long)st.directories,
			(unsigned long long)st.files,
			(unsigned long long)st.blocks);
	return st.problems > 0 ? 1 : 0;
}
