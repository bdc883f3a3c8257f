/* SPDX-License-Identifier: MIT */
/*
 * sqpack-mksquashfs_main.c - mksquashfs's command line, for build systems
 * that call mksquashfs: SOURCE... DEST [OPTIONS] [-e LIST].
 *
 * The options are translated (mksq_args.c) into dir2img's, or tar2img's
 * for -tar, and that tool runs in this process, so the image, the
 * messages and the exit status are exactly dir2img's. The one thing
 * decided here: sqpack never appends, so a DEST that exists is replaced
 * only when it is a regular file and -noappend says so; otherwise the run
 * is refused before anything is read or written.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/sqpack.h"
#include "mksq_args.h"
#include "tool_mains.h"

#define PROG "sqpack-mksquashfs"

static void usage(FILE *f)
{
	fputs("Usage: " PROG " SOURCE... DEST [OPTIONS] [-e EXCLUDE...]\n"
	      "       " PROG " [-] DEST -tar [OPTIONS] < TAR\n"
	      "Pack directories (or a tar on stdin) into a SquashFS 4.0 image, with\n"
	      "mksquashfs's argument order, option names and defaults (gzip, 128K\n"
	      "blocks, exportable, tails not packed into fragments). The work is\n"
	      "done by dir2img (tar2img for -tar); see sqpack-mksquashfs(1).\n\n"
	      "Taken: -comp -b -processors -noappend -Xcompression-level -Xbcj\n"
	      "  -Xdict-size (N, NK, NM or N% of the block size) -Xhc -Xwindow-size\n"
	      "  -Xstrategy -Xalgorithm -all-root -root-owned -force-uid -force-gid\n"
	      "  -e -ef -wildcards -sort -offset -o -no-progress -progress -quiet\n"
	      "  -info -no-fragments -always-use-fragments -tailends -no-tailends\n"
	      "  -no-xattrs -xattrs -nopad -mkfs-time -fstime -all-time\n"
	      "  -no-hardlinks -keep-as-directory -root-mode -root-uid -root-gid\n"
	      "  -root-time -exports -no-exports -noI -noD\n"
	      "  -noF -noX (and their long names) -no-duplicates -one-file-system\n"
	      "  -p -pf -tar; accepted as already true: -reproducible -no-recovery\n"
	      "  -exit-on-error -mem. Anything else is refused (exit status 2).\n"
	      "sqpack's own: --verity[=FILE] --verity-block-size N --verity-salt HEX\n"
	      "  --verity-no-superblock --verity-roothash FILE (see dir2img(1)).\n\n"
	      "DEST is never appended to: if it exists, -noappend replaces it and\n"
	      "without -noappend nothing is done (exit status 1).\n", f);
}

/* Appending is what mksquashfs does to an existing DEST by default; we
 * refuse rather than silently replace an image somebody meant to extend.
 * An image is written beside DEST and renamed over it, so a DEST that is
 * a device (mksquashfs writes into those) is refused too, not replaced. */
static int dest_refused(const char *dest, int noappend)
{
	struct stat st;

	if (lstat(dest, &st) != 0)
		return 0;
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, PROG ": %s: not a regular file; sqpack writes "
			"images to files only\n", dest);
		return 1;
	}
	if (noappend)
		return 0;
	fprintf(stderr, PROG ": %s: exists, and sqpack never appends to an "
		"image as mksquashfs would; pass -noappend to replace it\n", dest);
	return 1;
}

int main(int argc, char **argv)
{
	struct mksq_args args;
	char msg[1024];
	int ret;

	ret = mksq_translate(argc, argv, getenv("SOURCE_DATE_EPOCH"), &args,
			     msg, sizeof(msg));
	if (ret != 0) {
		fprintf(stderr, PROG ": %s\n", msg);
		if (ret == 2)
			fputs("Try '" PROG " -help'.\n", stderr);
		return ret;
	}
	if (args.action == MKSQ_HELP) {
		usage(stdout);
		ret = 0;
	} else if (args.action == MKSQ_VERSION) {
		printf(PROG " (sqpack) %s\n", sqp_version());
		ret = 0;
	} else if (dest_refused(args.dest, args.noappend)) {
		ret = 1;
	} else {
		tool_set_progname(PROG);
		ret = args.tar ? tar2img_main(args.argv.n, args.argv.v)
			       : dir2img_main(args.argv.n, args.argv.v);
	}
	mksq_args_free(&args);
	return ret;
}
