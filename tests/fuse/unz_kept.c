/* SPDX-License-Identifier: MIT */
/*
 * unz_kept.c - unz_kept IMAGE N: the files f1 .. fN in the root of the
 * EROFS lzma image IMAGE (each one extent of at least 256 KiB) read
 * whole one after the other through one image, each opened and closed,
 * as a pool image of sqpack-fuse reads the files its requests name.
 * The image keeps its decoders: the files after the first must fault
 * in few fresh pages. Kept a file each, lzma's 8 MiB dictionary was
 * mapped again for each file (malloc's threshold fixed at 2 MiB, as
 * sqpack-fuse fixes it) and every page the decoder wrote faulted in:
 * 64 a file of 256 KiB. Exit 0, or 1 with the reasons on stderr.
 */
#include "config.h"

#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "sqpack/reader.h"

#define FILE_MIN (256u << 10)

static long faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

/* fNAME read whole through img: 0, or 1 with the reason on stderr. */
static int read_one(struct sqp_image *img, unsigned i, uint8_t *buf,
		    size_t cap)
{
	struct sqp_file *f;
	uint64_t ref;
	size_t got = 0;
	char path[32];
	int ret;

	snprintf(path, sizeof(path), "f%u", i);
	if ((ret = sqp_image_lookup(img, path, &ref)) != 0 ||
	    (ret = sqp_file_open(img, ref, &f)) != 0) {
		fprintf(stderr, "unz_kept: %s: %s\n", path,
			sqp_image_error(img));
		return 1;
	}
	ret = sqp_file_pread(f, buf, cap, 0, &got);
	sqp_file_close(f);
	if (ret != 0 || got < FILE_MIN) {
		fprintf(stderr, "unz_kept: %s: read %zu bytes: %s\n", path,
			got, sqp_image_error(img));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d) };
	struct sqp_image *img;
	size_t cap = 4u << 20;
	uint8_t *buf;
	unsigned n;
	long before, took;
	int bad = 0;

	if (argc != 3 || (n = (unsigned)atoi(argv[2])) < 2) {
		fprintf(stderr, "usage: unz_kept IMAGE N\n");
		return 1;
	}
	mallopt(M_MMAP_THRESHOLD, 2 << 20);
	if ((d.fd = open(argv[1], O_RDONLY)) < 0 ||
	    sqp_image_create(&d, &img) != 0 || (buf = malloc(cap)) == NULL) {
		fprintf(stderr, "unz_kept: %s: cannot open\n", argv[1]);
		return 1;
	}
	for (size_t i = 0; i < cap; i += 4096)
		buf[i] = 0;
	bad |= read_one(img, 1, buf, cap);
	before = faults();
	for (unsigned i = 2; i <= n && !bad; i++)
		bad |= read_one(img, i, buf, cap);
	took = faults() - before;
	/* A quarter of a fresh dictionary's pages a file. */
	if (!bad && took > (long)(n - 1) * (FILE_MIN / 4096) / 4) {
		fprintf(stderr, "unz_kept: %ld page faults reading %u files "
			"of 256 KiB after the first\n", took, n - 1);
		bad = 1;
	}
	free(buf);
	sqp_image_destroy(img);
	close(d.fd);
	return bad;
}
