/* SPDX-License-Identifier: MIT */
/*
 * fuzz_check.c - libFuzzer harness for the checker and for img2dir: the
 * input image is checked (sqp_image_check: every table, inode, listing,
 * index and block), then extracted into a fresh directory below a
 * private temporary one (img2dir's walk, its descriptor-relative
 * creation and name checks), which is removed afterwards. An entry
 * appearing next to the extraction directory would be an escape: the
 * harness aborts on it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char parent[] = "/tmp/fuzz_check.XXXXXX";
static int parent_made;

/* At exit: the parent, empty by then (each input's target is removed). */
static void remove_parent(void)
{
	rmdir(parent);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* The parent holds only "x": nothing was made beside the target. */
static void check_parent(void)
{
	DIR *d = opendir(parent);
	struct dirent *e;

	if (d == NULL)
		abort();
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
		    strcmp(e->d_name, "x") != 0)
			abort();
	closedir(d);
}

static void extract(int fd)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .fd = fd, .name = "fuzz" };
	struct sqp_img2dir_desc x = { .struct_size = sizeof(x),
		.jobs = 1, .flags = SQP_IMG2DIR_NO_OWNER };
	struct sqp_image *img = NULL;
	char target[sizeof(parent) + 2];
	int dir;

	snprintf(target, sizeof(target), "%s/x", parent);
	if (mkdir(target, 0700) != 0 || (dir = open(target, O_RDONLY |
						    O_DIRECTORY)) < 0)
		abort();
	if (sqp_image_create(&d, &img) == 0)
		sqp_image_to_dir(img, dir, &x);
	sqp_image_destroy(img);
	close(dir);
	check_parent();
	nftw(target, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqp_check_desc c = { .name = "fuzz", .jobs = 1 };
	int fd = memfd_create("img", 0);

	/* Made once per process. Whether the template still ends in 'X'
	 * cannot say so: mkdtemp's random suffix ends in 'X' one time in
	 * 62, and a second mkdtemp on it failed (an abort in 1 replay run
	 * in about 60). */
	if (!parent_made) {
		if (mkdtemp(parent) == NULL)
			abort();
		parent_made = 1;
		atexit(remove_parent);
	}
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		c.fd = fd;
		sqp_image_check(&c, NULL);
		extract(fd);
	}
	close(fd);
	return 0;
}
