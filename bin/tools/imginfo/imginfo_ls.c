/* SPDX-License-Identifier: MIT */
/*
 * imginfo_ls.c - `imginfo ls [-l] [-R] IMAGE [PATH...]` and `imginfo cat
 * IMAGE PATH...`: list entries the way ls -l does (mode string, owner,
 * size or device numbers, mtime, path, symlink target) and write files'
 * contents to stdout.
 *
 * Paths are printed whole, from the image's root ("/usr/bin/ls"), so a
 * recursive listing is one line per entry that scripts can cut. Both
 * stream: ls through the walk, cat a chunk at a time; names and targets
 * from the image are escaped.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imginfo.h"
#include "sqpack/inspect.h"
#include "../common/tool_mode.h"

#define CAT_CHUNK (128u * 1024)

struct ls_opts {
	int lng, recursive;
};

static void print_path(const char *path)
{
	putchar('/');
	imginfo_escape(stdout, path, strlen(path), 0);
}

static int print_long(struct sqp_image *img, const struct sqp_walk_entry *e)
{
	const struct sqp_inode_info *in = &e->info;
	char mode[11], when[64], size[48], owner[32];
	char target[4096];
	int len;

	tool_mode_string(in->mode, mode);
	imginfo_time(in->mtime, when, sizeof(when));
	snprintf(owner, sizeof(owner), "%u/%u", (unsigned)in->uid,
		 (unsigned)in->gid);
	if (S_ISCHR(in->mode) || S_ISBLK(in->mode))
		snprintf(size, sizeof(size), "%u,%u", (unsigned)in->dev_major,
			 (unsigned)in->dev_minor);
	else
		snprintf(size, sizeof(size), "%llu", (unsigned long long)imginfo_size(in));
	printf("%s %-11s %10s %s ", mode, owner, size, when);
	print_path(e->path);
	if (S_ISLNK(in->mode)) {
		len = sqp_image_readlink(img, in->ref, target, sizeof(target));
		if (len < 0)
			return imginfo_fail(e->path, imginfo_why(img, len));
		fputs(" -> ", stdout);
		imginfo_escape(stdout, target, strlen(target), 0);
		if ((size_t)len >= sizeof(target))
			fputs("...", stdout);
	}
	putchar('\n');
	return 0;
}

/* List one PATH: the entry itself unless it is a directory listed
 * without -R, then what lies below it. */
static int ls_one(struct sqp_image *img, const char *name, const char *path,
		  const struct ls_opts *o)
{
	struct sqp_walk_desc wd = { .struct_size = sizeof(wd), .img = img, .path = path,
				    .max_depth = o->recursive ? 0 : 1 };
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	struct sqp_walk *w;
	int ret;

	ret = sqp_walk_create(&wd, &w);
	if (ret != 0) {
		fprintf(stderr, "imginfo: %s: %s\n", name,
			w != NULL ? sqp_walk_error(w) : sqp_strerror(ret));
		sqp_walk_destroy(w);
		return 1;
	}
	while ((ret = sqp_walk_next(w, &e)) == 1) {
		if (e.depth == 0 && !o->recursive && S_ISDIR(e.info.mode))
			continue;
		if (o->lng) {
			if (print_long(img, &e) != 0)
				break;
		} else {
			print_path(e.path);
			putchar('\n');
		}
	}
	if (ret < 0)
		imginfo_fail(name, sqp_walk_error(w));
	sqp_walk_destroy(w);
	return ret != 0 ? 1 : 0;
}

static int ls_opt(void *user, int c, const char *arg)
{
	struct ls_opts *o = user;

	(void)arg;
	if (c == 'l')
		o->lng = 1;
	else if (c == 'R')
		o->recursive = 1;
	return 0;
}

int imginfo_ls_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "long", no_argument, NULL, 'l' },
		{ "recursive", no_argument, NULL, 'R' },
		TOOL_LONG_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct ls_opts o = { 0, 0 };
	struct tool_args a = { .prog = "imginfo", .cmd = "ls",
		.shorts = ":lRh", .longs = longs,
		.help = "Usage: imginfo ls [-l] [-R] IMAGE [PATH...]\n"
			"List the entries of the directories PATH (default: "
			"the root).\n  -l, --long       mode, owner, size, "
			"mtime, symlink target\n  -R, --recursive  "
			"everything below PATH, PATH included\n",
		.own = ls_opt, .user = &o };
	struct sqp_image *img;
	int fd, ret, status = 0;

	ret = tool_args_parse(&a, argc, argv);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (optind >= argc)
		return imginfo_bad_usage("%s", "ls: missing IMAGE");
	if (imginfo_open(argv[optind], &img, &fd) != 0)
		return 1;
	if (optind + 1 == argc)
		status = ls_one(img, argv[optind], "", &o);
	for (int i = optind + 1; i < argc; i++)
		status |= ls_one(img, argv[optind], argv[i], &o);
	imginfo_close(img, fd);
	return imginfo_flush() | status;
}

/* Write one file to stdout; 0 or 1 after a message. */
static int cat_one(struct sqp_image *img, const char *path, int n, void *user)
{
	uint8_t *buf = user;
	struct sqp_file *f;
	uint64_t ref, off = 0;
	size_t got;
	int ret;

	(void)n;
	ret = sqp_image_lookup(img, path, &ref);
	if (ret == 0)
		ret = sqp_file_open(img, ref, &f);
	if (ret == SQP_ERR_NOT_FOUND)
		return imginfo_fail(path, "no such entry");
	if (ret == SQP_ERR_ARG)
		return imginfo_fail(path, "not a regular file");
	if (ret != 0)
		return imginfo_fail(path, imginfo_why(img, ret));
	do {
		ret = sqp_file_pread(f, buf, CAT_CHUNK, off, &got);
		if (ret == 0 && fwrite(buf, 1, got, stdout) != got) {
			sqp_file_close(f);
			return imginfo_fail("standard output", strerror(errno));
		}
		off += got;
	} while (ret == 0 && got > 0);
	sqp_file_close(f);
	return ret != 0 ? imginfo_fail(path, imginfo_why(img, ret)) : 0;
}

int imginfo_cat_main(int argc, char **argv)
{
	uint8_t *buf = malloc(CAT_CHUNK);
	int ret;

	if (buf == NULL)
		return imginfo_fail("cat", strerror(ENOMEM));
	ret = imginfo_each_path(argc, argv, "Usage: imginfo cat IMAGE PATH...\n"
				"Write the files PATH... to standard output.\n",
				cat_one, buf);
	free(buf);
	return ret;
}
