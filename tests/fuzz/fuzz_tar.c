/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tar.c - libFuzzer harness for the tar reader: headers, pax
 * records, GNU long names and sparse maps, and (through the magic-byte
 * detection) each compressed-input decoder. Every entry's data is read
 * to the end, holes skipped whole as tar2img does.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[65536];
	struct sqp_tar_reader_desc d = { .struct_size = sizeof(d), .name = "fuzz" };
	struct sqp_tar_reader *r = NULL;
	const struct sqp_entry *e;
	int fd = memfd_create("tar", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0)
		goto out;
	d.fd = fd;
	if (sqp_tar_reader_create(&d, &r) != 0)
		goto out;
	while (sqp_tar_next(r, &e) == 1) {
		struct sqp_data_source src = sqp_tar_data(r);
		uint64_t left = S_ISREG(e->mode) && !e->is_hardlink ? e->size : 0;

		while (left > 0) {
			uint64_t hole = src.hole ? src.hole(src.user) : 0;
			size_t n = left > sizeof(buf) ? sizeof(buf) : (size_t)left;

			/* a hole is skipped whole: its size costs nothing, as
			 * in tar2img, so a huge sparse file is no timeout */
			if (hole > 0) {
				hole = hole < left ? hole : left;
				if (src.skip(src.user, hole) != 0)
					break;
				left -= hole;
				continue;
			}
			if (src.read(src.user, buf, n) != 0)
				break;
			left -= n;
		}
		if (left > 0)
			break;
	}
out:
	sqp_tar_reader_destroy(r);
	close(fd);
	return 0;
}
