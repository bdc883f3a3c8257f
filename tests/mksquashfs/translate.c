/* SPDX-License-Identifier: MIT */
/*
 * translate.c - unit test of sqpack-mksquashfs's argument translator: for
 * the command lines distro build systems pass, and for each rule of the
 * translation (defaults set explicitly, -e swallowing the rest,
 * -Xdict-size percentages, exact excludes escaped, wildcard excludes
 * anchored, codec options checked against the codec and reported by the
 * option typed, what an image appended to decides), the packer's options
 * that come out.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mksq_args.h"
#include "tool_mains.h"

static struct mksq_args args;
static char msg[512];
static const struct mksq_base *base_in;  /* set while testing appends */

/* Translate a NULL-terminated list; returns the exit status. */
static int run(const char *sde, ...)
{
	char *argv[64];
	int argc = 0;
	va_list ap;

	mksq_args_free(&args);
	va_start(ap, sde);
	while (argc < 63 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	msg[0] = '\0';
	return mksq_translate(argc, argv, sde, base_in, &args, msg, sizeof(msg));
}

/* Policy inputs of kind with this argument. */
static int has(int kind, const char *arg)
{
	for (size_t i = 0; i < args.opt.pargs.n; i++) {
		if (args.opt.pargs.v[i].kind == kind && strcmp(args.opt.pargs.v[i].arg, arg) == 0)
			return 1;
	}
	return 0;
}

static int count(int kind)
{
	int n = 0;

	for (size_t i = 0; i < args.opt.pargs.n; i++)
		n += args.opt.pargs.v[i].kind == kind;
	return n;
}

/* Writer flags, dirscan flags and policy flags set. */
static int wflag(unsigned f) { return (args.opt.desc.flags & f) == f; }
static int sflag(unsigned f) { return (args.opt.scan_flags & f) == f; }
static int pflag(unsigned f) { return (args.opt.policy.flags & f) == f; }

/* The packer's codec is name, with blocks of block bytes. */
static int codec_is(const char *name, uint32_t block)
{
	return args.opt.desc.codec.id == sqp_codec_by_name(name) &&
	       args.opt.desc.codec.block_size == block;
}

/* OUTPUT is dest (NULL: "o"), and the DIRs exactly these. */
static int operands_are(const char *dest, const char *a, const char *b, const char *c)
{
	const char *want[3] = { a, b, c };
	size_t n = 0;

	while (n < 3 && want[n] != NULL)
		n++;
	if (args.opt.output == NULL || strcmp(args.opt.output, dest ? dest : "o") != 0 ||
	    args.opt.dir_count != n)
		return 0;
	for (size_t k = 0; k < n; k++) {
		if (strcmp(args.opt.dirs[k], want[k]) != 0)
			return 0;
	}
	return 1;
}

static int built(const char *name)
{
	int id = sqp_codec_by_name(name);

	return id > 0 && sqp_codec_available(id);
}

static void distro_lines(void)
{
	/* Buildroot fs/squashfs/squashfs.mk */
	CHECK(run(NULL, "mksquashfs", "target", "out.img", "-noappend", "-processors",
		  "2", "-b", "128K", "-comp", "gzip", NULL) == 0, "%s", msg);
	CHECK(args.opt.tool == TOOL_DIR2IMG && !args.tar, "dir2img");
	CHECK(args.opt.force && args.opt.desc.jobs == 2 && codec_is("gzip", 131072) &&
	      args.opt.desc.fragment_mode == SQP_FRAGMENTS_SMALL &&
	      wflag(SQP_WRITE_EXPORTABLE), "buildroot line");
	CHECK(operands_are("out.img", "target", NULL, NULL), "operands");
	/* snapd snap/squashfs/squashfs.go */
	if (built("xz")) {
		CHECK(run(NULL, "mksquashfs", ".", "x.snap", "-noappend", "-comp", "xz",
			  "-no-fragments", "-no-progress", "-all-root", "-no-xattrs", NULL) == 0,
		      "%s", msg);
		CHECK(args.opt.desc.fragment_mode == SQP_FRAGMENTS_NONE &&
		      args.opt.progress == PROGRESS_NONE && pflag(SQP_POLICY_SET_UID) &&
		      pflag(SQP_POLICY_SET_GID) && args.opt.policy.uid == 0 &&
		      args.opt.policy.gid == 0 && wflag(SQP_WRITE_NO_XATTRS) &&
		      sflag(SQP_DIRSCAN_NO_XATTRS), "snapd line");
	}
	/* NixOS nixos/lib/make-squashfs.nix */
	if (built("xz")) {
		CHECK(run(NULL, "mksquashfs", "reg", "/nix/store/a", "out", "-no-hardlinks",
			  "-keep-as-directory", "-all-root", "-b", "1048576", "-comp", "xz",
			  "-Xdict-size", "100%", "-processors", "2", NULL) == 0, "%s", msg);
		CHECK(args.opt.desc.codec.dict_size == 1048576 && sflag(SQP_DIRSCAN_KEEP_DIR) &&
		      sflag(SQP_DIRSCAN_NO_HARDLINKS) && codec_is("xz", 1048576), "nixos line");
		CHECK(operands_are("out", "reg", "/nix/store/a", NULL), "nixos operands");
	}
	/* archiso mkarchiso + releng profiledef.sh */
	if (built("xz")) {
		CHECK(run(NULL, "mksquashfs", "airootfs", "a.sfs", "-noappend", "-comp", "xz",
			  "-Xbcj", "x86", "-b", "1M", "-Xdict-size", "1M", "-no-progress",
			  NULL) == 0, "%s", msg);
		CHECK(args.opt.desc.codec.filters != 0 &&
		      args.opt.desc.codec.dict_size == 1048576, "archiso line");
	}
	/* appimagetool */
	CHECK(run(NULL, "mksquashfs", "AppDir", "app", "-offset", "188392", "-fstime",
		  "0", "-comp", "gzip", "-root-owned", "-noappend", NULL) == 0, "%s", msg);
	CHECK(args.opt.desc.offset == 188392 && args.opt.desc.mod_time == 0 &&
	      pflag(SQP_POLICY_SET_UID) && args.opt.policy.uid == 0, "appimage");
}

static void defaults_and_tar(void)
{
	CHECK(run(NULL, "mksquashfs", "d", "o", NULL) == 0, "%s", msg);
	CHECK(!args.opt.force && codec_is("gzip", 131072) &&
	      args.opt.desc.fragment_mode == SQP_FRAGMENTS_SMALL &&
	      wflag(SQP_WRITE_EXPORTABLE) && !args.noappend && strcmp(args.dest, "o") == 0 &&
	      args.opt.desc.mod_time == SQP_TIME_NEWEST && args.opt.pargs.n == 0,
	      "defaults");
	CHECK(run(NULL, "mksquashfs", "-", "o", "-tar", "-noappend", NULL) == 0, "%s", msg);
	CHECK(args.opt.tool == TOOL_TAR2IMG && args.tar, "tar2img");
	CHECK(args.opt.desc.fragment_mode == SQP_FRAGMENTS_ALL &&
	      !wflag(SQP_WRITE_EXPORTABLE) && args.opt.input_count == 0 &&
	      strcmp(args.opt.output, "o") == 0, "-tar defaults");
	CHECK(run(NULL, "mksquashfs", "o", "-tar", "-exports", NULL) == 0 &&
	      wflag(SQP_WRITE_EXPORTABLE), "-tar -exports");
	CHECK(run(NULL, "mksquashfs", "src", "o", "-tar", NULL) == 2, "-tar with a source");
	CHECK(run(NULL, "mksquashfs", "o", "-tar", "-keep-as-directory", NULL) == 2,
	      "-tar -keep-as-directory");
	CHECK(run(NULL, "mksquashfs", "o", "-tar", "-no-hardlinks", NULL) == 2 &&
	      strstr(msg, "-no-hardlinks"), "-tar -no-hardlinks: %s", msg);
	CHECK(run(NULL, "mksquashfs", "o", "-tar", "-sort", "s", NULL) == 2 &&
	      strstr(msg, "-sort"), "-tar -sort: %s", msg);
	/* -no-strip: the scan keeps each path; a tar keeps its own */
	CHECK(run(NULL, "mksquashfs", "a/b", "o", "-no-strip", NULL) == 0 &&
	      sflag(SQP_DIRSCAN_KEEP_PATH) && args.no_strip, "-no-strip: %s", msg);
	CHECK(run(NULL, "mksquashfs", "o", "-tar", "-no-strip", NULL) == 0 &&
	      !sflag(SQP_DIRSCAN_KEEP_PATH) && !args.no_strip, "-tar -no-strip: %s", msg);
}

/* A usage error whose message names the option typed (opt) and no
 * dir2img option. */
static int names(const char *opt)
{
	static const char *const dir2img[] = {
		"--compressor", "--comp-opt", "--block-size", "level=", "dict-size=",
		"filters=", "window=", "strategy=", "algorithm=", "option 'level'",
		"option 'dict-size'", "option 'window'",
	};

	if (strstr(msg, opt) == NULL)
		return 0;
	for (size_t i = 0; i < sizeof(dir2img) / sizeof(dir2img[0]); i++)
		if (strstr(msg, dir2img[i]) != NULL)
			return 0;
	return 1;
}

static void codec_options(void)
{
	if (built("xz")) {
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "37.5%", NULL) == 0 &&
		      args.opt.desc.codec.dict_size == 49152, "37.5%% of 128K: %s", msg);
		CHECK(run(NULL, "m", "d", "o", "-Xdict-size", "25%", "-comp", "xz", "-b", "1M",
			  NULL) == 0 && args.opt.desc.codec.dict_size == 262144,
		      "25%% of a later -b 1M");
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "8K", NULL) == 0 &&
		      args.opt.desc.codec.dict_size == 8192, "8K");
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "0%", NULL) == 2 &&
		      names("-Xdict-size"), "0%%: %s", msg);
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "101%", NULL) == 2,
		      "101%%");
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "x", NULL) == 2, "x");
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "3", NULL) == 2 &&
		      names("-Xdict-size"), "-Xdict-size 3: %s", msg);
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xbcj", "sparc64", NULL) == 2 &&
		      names("-Xbcj"), "-Xbcj sparc64: %s", msg);
		CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xcompression-level", "10",
			  NULL) == 2 && names("-Xcompression-level"), "xz level 10: %s", msg);
	}
	CHECK(run(NULL, "m", "d", "o", "-Xbcj", "x86", NULL) == 2 && names("-Xbcj"),
	      "-Xbcj with gzip: %s", msg);
	if (built("lz4"))
		CHECK(run(NULL, "m", "d", "o", "-comp", "lz4", "-Xhc", NULL) == 0 &&
		      (args.opt.desc.codec.flags & SQP_LZ4_HC), "-Xhc");
	if (built("zstd")) {
		CHECK(run(NULL, "m", "d", "o", "-comp", "zstd", "-Xcompression-level", "19",
			  NULL) == 0 && args.opt.desc.codec.level == 19, "-Xcompression-level");
		CHECK(run(NULL, "m", "d", "o", "-comp", "zstd", "-Xcompression-level", "99",
			  NULL) == 2 && names("-Xcompression-level") && strstr(msg, "zstd"),
		      "zstd level 99: %s", msg);
		CHECK(run(NULL, "m", "d", "o", "-comp", "zstd", "-Xcompression-level", "3,hc",
			  NULL) == 2 && names("-Xcompression-level"), "a level with a comma: %s",
		      msg);
	}
	CHECK(run(NULL, "m", "d", "o", "-Xcompression-level", "0", NULL) == 2 &&
	      names("-Xcompression-level") && strstr(msg, "gzip"), "gzip level 0: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "-Xwindow-size", "20", NULL) == 2 &&
	      names("-Xwindow-size"), "-Xwindow-size 20: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "-Xstrategy", "fastest", NULL) == 2 &&
	      names("-Xstrategy"), "-Xstrategy fastest: %s", msg);
	if (built("lzo"))
		CHECK(run(NULL, "m", "d", "o", "-comp", "lzo", "-Xalgorithm", "lzo2", NULL) == 2 &&
		      names("-Xalgorithm"), "-Xalgorithm lzo2: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "-comp", "brotli", NULL) == 2 && names("-comp") &&
	      strstr(msg, "brotli"), "unknown compressor: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "-b", "3000", NULL) == 2 && names("-b"), "-b 3000: %s",
	      msg);
}

static void usage_errors(void)
{
	CHECK(run(NULL, "m", "d", "o", "-frobnicate", NULL) == 2 && strstr(msg, "-frobnicate"),
	      "unknown option: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "-regex", NULL) == 2 && strstr(msg, "-regex"), "-regex");
	CHECK(run(NULL, "m", "d", "o", "-b", NULL) == 2 && strstr(msg, "-b"), "missing value");
	CHECK(run(NULL, "m", "o", NULL) == 2, "no source");
	CHECK(run(NULL, "m", "-help", NULL) == 0 && args.action == MKSQ_HELP, "-help");
	CHECK(run(NULL, "m", "-version", NULL) == 0 && args.action == MKSQ_VERSION, "-version");
	CHECK(run(NULL, "m", "d", "o", "--help", NULL) == 0 && args.action == MKSQ_HELP, "--help");
	CHECK(run("100", "m", "d", "o", NULL) == 0 && pflag(SQP_POLICY_CLAMP_MTIME),
	      "SDE clamps");
	CHECK(run("100", "m", "d", "o", "-mkfs-time", "5", NULL) == 2, "SDE and -mkfs-time");
	CHECK(run(NULL, "m", "d", "o", "-all-time", "5", "-mkfs-time", "6", NULL) == 0 &&
	      pflag(SQP_POLICY_SET_MTIME) && args.opt.policy.mtime == 5 &&
	      args.opt.desc.mod_time == 6 && !pflag(SQP_POLICY_CLAMP_MTIME), "times");
	CHECK(run(NULL, "m", "d", "o", "-all-time", "-5", NULL) == 2, "bad time");
	CHECK(run(NULL, "m", "d", "o", "--verity-salt", NULL) == 2 &&
	      strstr(msg, "--verity-salt"), "--verity-salt without a value: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "--verity-frob", NULL) == 2 &&
	      strstr(msg, "--verity-frob"), "unknown --verity option: %s", msg);
}

/* sqpack's own --verity options reach the packer, values attached. */
static void verity(void)
{
	const struct tool_verity *v = &args.opt.verity;

	CHECK(run(NULL, "m", "d", "o", "--verity", "-noappend", "--verity-salt", "ab",
		  "--verity-block-size", "1K", "--verity-roothash", "o.roothash",
		  "--verity-no-superblock", NULL) == 0 &&
	      v->on && v->hash_file == NULL && v->desc.salt_len == 1 &&
	      v->desc.salt[0] == 0xab && v->desc.block_size == 1024 &&
	      strcmp(v->roothash_file, "o.roothash") == 0 && v->desc.no_superblock &&
	      args.opt.force && operands_are("o", "d", NULL, NULL), "--verity options: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "--verity=o.hash", NULL) == 0 && v->on &&
	      strcmp(v->hash_file, "o.hash") == 0, "--verity=FILE");
	CHECK(run(NULL, "m", "d", "o", "--verity-salt=cd", NULL) == 0 && v->desc.salt[0] == 0xcd,
	      "--verity-salt=HEX");
	CHECK(run(NULL, "m", "o", "-tar", "--verity", NULL) == 0 && v->on && args.tar,
	      "--verity with -tar");
}

static void ownership_and_flags(void)
{
	const struct sqp_policy_desc *p = &args.opt.policy;

	CHECK(run(NULL, "m", "d", "o", "-all-root", "-force-uid", "5", NULL) == 0 &&
	      p->uid == 5 && p->gid == 0 && pflag(SQP_POLICY_SET_UID | SQP_POLICY_SET_GID),
	      "-all-root then -force-uid");
	CHECK(run(NULL, "m", "d", "o", "-force-uid", "root", "-force-gid", "root", NULL) == 0 &&
	      p->uid == 0 && p->gid == 0 && pflag(SQP_POLICY_SET_UID | SQP_POLICY_SET_GID),
	      "names");
	CHECK(run(NULL, "m", "d", "o", "-force-uid", "no-such-user-xyz", NULL) == 2,
	      "unknown user");
	CHECK(run(NULL, "m", "d", "o", "-noI", "-noDataCompression", "-noX", NULL) == 0 &&
	      wflag(SQP_WRITE_RAW_INODES | SQP_WRITE_RAW_DATA | SQP_WRITE_RAW_XATTRS) &&
	      !wflag(SQP_WRITE_RAW_FRAGMENTS), "-noI -noD -noX");
	CHECK(run(NULL, "m", "d", "o", "-always-use-fragments", "-no-fragments", NULL) == 0 &&
	      args.opt.desc.fragment_mode == SQP_FRAGMENTS_NONE, "-no-fragments wins");
	CHECK(run(NULL, "m", "d", "o", "-tailends", "-no-exports", "-nopad", NULL) == 0 &&
	      args.opt.desc.fragment_mode == SQP_FRAGMENTS_ALL &&
	      !wflag(SQP_WRITE_EXPORTABLE) && wflag(SQP_WRITE_NO_PAD), "flags");
	CHECK(run(NULL, "m", "d", "o", "-o", "4K", NULL) == 0 && args.opt.desc.offset == 4096,
	      "-o 4K");
	CHECK(run(NULL, "m", "d", "o", "-p", "dev/null c 666 0 0 1 3", "-pf", "defs",
		  "-sort", "s.txt", NULL) == 0 && has(PARG_SPEC_LINE, "dev/null c 666 0 0 1 3") &&
	      has(PARG_SPEC, "defs") && has(PARG_SORT, "s.txt"), "-p -pf -sort");
	CHECK(run(NULL, "m", "d", "o", "-quiet", "-info", "-progress", "-mem", "1G",
		  "-no-recovery", "-reproducible", NULL) == 0 && args.opt.quiet &&
	      args.opt.verbose && args.opt.progress == PROGRESS_AUTO &&
	      args.opt.desc.mem_limit == (1u << 30), "runtime options");
	CHECK(run(NULL, "m", "d", "o", "-mem", "100K", NULL) == 2, "-mem under 1M");
}

static void root_dir(const char *tmp)
{
	char line[128];
	struct stat sb;

	snprintf(line, sizeof(line), "/ m 777 %u %u", (unsigned)getuid(),
		 (unsigned)getgid());
	CHECK(run(NULL, "m", "a", "b", "o", NULL) == 0 && has(PARG_SPEC_LINE, line),
	      "several sources: mksquashfs's own root, 0777");
	CHECK(run(NULL, "m", "a", "b", "o", "-all-root", NULL) == 0 &&
	      has(PARG_SPEC_LINE, "/ m 777 0 0"), "its owner follows -all-root");
	snprintf(line, sizeof(line), "/ M 100 777 %u %u", (unsigned)getuid(),
		 (unsigned)getgid());
	CHECK(run("100", "m", "o", "-tar", NULL) == 0 && has(PARG_SPEC_LINE, line),
	      "-tar root at SOURCE_DATE_EPOCH");
	CHECK(run(NULL, "m", tmp, "o", NULL) == 0 && count(PARG_SPEC_LINE) == 0,
	      "one source: its own root");
	CHECK(stat(tmp, &sb) == 0, "stat");
	snprintf(line, sizeof(line), "/ M 5 755 %u 7", (unsigned)sb.st_uid);
	CHECK(run(NULL, "m", tmp, "o", "-root-mode", "0755", "-root-gid", "7",
		  "-root-time", "5", NULL) == 0 && has(PARG_SPEC_LINE, line), "-root-mode -root-gid -root-time");
	CHECK(run(NULL, "m", tmp, "o", "-root-mode", "9", NULL) == 2, "-root-mode 9");
	/* mksquashfs's root time: SOURCE_DATE_EPOCH clamps -root-time,
	 * -all-time overrides it, and times a root of its own */
	snprintf(line, sizeof(line), "/ M 5 %o %u %u", (unsigned)(sb.st_mode & 07777),
		 (unsigned)sb.st_uid, (unsigned)sb.st_gid);
	CHECK(run("100", "m", tmp, "o", "-root-time", "5", NULL) == 0 && has(PARG_SPEC_LINE, line),
	      "SDE and an older -root-time");
	snprintf(line, sizeof(line), "/ M 100 %o %u %u", (unsigned)(sb.st_mode & 07777),
		 (unsigned)sb.st_uid, (unsigned)sb.st_gid);
	CHECK(run("100", "m", tmp, "o", "-root-time", "200", NULL) == 0 && has(PARG_SPEC_LINE, line),
	      "SDE clamps a newer -root-time");
	snprintf(line, sizeof(line), "/ M 9 %o %u %u", (unsigned)(sb.st_mode & 07777),
		 (unsigned)sb.st_uid, (unsigned)sb.st_gid);
	CHECK(run(NULL, "m", tmp, "o", "-root-time", "5", "-all-time", "9", NULL) == 0 &&
	      has(PARG_SPEC_LINE, line), "-all-time overrides -root-time");
	snprintf(line, sizeof(line), "/ M 9 777 %u %u", (unsigned)getuid(),
		 (unsigned)getgid());
	CHECK(run(NULL, "m", "a", "b", "o", "-all-time", "9", NULL) == 0 && has(PARG_SPEC_LINE, line),
	      "-all-time times a root of its own");
}

static void excludes(const char *tmp)
{
	char src[512], sub[600], ef[600];
	FILE *f;

	/* -e takes every later argument, options included */
	CHECK(run(NULL, "m", "d", "o", "-e", "boot", "-comp", "a*b/[x]", NULL) == 0 &&
	      has(PARG_EXCLUDE, "[/b]oot") && has(PARG_EXCLUDE, "[/-]comp") &&
	      has(PARG_EXCLUDE, "a\\*b/\\[x]") && codec_is("gzip", 131072), "-e swallows");
	CHECK(run(NULL, "m", "s1/", "dir/s2", "o", "-e", "etc//x/", NULL) == 0 &&
	      has(PARG_EXCLUDE, "s1/etc/x") && has(PARG_EXCLUDE, "s2/etc/x") &&
	      count(PARG_EXCLUDE) == 2, "one per source");
	CHECK(run(NULL, "m", "d", "o", "-wildcards", "-e", "*.md", "... *.o", "... a/b*",
		  NULL) == 0 && has(PARG_EXCLUDE, "[!/.]*.md") && has(PARG_EXCLUDE, "*.o") &&
	      has(PARG_EXCLUDE, "**/a/b*"), "wildcards");
	/* top-level names get a '/' that matches nothing, to stay rooted */
	CHECK(run(NULL, "m", "d", "o", "-wildcards", "-e", "*foo", "?x", "[ab]c", "[!]a]b",
		  NULL) == 0 && has(PARG_EXCLUDE, "[!/.]*foo") && has(PARG_EXCLUDE, "[/f]oo") &&
	      has(PARG_EXCLUDE, "[!/.]x") && has(PARG_EXCLUDE, "[/ab]c") &&
	      has(PARG_EXCLUDE, "[!]/a]b") && count(PARG_EXCLUDE) == 5, "rooted globs");
	CHECK(run(NULL, "m", "d", "o", "-e", "]x", "\\y", "[z", NULL) == 0 &&
	      has(PARG_EXCLUDE, "[]/]x") && has(PARG_EXCLUDE, "[/\\\\]y") && has(PARG_EXCLUDE, "[/[]z"),
	      "rooted odd names");
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(sub, sizeof(sub), "%s/src/sub", tmp);
	CHECK(mkdir(src, 0755) == 0 && mkdir(sub, 0755) == 0, "mkdir");
	CHECK(run(NULL, "m", src, "o", "-e", sub, NULL) == 0 && has(PARG_EXCLUDE, "[/s]ub"),
	      "absolute path inside the source");
	CHECK(run(NULL, "m", src, "o", "-e", "/nonexistent/x", NULL) == 0 &&
	      count(PARG_EXCLUDE) == 0, "absolute path outside");
	snprintf(ef, sizeof(ef), "%s/ef", tmp);
	f = fopen(ef, "w");
	CHECK(f != NULL, "fopen");
	if (f != NULL) {
		fputs("# comment\n\n  var/cache\nusr/*.a\nend  \n", f);
		fclose(f);
	}
	CHECK(run(NULL, "m", src, "o", "-ef", ef, NULL) == 0 && count(PARG_EXCLUDE) == 3 &&
	      has(PARG_EXCLUDE, "var/cache") && has(PARG_EXCLUDE, "[/e]nd  ") && has(PARG_EXCLUDE, "usr/\\*.a"), "-ef exact");
	CHECK(run(NULL, "m", src, "o", "-ef", ef, "-wildcards", NULL) == 0 &&
	      has(PARG_EXCLUDE, "usr/*.a"), "-ef with -wildcards after it");
	CHECK(run(NULL, "m", src, "o", "-ef", "/nonexistent/ef", NULL) == 1, "missing -ef");
	rmdir(sub);
	rmdir(src);
	unlink(ef);
}

/* An append: the image decides the codec, block size, exports and
 * xattrs; -p and -pf lines under its names are dropped and told; a
 * renamed source replaces its path. */
static void append(const char *tmp)
{
	static char *names[] = { "etc", "nix" };
	static char *src[] = { NULL, "/stage/etc_1" };
	struct mksq_base b = { .comp = "xz", .block = 1048576, .names = names,
			       .count = 2, .src = src };
	struct sqp_codec_config xz_default;
	char pf[256];
	FILE *f;

	base_in = &b;
	if (built("xz") && sqp_codec_config_init(&xz_default, sqp_codec_by_name("xz"),
						 1048576) == 0) {
		CHECK(run(NULL, "m", "a", "etc", "o", "-comp", "gzip", "-b", "4K",
			  "-Xcompression-level", "1", "-noI", "-no-duplicates", "-exports",
			  "-root-becomes", "nix", NULL) == 0, "%s", msg);
		CHECK(codec_is("xz", 1048576) && args.opt.force &&
		      !wflag(SQP_WRITE_EXPORTABLE) &&
		      args.opt.desc.codec.level == xz_default.level &&
		      !wflag(SQP_WRITE_RAW_INODES) && !wflag(SQP_WRITE_NO_DEDUP),
		      "the image decides codec, block size, exports");
		CHECK(operands_are("o", "a", "/stage/etc_1", NULL),
		      "a renamed source's link packed");
	} else {
		b.comp = "gzip";
		CHECK(run(NULL, "m", "a", "etc", "o", "-root-becomes", "nix", NULL) == 0, "%s", msg);
	}
	CHECK(args.root_becomes != NULL && strcmp(args.root_becomes, "nix") == 0,
	      "-root-becomes");
	CHECK(run(NULL, "m", "d", "o", "-p", "/etc/x d 755 0 0", "-p", "\"nix\"/y d 755 0 0",
		  "-p", "new d 755 0 0", NULL) == 0 && count(PARG_SPEC_LINE) == 1 &&
	      has(PARG_SPEC_LINE, "new d 755 0 0") && args.warn.n == 2,
	      "-p lines on the image's names dropped and told");
	snprintf(pf, sizeof(pf), "%s/pf", tmp);
	f = fopen(pf, "w");
	CHECK(f != NULL, "fopen");
	if (f != NULL) {
		fputs("# mount points\n/etc/a d 755 0 0\ndev d 755 0 0\n", f);
		fclose(f);
	}
	CHECK(run(NULL, "m", "d", "o", "-pf", pf, NULL) == 0 && count(PARG_SPEC) == 0 &&
	      has(PARG_SPEC_LINE, "dev d 755 0 0") && !has(PARG_SPEC_LINE, "/etc/a d 755 0 0") &&
	      args.warn.n == 1, "-pf lines on the image's names dropped and told");
	CHECK(run(NULL, "m", "d", "o", "-no-xattrs", NULL) == 0 && !wflag(SQP_WRITE_NO_XATTRS),
	      "-no-xattrs ignored: the image stores xattrs");
	b.no_xattrs = 1;
	CHECK(run(NULL, "m", "d", "o", "-no-xattrs", NULL) == 0 && wflag(SQP_WRITE_NO_XATTRS),
	      "-no-xattrs taken: the image stores none");
	base_in = NULL;
	CHECK(run(NULL, "m", "d", "o", "-p", "/etc/x d 755 0 0", "-root-becomes", "x",
		  NULL) == 0 && has(PARG_SPEC_LINE, "/etc/x d 755 0 0") && args.warn.n == 0,
	      "a new image: -p lines all taken, -root-becomes ignored");
	unlink(pf);
}

int main(void)
{
	char tmp[] = "/tmp/mksq-translate.XXXXXX";

	if (!built("gzip")) {
		puts("skip: gzip not built (mksquashfs's default compressor)");
		return 77;
	}
	if (mkdtemp(tmp) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	distro_lines();
	defaults_and_tar();
	codec_options();
	usage_errors();
	verity();
	ownership_and_flags();
	root_dir(tmp);
	excludes(tmp);
	append(tmp);
	mksq_args_free(&args);
	rmdir(tmp);
	return check_done();
}
