/* SPDX-License-Identifier: MIT */
/*
 * writer_rename.c - sqp_writer_rename, what sqpack-mksquashfs's append
 * renames one source directory's entries with: entries added after the
 * call whose first path component is the name take the new name (the
 * whole component only: "xy" stays), a hard link's target too, the last
 * rename of a name wins, entries added before stay; and what is not a
 * single path component is refused.
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

static int text_read(void *user, void *buf, size_t n)
{
	(void)user;
	memset(buf, 'a', n);
	return 0;
}

static int add(struct sqp_writer *w, const char *path, uint32_t mode,
	       const char *link)
{
	struct sqp_data_source src = { .read = text_read };
	struct sqp_entry e = { .struct_size = sizeof(e), .path = path,
			       .mode = mode, .mtime = 1 };

	if (link != NULL) {
		e.link_target = link;
		e.is_hardlink = 1;
		return sqp_writer_add(w, &e, NULL);
	}
	if (S_ISREG(mode))
		e.size = 10;
	return sqp_writer_add(w, &e, S_ISREG(mode) ? &src : NULL);
}

static struct sqp_writer *writer(const char *path)
{
	struct sqp_writer_desc d = { .struct_size = sizeof(d), .jobs = 1, .mod_time = 1 };
	struct sqp_writer *w = NULL;

	d.fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (d.fd < 0 || sqp_codec_config_init(&d.codec, SQP_CODEC_GZIP, 131072) != 0 ||
	    sqp_writer_create(&d, &w) != 0) {
		fprintf(stderr, "%s: cannot make a writer: %s\n", path,
			w ? sqp_writer_error(w) : "");
		exit(99);
	}
	return w;
}

/* The inode number at path in img, 0 when there is none. */
static uint32_t inode_at(struct sqp_image *img, const char *path)
{
	struct sqp_inode_info info = { .struct_size = sizeof(info) };
	uint64_t ref;

	if (sqp_image_lookup(img, path, &ref) != 0 || sqp_image_stat(img, ref, &info) != 0)
		return 0;
	return info.inode_number;
}

static void renames(const char *file)
{
	struct sqp_writer *w = writer(file);
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = file };
	struct sqp_image *img = NULL;
	char dir[260], deep[520], deep_new[520];
	int ret = add(w, "x", S_IFDIR | 0755, NULL);

	/* paths longer than the first capacity of the renamed-path buffers */
	snprintf(dir, sizeof(dir), "x/%0250d", 0);
	snprintf(deep, sizeof(deep), "%s/%0250d", dir, 1);
	snprintf(deep_new, sizeof(deep_new), "x_1/%0250d/%0250d", 0, 1);

	/* before the renames: stays */
	ret = ret ? ret : add(w, "x/before", S_IFREG | 0644, NULL);
	ret = ret ? ret : sqp_writer_rename(w, "x", "x_2");
	ret = ret ? ret : sqp_writer_rename(w, "x", "x_1");
	ret = ret ? ret : sqp_writer_rename(w, "y", "y_1");
	ret = ret ? ret : add(w, "x", S_IFDIR | 0700, NULL);
	ret = ret ? ret : add(w, "x/f", S_IFREG | 0644, NULL);
	ret = ret ? ret : add(w, "xy", S_IFREG | 0644, NULL);
	ret = ret ? ret : add(w, "y", S_IFREG | 0644, "x/f");
	ret = ret ? ret : add(w, "z", S_IFREG | 0644, "x/f");
	ret = ret ? ret : add(w, dir, S_IFDIR | 0755, NULL);
	ret = ret ? ret : add(w, deep, S_IFREG | 0644, NULL);
	ret = ret ? ret : add(w, "v", S_IFREG | 0644, deep);
	CHECK(ret == 0, "entries added: %s", sqp_writer_error(w));
	CHECK(sqp_writer_finish(w) == 0, "finish: %s", sqp_writer_error(w));
	CHECK(sqp_writer_rename(w, "a", "b") == SQP_ERR_SEQUENCE, "a rename after finish");
	sqp_writer_destroy(w);

	d.fd = open(file, O_RDONLY);
	CHECK(d.fd >= 0 && sqp_image_create(&d, &img) == 0, "the image reads");
	CHECK(inode_at(img, "x/before") != 0, "an entry added before the rename stays");
	CHECK(inode_at(img, "x/f") == 0 && inode_at(img, "x_2") == 0,
	      "x renamed, by its last rename");
	CHECK(inode_at(img, "x_1/f") != 0, "x/f stored as x_1/f");
	CHECK(inode_at(img, "xy") != 0, "xy is not x");
	CHECK(inode_at(img, "y") == 0 && inode_at(img, "y_1") == inode_at(img, "x_1/f"),
	      "the link y renamed y_1, to x_1/f");
	CHECK(inode_at(img, "z") == inode_at(img, "x_1/f"), "the link z's target renamed");
	CHECK(inode_at(img, deep_new) != 0 && inode_at(img, "v") == inode_at(img, deep_new),
	      "a path of %zu bytes renamed, and a link's target as long", strlen(deep));
	sqp_image_destroy(img);
	if (d.fd >= 0)
		close(d.fd);
}

static void refused(const char *file)
{
	static const char *const bad[][2] = {
		{ "", "a" }, { ".", "a" }, { "..", "a" }, { "a/b", "c" },
		{ "a", "" }, { "a", "b/c" }, { "a", ".." }, { NULL, "a" }, { "a", NULL },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sqp_writer *w = writer(file);

		CHECK(sqp_writer_rename(w, bad[i][0], bad[i][1]) == SQP_ERR_ARG &&
		      strstr(sqp_writer_error(w), "one path component") != NULL,
		      "rename '%s' to '%s' refused: %s", bad[i][0] ? bad[i][0] : "(null)",
		      bad[i][1] ? bad[i][1] : "(null)", sqp_writer_error(w));
		sqp_writer_destroy(w);
	}
}

int main(void)
{
	/* in the build directory, under a name of this test's own */
	const char *file = "append_writer_rename.img";

	renames(file);
	refused(file);
	unlink(file);
	return check_done();
}
