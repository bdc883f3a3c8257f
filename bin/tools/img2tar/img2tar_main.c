/* SPDX-License-Identifier: MIT */
/*
 * img2tar_main.c - img2tar: a SquashFS or EROFS image in, a POSIX tar
 * stream out.
 *
 * Option parsing and messages only; the conversion is the library's
 * sqp_image_to_tar(). With -o the tar goes to a temporary file renamed
 * into place when complete (removed on failure or SIGINT/SIGTERM/SIGHUP);
 * on stdout a failure leaves a stream without the end-of-archive marker,
 * which every tar reader reports as truncated.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "../common/tool_args.h"
#include "../common/tool_signals.h"

struct options {
	struct tool_args args;   /* --offset, -j, -q and the like */
	const char *output;
	const char *image;
	const char *const *paths;
	size_t path_count;
	unsigned flags;
	int compression;
	int force;
};

/* -q: the library's warnings counted, not printed. */
static struct tool_warnings warnings;

static const char usage[] =
	"Usage: img2tar [OPTIONS] IMAGE [PATH...]\n"
	"Write a SquashFS or EROFS image (or the subtrees PATH...) as a\n"
	"POSIX tar stream to stdout.\n\n"
	"  -o, --output FILE     write to FILE instead of stdout\n"
	"  -f, --force           replace FILE if it exists\n"
	"  -z, --compress NAME   compress the tar: gzip, xz, zstd or lz4\n"
	"  -j, --jobs N          decompression threads (default: CPUs)\n"
	"      --offset N        the image starts N bytes into IMAGE\n"
	"      --device FILE     EROFS: its extra device (a --blobdev blob, a\n"
	"                        --tar=i tar), where it is not appended\n"
	"      --sparse          keep holes (GNU sparse 1.0) instead of\n"
	"                        writing them out as zeros\n"
	"      --no-xattrs       leave extended attributes out\n"
	"  -q, --quiet           no warnings\n"
	"  -h, --help            show this help\n"
	"  -V, --version         show the version\n";

static int bad_usage(const char *fmt, const char *arg)
{
	return tool_bad_usage(fmt, arg);
}

enum { OPT_SPARSE = TOOL_OPT_OWN, OPT_NO_XATTRS };

/* img2tar's own options. */
static int own_option(void *user, int c, const char *arg)
{
	static const char *const zname[] = { "none", "gzip", "xz", "zstd", "lz4" };
	struct options *o = user;

	switch (c) {
	case 'o': o->output = arg; break;
	case 'f': o->force = 1; break;
	case OPT_SPARSE: o->flags |= SQP_IMG2TAR_SPARSE; break;
	case OPT_NO_XATTRS: o->flags |= SQP_IMG2TAR_NO_XATTRS; break;
	case 'z':
		o->compression = -1;
		for (int i = 1; i < 5; i++)
			if (strcmp(arg, zname[i]) == 0)
				o->compression = i;
		if (o->compression < 0)
			return bad_usage("unknown compression '%s' "
					 "(gzip, xz, zstd, lz4)", arg);
		break;
	}
	return 0;
}

/* 0 to go on, otherwise the exit status (-1: exit 0). */
static int parse(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "compress", required_argument, NULL, 'z' },
		{ "sparse", no_argument, NULL, OPT_SPARSE },
		{ "no-xattrs", no_argument, NULL, OPT_NO_XATTRS },
		TOOL_LONG_JOBS, TOOL_LONG_OFFSET, TOOL_LONG_DEVICE, TOOL_LONG_QUIET,
		TOOL_LONG_HELP, TOOL_LONG_VERSION,
		{ NULL, 0, NULL, 0 },
	};
	int ret;

	memset(o, 0, sizeof(*o));
	o->args = (struct tool_args){ .prog = "img2tar",
		.shorts = ":o:fz:j:qhV", .longs = longs, .help = usage,
		.own = own_option, .user = o };
	if ((ret = tool_args_parse(&o->args, argc, argv)) != 0)
		return ret;
	if (optind >= argc)
		return bad_usage("%s", "missing IMAGE");
	o->image = argv[optind++];
	o->paths = (const char *const *)argv + optind;
	o->path_count = (size_t)(argc - optind);
	if (o->output == NULL && isatty(STDOUT_FILENO))
		return bad_usage("%s", "refusing to write a tar to a terminal; "
				 "redirect stdout or use -o FILE");
	return 0;
}

static int convert(struct options *o, int img_fd, int out_fd)
{
	struct sqp_image_desc id = { .struct_size = sizeof(id), .fd = img_fd, .name = o->image,
				     .warn = tool_warn, .warn_user = &warnings,
				     .offset = o->args.offset, .device = o->args.device };
	struct sqp_tar_writer_desc td = { .struct_size = sizeof(td),
		.fd = out_fd, .warn = tool_warn, .warn_user = &warnings,
					  .compression = o->compression };
	struct sqp_img2tar_desc xd = { .struct_size = sizeof(xd),
		.jobs = o->args.jobs, .flags = o->flags,
				       .paths = o->paths,
				       .path_count = o->path_count };
	struct sqp_image *img = NULL;
	struct sqp_tar_writer *tw = NULL;
	int ret;

	if (o->flags & SQP_IMG2TAR_SPARSE)
		td.flags |= SQP_TAR_WRITE_SPARSE;
	if (o->flags & SQP_IMG2TAR_NO_XATTRS)
		td.flags |= SQP_TAR_WRITE_NO_XATTRS;
	ret = sqp_image_create(&id, &img);
	if (ret != 0) {
		fprintf(stderr, "img2tar: %s\n", img != NULL ? sqp_image_error(img) :
			sqp_strerror(ret));
		sqp_image_destroy(img);
		return 1;
	}
	ret = sqp_tar_writer_create(&td, &tw);
	if (ret != 0) {
		fprintf(stderr, "img2tar: setting up the tar writer: %s\n",
			sqp_strerror(ret));
	} else if ((ret = sqp_image_to_tar(img, tw, &xd)) != 0) {
		fprintf(stderr, "img2tar: %s\n", sqp_image_error(img)[0] ?
			sqp_image_error(img) : sqp_strerror(ret));
	} else if ((ret = sqp_tar_writer_finish(tw)) != 0) {
		fprintf(stderr, "img2tar: %s\n", sqp_tar_writer_error(tw));
	}
	sqp_tar_writer_destroy(tw);
	sqp_image_destroy(img);
	return ret == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct options o;
	struct sqp_outfile *of = NULL;
	int img_fd, ret;

	ret = parse(argc, argv, &o);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	warnings.quiet = o.args.quiet;
	tool_signals_install("img2tar: interrupted");
	img_fd = open(o.image, O_RDONLY | O_CLOEXEC);
	if (img_fd < 0) {
		fprintf(stderr, "img2tar: %s: %s\n", o.image, strerror(errno));
		return 1;
	}
	if (o.output != NULL) {
		/* a tar is a stream: /dev/null, a tape or a FIFO may take it */
		ret = tool_signals_create_output(o.output, (o.force ? SQP_OUTFILE_FORCE : 0) |
						 SQP_OUTFILE_STREAM, &of);
		if (ret != 0) {
			/* the outfile's message names the file */
			if (of != NULL)
				fprintf(stderr, "img2tar: %s\n", sqp_outfile_error(of));
			else
				fprintf(stderr, "img2tar: %s: %s\n", o.output, sqp_strerror(ret));
			sqp_outfile_destroy(of);
			close(img_fd);
			return 1;
		}
	}
	ret = convert(&o, img_fd, of ? sqp_outfile_fd(of) : STDOUT_FILENO);
	if (ret == 0 && of != NULL && sqp_outfile_commit(of) != 0) {
		fprintf(stderr, "img2tar: %s\n", sqp_outfile_error(of));
		ret = 1;
	}
	tool_signals_temp(NULL);
	sqp_outfile_destroy(of);
	close(img_fd);
	return ret;
}
