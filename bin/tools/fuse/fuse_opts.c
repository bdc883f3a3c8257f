/* SPDX-License-Identifier: MIT */
/*
 * fuse_opts.c - parsing sqpack-fuse's command line with libfuse's own
 * parser (the -o lists its users write), in two passes: ours takes
 * IMAGE and the options libfuse does not know (offset=, uid=, subdir=,
 * erofsfuse's --offset=...), then libfuse's takes -f, -s, -d, the
 * loop's options and MOUNTPOINT, and leaves the mount options
 * (allow_other, ro, fsname=, auto_unmount...) for the session.
 *
 * The usage printed without arguments holds "-o uid=N": Apptainer runs
 * squashfuse_ll without arguments and looks for it to know that the
 * mounter takes uid= and gid=.
 */
#include "config.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuse_opts.h"
#include "../common/tool_version.h"

#define OPT(t, f) { t, offsetof(struct cmdline, f), 1 }
enum { KEY_HELP, KEY_VERSION };

static const struct fuse_opt specs[] = {
	OPT("offset=%llu", offset), OPT("--offset=%llu", offset),
	OPT("uid=%u", uid), OPT("gid=%u", gid),
	OPT("subdir=%s", subdir), OPT("notify_pipe=%s", notify_pipe),
	OPT("timeout=%u", timeout), OPT("cachesize=%s", cachesize),
	OPT("umask=%o", umask), OPT("fmask=%o", fmask), OPT("dmask=%o", dmask),
	OPT("--dbglevel=%u", dbglevel),
	FUSE_OPT_KEY("-h", KEY_HELP), FUSE_OPT_KEY("--help", KEY_HELP),
	FUSE_OPT_KEY("-V", KEY_VERSION), FUSE_OPT_KEY("--version", KEY_VERSION),
	FUSE_OPT_END
};

static void usage(const struct cmdline *c, FILE *to)
{
	fprintf(to,
"Usage: %s [OPTIONS] IMAGE MOUNTPOINT\n"
"Mount a SquashFS or EROFS image read-only with FUSE.\n\n"
"  -o offset=N          the image starts N bytes into IMAGE (also --offset=N)\n"
"  -o uid=N             every file's owner is user N\n"
"  -o gid=N             every file's group is group N\n"
"  -o umask=M, fmask=M, dmask=M\n"
"                       clear mode bits M (octal) of all, files, directories\n"
"  -o subdir=PATH       mount the directory PATH of the image\n"
"  -o timeout=N         unmount after N seconds without a request\n"
"  -o notify_pipe=PATH  write 's' (mounted) or 'f' (failed) to PATH\n"
"  -o cachesize=N[KMG]  decompressed data kept (default: 64M)\n"
"  -o allow_other, ro, fsname=NAME, subtype=NAME, auto_unmount\n"
"                       mount options, as for any FUSE file system\n"
"  -o max_threads=N, clone_fd\n"
"                       the multi-threaded loop's threads and devices\n"
"  -s                   one thread\n"
"  -f                   stay in the foreground\n"
"  -d                   print every request (implies -f; also\n"
"                       --dbglevel=7 and more)\n"
"  -h, --help           show this help\n"
"  -V, --version        show the version\n", c->prog);
}

static int proc(void *data, const char *arg, int key, struct fuse_args *out)
{
	struct cmdline *c = data;

	switch (key) {
	case FUSE_OPT_KEY_NONOPT:
		if (c->image != NULL)
			return 1;       /* MOUNTPOINT, libfuse's */
		if ((c->image = strdup(arg)) == NULL)
			return -1;
		return 0;
	case KEY_HELP:
		c->help = 1;
		return 0;
	case KEY_VERSION:
		c->version = 1;
		return 0;
	default:
		return 1;
	}
}

/* N[KMG] into bytes: 0, or -1 when not a size. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = 0;

	if (end == s || s[0] == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	default: break;
	}
	if (*end != '\0' || v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

static int bad(const struct cmdline *c, const char *what)
{
	fprintf(stderr, "%s: %s\n", c->prog, what);
	fprintf(stderr, "Try '%s --help'.\n", c->prog);
	return c->drop_in ? 1 : 2;
}

/* The failed loads' reasons: with -d only, as libfuse's own lines. */
static void warn_debug(void *user, const char *msg)
{
	(void)user;
	fprintf(stderr, "sqpack-fuse: %s\n", msg);
}

/* The library's description of the mount asked for. */
static void describe(struct cmdline *c)
{
	struct sqp_fuse_desc *d = &c->desc;

	d->struct_size = sizeof(*d);
	d->image = c->image;
	d->offset = c->offset;
	d->subdir = c->subdir;
	d->flags = SQP_FUSE_SIGNALS;
	if (c->uid != (unsigned)-1)
		d->flags |= SQP_FUSE_UID;
	if (c->gid != (unsigned)-1)
		d->flags |= SQP_FUSE_GID;
	d->uid = (uid_t)c->uid;
	d->gid = (gid_t)c->gid;
	d->umask = (mode_t)(c->umask & 07777);
	d->fmask = (mode_t)(c->fmask & 07777);
	d->dmask = (mode_t)(c->dmask & 07777);
	d->cache_bytes = c->cache_bytes;
	d->threads = 10;
	if (c->fo.singlethread)
		d->threads = 1;
#if FUSE_USE_VERSION >= 312
	/* libfuse leaves it at UINT_MAX when not given. */
	else if (c->fo.max_threads > 0 && c->fo.max_threads <= 100000)
		d->threads = c->fo.max_threads;
	if (c->fo.max_idle_threads != UINT_MAX)   /* given */
		d->max_idle_threads = c->fo.max_idle_threads;
#else
	d->max_idle_threads = c->fo.max_idle_threads;
#endif
	d->clone_fd = c->fo.clone_fd;
	if (c->fo.debug)
		d->warn = warn_debug;
}

int cmdline_parse(struct cmdline *c, int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');

	memset(c, 0, sizeof(*c));
	c->prog = base != NULL ? base + 1 : argv[0];
	c->drop_in = strcmp(c->prog, "sqpack-fuse") != 0;
	c->uid = c->gid = (unsigned)-1;
	c->cache_bytes = (uint64_t)64 << 20;
	c->args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (argc < 2) {
		usage(c, stderr);
		return c->drop_in ? 1 : 2;
	}
	if (fuse_opt_parse(&c->args, c, specs, proc) != 0)
		return bad(c, "bad options");
	if (c->help || c->version) {
		if (c->help)
			usage(c, stdout);
		else
			tool_print_version(c->prog);
		return -1;
	}
	/* Read-only whatever is asked: the kernel refuses writes (EROFS)
	 * before they reach us. */
	if (fuse_opt_add_arg(&c->args, "-oro") != 0 ||
	    fuse_parse_cmdline(&c->args, &c->fo) != 0)
		return bad(c, "bad options");
	if (c->image == NULL || c->fo.mountpoint == NULL)
		return bad(c, "missing IMAGE or MOUNTPOINT");
	if (c->cachesize != NULL && parse_size(c->cachesize, &c->cache_bytes))
		return bad(c, "cachesize: not a size");
	if (c->dbglevel >= 7)
		c->fo.debug = 1;
	if (c->fo.debug)
		c->fo.foreground = 1;
	describe(c);
	return 0;
}

void cmdline_free(struct cmdline *c)
{
	free(c->image);
	free(c->subdir);
	free(c->notify_pipe);
	free(c->cachesize);
	free(c->fo.mountpoint);
	fuse_opt_free_args(&c->args);
}
