/* SPDX-License-Identifier: MIT */
/*
 * outside.c - a program as a user of the library writes it: only
 * <sqpack/sqpack.h>, built with nothing but what `pkg-config sqpack`
 * (or `--static`) says. It packs one file into IMAGE, opens the image
 * again and reads the file back; exit 0 only when the bytes match. It
 * prints the library's version and the headers' (outside.sh compares).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqpack/sqpack.h>

static const char text[] = "packed and read back by a program outside sqpack\n";

static int feed(void *user, void *buf, size_t n)
{
	size_t *done = user;

	if (*done + n > sizeof(text) - 1)
		return SQP_ERR_TRUNCATED;
	memcpy(buf, text + *done, n);
	*done += n;
	return 0;
}

static int pack(const char *path)
{
	struct sqp_writer_desc desc = { .struct_size = sizeof(desc), .jobs = 2, .mod_time = 1 };
	struct sqp_writer *w = NULL;
	struct sqp_entry e;
	size_t done = 0;
	struct sqp_data_source src = { .read = feed, .user = &done };
	int ret;

	desc.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (desc.fd < 0) {
		perror(path);
		return 1;
	}
	ret = sqp_codec_config_init(&desc.codec, SQP_CODEC_GZIP, 131072);
	if (ret == 0)
		ret = sqp_writer_create(&desc, &w);
	memset(&e, 0, sizeof(e));
	e.struct_size = sizeof(e);
	e.path = "dir/file";
	e.mode = S_IFREG | 0644;
	e.size = sizeof(text) - 1;
	if (ret == 0)
		ret = sqp_writer_add(w, &e, &src);
	if (ret == 0)
		ret = sqp_writer_finish(w);
	if (ret != 0)
		fprintf(stderr, "outside: packing %s: %s\n", path,
			w ? sqp_writer_error(w) : sqp_strerror(ret));
	sqp_writer_destroy(w);
	close(desc.fd);
	return ret != 0;
}

static int read_back(const char *path)
{
	struct sqp_image_desc desc = { .struct_size = sizeof(desc), .name = path };
	struct sqp_image *img = NULL;
	struct sqp_file *f = NULL;
	char buf[sizeof(text)] = "";
	uint64_t ref;
	size_t got = 0;
	int ret;

	desc.fd = open(path, O_RDONLY);
	if (desc.fd < 0) {
		perror(path);
		return 1;
	}
	ret = sqp_image_create(&desc, &img);
	if (ret == 0)
		ret = sqp_image_lookup(img, "dir/file", &ref);
	if (ret == 0)
		ret = sqp_file_open(img, ref, &f);
	if (ret == 0)
		ret = sqp_file_pread(f, buf, sizeof(text) - 1, 0, &got);
	if (ret < 0)
		fprintf(stderr, "outside: reading %s: %s\n", path,
			img ? sqp_image_error(img) : sqp_strerror(ret));
	sqp_file_close(f);
	sqp_image_destroy(img);
	close(desc.fd);
	if (ret < 0)
		return 1;
	if (got != sizeof(text) - 1 || memcmp(buf, text, got) != 0) {
		fprintf(stderr, "outside: %s: dir/file reads back different bytes\n", path);
		return 1;
	}
	printf("outside: sqpack %s (headers %s, number %d) packed and read %s\n",
	       sqp_version(), SQPACK_VERSION_STRING, SQPACK_VERSION_NUMBER, path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: outside IMAGE\n");
		return 2;
	}
	return pack(argv[1]) || read_back(argv[1]);
}
