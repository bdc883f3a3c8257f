/* SPDX-License-Identifier: MIT */
/*
 * error_edge.c - the one error rule at the library's edge
 * (doc/contributing.md): when a call fails because another object under
 * it failed, the object called holds that object's message. Three such
 * calls: sqp_writer_add_tar (the tar reader fails), sqp_dirscan_feed
 * (the writer fails) and sqp_image_to_tar (the tar writer fails).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "../unit/check.h"

static char dir[] = "/tmp/sqp-error-edge.XXXXXX";
static char path[sizeof(dir) + 32];

static const char *at(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* 1 when inner is a message (not empty) and outer contains it. */
static int carries(const char *outer, const char *inner)
{
	return inner[0] != '\0' && strstr(outer, inner) != NULL;
}

static struct sqp_writer *writer(int fd)
{
	struct sqp_writer_desc d = { .struct_size = sizeof(d), .fd = fd, .jobs = 1 };
	struct sqp_writer *w = NULL;

	if (sqp_codec_config_init(&d.codec, SQP_CODEC_GZIP, 4096) != 0 ||
	    sqp_writer_create(&d, &w) != 0) {
		sqp_writer_destroy(w);
		return NULL;
	}
	return w;
}

static int zeros(void *user, void *buf, size_t n)
{
	(void)user;
	memset(buf, 0, n);
	return 0;
}

/* A header block whose checksum is wrong: the tar reader refuses it. */
static void add_tar(void)
{
	struct sqp_tar_reader_desc rd = { .struct_size = sizeof(rd), .name = "bad.tar" };
	struct sqp_tar_reader *r = NULL;
	struct sqp_writer *w;
	char block[512];
	int fd = open(at("bad.tar"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	int img = open(at("a.img"), O_RDWR | O_CREAT | O_TRUNC, 0644);

	memset(block, 'x', sizeof(block));
	CHECK(fd >= 0 && img >= 0 && write(fd, block, sizeof(block)) == (ssize_t)sizeof(block) &&
	      lseek(fd, 0, SEEK_SET) == 0, "setting up the tar");
	rd.fd = fd;
	w = writer(img);
	CHECK(w != NULL && sqp_tar_reader_create(&rd, &r) == 0, "tar reader and writer");
	if (w != NULL && r != NULL) {
		CHECK(sqp_writer_add_tar(w, r) < 0, "a bad tar fails");
		CHECK(carries(sqp_writer_error(w), sqp_tar_reader_error(r)),
		      "the writer carries the tar reader's message: '%s' / '%s'",
		      sqp_writer_error(w), sqp_tar_reader_error(r));
	}
	sqp_tar_reader_destroy(r);
	sqp_writer_destroy(w);
	close(fd);
	close(img);
}

/* A writer already finished refuses the scan's entries. */
static void dirscan_feed(void)
{
	char tree[sizeof(path)];
	const char *dirs[] = { tree };
	struct sqp_dirscan_desc sd = { .dirs = dirs, .dir_count = 1, .readers = 1 };
	struct sqp_dirscan *s = NULL;
	struct sqp_writer *w;
	int img = open(at("b.img"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	int ret;

	snprintf(tree, sizeof(tree), "%s", at("tree"));
	CHECK(mkdir(tree, 0755) == 0 && img >= 0, "setting up the tree");
	w = writer(img);
	CHECK(w != NULL && sqp_writer_finish(w) == 0, "an empty image");
	ret = sqp_dirscan_create(&sd, &s);
	CHECK(ret == 0, "scanning: %s", s ? sqp_dirscan_error(s) : sqp_strerror(ret));
	if (w != NULL && ret == 0) {
		CHECK(sqp_dirscan_feed(s, w) == SQP_ERR_SEQUENCE, "feeding a finished writer fails");
		CHECK(carries(sqp_dirscan_error(s), sqp_writer_error(w)),
		      "the scan carries the writer's message: '%s' / '%s'",
		      sqp_dirscan_error(s), sqp_writer_error(w));
	}
	sqp_dirscan_destroy(s);
	sqp_writer_destroy(w);
	rmdir(tree);
	close(img);
}

/* An image of one file, written as tar to /dev/full. */
static void image_to_tar(void)
{
	struct sqp_entry e = { .struct_size = sizeof(e), .path = "f",
			       .mode = S_IFREG | 0644, .size = 1 << 20 };
	struct sqp_data_source src = { .read = zeros };
	struct sqp_image_desc id = { .struct_size = sizeof(id), .name = "c.img" };
	struct sqp_tar_writer_desc td = { .struct_size = sizeof(td) };
	struct sqp_img2tar_desc xd = { .struct_size = sizeof(xd), .jobs = 1 };
	struct sqp_tar_writer *tw = NULL;
	struct sqp_image *im = NULL;
	struct sqp_writer *w;

	id.fd = open(at("c.img"), O_RDWR | O_CREAT | O_TRUNC, 0644);
	td.fd = open("/dev/full", O_WRONLY);
	w = writer(id.fd);
	CHECK(w != NULL && td.fd >= 0 && sqp_writer_add(w, &e, &src) == 0 &&
	      sqp_writer_finish(w) == 0, "an image of one file");
	CHECK(sqp_image_create(&id, &im) == 0 && sqp_tar_writer_create(&td, &tw) == 0,
	      "image and tar writer");
	if (im != NULL && tw != NULL) {
		CHECK(sqp_image_to_tar(im, tw, &xd) == SQP_ERR_NO_SPACE,
		      "writing to /dev/full fails: %s", sqp_image_error(im));
		CHECK(carries(sqp_image_error(im), sqp_tar_writer_error(tw)),
		      "the image carries the tar writer's message: '%s' / '%s'",
		      sqp_image_error(im), sqp_tar_writer_error(tw));
	}
	sqp_tar_writer_destroy(tw);
	sqp_image_destroy(im);
	sqp_writer_destroy(w);
	close(id.fd);
	close(td.fd);
}

int main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 99;
	}
	add_tar();
	dirscan_feed();
	image_to_tar();
	unlink(at("bad.tar"));
	unlink(at("a.img"));
	unlink(at("b.img"));
	unlink(at("c.img"));
	rmdir(dir);
	return check_done();
}
