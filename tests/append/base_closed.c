/* SPDX-License-Identifier: MIT */
/*
 * base_closed.c - sqp_writer_add_image's promise that the base image
 * need stay open only until the call returns. The workers copy (or
 * convert) the base's stored blocks later, until sqp_writer_finish, so
 * the writer must read them from a descriptor and a codec setting of
 * its own. Here the base is destroyed and its descriptor closed right
 * after the call, and the descriptor's number is taken again by
 * /dev/zero before finish: a writer that still read the caller's would
 * copy zeros (or, converting, read the freed image's codec).
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "../unit/check.h"

#define FILES 6
#define FILE_SIZE 300000u  /* two 128 KiB blocks and a tail */

struct gen {
	unsigned file;
	uint64_t off;
};

/* File i's byte at off: varied enough that gzip keeps the blocks. */
static uint8_t byte_of(unsigned i, uint64_t off)
{
	uint64_t x = (off / 3 + i * 977) * 2654435761u;

	return (uint8_t)(x >> 13) % 7 + 'a' + (uint8_t)(off % 5);
}

static int gen_read(void *user, void *buf, size_t n)
{
	struct gen *g = user;
	uint8_t *p = buf;

	for (size_t k = 0; k < n; k++)
		p[k] = byte_of(g->file, g->off++);
	return 0;
}

/* A writer of path (its descriptor in *fd, the caller's to close). */
static struct sqp_writer *writer(const char *path, int level, int *fd)
{
	struct sqp_writer_desc d = { .struct_size = sizeof(d), .jobs = 2, .mod_time = 1 };
	struct sqp_writer *w = NULL;

	d.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (d.fd < 0 || sqp_codec_config_init(&d.codec, SQP_CODEC_GZIP, 131072) != 0) {
		fprintf(stderr, "%s: cannot make it\n", path);
		exit(99);
	}
	if (level != 0)
		d.codec.level = level;
	*fd = d.fd;
	if (sqp_writer_create(&d, &w) != 0) {
		fprintf(stderr, "%s: cannot make a writer: %s\n", path,
			w ? sqp_writer_error(w) : "");
		exit(99);
	}
	return w;
}

static void make_base(const char *path)
{
	int fd, ret = 0;
	struct sqp_writer *w = writer(path, 0, &fd);

	for (unsigned i = 0; i < FILES && ret == 0; i++) {
		struct gen g = { .file = i };
		struct sqp_data_source src = { .read = gen_read, .user = &g };
		struct sqp_entry e = { .struct_size = sizeof(e), .mode = S_IFREG | 0644,
				       .mtime = 1, .size = FILE_SIZE };
		char name[16];

		snprintf(name, sizeof(name), "f%u", i);
		e.path = name;
		ret = sqp_writer_add(w, &e, &src);
	}
	if (ret != 0 || sqp_writer_finish(w) != 0) {
		fprintf(stderr, "%s: %s\n", path, sqp_writer_error(w));
		exit(99);
	}
	sqp_writer_destroy(w);
	close(fd);
}

/* Every file of the image at path reads as the generator made it. */
static int equal_files(const char *path)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = path };
	struct sqp_image *img = NULL;
	static uint8_t buf[FILE_SIZE];
	unsigned bad = 0;

	d.fd = open(path, O_RDONLY);
	if (d.fd < 0 || sqp_image_create(&d, &img) != 0)
		return 0;
	for (unsigned i = 0; i < FILES; i++) {
		struct sqp_file *f = NULL;
		uint64_t ref;
		size_t got = 0;
		char name[16];

		snprintf(name, sizeof(name), "f%u", i);
		if (sqp_image_lookup(img, name, &ref) != 0 || sqp_file_open(img, ref, &f) != 0 ||
		    sqp_file_pread(f, buf, FILE_SIZE, 0, &got) != 0 || got != FILE_SIZE) {
			bad++;
		} else {
			for (uint64_t k = 0; k < FILE_SIZE; k++)
				if (buf[k] != byte_of(i, k)) {
					bad++;
					break;
				}
		}
		sqp_file_close(f);
	}
	sqp_image_destroy(img);
	close(d.fd);
	return bad == 0;
}

/* base merged into out at level (the base's: blocks copied; another:
 * converted), the base gone before finish. */
static void merge_after_close(const char *base, const char *out, int level,
			      const char *what)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = base };
	int out_fd, zero, ret;
	struct sqp_writer *w = writer(out, level, &out_fd);
	struct sqp_image *img = NULL;

	d.fd = open(base, O_RDONLY);
	CHECK(d.fd >= 0 && sqp_image_create(&d, &img) == 0, "%s: the base opens", what);
	ret = sqp_writer_add_image(w, img, "", 0);
	CHECK(ret == 0, "%s: added: %s", what, sqp_writer_error(w));
	sqp_image_destroy(img);
	close(d.fd);
	/* the lowest free number: the one just closed */
	zero = open("/dev/zero", O_RDONLY);
	CHECK(zero == d.fd, "%s: /dev/zero took the base's descriptor number", what);
	ret = sqp_writer_finish(w);
	CHECK(ret == 0, "%s: finished: %s", what, sqp_writer_error(w));
	sqp_writer_destroy(w);
	close(out_fd);
	if (zero >= 0)
		close(zero);
	CHECK(equal_files(out), "%s: every file reads as the base's", what);
}

int main(void)
{
	const char *base = "base_closed.base.img", *out = "base_closed.out.img";

	make_base(base);
	CHECK(equal_files(base), "the base reads as written");
	merge_after_close(base, out, 0, "copied blocks");
	merge_after_close(base, out, 1, "converted blocks");
	unlink(base);
	unlink(out);
	return check_done();
}
