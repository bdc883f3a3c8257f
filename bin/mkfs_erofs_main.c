/* SPDX-License-Identifier: MIT */
/*
 * mkfs_erofs_main.c - sqpack-mkfs.erofs: mkfs.erofs's command line as
 * image builders pass it (archiso, mkosi, systemd-repart, osbuild,
 * kiwi), translated into dir2img's (tar2img's for --tar=f) with
 * --format erofs and run in this process, so the image, the messages
 * and the exit status are the packer's.
 *
 * Why a translation and not a second tool: the EROFS writer is the
 * library's, shared with tar2img and dir2img; only the spelling differs.
 * Every option either means the same thing here or is refused by name
 * with exit status 2 (never ignored when it would change the image):
 * a build system must not get a different image than it asked for
 * without being told.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tool_mains.h"
#include "tool_optvals.h"
#include "tool_version.h"

#define PROG "sqpack-mkfs.erofs"

enum {
	OPT_ALL_ROOT = 256, OPT_FORCE_UID, OPT_FORCE_GID, OPT_QUIET, OPT_TAR,
	OPT_WORKERS, OPT_PRESERVE_MTIME, OPT_HELP, OPT_VERSION, OPT_EXCLUDE_REGEX,
	OPT_REFUSED,
};

static const struct option long_opts[] = {
	{ "all-root", no_argument, NULL, OPT_ALL_ROOT },
	{ "force-uid", required_argument, NULL, OPT_FORCE_UID },
	{ "force-gid", required_argument, NULL, OPT_FORCE_GID },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "tar", optional_argument, NULL, OPT_TAR },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "preserve-mtime", no_argument, NULL, OPT_PRESERVE_MTIME },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	/* mkfs.erofs's, not done yet: refused by name. */
	{ "exclude-path", required_argument, NULL, OPT_REFUSED },
	{ "exclude-regex", required_argument, NULL, OPT_EXCLUDE_REGEX },
	{ "ignore-mtime", no_argument, NULL, OPT_REFUSED },
	{ "blobdev", required_argument, NULL, OPT_REFUSED },
	{ "chunksize", required_argument, NULL, OPT_REFUSED },
	{ "compress-hints", required_argument, NULL, OPT_REFUSED },
	{ "file-contexts", required_argument, NULL, OPT_REFUSED },
	{ "max-extent-bytes", required_argument, NULL, OPT_REFUSED },
	{ "mount-point", required_argument, NULL, OPT_REFUSED },
	{ "product-out", required_argument, NULL, OPT_REFUSED },
	{ "fs-config-file", required_argument, NULL, OPT_REFUSED },
	{ "aufs", no_argument, NULL, OPT_REFUSED },
	{ "ovlfs-strip", optional_argument, NULL, OPT_REFUSED },
	{ "gzip", no_argument, NULL, OPT_REFUSED },
	{ "ungzip", optional_argument, NULL, OPT_REFUSED },
	{ "sort", required_argument, NULL, OPT_REFUSED },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTIONS] IMAGE DIRECTORY\n"
	      "       " PROG " --tar=f [OPTIONS] IMAGE [TAR]   (stdin without TAR or with -)\n"
	      "Pack DIRECTORY's contents (or a tar) into an EROFS image, with\n"
	      "mkfs.erofs's command line; IMAGE is replaced if it exists. The work\n"
	      "is done by dir2img (tar2img for --tar=f) with --format erofs; see\n"
	      "sqpack-mkfs.erofs(1).\n\n"
	      "Taken: -zlz4 -zlz4hc[,LEVEL] -zlzma[,LEVEL] -zdeflate[,LEVEL]\n"
	      "  -zzstd[,LEVEL] -znone -C# (4096 to 1048576) -b4096 -T#\n"
	      "  -UUUID -Uclear -Urandom -LLABEL -d# -x# (< 0: no xattrs)\n"
	      "  --all-root --force-uid=# --force-gid=# --quiet --tar=f\n"
	      "  --workers=# --preserve-mtime --exclude-regex=# -Eztailpacking\n"
	      "  -Efragments -Ededupe --help --version. Anything else (-zX:Y, other -E\n"
	      "  options, --exclude-path ...) is refused with exit status 2.\n", f);
}

static int refuse(const char *what, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\nTry '" PROG " --help'.\n", what, why);
	return 2;
}

/* The packer's argument vector, built from ours. */
struct argv_out {
	char *v[64];
	int n;
	int tar;
	char level[32];
	char time[32];
};

static int add(struct argv_out *a, const char *s)
{
	if (a->n + 2 >= (int)(sizeof(a->v) / sizeof(a->v[0])))
		return refuse(s, "too many options");
	a->v[a->n++] = (char *)s;
	a->v[a->n] = NULL;
	return 0;
}

static int add2(struct argv_out *a, const char *opt, const char *val)
{
	int ret = add(a, opt);

	return ret != 0 ? ret : add(a, val);
}

/* mkfs.erofs's compressors, as dir2img's -c, and the levels each takes
 * after a comma (lo..hi; none for lz4). lzma's 100 + N is level N with
 * the extreme preset. bare: dir2img's -X for -zX without a level, which
 * is mkfs.erofs's own default (its compressors' default_level: the
 * libraries' defaults, and deflate's fastest), not dir2img's: a script
 * that says -zzstd gets the speed and the image it had, where dir2img's
 * level 15 took 40 times as long. */
static const struct {
	const char *name, *codec, *bare;
	long lo, hi;     /* hi < 0: no level */
	int extreme;     /* 100 + N taken too */
} compressors[] = {
	{ "lz4", "lz4", NULL, 0, -1, 0 },
	{ "lz4hc", "lz4", "hc", 1, 12, 0 },
	{ "lzma", "lzma", "level=6", 0, 9, 1 },
	{ "deflate", "deflate", "level=1", 1, 9, 0 },
	{ "zstd", "zstd", "level=3", 1, 22, 0 },
	{ "none", "none", NULL, 0, -1, 0 },
};

/* -zX[,Y]: one compressor, with a level where it takes one. */
static int compressor(struct argv_out *a, const char *arg)
{
	const char *comma = strchr(arg, ',');
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg), i;
	char *end, why[80];
	long level;
	int ret, extreme;

	if (memchr(arg, ':', len) != NULL)
		return refuse(arg, "two algorithms (-zX:Y, chosen per file by "
			      "--compress-hints) are not done; give one");
	for (i = 0; i < sizeof(compressors) / sizeof(compressors[0]); i++)
		if (strlen(compressors[i].name) == len &&
		    strncmp(arg, compressors[i].name, len) == 0)
			break;
	if (i == sizeof(compressors) / sizeof(compressors[0]))
		return refuse(arg, "unknown compressor; valid are lz4, lz4hc, lzma, "
			      "deflate, zstd and none");
	if ((ret = add2(a, "-c", compressors[i].codec)) != 0)
		return ret;
	if (comma == NULL)
		return compressors[i].bare ? add2(a, "-X", compressors[i].bare) : 0;
	if (compressors[i].hi < 0)
		return refuse(arg, "this compressor takes no level");
	level = strtol(comma + 1, &end, 10);
	extreme = compressors[i].extreme && level >= 100;
	if (extreme)
		level -= 100;
	if (*end != '\0' || end == comma + 1 || level < compressors[i].lo ||
	    level > compressors[i].hi) {
		snprintf(why, sizeof(why), "the level is %ld..%ld%s", compressors[i].lo,
			 compressors[i].hi, compressors[i].extreme ?
			 " (100 + N: N with the extreme preset)" : "");
		return refuse(arg, why);
	}
	snprintf(a->level, sizeof(a->level), "level=%d%s", (int)level,
		 extreme ? ",extreme" : "");
	return add2(a, "-X", a->level);
}

/* -E X[,Y...]: ztailpacking, fragments, dedupe; the others are refused by
 * name, and so is fragments=SIZE (the packed inode's clusters are -C's,
 * as every other file's). */
static int extended(struct argv_out *a, const char *arg)
{
	const char *s = arg, *end;
	size_t len;
	int ret;

	for (; *s != '\0'; s = *end ? end + 1 : end) {
		end = strchr(s, ',');
		if (end == NULL)
			end = s + strlen(s);
		len = (size_t)(end - s);
		if (len == 12 && strncmp(s, "ztailpacking", 12) == 0) {
			if ((ret = add(a, "--ztailpacking")) != 0)
				return ret;
		} else if (len == 9 && strncmp(s, "fragments", 9) == 0) {
			if ((ret = add(a, "--erofs-fragments")) != 0)
				return ret;
		} else if (len == 6 && strncmp(s, "dedupe", 6) == 0) {
			if ((ret = add(a, "--erofs-dedupe")) != 0)
				return ret;
		} else if (len > 9 && strncmp(s, "fragments=", 10) == 0) {
			return refuse(arg, "a pcluster size of the packed inode's own is "
				      "not done (its clusters are -C's)");
		} else {
			return refuse(arg, "extended option not done yet (sqpack writes "
				      "compact cluster indexes; ztailpacking, "
				      "fragments and dedupe are done)");
		}
	}
	return 0;
}

static int short_option(struct argv_out *a, int c, const char *arg)
{
	uint8_t uuid[16];

	switch (c) {
	case 'z': return compressor(a, arg);
	case 'C':
		/* dir2img checks it (a multiple of 4096 up to 1 MiB). */
		return add2(a, "--pcluster-size", arg);
	case 'b':
		if (strcmp(arg, "4096") != 0)
			return refuse(arg, "the block size is 4096");
		return 0;
	case 'E': return extended(a, arg);
	case 'T':
		snprintf(a->time, sizeof(a->time), "%s", arg);
		return add2(a, "--mtime", a->time) || add2(a, "--image-time", a->time) ? 2 : 0;
	case 'U':
		/* Stored as given, zero included (archiso's reproducible
		 * images ask for none so); clear and random as mkfs.erofs
		 * 1.9 takes them. A bad one exits 1, as mkfs.erofs does. */
		if (strcmp(arg, "clear") != 0 && strcmp(arg, "random") != 0 &&
		    tool_parse_uuid(arg, uuid) != 0) {
			fprintf(stderr, PROG ": -U %s: invalid UUID (xxxxxxxx-xxxx-"
				"xxxx-xxxx-xxxxxxxxxxxx, clear or random)\n", arg);
			return 1;
		}
		return add2(a, "--uuid", arg);
	case 'L': return add2(a, "--label", arg);
	case 'd': return 0; /* message level */
	case 'x': return arg[0] == '-' ? add(a, "--no-xattrs") : 0;
	default: return -1;
	}
}

static int long_option(struct argv_out *a, int c, const char *arg, const char *name)
{
	switch (c) {
	case OPT_ALL_ROOT: return add(a, "--all-root");
	case OPT_FORCE_UID: return add2(a, "--uid", arg);
	case OPT_FORCE_GID: return add2(a, "--gid", arg);
	case OPT_QUIET: return add(a, "-q");
	case OPT_WORKERS: return add2(a, "-j", arg);
	case OPT_PRESERVE_MTIME: return 0; /* what we do anyway */
	case OPT_EXCLUDE_REGEX: return add2(a, "--exclude-regex", arg);
	case OPT_TAR:
		if (arg != NULL && strcmp(arg, "f") != 0)
			return refuse(name, "only --tar=f (a whole tar) is done");
		a->tar = 1;
		return 0;
	case OPT_REFUSED: return refuse(name, "not done yet");
	default:
		return refuse(name, "unknown option");
	}
}

/* Our argv into the packer's; 0, 2 (bad usage) or -1 (help/version
 * printed). */
static int translate(int argc, char **argv, struct argv_out *a)
{
	int c, ret, idx;

	a->n = 0;
	if ((ret = add(a, PROG)) != 0 || (ret = add2(a, "--format", "erofs")) != 0 ||
	    (ret = add(a, "-f")) != 0)
		return ret;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":z:C:b:E:T:U:L:d:x:V", long_opts, &idx)) != -1) {
		const char *name = argv[optind - 1];

		if (c == OPT_HELP) {
			usage(stdout);
			return -1;
		}
		if (c == 'V' || c == OPT_VERSION) {
			tool_print_version(PROG);
			return -1;
		}
		if (c == '?' || c == ':')
			return refuse(name, c == '?' ? "unknown option" : "needs a value");
		ret = c < 256 ? short_option(a, c, optarg) : long_option(a, c, optarg, name);
		if (ret != 0)
			return ret < 0 ? refuse(name, "unknown option") : ret;
	}
	if (optind >= argc)
		return refuse("IMAGE", "missing");
	if ((ret = add(a, argv[optind++])) != 0)
		return ret;
	if (!a->tar && optind >= argc)
		return refuse("DIRECTORY", "missing");
	if (optind < argc && !(a->tar && strcmp(argv[optind], "-") == 0) &&
	    (ret = add(a, argv[optind])) != 0)
		return ret;
	if (optind < argc)
		optind++;
	if (optind < argc)
		return refuse(argv[optind], "unexpected argument");
	return 0;
}

int main(int argc, char **argv)
{
	struct argv_out a;
	int ret = translate(argc, argv, &a);

	if (ret != 0)
		return ret < 0 ? 0 : ret;
	tool_set_progname(PROG);
	return a.tar ? tar2img_main(a.n, a.v) : dir2img_main(a.n, a.v);
}
