/* SPDX-License-Identifier: MIT */
/*
 * old_binary.c - a program of another release against this library: the
 * size rule of the public structs (doc/contributing.md) seen from the
 * caller's side. tests/abi/old_binary.sh builds it against the headers as
 * they are, to run with a library whose structs grew (an old binary), and
 * with -DGROWN against headers whose structs grew, to run with the
 * library as built (a new binary on an older library).
 *
 * It packs a small image with the writer and reads it back; every struct
 * the library fills sits before guard bytes that must survive the call,
 * since a library that wrote its own, larger size would overrun the
 * caller's struct. With GROWN, the members the library does not know
 * must come back zero, and a non-zero one must be refused.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqpack/sqpack.h>

#define GUARD 32
static int failed;

static void expect(int ok, const char *what)
{
	printf("%s: %s\n", ok ? "ok" : "FAIL", what);
	failed |= !ok;
}

/* A struct the library fills, followed by GUARD bytes of 0xa5. */
static void *guarded(unsigned char *buf, size_t size)
{
	memset(buf, 0xa5, size + GUARD);
	memcpy(buf, &size, sizeof(size));
	return buf;
}

static int guard_intact(const unsigned char *buf, size_t size)
{
	for (size_t i = size; i < size + GUARD; i++)
		if (buf[i] != 0xa5)
			return 0;
	return 1;
}

static int feed(void *user, void *buf, size_t n)
{
	memset(buf, 'x', n);
	(void)user;
	return 0;
}

static int pack(const char *path)
{
	struct sqp_writer_desc d = { .struct_size = sizeof(d), .jobs = 1, .mod_time = 7 };
	struct sqp_entry e = { .struct_size = sizeof(e), .path = "a/file",
			       .mode = S_IFREG | 0644, .size = 5000 };
	struct sqp_data_source src = { .read = feed };
	unsigned char sbuf[sizeof(struct sqp_writer_stats) + GUARD];
	struct sqp_writer_stats *st = guarded(sbuf, sizeof(*st));
	struct sqp_writer *w = NULL;
	int ret;

	d.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ret = d.fd < 0 ? SQP_ERR_IO : sqp_codec_config_init(&d.codec, SQP_CODEC_GZIP, 4096);
	if (ret == 0)
		ret = sqp_writer_create(&d, &w);
	if (ret == 0)
		ret = sqp_writer_add(w, &e, &src);
	if (ret == 0)
		ret = sqp_writer_finish(w);
	if (ret == 0)
		ret = sqp_writer_get_stats(w, st);
	if (ret != 0)
		fprintf(stderr, "packing: %s\n", w ? sqp_writer_error(w) : sqp_strerror(ret));
	expect(ret == 0, "the writer packs an image");
	expect(ret == 0 && st->bytes_in == 5000, "the writer's stats count the file's bytes");
	expect(guard_intact(sbuf, sizeof(*st)), "sqp_writer_get_stats stays inside the struct");
	sqp_writer_destroy(w);
	if (d.fd >= 0)
		close(d.fd);
	return ret;
}

static void read_back(int fd)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .fd = fd, .name = "old" };
	unsigned char ibuf[sizeof(struct sqp_image_info) + GUARD];
	unsigned char nbuf[sizeof(struct sqp_inode_info) + GUARD];
	struct sqp_image_info *ii = guarded(ibuf, sizeof(*ii));
	struct sqp_inode_info *in = guarded(nbuf, sizeof(*in));
	struct sqp_image *img = NULL;
	uint64_t ref = 0;
	int ret = sqp_image_create(&d, &img);

	if (ret == 0)
		ret = sqp_image_get_info(img, ii);
	expect(ret == 0 && ii->inode_count == 3 && ii->mod_time == 7,
	       "the image opens; its info says 3 inodes, time 7");
	expect(guard_intact(ibuf, sizeof(*ii)), "sqp_image_get_info stays inside the struct");
	if (ret == 0)
		ret = sqp_image_lookup(img, "a/file", &ref);
	if (ret == 0)
		ret = sqp_image_stat(img, ref, in);
	expect(ret == 0 && in->size == 5000, "sqp_image_stat: the file has its 5000 bytes");
	expect(guard_intact(nbuf, sizeof(*in)), "sqp_image_stat stays inside the struct");
#ifdef GROWN
	expect(ii->grown_out == 0, "a member the library lacks comes back zero");
#endif
	if (ret != 0)
		fprintf(stderr, "reading: %s\n", img ? sqp_image_error(img) : sqp_strerror(ret));
	sqp_image_destroy(img);
}

/* What the library refuses, with the message in the failed image. */
static void refusals(int fd)
{
	struct sqp_image_desc d = { .struct_size = 0, .fd = fd };
	struct sqp_image *img = NULL;
	int ret = sqp_image_create(&d, &img);

	expect(ret == SQP_ERR_ARG && img != NULL &&
	       strstr(sqp_image_error(img), "sqp_image_desc") != NULL,
	       "struct_size 0 is refused, and the image says which struct");
	sqp_image_destroy(img);
#ifdef GROWN
	d.struct_size = sizeof(d);
	d.grown_in = 1;
	img = NULL;
	ret = sqp_image_create(&d, &img);
	expect(ret == SQP_ERR_UNSUPPORTED && img != NULL &&
	       strstr(sqp_image_error(img), "sqp_image_desc") != NULL,
	       "a member the library lacks, set, is refused (SQP_ERR_UNSUPPORTED)");
	sqp_image_destroy(img);
#endif
}

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: old_binary IMAGE\n");
		return 2;
	}
	if (pack(argv[1]) != 0)
		return 1;
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	read_back(fd);
	refusals(fd);
	close(fd);
	return failed;
}
