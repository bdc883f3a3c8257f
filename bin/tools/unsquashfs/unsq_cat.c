/* SPDX-License-Identifier: MIT */
/*
 * unsq_cat.c - `sqpack-unsquashfs -cat IMAGE PATH...` and `sqfscat IMAGE
 * PATH...`: the files' contents, one after another, on stdout.
 *
 * Why its own file: what is not a regular file is named on stderr in
 * unsquashfs's words and the others still written; then both exit 2 (a
 * non-fatal error), as unsquashfs -cat and sqfscat 4.5.1 to 4.7 do. An
 * image that does not read is fatal (1) for both.
 * The symbolic links on a path are followed (unsq_resolve.c: /bin/true
 * where /bin is a link to usr/bin), and what cannot be resolved is named
 * in the words of squashfs-tools 4.7's unsquashfs, which follows them.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
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

/* Why path (its name that failed ends at r->at) is not written, in
 * unsquashfs's words. */
static void cat_refusal(int res, const struct unsq_resolved *r,
			const char *path)
{
	static const char *const why[] = {
		[UNSQ_RES_NOTDIR] = " is not a directory",
		[UNSQ_RES_BROKEN] = " failed to resolve symbolic link",
		[UNSQ_RES_LINK_NOTDIR] =
			" symbolic link does not resolve to a directory",
	};
	const char *end = res != UNSQ_RES_OK ? why[res] : r->via_link ?
		" symbolic link does not resolve to a regular file" :
		S_ISDIR(r->mode) ? " is a directory" : " is not a regular file";

	fprintf(stderr, "cat: %s/%.*s%s\n", res == UNSQ_RES_MISSING ?
		"no matches for " : "", (int)r->at, path,
		res == UNSQ_RES_MISSING ? "" : end);
}

int unsq_cat(struct sqp_image *img, const struct unsq_opts *o)
{
	char *buf = malloc(CAT_CHUNK);
	struct unsq_resolved *r = malloc(sizeof(*r));
	unsigned long missing = 0;
	int fatal = 0;

	if (buf == NULL || r == NULL) {
		free(buf);
		free(r);
		fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
		return 1;
	}
	for (size_t i = 0; i < o->cat_count && !fatal; i++) {
		const char *path = o->cat_paths[i];
		int ret;

		while (*path == '/')
			path++;
		ret = unsq_resolve(img, path, r, NULL, NULL);
		if (ret < 0) {
			fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img)[0] ?
				sqp_image_error(img) : sqp_strerror(ret));
			fatal = 1;
		} else if (ret == UNSQ_RES_OK && S_ISREG(r->mode)) {
			fatal = cat_file(img, o, r->ref, buf) != 0;
		} else {
			cat_refusal(ret, r, path);
			missing++;
		}
	}
	free(buf);
	free(r);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		if (!fatal)
			fprintf(stderr, "%s: writing to stdout failed\n", unsq_prog(o));
		fatal = 1;
	}
	if (fatal)
		return 1;
	/* unsquashfs -cat: a missing path is non-fatal even with
	 * -strict-errors, and silent in the status with -no-exit-code. */
	return missing == 0 || o->no_exit_code ? 0 : 2;
}
