/* SPDX-License-Identifier: MIT */
/*
 * img2dir_main.c - img2dir: extract a SquashFS or EROFS image into a
 * directory.
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
#include "../common/tool_args.h"
#include "../common/tool_signals.h"

struct options {
	struct tool_args args;   /* --offset, -j, -q and the like */
	const char *image, *dir;
	const char *const *paths;
	size_t path_count;
	unsigned flags;
};

/* -q: the library's warnings counted, not printed. */
static struct tool_warnings warnings;

static const char usage[] =
	"Usage: img2dir [OPTIONS] IMAGE DIR [PATH...]\n"
	"Extract a SquashFS or EROFS image (or the subtrees PATH...) into\n"
	"DIR, which is created if missing.\n\n"
	"  -f, --force           replace existing files (directories are\n"
	"                        always merged)\n"
	"  -j, --jobs N          decompression threads (default: CPUs)\n"
	"      --offset N        the image starts N bytes into IMAGE\n"
	"      --device FILE     EROFS: its extra device (a --blobdev blob, a\n"
	"                        --tar=i tar), where it is not appended\n"
	"      --no-owner        do not restore owners (the default when\n"
	"                        not run as root)\n"
	"      --no-xattrs       leave extended attributes out\n"
	"  -q, --quiet           no warnings\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n";

enum { OPT_NO_OWNER = TOOL_OPT_OWN, OPT_NO_XATTRS };

/* img2dir's own options: flags of the extraction. */
static int own_option(void *user, int c, const char *arg)
{
	struct options *o = user;

	(void)arg;
	o->flags |= c == 'f' ? SQP_IMG2DIR_FORCE : c == OPT_NO_OWNER ?
		    SQP_IMG2DIR_NO_OWNER : SQP_IMG2DIR_NO_XATTRS;
	return 0;
}

/* 0 to go on, otherwise the exit status (-1: exit 0). */
static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "force", no_argument, NULL, 'f' },
		{ "no-owner", no_argument, NULL, OPT_NO_OWNER },
		{ "no-xattrs", no_argument, NULL, OPT_NO_XATTRS },
		TOOL_LONG_JOBS, TOOL_LONG_OFFSET, TOOL_LONG_DEVICE, TOOL_LONG_QUIET,
		TOOL_LONG_HELP, TOOL_LONG_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->args = (struct tool_args){ .prog = "img2dir",
		.shorts = ":fj:qhV", .longs = longs, .help = usage,
		.own = own_option, .user = o };
	if ((ret = tool_args_parse(&o->args, argc, argv)) != 0)
		return ret;
	if (argc - optind < 2)
		return tool_bad_usage("%s", "missing IMAGE or DIR");
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
	struct sqp_image_desc id = { .struct_size = sizeof(id), .fd = img_fd, .name = o->image,
				     .warn = tool_warn, .warn_user = &warnings,
				     .offset = o->args.offset, .device = o->args.device };
	struct sqp_img2dir_desc xd = { .struct_size = sizeof(xd),
		.jobs = o->args.jobs, .flags = o->flags,
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
	warnings.quiet = o.args.quiet;
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
