/* SPDX-License-Identifier: MIT */
/*
 * common_checks.c - what does not depend on the image format is refused
 * the same way for every format, before a back end sees it: a prefix that
 * is not a normalised relative path ("../evil" would put entries outside
 * the image's root), a missing output file, an unknown format or
 * fragment mode, an entry path or hard link target that is not
 * normalised, a rename that is not of one path component. Each refusal
 * must leave the output file empty.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "check.h"

static const char *const bad_paths[] = {
	"../evil", "..", ".", "/evil", "/", "a//b", "a/./b", "a/../b", "a/..",
	"a/", "./a", "a/.",
};
#define NBAD (sizeof(bad_paths) / sizeof(bad_paths[0]))

static const char *format_name(int format)
{
	return format == SQP_FORMAT_EROFS ? "EROFS" : "SquashFS";
}

static void base_desc(struct sqp_writer_desc *d, int format, int fd)
{
	memset(d, 0, sizeof(*d));
	d->struct_size = sizeof(*d);
	d->fd = fd;
	d->jobs = 1;
	d->format = format;
	d->mod_time = 1;
	/* EROFS: codec 0 stores data as it is. */
	if (format == SQP_FORMAT_EROFS)
		d->codec.block_size = 4096;
	else if (sqp_codec_config_init(&d->codec, SQP_CODEC_GZIP, 4096) != 0)
		abort();
}

static off_t size_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 ? st.st_size : -1;
}

/* create refuses d with SQP_ERR_ARG, names what, writes nothing. */
static void refused(const struct sqp_writer_desc *d, const char *what, const char *label)
{
	struct sqp_writer *w = NULL;
	int ret = sqp_writer_create(d, &w);

	CHECK(ret == SQP_ERR_ARG, "%s: %s: create returned %d (%s)", format_name(d->format),
	      label, ret, w != NULL ? sqp_writer_error(w) : "");
	if (w != NULL)
		CHECK(strstr(sqp_writer_error(w), what) != NULL, "%s: %s: message '%s'",
		      format_name(d->format), label, sqp_writer_error(w));
	sqp_writer_destroy(w);
	if (d->fd >= 0)
		CHECK(size_of(d->fd) == 0, "%s: %s: %lld bytes written",
		      format_name(d->format), label, (long long)size_of(d->fd));
}

static void check_desc(int format, int fd)
{
	struct sqp_writer_desc d;
	char label[64];
	size_t i;

	for (i = 0; i < NBAD; i++) {
		base_desc(&d, format, fd);
		d.prefix = bad_paths[i];
		snprintf(label, sizeof(label), "prefix '%s'", bad_paths[i]);
		refused(&d, "prefix", label);
	}
	base_desc(&d, format, -1);
	refused(&d, "no output file", "fd -1");
	base_desc(&d, format, fd);
	d.fragment_mode = 17;
	refused(&d, "fragment mode", "fragment mode 17");
	/* Compress hints: EROFS's alone, and a line past the codecs given
	 * (line 2: the comment counts) refused by its number. */
	base_desc(&d, format, fd);
	d.erofs_hints = "4096 x\n";
	refused(&d, format == SQP_FORMAT_EROFS ? "need a codec" : "EROFS only", "compress hints");
	if (format == SQP_FORMAT_EROFS &&
	    (sqp_codec_formats(SQP_CODEC_LZ4) & SQP_CODEC_FOR_EROFS)) {
		base_desc(&d, format, fd);
		if (sqp_codec_config_init(&d.codec, SQP_CODEC_LZ4, 4096) != 0)
			abort();
		d.erofs_hints = "# lz4 alone\n4096 1 x\n";
		refused(&d, "compress hints line 2", "a hint's codec past the codecs");
	}
}

/* A writer that works, then entries and renames it must refuse. */
static void check_entries(int format, int fd)
{
	struct sqp_writer_desc d;
	struct sqp_writer *w = NULL;
	struct sqp_entry e;
	size_t i;
	int ret;

	for (i = 0; i < NBAD; i++) {
		base_desc(&d, format, fd);
		ret = sqp_writer_create(&d, &w);
		CHECK(ret == 0, "%s: create: %d", format_name(format), ret);
		if (ret != 0) {
			sqp_writer_destroy(w);
			return;
		}
		memset(&e, 0, sizeof(e));
		e.struct_size = sizeof(e);
		e.path = bad_paths[i];
		e.mode = S_IFDIR | 0755;
		ret = sqp_writer_add(w, &e, NULL);
		CHECK(ret == SQP_ERR_ARG, "%s: entry '%s': add returned %d (%s)",
		      format_name(format), bad_paths[i], ret, sqp_writer_error(w));
		sqp_writer_destroy(w);

		base_desc(&d, format, fd);
		ret = sqp_writer_create(&d, &w);
		memset(&e, 0, sizeof(e));
		e.struct_size = sizeof(e);
		e.path = "f";
		e.mode = S_IFREG | 0644;
		if (ret == 0)
			ret = sqp_writer_add(w, &e, NULL);
		CHECK(ret == 0, "%s: entry 'f': %d", format_name(format), ret);
		e.path = "link";
		e.is_hardlink = 1;
		e.link_target = bad_paths[i];
		ret = sqp_writer_add(w, &e, NULL);
		CHECK(ret == SQP_ERR_ARG, "%s: hard link to '%s': add returned %d (%s)",
		      format_name(format), bad_paths[i], ret, sqp_writer_error(w));
		sqp_writer_destroy(w);

		base_desc(&d, format, fd);
		ret = sqp_writer_create(&d, &w);
		if (ret == 0)
			ret = sqp_writer_rename(w, "a", bad_paths[i]);
		CHECK(ret == SQP_ERR_ARG, "%s: rename to '%s': %d", format_name(format),
		      bad_paths[i], ret);
		sqp_writer_destroy(w);
		w = NULL;
	}
}

int main(void)
{
	static const int formats[] = { SQP_FORMAT_SQUASHFS, SQP_FORMAT_EROFS };
	char path[] = "/tmp/common_checks.XXXXXX";
	int fd = mkstemp(path);
	size_t f;

	if (fd < 0) {
		perror("mkstemp");
		return 99;
	}
	unlink(path);
	for (f = 0; f < 2; f++) {
		check_desc(formats[f], fd);
		check_entries(formats[f], fd);
	}
	close(fd);
	return check_done();
}
