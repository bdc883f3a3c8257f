/* SPDX-License-Identifier: MIT */
/*
 * translate.c - unit test of sqpack-mksquashfs's argument translator: for
 * the command lines distro build systems pass, and for each rule of the
 * translation (defaults spelled out, -e swallowing the rest, -Xdict-size
 * percentages, exact excludes escaped, wildcard excludes anchored, codec
 * options checked against the codec, what an image appended to decides),
 * the dir2img argv that comes out.
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

static int has(const char *s)
{
	for (int i = 0; i < args.argv.n; i++) {
		if (strcmp(args.argv.v[i], s) == 0)
			return 1;
	}
	return 0;
}

static int count_prefix(const char *p)
{
	int n = 0;

	for (int i = 0; i < args.argv.n; i++)
		n += strncmp(args.argv.v[i], p, strlen(p)) == 0;
	return n;
}

/* The argv ends with "--" and exactly these operands. */
static int tail_is(const char *a, const char *b, const char *c)
{
	const char *want[3] = { a, b, c };
	int n = 0, i;

	while (n < 3 && want[n] != NULL)
		n++;
	i = args.argv.n - n - 1;
	if (i < 1 || strcmp(args.argv.v[i], "--") != 0)
		return 0;
	for (int k = 0; k < n; k++) {
		if (strcmp(args.argv.v[i + 1 + k], want[k]) != 0)
			return 0;
	}
	return 1;
}

static void distro_lines(void)
{
	/* Buildroot fs/squashfs/squashfs.mk */
	CHECK(run(NULL, "mksquashfs", "target", "out.img", "-noappend", "-processors",
		  "2", "-b", "128K", "-comp", "gzip", NULL) == 0, "%s", msg);
	CHECK(strcmp(args.argv.v[0], "dir2img") == 0, "%s", args.argv.v[0]);
	CHECK(has("--force") && has("--jobs=2") && has("--block-size=131072") &&
	      has("--compressor=gzip") && has("--no-tailends") && has("--exportable"),
	      "buildroot line");
	CHECK(tail_is("out.img", "target", NULL), "operands");
	/* snapd snap/squashfs/squashfs.go */
	CHECK(run(NULL, "mksquashfs", ".", "x.snap", "-noappend", "-comp", "xz",
		  "-no-fragments", "-no-progress", "-all-root", "-no-xattrs", NULL) == 0,
	      "%s", msg);
	CHECK(has("--no-fragments") && !has("--no-tailends") && has("--progress=none") &&
	      has("--uid=0") && has("--gid=0") && has("--no-xattrs"), "snapd line");
	/* NixOS nixos/lib/make-squashfs.nix */
	CHECK(run(NULL, "mksquashfs", "reg", "/nix/store/a", "out", "-no-hardlinks",
		  "-keep-as-directory", "-all-root", "-b", "1048576", "-comp", "xz",
		  "-Xdict-size", "100%", "-processors", "2", NULL) == 0, "%s", msg);
	CHECK(has("--comp-opt=dict-size=1048576") && has("--keep-dir") &&
	      has("--no-hardlinks") && has("--block-size=1048576"), "nixos line");
	CHECK(tail_is("out", "reg", "/nix/store/a"), "nixos operands");
	/* archiso mkarchiso + releng profiledef.sh */
	CHECK(run(NULL, "mksquashfs", "airootfs", "a.sfs", "-noappend", "-comp", "xz",
		  "-Xbcj", "x86", "-b", "1M", "-Xdict-size", "1M", "-no-progress", NULL) == 0,
	      "%s", msg);
	CHECK(has("--comp-opt=filters=x86,dict-size=1048576"), "archiso line");
	/* appimagetool */
	CHECK(run(NULL, "mksquashfs", "AppDir", "app", "-offset", "188392", "-fstime",
		  "0", "-comp", "gzip", "-root-owned", "-noappend", NULL) == 0, "%s", msg);
	CHECK(has("--offset=188392") && has("--image-time=0") && has("--uid=0"), "appimage");
}

static void defaults_and_tar(void)
{
	CHECK(run(NULL, "mksquashfs", "d", "o", NULL) == 0, "%s", msg);
	CHECK(!has("--force") && has("--compressor=gzip") && has("--no-tailends") &&
	      has("--exportable") && !args.noappend && strcmp(args.dest, "o") == 0,
	      "defaults");
	CHECK(run(NULL, "mksquashfs", "-", "o", "-tar", "-noappend", NULL) == 0, "%s", msg);
	CHECK(strcmp(args.argv.v[0], "tar2img") == 0 && args.tar, "tar2img");
	CHECK(has("--always-fragments") && !has("--exportable") && tail_is("o", NULL, NULL),
	      "-tar defaults");
	CHECK(run(NULL, "mksquashfs", "o", "-tar", "-exports", NULL) == 0 && has("--exportable"),
	      "-tar -exports");
	CHECK(run(NULL, "mksquashfs", "src", "o", "-tar", NULL) == 2, "-tar with a source");
	CHECK(run(NULL, "mksquashfs", "o", "-tar", "-keep-as-directory", NULL) == 2,
	      "-tar -keep-as-directory");
}

static void codec_options(void)
{
	CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "37.5%", NULL) == 0 &&
	      has("--comp-opt=dict-size=49152"), "37.5%% of 128K: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "-Xdict-size", "25%", "-comp", "xz", "-b", "1M",
		  NULL) == 0 && has("--comp-opt=dict-size=262144"), "25%% of a later -b 1M");
	CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "8K", NULL) == 0 &&
	      has("--comp-opt=dict-size=8192"), "8K");
	CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "0%", NULL) == 2, "0%%");
	CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "101%", NULL) == 2, "101%%");
	CHECK(run(NULL, "m", "d", "o", "-comp", "xz", "-Xdict-size", "x", NULL) == 2, "x");
	CHECK(run(NULL, "m", "d", "o", "-Xbcj", "x86", NULL) == 2 && strstr(msg, "-Xbcj"),
	      "-Xbcj with gzip: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "-comp", "lz4", "-Xhc", NULL) == 0 &&
	      has("--comp-opt=hc"), "-Xhc");
	CHECK(run(NULL, "m", "d", "o", "-comp", "zstd", "-Xcompression-level", "19", NULL) == 0 &&
	      has("--comp-opt=level=19"), "-Xcompression-level");
	CHECK(run(NULL, "m", "d", "o", "-comp", "brotli", NULL) == 2 && strstr(msg, "brotli"),
	      "unknown compressor");
	CHECK(run(NULL, "m", "d", "o", "-b", "3000", NULL) == 2, "-b 3000");
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
	CHECK(run("100", "m", "d", "o", NULL) == 0 && has("--clamp-mtime"), "SDE clamps");
	CHECK(run("100", "m", "d", "o", "-mkfs-time", "5", NULL) == 2, "SDE and -mkfs-time");
	CHECK(run(NULL, "m", "d", "o", "-all-time", "5", "-mkfs-time", "6", NULL) == 0 &&
	      has("--mtime=5") && has("--image-time=6"), "times");
	CHECK(run(NULL, "m", "d", "o", "-all-time", "-5", NULL) == 2, "bad time");
	CHECK(run(NULL, "m", "d", "o", "--verity-salt", NULL) == 2 &&
	      strstr(msg, "--verity-salt"), "--verity-salt without a value: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "--verity-frob", NULL) == 2 &&
	      strstr(msg, "--verity-frob"), "unknown --verity option: %s", msg);
}

/* sqpack's own --verity options reach the packer, values attached. */
static void verity(void)
{
	CHECK(run(NULL, "m", "d", "o", "--verity", "-noappend", "--verity-salt", "ab",
		  "--verity-block-size", "1K", "--verity-roothash", "o.roothash",
		  "--verity-no-superblock", NULL) == 0 &&
	      has("--verity") && has("--verity-salt=ab") && has("--verity-block-size=1K") &&
	      has("--verity-roothash=o.roothash") && has("--verity-no-superblock") &&
	      has("--force") && tail_is("o", "d", NULL), "--verity options: %s", msg);
	CHECK(run(NULL, "m", "d", "o", "--verity=o.hash", NULL) == 0 && has("--verity=o.hash"),
	      "--verity=FILE");
	CHECK(run(NULL, "m", "o", "-tar", "--verity", NULL) == 0 && has("--verity") &&
	      strcmp(args.argv.v[0], "tar2img") == 0, "--verity with -tar");
}

static void ownership_and_flags(void)
{
	CHECK(run(NULL, "m", "d", "o", "-all-root", "-force-uid", "5", NULL) == 0 &&
	      has("--uid=5") && has("--gid=0"), "-all-root then -force-uid");
	CHECK(run(NULL, "m", "d", "o", "-force-uid", "root", "-force-gid", "root", NULL) == 0 &&
	      has("--uid=0") && has("--gid=0"), "names");
	CHECK(run(NULL, "m", "d", "o", "-force-uid", "no-such-user-xyz", NULL) == 2,
	      "unknown user");
	CHECK(run(NULL, "m", "d", "o", "-noI", "-noDataCompression", "-noX", NULL) == 0 &&
	      has("--uncompressed=inodes,data,xattrs"), "-noI -noD -noX");
	CHECK(run(NULL, "m", "d", "o", "-always-use-fragments", "-no-fragments", NULL) == 0 &&
	      has("--no-fragments") && !has("--always-fragments"), "-no-fragments wins");
	CHECK(run(NULL, "m", "d", "o", "-tailends", "-no-exports", "-nopad", NULL) == 0 &&
	      has("--always-fragments") && !has("--exportable") && has("--no-pad"), "flags");
	CHECK(run(NULL, "m", "d", "o", "-o", "4K", NULL) == 0 && has("--offset=4096"), "-o 4K");
	CHECK(run(NULL, "m", "d", "o", "-p", "dev/null c 666 0 0 1 3", "-pf", "defs",
		  "-sort", "s.txt", NULL) == 0 && has("--spec-line=dev/null c 666 0 0 1 3") &&
	      has("--spec=defs") && has("--sort=s.txt"), "-p -pf -sort");
	CHECK(run(NULL, "m", "d", "o", "-quiet", "-info", "-progress", "-mem", "1G",
		  "-no-recovery", "-reproducible", NULL) == 0 && has("--quiet") &&
	      has("--verbose") && has("--progress=auto") && has("--mem=1073741824"),
	      "runtime options");
	CHECK(run(NULL, "m", "d", "o", "-mem", "100K", NULL) == 2, "-mem under 1M");
}

static void root_dir(const char *tmp)
{
	char line[128];
	struct stat sb;

	snprintf(line, sizeof(line), "--spec-line=/ m 777 %u %u", (unsigned)getuid(),
		 (unsigned)getgid());
	CHECK(run(NULL, "m", "a", "b", "o", NULL) == 0 && has(line),
	      "several sources: mksquashfs's own root, 0777");
	CHECK(run(NULL, "m", "a", "b", "o", "-all-root", NULL) == 0 &&
	      has("--spec-line=/ m 777 0 0"), "its owner follows -all-root");
	snprintf(line, sizeof(line), "--spec-line=/ M 100 777 %u %u", (unsigned)getuid(),
		 (unsigned)getgid());
	CHECK(run("100", "m", "o", "-tar", NULL) == 0 && has(line),
	      "-tar root at SOURCE_DATE_EPOCH");
	CHECK(run(NULL, "m", tmp, "o", NULL) == 0 && count_prefix("--spec-line") == 0,
	      "one source: its own root");
	CHECK(stat(tmp, &sb) == 0, "stat");
	snprintf(line, sizeof(line), "--spec-line=/ M 5 755 %u 7", (unsigned)sb.st_uid);
	CHECK(run(NULL, "m", tmp, "o", "-root-mode", "0755", "-root-gid", "7",
		  "-root-time", "5", NULL) == 0 && has(line), "-root-mode -root-gid -root-time");
	CHECK(run(NULL, "m", tmp, "o", "-root-mode", "9", NULL) == 2, "-root-mode 9");
	/* mksquashfs's root time: SOURCE_DATE_EPOCH clamps -root-time,
	 * -all-time overrides it, and times a root of its own */
	snprintf(line, sizeof(line), "--spec-line=/ M 5 %o %u %u", (unsigned)(sb.st_mode & 07777),
		 (unsigned)sb.st_uid, (unsigned)sb.st_gid);
	CHECK(run("100", "m", tmp, "o", "-root-time", "5", NULL) == 0 && has(line),
	      "SDE and an older -root-time");
	snprintf(line, sizeof(line), "--spec-line=/ M 100 %o %u %u", (unsigned)(sb.st_mode & 07777),
		 (unsigned)sb.st_uid, (unsigned)sb.st_gid);
	CHECK(run("100", "m", tmp, "o", "-root-time", "200", NULL) == 0 && has(line),
	      "SDE clamps a newer -root-time");
	snprintf(line, sizeof(line), "--spec-line=/ M 9 %o %u %u", (unsigned)(sb.st_mode & 07777),
		 (unsigned)sb.st_uid, (unsigned)sb.st_gid);
	CHECK(run(NULL, "m", tmp, "o", "-root-time", "5", "-all-time", "9", NULL) == 0 &&
	      has(line), "-all-time overrides -root-time");
	snprintf(line, sizeof(line), "--spec-line=/ M 9 777 %u %u", (unsigned)getuid(),
		 (unsigned)getgid());
	CHECK(run(NULL, "m", "a", "b", "o", "-all-time", "9", NULL) == 0 && has(line),
	      "-all-time times a root of its own");
}

static void excludes(const char *tmp)
{
	char src[512], sub[600], ef[600];
	FILE *f;

	/* -e takes every later argument, options included */
	CHECK(run(NULL, "m", "d", "o", "-e", "boot", "-comp", "a*b/[x]", NULL) == 0 &&
	      has("--exclude=[/b]oot") && has("--exclude=[/-]comp") &&
	      has("--exclude=a\\*b/\\[x]") && has("--compressor=gzip"), "-e swallows");
	CHECK(run(NULL, "m", "s1/", "dir/s2", "o", "-e", "etc//x/", NULL) == 0 &&
	      has("--exclude=s1/etc/x") && has("--exclude=s2/etc/x") &&
	      count_prefix("--exclude=") == 2, "one per source");
	CHECK(run(NULL, "m", "d", "o", "-wildcards", "-e", "*.md", "... *.o", "... a/b*",
		  NULL) == 0 && has("--exclude=[!/.]*.md") && has("--exclude=*.o") &&
	      has("--exclude=**/a/b*"), "wildcards");
	/* top-level names get a '/' that matches nothing, to stay rooted */
	CHECK(run(NULL, "m", "d", "o", "-wildcards", "-e", "*foo", "?x", "[ab]c", "[!]a]b",
		  NULL) == 0 && has("--exclude=[!/.]*foo") && has("--exclude=[/f]oo") &&
	      has("--exclude=[!/.]x") && has("--exclude=[/ab]c") &&
	      has("--exclude=[!]/a]b") && count_prefix("--exclude=") == 5, "rooted globs");
	CHECK(run(NULL, "m", "d", "o", "-e", "]x", "\\y", "[z", NULL) == 0 &&
	      has("--exclude=[]/]x") && has("--exclude=[/\\\\]y") && has("--exclude=[/[]z"),
	      "rooted odd names");
	snprintf(src, sizeof(src), "%s/src", tmp);
	snprintf(sub, sizeof(sub), "%s/src/sub", tmp);
	CHECK(mkdir(src, 0755) == 0 && mkdir(sub, 0755) == 0, "mkdir");
	CHECK(run(NULL, "m", src, "o", "-e", sub, NULL) == 0 && has("--exclude=[/s]ub"),
	      "absolute path inside the source");
	CHECK(run(NULL, "m", src, "o", "-e", "/nonexistent/x", NULL) == 0 &&
	      count_prefix("--exclude=") == 0, "absolute path outside");
	snprintf(ef, sizeof(ef), "%s/ef", tmp);
	f = fopen(ef, "w");
	CHECK(f != NULL, "fopen");
	if (f != NULL) {
		fputs("# comment\n\n  var/cache\nusr/*.a\nend  \n", f);
		fclose(f);
	}
	CHECK(run(NULL, "m", src, "o", "-ef", ef, NULL) == 0 && count_prefix("--exclude=") == 3 &&
	      has("--exclude=var/cache") && has("--exclude=[/e]nd  ") && has("--exclude=usr/\\*.a"), "-ef exact");
	CHECK(run(NULL, "m", src, "o", "-ef", ef, "-wildcards", NULL) == 0 &&
	      has("--exclude=usr/*.a"), "-ef with -wildcards after it");
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
	char pf[256];
	FILE *f;

	base_in = &b;
	CHECK(run(NULL, "m", "a", "etc", "o", "-comp", "gzip", "-b", "4K",
		  "-Xcompression-level", "1", "-noI", "-no-duplicates", "-exports",
		  "-root-becomes", "nix", NULL) == 0, "%s", msg);
	CHECK(has("--compressor=xz") && has("--block-size=1048576") && has("--force") &&
	      !has("--exportable") && count_prefix("--comp-opt") == 0 &&
	      count_prefix("--uncompressed") == 0 && !has("--no-dedup"),
	      "the image decides codec, block size, exports");
	CHECK(tail_is("o", "a", "/stage/etc_1"), "a renamed source's link packed");
	CHECK(args.root_becomes != NULL && strcmp(args.root_becomes, "nix") == 0,
	      "-root-becomes");
	CHECK(run(NULL, "m", "d", "o", "-p", "/etc/x d 755 0 0", "-p", "\"nix\"/y d 755 0 0",
		  "-p", "new d 755 0 0", NULL) == 0 && count_prefix("--spec-line=") == 1 &&
	      has("--spec-line=new d 755 0 0") && args.warn.n == 2,
	      "-p lines on the image's names dropped and told");
	snprintf(pf, sizeof(pf), "%s/pf", tmp);
	f = fopen(pf, "w");
	CHECK(f != NULL, "fopen");
	if (f != NULL) {
		fputs("# mount points\n/etc/a d 755 0 0\ndev d 755 0 0\n", f);
		fclose(f);
	}
	CHECK(run(NULL, "m", "d", "o", "-pf", pf, NULL) == 0 && count_prefix("--spec=") == 0 &&
	      has("--spec-line=dev d 755 0 0") && !has("--spec-line=/etc/a d 755 0 0") &&
	      args.warn.n == 1, "-pf lines on the image's names dropped and told");
	CHECK(run(NULL, "m", "d", "o", "-no-xattrs", NULL) == 0 && !has("--no-xattrs"),
	      "-no-xattrs ignored: the image stores xattrs");
	b.no_xattrs = 1;
	CHECK(run(NULL, "m", "d", "o", "-no-xattrs", NULL) == 0 && has("--no-xattrs"),
	      "-no-xattrs taken: the image stores none");
	base_in = NULL;
	CHECK(run(NULL, "m", "d", "o", "-p", "/etc/x d 755 0 0", "-root-becomes", "x",
		  NULL) == 0 && has("--spec-line=/etc/x d 755 0 0") && args.warn.n == 0,
	      "a new image: -p lines all taken, -root-becomes ignored");
	unlink(pf);
}

int main(void)
{
	char tmp[] = "/tmp/mksq-translate.XXXXXX";

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
