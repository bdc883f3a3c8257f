/* SPDX-License-Identifier: MIT */
/*
 * unsq_cat.c - `sqpack-unsquashfs -cat IMAGE PATH...` and `sqfscat IMAGE
 * PATH...`: the files' contents, one after another, on stdout.
 *
 * Why its own file: what is not a regular file is named on stderr in
 * unsquashfs's words and the others still written; then unsquashfs -cat
 * exits 2 (a non-fatal error), sqfscat 1, as squashfs-tools 4.6's
 * sqfscat does. An image that does not read is fatal (1) for both.
 * Symlinks are not followed (unsquashfs 4.5.1 cannot resolve them
 * either). Each directory on a path is read to its end, not only to the
 * name sought, so a hostile listing (a name twice, unsorted, ".", "..")
 * is refused as extraction refuses it, wherever the name sits in it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/sqpack.h"
#include "unsq.h"

#define CAT_CHUNK (128u * 1024)

/* Write one file; 0, or -1 after a fatal error's message. */
static int cat_file(struct sqp_image *img, const struct unsq_opts *o,
		    uint64_t ref, char *buf)
{
	struct sqp_file *f = NULL;
	uint64_t off = 0;
	size_t got;
	int ret = sqp_file_open(img, ref, &f);

	while (ret == 0 && (ret = sqp_file_pread(f, buf, CAT_CHUNK, off, &got)) == 0 &&
	       got > 0) {
		if (fwrite(buf, 1, got, stdout) != got) {
			fprintf(stderr, "%s: writing to stdout failed\n", unsq_prog(o));
			sqp_file_close(f);
			return -1;
		}
		off += got;
	}
	sqp_file_close(f);
	if (ret != 0) {
		fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img)[0] ?
			sqp_image_error(img) : sqp_strerror(ret));
		return -1;
	}
	return 0;
}

/* The inode at path (no leading '/'), every listing on the way read
 * whole. 0, SQP_ERR_NOT_FOUND, or the image's error. */
static int resolve(struct sqp_image *img, const char *path, uint64_t *ref)
{
	uint64_t at = sqp_image_root(img);
	struct sqp_dirent e = { .struct_size = sizeof(e) };

	while (*path != '\0') {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);
		struct sqp_dir *d = NULL;
		int found = 0, ret;

		if (len == 0) {
			path++;
			continue;
		}
		ret = sqp_dir_open(img, at, &d);
		if (ret == SQP_ERR_ARG)
			return SQP_ERR_NOT_FOUND;  /* through a non-directory */
		while (ret == 0 && (ret = sqp_dir_next(d, &e)) == 1) {
			ret = 0;
			if (!found && strlen(e.name) == len &&
			    memcmp(e.name, path, len) == 0) {
				found = 1;
				at = e.ref;
			}
		}
		sqp_dir_close(d);
		if (ret < 0)
			return ret;
		if (!found)
			return SQP_ERR_NOT_FOUND;
		path += len;
	}
	*ref = at;
	return 0;
}

int unsq_cat(struct sqp_image *img, const struct unsq_opts *o)
{
	char *buf = malloc(CAT_CHUNK);
	unsigned long missing = 0;
	int fatal = 0;

	if (buf == NULL) {
		fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
		return 1;
	}
	for (size_t i = 0; i < o->cat_count && !fatal; i++) {
		const char *path = o->cat_paths[i];
		struct sqp_inode_info in = { .struct_size = sizeof(in) };
		/* resolve sets ref on success; gcc -O1 cannot see it */
		uint64_t ref = 0;
		int ret;

		while (*path == '/')
			path++;
		ret = resolve(img, path, &ref);
		if (ret == 0)
			ret = sqp_image_stat(img, ref, &in);
		if (ret == SQP_ERR_NOT_FOUND) {
			fprintf(stderr, "cat: no matches for /%s\n", path);
			missing++;
		} else if (ret != 0) {
			fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img)[0] ?
				sqp_image_error(img) : sqp_strerror(ret));
			fatal = 1;
		} else if (S_ISDIR(in.mode)) {
			fprintf(stderr, "cat: /%s is a directory\n", path);
			missing++;
		} else if (S_ISLNK(in.mode)) {
			fprintf(stderr, "cat: /%s failed to resolve symbolic link\n", path);
			missing++;
		} else if (!S_ISREG(in.mode)) {
			fprintf(stderr, "cat: /%s is not a regular file\n", path);
			missing++;
		} else if (cat_file(img, o, ref, buf) != 0) {
			fatal = 1;
		}
	}
	free(buf);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (!fatal)
			fprintf(stderr, "%s: writing to stdout failed\n", unsq_prog(o));
		fatal = 1;
	}
	if (fatal)
		return 1;
	/* unsquashfs -cat: a missing path is non-fatal even with
	 * -strict-errors, and silent in the status with -no-exit-code. */
	return missing == 0 ? 0 : o->sqfscat ? 1 : o->no_exit_code ? 0 : 2;
}
