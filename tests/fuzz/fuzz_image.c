/* SPDX-License-Identifier: MIT */
/*
 * fuzz_image.c - libFuzzer harness for the image reader through img2tar's
 * code path: superblock, tables, inodes, directories, xattrs and file
 * data, converted to a tar written to /dev/null.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sqpack/sqpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = "fuzz" };
	struct sqp_img2tar_desc x = { .struct_size = sizeof(x), .jobs = 1 };
	struct sqp_tar_writer_desc td = { .struct_size = sizeof(td) };
	struct sqp_image *img = NULL;
	struct sqp_tar_writer *tw = NULL;
	int fd = memfd_create("img", 0), null_fd = open("/dev/null", O_WRONLY);

	if (fd < 0 || null_fd < 0)
		goto out;
	if (write(fd, data, size) != (ssize_t)size)
		goto out;
	d.fd = fd;
	td.fd = null_fd;
	if (sqp_image_create(&d, &img) != 0 ||
	    sqp_tar_writer_create(&td, &tw) != 0)
		goto out;
	if (sqp_image_to_tar(img, tw, &x) == 0)
		sqp_tar_writer_finish(tw);
out:
	sqp_tar_writer_destroy(tw);
	sqp_image_destroy(img);
	if (fd >= 0)
		close(fd);
	if (null_fd >= 0)
		close(null_fd);
	return 0;
}
