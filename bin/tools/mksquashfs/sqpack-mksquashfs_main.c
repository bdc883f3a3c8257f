/* SPDX-License-Identifier: MIT */
/*
 * sqpack-mksquashfs_main.c - mksquashfs's command line, for build systems
 * that call mksquashfs: SOURCE... DEST [OPTIONS] [-e LIST].
 *
 * The options are read (mksq_args.c, mksq_emit.c) into the packers'
 * options, dir2img's or tar2img's for -tar, each value checked and
 * reported in mksquashfs's words; that packer then runs in this process,
 * so the image is exactly the one dir2img makes. Decided here: a
 * DEST that is not a regular file is refused; an existing one is
 * replaced with -noappend, else appended to as mksquashfs does
 * (mksq_append.c), through a new image renamed over it when complete.
 *
 * `- DEST -pf FILE` (no -tar) packs a pseudo file with inline data, what
 * unsquashfs -pf writes: a thread turns it into a tar (mksq_pseudo.c)
 * written into a pipe that becomes stdin, and the line runs as
 * `- DEST -tar` with the -pf taken out.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "mksq_append.h"
#include "mksq_args.h"
#include "mksq_dash.h"
#include "mksq_pseudo.h"
#include "../common/tool_run.h"
#include "../common/tool_mains.h"
#include "../common/tool_version.h"

#define PROG "sqpack-mksquashfs"

static void usage(FILE *f)
{
	fputs("Usage: " PROG " SOURCE... DEST [OPTIONS] [-e EXCLUDE...]\n"
	      "       " PROG " [-] DEST -tar [OPTIONS] < TAR\n"
	      "       " PROG " - DEST -pf FILE|- [OPTIONS]  (unsquashfs -pf's stream)\n"
	      "       " PROG " SOURCE... -shard-plan N [OPTIONS]\n"
	      "Pack directories (or a tar on stdin) into a SquashFS 4.0 image, with\n"
	      "mksquashfs's argument order, option names and defaults (gzip, 128K\n"
	      "blocks, exportable, tails not packed into fragments). The packer\n"
	      "is dir2img's (tar2img's for -tar); see sqpack-mksquashfs(1).\n\n"
	      "Taken: -comp -b -processors -noappend -Xcompression-level -Xbcj\n"
	      "  -Xdict-size (N, NK, NM or N% of the block size) -Xhc -Xwindow-size\n"
	      "  -Xstrategy -Xalgorithm -all-root -root-owned -force-uid -force-gid\n"
	      "  -e -ef -wildcards -sort -offset -o -no-progress -progress -quiet\n"
	      "  -info -no-fragments -always-use-fragments -tailends -no-tailends\n"
	      "  -no-xattrs -xattrs -nopad -mkfs-time -fstime -all-time\n"
	      "  -no-hardlinks -keep-as-directory -no-strip -root-mode -root-uid\n"
	      "  -root-gid -root-time -exports -no-exports -noI -noD\n"
	      "  -noF -noX (and their long names) -no-duplicates -one-file-system\n"
	      "  -p -pf -tar -root-becomes; accepted as already true: -reproducible -no-recovery\n"
	      "  -exit-on-error -mem. Anything else is refused (exit status 2).\n"
	      "sqpack's own: --verity[=FILE] --verity-block-size N --verity-salt HEX\n"
	      "  --verity-no-superblock --verity-roothash FILE (see dir2img(1));\n"
	      "  -shard I/N: shard I of N of the SOURCEs into a new DEST (dir2img\n"
	      "  --shard; img2img --shards merges them); -shard-plan N: where each\n"
	      "  of N shards starts and its bytes, no DEST, no data read.\n\n"
	      "An existing DEST is appended to, as mksquashfs does (-root-becomes\n"
	      "NAME puts its root at NAME), unless -noappend replaces it; either\n"
	      "way the new image replaces DEST only once it is complete.\n", f);
}

/* What DEST is: 0 absent (or to be replaced, -noappend), 1 an image to
 * append to, as mksquashfs does by default, -1 refused after a message.
 * A file is written beside DEST and renamed over it; a block device
 * (named or linked to) is written in place with -noappend, as mksquashfs
 * writes it, but not appended to: the extended image would be written
 * over the one it is read from. Anything else is refused, not replaced. */
static int dest_kind(const char *dest, int noappend)
{
	struct stat st;

	if (lstat(dest, &st) != 0)
		return 0;
	if (S_ISREG(st.st_mode))
		return !noappend;
	if ((S_ISBLK(st.st_mode) || (S_ISLNK(st.st_mode) && stat(dest, &st) == 0 &&
				     S_ISBLK(st.st_mode))) && noappend)
		return 0;
	if (S_ISBLK(st.st_mode))
		fprintf(stderr, PROG ": %s: a block device is not appended to; "
			"-noappend writes a new image into it\n", dest);
	else
		fprintf(stderr, PROG ": %s: not a regular file or a block device; "
			"sqpack writes images to those only\n", dest);
	return -1;
}

/* Open DEST, rename clashing sources and translate the line again with
 * what the image decides; the packer then starts from the image. 0, or
 * an exit status after a message. */
static int append_prepare(struct mksq_append *ap, struct mksq_args *args,
			  int argc, char **argv)
{
	char msg[1024];
	int ret;

	ret = mksq_append_open(ap, args);
	if (ret == 0)
		mksq_append_tell(ap, args->dest);
	if (ret == 0)
		ret = mksq_append_sources(ap, args);
	if (ret != 0)
		return ret;
	mksq_args_free(args);
	ret = mksq_translate(argc, argv, getenv("SOURCE_DATE_EPOCH"), &ap->base,
			     args, msg, sizeof(msg));
	if (ret != 0) {
		if (msg[0] != '\0')
			fprintf(stderr, PROG ": %s\n", msg);
		return ret;
	}
	for (int i = 0; i < args->warn.n; i++)
		tool_warn(NULL, args->warn.v[i]);
	args->opt.desc.codec = ap->codec;
	args->opt.before_input = mksq_append_add;
	args->opt.before_input_user = ap;
	return 0;
}

struct feeder {
	FILE *in;
	const char *name;
	struct mksq_pseudo *ps;
	int fd;              /* the pipe's write end, closed by the thread */
	pthread_t th;
	int joined;          /* th joined: its ret is final, its message told */
	int ret;
	char msg[512];
	char **argv;         /* the line rewritten: "- DEST -tar" first */
	char root[4][32];    /* values of the -root-* options added */
};

static void *feed(void *arg)
{
	struct feeder *f = arg;

	f->ret = mksq_pseudo_write(f->ps, f->fd, f->msg, sizeof(f->msg));
	close(f->fd);
	return NULL;
}

/* With "- DEST ... -pf FILE" and no -tar, FILE unsquashfs -pf's stream:
 * FILE's index in argv. 0 when the line is not one. */
static int pseudo_line(int argc, char **argv)
{
	int pf = 0;

	if (argc < 3 || strcmp(argv[1], "-") != 0)
		return 0;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "-tar") == 0)
			return 0;
		if (pf == 0 && strcmp(argv[i], "-pf") == 0 && i + 1 < argc)
			pf = i + 1;
	}
	/* mksquashfs's own definitions: for the packer (mksq_dash.c) */
	return pf != 0 && mksq_dash_pf_inline(argv[pf]) ? pf : 0;
}

/* Read FILE's definitions and rewrite the line: "- DEST -tar", the "/"
 * line's attributes as -root-mode/-uid/-gid/-time (mksquashfs takes the
 * root's from those, not from the pseudo file), then the options without
 * "-pf FILE". 0, or the exit status after a message. */
static int pseudo_prepare(struct feeder *f, int *argc, char ***argv, int pf)
{
	static const char *const opt[] = { "-root-mode", "-root-uid",
					   "-root-gid", "-root-time" };
	uint32_t mode, uid, gid;
	int64_t mtime;
	int n = 0;

	f->name = (*argv)[pf];
	/* one more ("-tar") and 8 for the -root-* options, 2 fewer ("-pf
	 * FILE"), and the NULL */
	f->argv = calloc((size_t)*argc + 8, sizeof(*f->argv));
	if (f->argv == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	/* stdin is read through a descriptor of its own, which stays with
	 * the feeder when fd 0 becomes the pipe to tar2img. */
	if (strcmp(f->name, "-") == 0) {
		int fd = dup(0);

		if (fd >= 0 && (f->in = fdopen(fd, "r")) == NULL)
			close(fd);
	} else {
		f->in = fopen(f->name, "r");
	}
	if (f->in == NULL) {
		fprintf(stderr, PROG ": %s: %s\n", f->name, strerror(errno));
		return 1;
	}
	if (mksq_pseudo_read(f->in, f->name, &f->ps, f->msg, sizeof(f->msg)) != 0) {
		fprintf(stderr, PROG ": %s\n", f->msg);
		return 1;
	}
	f->argv[n++] = (*argv)[0];
	f->argv[n++] = (*argv)[1];
	f->argv[n++] = (*argv)[2];
	f->argv[n++] = "-tar";
	if (mksq_pseudo_root(f->ps, &mode, &uid, &gid, &mtime)) {
		snprintf(f->root[0], sizeof(f->root[0]), "%o", (unsigned)mode);
		snprintf(f->root[1], sizeof(f->root[1]), "%u", (unsigned)uid);
		snprintf(f->root[2], sizeof(f->root[2]), "%u", (unsigned)gid);
		snprintf(f->root[3], sizeof(f->root[3]), "%lld", (long long)mtime);
		for (int i = 0; i < 4; i++) {
			f->argv[n++] = (char *)opt[i];
			f->argv[n++] = f->root[i];
		}
	}
	for (int i = 3; i < *argc; i++)
		if (i != pf - 1 && i != pf)
			f->argv[n++] = (*argv)[i];
	f->argv[n] = NULL;
	*argc = n;
	*argv = f->argv;
	return 0;
}

/* The running feeder joined (once) and its failure told (once): 0, or
 * 1 when the pseudo file was refused. As tar2img's after_input, once it read
 * the pipe to its end (the thread closed it: it is done), so that a
 * refused pseudo file commits no image: the tar it wrote up to there
 * may read as a whole one (or as none: an empty archive). */
static int feeder_join(void *arg)
{
	struct feeder *f = arg;

	if (!f->joined) {
		pthread_join(f->th, NULL);
		f->joined = 1;
		if (f->ret != 0)
			fprintf(stderr, PROG ": %s\n", f->msg);
	}
	return f->ret != 0;
}

/* Start the feeder: the tar goes into a pipe that becomes fd 0. */
static int pseudo_start(struct feeder *f)
{
	int p[2];

	signal(SIGPIPE, SIG_IGN);
	if (pipe(p) != 0 || dup2(p[0], 0) < 0) {
		fprintf(stderr, PROG ": pipe: %s\n", strerror(errno));
		return 1;
	}
	close(p[0]);
	f->fd = p[1];
	if (pthread_create(&f->th, NULL, feed, f) != 0) {
		fprintf(stderr, PROG ": cannot start a thread\n");
		close(p[1]);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct mksq_args args;
	struct feeder f;
	char msg[1024];
	struct mksq_append ap;
	struct mksq_dash dash = { 0 };
	int ret, pf = pseudo_line(argc, argv), fed = 0, append = 0, staged = 0;

	memset(&f, 0, sizeof(f));
	tool_set_progname(PROG);
	/* The buffered stdin is read here, before any thread starts. */
	if (pf != 0 && (ret = pseudo_prepare(&f, &argc, &argv, pf)) != 0)
		goto done;
	/* "-" among the sources otherwise: none, only -p definitions */
	if (pf == 0 && (ret = mksq_dash_prepare(&dash, &argc, &argv)) != 0)
		goto done;
	ret = mksq_translate(argc, argv, getenv("SOURCE_DATE_EPOCH"), NULL, &args,
			     msg, sizeof(msg));
	if (ret != 0) {
		/* empty: a --verity value, reported with its own Try line */
		if (msg[0] != '\0') {
			fprintf(stderr, PROG ": %s\n", msg);
			if (ret == 2)
				tool_try_help();
		}
		goto done;
	}
	if (args.action == MKSQ_HELP) {
		usage(stdout);
		ret = 0;
	} else if (args.action == MKSQ_VERSION) {
		tool_print_version(PROG);
		ret = 0;
	} else if (args.opt.shard_plan) {
		/* the plan alone: no DEST, nothing renamed or appended to */
		if ((ret = tool_options_finish(&args.opt)) == 0)
			ret = dir2img_run(&args.opt);
	} else if ((append = dest_kind(args.dest, args.noappend)) < 0) {
		ret = 1;
	} else if (append && args.opt.shard_count != 0) {
		fprintf(stderr, PROG ": %s exists: a shard is a new image, not an append "
			"(-noappend replaces it)\n", args.dest);
		append = 0;   /* nothing was opened to close */
		ret = 1;
	} else if (append && (ret = append_prepare(&ap, &args, argc, argv)) != 0) {
		goto out;
	} else {
		/* sources of one name are renamed, as mksquashfs renames them */
		staged = !append;
		if (staged && (ret = mksq_rename_sources(&ap, &args)) != 0)
			goto out;
		if ((ret = tool_options_finish(&args.opt)) != 0)
			goto out;
		if (f.ps != NULL && (ret = pseudo_start(&f)) != 0)
			goto out;
		fed = f.ps != NULL;
		if (fed) {
			args.opt.after_input = feeder_join;
			args.opt.after_input_user = &f;
		}
		ret = args.tar ? tar2img_run(&args.opt) : dir2img_run(&args.opt);
	}
	if (fed) {
		/* A tar2img that stopped early leaves the feeder a pipe
		 * without reader: its next write fails and it ends. */
		if (!f.joined)
			close(0);
		if (feeder_join(&f) != 0) {
			if (ret == 0)
				ret = 1;
		} else if (mksq_pseudo_sockets(f.ps) != 0) {
			snprintf(msg, sizeof(msg), "%s: %lu socket(s) left out (a tar "
				 "stream cannot hold them)", f.name,
				 mksq_pseudo_sockets(f.ps));
			tool_warn(NULL, msg);
		}
	}
out:
	if (append > 0 || staged)
		mksq_append_close(&ap);
	mksq_args_free(&args);
done:
	free(f.argv);
	mksq_dash_free(&dash);
	mksq_pseudo_free(f.ps);
	if (f.in != NULL)
		fclose(f.in);
	return ret;
}
