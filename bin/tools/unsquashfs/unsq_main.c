/* SPDX-License-Identifier: MIT */
/*
 * unsq_main.c - what sqpack-unsquashfs and sqfscat run (their main()s
 * only say which they are): unsquashfs's command line over libsqpack, so
 * that the programs which call unsquashfs and parse what it prints can
 * switch by changing one name.
 *
 * This file opens the image (a path, /proc/PID/fd/N, at -o OFFSET) and
 * hands it to the mode asked for; bin/unsq_*.c hold the modes. Exit
 * status as unsquashfs's: 0 ok, 1 fatal (bad usage included, as
 * unsquashfs exits for an unknown option), 2 non-fatal errors.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "../common/tool_msg.h"
#include "../common/tool_signals.h"
#include "unsq.h"

/* The library's warnings (an owner or xattr the system refused, a node
 * skipped) are unsquashfs's non-fatal errors: they set exit status 2. */
struct tool_warnings unsq_warnings;

/* img2dir may hold a quarter of the soft descriptor limit; the hard
 * limit is ours to take (a refusal only keeps its window smaller). */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int run_mode(struct unsq_opts *o, int fd)
{
	struct sqp_image_desc id = { .struct_size = sizeof(id), .fd = fd, .name = o->image,
				     .warn = tool_warn, .warn_user = &unsq_warnings, .offset = o->offset };
	struct sqp_image *img = NULL;
	int ret = sqp_image_create(&id, &img);

	if (ret != 0) {
		fprintf(stderr, "%s: %s\n", unsq_prog(o), img != NULL ?
			sqp_image_error(img) : sqp_strerror(ret));
		sqp_image_destroy(img);
		return 1;
	}
	if (o->follow && (o->mode == UNSQ_EXTRACT || o->mode == UNSQ_LIST) &&
	    (ret = unsq_follow(img, o)) != 0) {
		sqp_image_destroy(img);
		return ret;
	}
	switch (o->mode) {
	case UNSQ_STAT:
	case UNSQ_MKFS_TIME: ret = unsq_stat(img, o); break;
	case UNSQ_LIST: ret = unsq_list(img, o); break;
	case UNSQ_CAT: ret = unsq_cat(img, o); break;
	case UNSQ_EXTRACT: ret = unsq_extract(img, o); break;
	case UNSQ_PF: ret = unsq_pf(img, o); break;
	}
	sqp_image_destroy(img);
	return ret;
}

int unsq_main(int argc, char **argv, int sqfscat)
{
	struct unsq_opts o;
	int fd, ret;

	tool_set_progname(sqfscat ? "sqfscat" : "sqpack-unsquashfs");
	ret = unsq_parse(argc, argv, sqfscat, &o);
	if (ret >= 0) {
		unsq_opts_free(&o);
		return ret;
	}
	unsq_warnings.quiet = o.quiet;
	if (o.mode == UNSQ_EXTRACT) {
		raise_fd_limit();
		tool_signals_install("sqpack-unsquashfs: interrupted");
	}
	fd = open(o.image, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: could not open %s, because %s\n", unsq_prog(&o),
			o.image, strerror(errno));
		unsq_opts_free(&o);
		return 1;
	}
	ret = run_mode(&o, fd);
	close(fd);
	unsq_opts_free(&o);
	return ret;
}
