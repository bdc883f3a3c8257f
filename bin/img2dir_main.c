/* SPDX-License-Identifier: MIT */
/*
 * img2dir_main.c - img2dir: extract a SquashFS image into a directory.
 *
 * Option parsing and messages only; the extraction is the library's
 * sqp_image_to_dir(), which makes every entry relative to descriptors of
 * DIR and never follows a symlink. Owners are restored only when run as
 * root (or never with --no-owner). A failure exits 1 with a message;
 * the tree is then incomplete.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "tool_args.h"
#include "tool_signals.h"

struct options {
	const char *image, *dir;
	const char *const *paths;
	size_t path_count;
	uint64_t offset;
	unsigned jobs, flags;
	int quiet;
};

static int quiet_warnings;

static void on_warning(void *user, const char *msg)
{
	(void)user;
	if (!quiet_warnings)
		fprintf(stderr, "img2dir: warning: %s\n", msg);
}

static void usage(FILE *f)
{
	fputs("Usage: img2dir [OPTIONS] IMAGE DIR [PATH...]\n"
	      "Extract a SquashFS image (or the subtrees PATH...) into DIR,\n"
	      "which is created if missing.\n\n"
	      "  -f, --force           replace existing files (directories are\n"
	      "                        always merged)\n"
	      "  -j, --jobs N          decompression threads (default: CPUs)\n"
	      "      --offset N        the image starts N bytes into IMAGE\n"
	      "      --no-owner        do not restore owners (the default when\n"
	      "                        not run as root)\n"
	      "      --no-xattrs       leave extended attributes out\n"
	      "  -q, --quiet           no warnings\n"
	      "  -h, --help            show this help\n"
	      "  -V, --version         show the version\n", f);
}

static int bad_usage(const char *fmt, const char *arg)
{
	return tool_bad_usage("img2dir", fmt, arg);
}

/* 0 to go on, otherwise the exit status (-1: exit 0). */
static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "offset", required_argument, NULL, 'B' },
		{ "no-owner", no_argument, NULL, 'O' },
		{ "no-xattrs", no_argument, NULL, 'x' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fj:qhV", longs, NULL)) != -1) {
		switch (c) {
		case 'f': o->flags |= SQP_IMG2DIR_FORCE; break;
		case 'O': o->flags |= SQP_IMG2DIR_NO_OWNER; break;
		case 'x': o->flags |= SQP_IMG2DIR_NO_XATTRS; break;
		case 'q': o->quiet = 1; break;
		case 'B':
			if (tool_offset(optarg, &o->offset) != 0)
				return bad_usage("--offset '%s' is not a byte count",
						 optarg);
			break;
		case 'j':
			if (tool_jobs(optarg, &o->jobs) != 0)
				return bad_usage("bad job count '%s'", optarg);
			break;
		case 'h': usage(stdout); return -1;
		case 'V': printf("img2dir (sqpack) %s\n", sqp_version()); return -1;
		case ':': return bad_usage("option '%s' needs a value", argv[optind - 1]);
		default: return bad_usage("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return bad_usage("%s", "missing IMAGE or DIR");
	o->image = argv[optind++];
	o->dir = argv[optind++];
	o->paths = (const char *const *)argv + optind;
	o->path_count = (size_t)(argc - optind);
	if (geteuid() != 0)
		o->flags |= SQP_IMG2DIR_NO_OWNER;
	return 0;
}

static int extract(const struct options *o, int img_fd, int dir_fd)
{
	struct sqp_image_desc id = { .fd = img_fd, .name = o->image,
				     .warn = on_warning, .offset = o->offset };
	struct sqp_img2dir_desc xd = { .jobs = o->jobs, .flags = o->flags,
				       .paths = o->paths,
				       .path_count = o->path_count };
	struct sqp_image *img = NULL;
	int ret;

	ret = sqp_image_create(&id, &img);
	if (ret != 0) {
		fprintf(stderr, "img2dir: %s\n", img != NULL ? sqp_image_error(img) :
			sqp_strerror(ret));
		sqp_image_destroy(img);
		return 1;
	}
	ret = sqp_image_to_dir(img, dir_fd, &xd);
	if (ret != 0)
		fprintf(stderr, "img2dir: %s\n", sqp_image_error(img)[0] ?
			sqp_image_error(img) : sqp_strerror(ret));
	sqp_image_destroy(img);
	return ret == 0 ? 0 : 1;
}

/* The library's window is a quarter of the soft descriptor limit (each
 * entry it holds may keep one open); the hard limit is ours to take. A
 * refusal only keeps the window smaller. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct options o;
	int img_fd, dir_fd, ret;

	ret = parse(argc, argv, &o);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	quiet_warnings = o.quiet;
	raise_fd_limit();
	tool_signals_install("img2dir: interrupted");
	img_fd = open(o.image, O_RDONLY | O_CLOEXEC);
	if (img_fd < 0) {
		fprintf(stderr, "img2dir: %s: %s\n", o.image, strerror(errno));
		return 1;
	}
	if (mkdir(o.dir, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "img2dir: %s: %s\n", o.dir, strerror(errno));
		close(img_fd);
		return 1;
	}
	dir_fd = open(o.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		fprintf(stderr, "img2dir: %s: %s\n", o.dir, strerror(errno));
		close(img_fd);
		return 1;
	}
	ret = extract(&o, img_fd, dir_fd);
	close(dir_fd);
	close(img_fd);
	return ret;
}
