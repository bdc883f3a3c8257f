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

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("imginfo check: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nUsage: imginfo check [-j N] [-q] IMAGE\n", stderr);
	return 2;
}

int imginfo_check_main(int argc, char **argv)
{
	struct sqp_check_desc d = { .report = on_problem,
				    .offset = imginfo_offset() };
	struct sqp_check_stats st;
	int quiet = 0, c, ret;
	char *end;
	long v;

	optind = 1;
	opterr = 0;
	while ((c = getopt(argc, argv, ":j:q")) != -1) {
		switch (c) {
		case 'q': quiet = 1; break;
		case 'j':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || *end || v < 0 || v > 1024)
				return bad_usage("bad job count '%s'", optarg);
			d.jobs = (unsigned)v;
			break;
		case ':': return bad_usage("option '%s' needs a value", argv[optind - 1]);
		default: return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 1)
		return bad_usage("%s", "expected one IMAGE");
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
	if (!quiet || st.problems > 0)
		fprintf(stderr, "imginfo: %s: %llu problem%s; %llu inodes, %llu "
			"directories, %llu files, %llu data blocks\n", d.name,
			(unsigned long long)st.problems, st.problems == 1 ? "" : "s",
			(unsigned long long)st.inodes,
			(unsigned long long)st.directories,
			(unsigned long long)st.files,
			(unsigned long long)st.blocks);
	return st.problems > 0 ? 1 : 0;
}
