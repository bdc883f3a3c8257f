/* SPDX-License-Identifier: MIT */
/*
 * imginfo_diff.c - `imginfo diff [OPTIONS] IMAGE1 IMAGE2`: one line per
 * difference between the two images' trees ("/path: what"), and the exit
 * status of diff -r: 0 equal, 1 different, 2 trouble (bad usage, an image
 * that cannot be read). The comparison is sqp_image_diff()'s.
 */
#include "config.h"

#include <string.h>

#include "imginfo.h"
#include "sqpack/inspect.h"

struct diff_opts {
	unsigned flags;
	int brief;
};

static int on_difference(void *user, const char *path, const char *what)
{
	const struct diff_opts *o = user;

	if (o->brief)
		return 1;
	putchar('/');
	imginfo_escape(stdout, path, strlen(path), 0);
	fputs(": ", stdout);
	imginfo_escape(stdout, what, strlen(what), 0);
	putchar('\n');
	return 0;
}

static int diff_opt(void *user, int c, const char *arg)
{
	struct diff_opts *o = user;

	(void)arg;
	switch (c) {
	case 'm': o->flags |= SQP_DIFF_IGNORE_MTIME; break;
	case 'o': o->flags |= SQP_DIFF_IGNORE_OWNER; break;
	case 'x': o->flags |= SQP_DIFF_IGNORE_XATTRS; break;
	}
	return 0;
}

static const char help[] =
	"Usage: imginfo diff [OPTIONS] IMAGE1 IMAGE2\n"
	"Show how the trees of two images differ, one line per difference.\n"
	"Exit status: 0 equal, 1 different, 2 trouble.\n"
	"      --ignore-mtime   do not compare modification times\n"
	"      --ignore-owner   do not compare owners\n"
	"      --ignore-xattrs  do not compare extended attributes\n"
	"  -q, --brief          print nothing; stop at the first difference\n";

int imginfo_diff_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "ignore-mtime", no_argument, NULL, 'm' },
		{ "ignore-owner", no_argument, NULL, 'o' },
		{ "ignore-xattrs", no_argument, NULL, 'x' },
		{ "brief", no_argument, NULL, 'q' }, /* the shared -q */
		TOOL_LONG_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct diff_opts o = { 0, 0 };
	struct tool_args a = { .prog = "imginfo", .cmd = "diff",
			       .shorts = ":qh", .longs = longs, .help = help,
			       .own = diff_opt, .user = &o };
	struct sqp_diff_desc d = { .report = on_difference, .user = &o };
	int fd[2] = { -1, -1 }, ret;
	char msg[600];

	ret = tool_args_parse(&a, argc, argv);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	o.brief = a.quiet;
	if (argc - optind != 2)
		return imginfo_bad_usage("%s", "diff: needs IMAGE1 and IMAGE2");
	d.flags = o.flags;
	if (imginfo_open(argv[optind], &d.a, &fd[0]) != 0)
		return 2;
	if (imginfo_open(argv[optind + 1], &d.b, &fd[1]) != 0) {
		imginfo_close(d.a, fd[0]);
		return 2;
	}
	ret = sqp_image_diff(&d, msg, sizeof(msg));
	if (ret < 0)
		fprintf(stderr, "imginfo: diff: %s\n", msg[0] ? msg : sqp_strerror(ret));
	imginfo_close(d.a, fd[0]);
	imginfo_close(d.b, fd[1]);
	if (imginfo_flush() != 0 || ret < 0)
		return 2;
	return ret;
}
