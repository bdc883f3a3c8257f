/* SPDX-License-Identifier: MIT */
/*
 * fuzz_erofs.c - libFuzzer harness for the reader's EROFS side: the
 * input is an EROFS image (its magic at 1024 is put back whatever the
 * mutation did, so no run is spent failing detection), converted to a
 * tar written to /dev/null, then walked through the public API: every
 * entry stat'ed, its xattrs and symlink target read, and the first 64
 * KiB of every regular file read back; then checked (sqp_image_check),
 * which goes on past problems, so it reaches what the others stop at.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void to_tar(struct sqp_image *img)
{
	struct sqp_img2tar_desc x = { .struct_size = sizeof(x), .jobs = 1 };
	struct sqp_tar_writer_desc td = { .struct_size = sizeof(td) };
	struct sqp_tar_writer *tw = NULL;

	td.fd = open("/dev/null", O_WRONLY);
	if (td.fd >= 0 && sqp_tar_writer_create(&td, &tw) == 0 &&
	    sqp_image_to_tar(img, tw, &x) == 0)
		sqp_tar_writer_finish(tw);
	sqp_tar_writer_destroy(tw);
	if (td.fd >= 0)
		close(td.fd);
}

static void browse(struct sqp_image *img, const struct sqp_walk_entry *e,
		   uint8_t *buf)
{
	const struct sqp_xattr *xs;
	struct sqp_file *f = NULL;
	size_t n, got;
	char target[64];

	sqp_image_xattrs(img, e->info.ref, &xs, &n);
	if (S_ISLNK(e->info.mode))
		sqp_image_readlink(img, e->info.ref, target, sizeof(target));
	if (S_ISREG(e->info.mode) && sqp_file_open(img, e->info.ref, &f) == 0)
		sqp_file_pread(f, buf, 65536, 0, &got);
	sqp_file_close(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t magic[4] = { 0xE2, 0xE1, 0xF5, 0xE0 };
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = "fuzz" };
	struct sqp_walk_desc wd = { .struct_size = sizeof(wd) };
	struct sqp_check_desc cd = { 0 };
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	struct sqp_image *img = NULL;
	struct sqp_walk *w = NULL;
	uint8_t *copy = malloc(size + 1), *buf = malloc(65536);
	int fd = memfd_create("img", 0);

	if (fd < 0 || copy == NULL || buf == NULL || size < 1028)
		goto out;
	memcpy(copy, data, size);
	memcpy(copy + 1024, magic, sizeof(magic));
	if (write(fd, copy, size) != (ssize_t)size)
		goto out;
	d.fd = fd;
	if (sqp_image_create(&d, &img) != 0)
		goto out;
	to_tar(img);
	sqp_image_destroy(img);
	img = NULL;
	/* Afresh: the conversion may have latched an error. */
	if (sqp_image_create(&d, &img) != 0)
		goto out;
	wd.img = img;
	if (sqp_walk_create(&wd, &w) == 0)
		while (sqp_walk_next(w, &e) == 1)
			browse(img, &e, buf);
	cd.fd = fd;
	cd.name = "fuzz";
	cd.jobs = 1;
	sqp_image_check(&cd, NULL);
out:
	sqp_walk_destroy(w);
	sqp_image_destroy(img);
	free(copy);
	free(buf);
	if (fd >= 0)
		close(fd);
	return 0;
}
