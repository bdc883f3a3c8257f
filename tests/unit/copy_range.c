/* SPDX-License-Identifier: MIT */
/*
 * copy_range.c - sqp_copy_range by each of its ways (the pipe, where the
 * scratch directory's file system takes one; copy_file_range; pread and
 * pwrite): ranges longer than the pipe, at offsets of different phase,
 * land byte for byte; a range past the input's end is
 * SQP_ERR_TRUNCATED, and the copier's next copy is whole (nothing stale
 * left in its pipe); cleanup closes what the copier opened.
 */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/copyrange.h"
#include "util/fileio.h"
#include "check.h"

/* Over twice the pipe's 1 MiB, not a multiple of a page. */
#define IN_SIZE ((3u << 20) + 123u)

static const char *const way_name[] = { "undecided", "splice", "copy_file_range",
					"pread and pwrite" };

/* Open descriptors of this process; -1 where /proc is not there. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (d == NULL)
		return -1;
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

static int temp_file(const char *dir, const char *name)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.XXXXXX", dir, name);
	if ((fd = mkstemp(path)) >= 0)
		unlink(path);
	return fd;
}

/* Out's len bytes at off equal to in's at in_off. */
static int lands(int out, uint64_t off, const uint8_t *in, uint64_t in_off, size_t len)
{
	uint8_t *got = malloc(len);
	int same = got != NULL && sqp_pread_full(out, off, got, len) == 0 &&
		   memcmp(got, in + in_off, len) == 0;

	free(got);
	return same;
}

static void one_way(const char *dir, int in, const uint8_t *bytes, enum sqp_copy_how how)
{
	struct sqp_copier c;
	int out = temp_file(dir, "copy_range.out"), ret;
	const char *name = way_name[how];

	memset(&c, 0, sizeof(c));
	c.how = how;
	CHECK(out >= 0, "%s: a temporary output", name);
	if (out < 0)
		return;
	/* in at 96, out at 5000: the pages of the two never line up */
	ret = sqp_copy_range(&c, in, 96, out, 5000, IN_SIZE - 96);
	CHECK(ret == 0, "%s: the copy: %d", name, ret);
	CHECK(lands(out, 5000, bytes, 96, IN_SIZE - 96), "%s: the bytes landed", name);
	printf("%s: copied by %s\n", name, way_name[c.how]);
	CHECK(c.how != SQP_COPY_UNDECIDED, "%s: a way decided", name);
	/* past the input's end by one byte */
	ret = sqp_copy_range(&c, in, IN_SIZE - 70000, out, 1, 70001);
	CHECK(ret == SQP_ERR_TRUNCATED, "%s: past the end: %d", name, ret);
	/* the next copy by the same copier is whole */
	ret = sqp_copy_range(&c, in, 7, out, 4096 * 3, (1u << 20) + 9);
	CHECK(ret == 0, "%s: a copy after the truncated one: %d", name, ret);
	CHECK(lands(out, 4096 * 3, bytes, 7, (1u << 20) + 9), "%s: its bytes, none stale", name);
	sqp_copier_cleanup(&c);
	CHECK(c.how == SQP_COPY_UNDECIDED && c.buf == NULL, "%s: cleaned up", name);
	close(out);
}

int main(void)
{
	const char *dir = getenv("TMPDIR");
	uint8_t *bytes = malloc(IN_SIZE);
	uint32_t x = 2463534242u;
	int in, fds;
	size_t i;

	if (dir == NULL)
		dir = "/tmp";
	in = temp_file(dir, "copy_range.in");
	if (bytes == NULL || in < 0) {
		fprintf(stderr, "skip: no memory or no temporary file\n");
		return 77;
	}
	for (i = 0; i < IN_SIZE; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		bytes[i] = (uint8_t)x;
	}
	CHECK(sqp_pwrite_full(in, 0, bytes, IN_SIZE) == 0, "the input written");
	fds = open_fds();
	one_way(dir, in, bytes, SQP_COPY_UNDECIDED);
	one_way(dir, in, bytes, SQP_COPY_KERNEL);
	one_way(dir, in, bytes, SQP_COPY_BUFFERED);
	CHECK(open_fds() == fds, "no descriptor left open: %d, were %d", open_fds(), fds);
	close(in);
	free(bytes);
	return check_done();
}
