/* SPDX-License-Identifier: MIT */
/*
 * reader_index.c - SQP_TAR_READ_INDEX (mkfs.erofs --tar=i): the reader
 * reads headers in small windows and seeks past the data it skips.
 *
 * What must hold: a member's data that is skipped is not read (the
 * process's rchar, /proc/self/io, grows by a few windows for a 12 MiB
 * member: the read-ahead ring reads at least 1 MiB before the caller
 * skips anything); the entries and the data read are those of a reader
 * without the flag, from a file opened partway in, and through a pipe
 * (read through, no seek); a skip past the end of a cut archive is the
 * same "truncated" error, not a seek into nothing.
 */
#include "config.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/check.h"
#include "handtar.h"
#include "sqpack/error.h"
#include "sqpack/tar.h"

#define BIG (12u << 20)
/* Bytes the reader may read for the archive below with the flag: its
 * first read and a window for each of the two headers, with room. */
#define READ_MAX (256u << 10)

/* A member much larger than any window, then a small one. */
static int write_big(FILE *f)
{
	return member(f, "big", '0', BIG, NULL, 'b') || member(f, "after", '0', 5, NULL, 'c') ||
	       end_archive(f);
}

/* This process's bytes read so far, or -1 where /proc/self/io is not. */
static long long rchar(void)
{
	char line[128];
	long long n = -1;
	FILE *f = fopen("/proc/self/io", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "rchar: %lld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static struct sqp_tar_reader *open_index(int fd, const char *name)
{
	struct sqp_tar_reader_desc d = {
		.struct_size = sizeof(d), .fd = fd, .name = name, .flags = SQP_TAR_READ_INDEX,
	};
	struct sqp_tar_reader *r = NULL;

	if (sqp_tar_reader_create(&d, &r) != 0) {
		fprintf(stderr, "creating the reader: %s\n", r ? sqp_tar_reader_error(r) : "");
		exit(99);
	}
	return r;
}

/* The entries of write_big's archive; with whole, big's data read and
 * checked first, else skipped. */
static void read_big(struct sqp_tar_reader *r, const char *what, int whole)
{
	static char buf[100000];
	const struct sqp_entry *e;
	struct sqp_data_source src;
	uint64_t left = BIG;
	int ok = 1;

	CHECK(sqp_tar_next(r, &e) == 1 && strcmp(e->path, "big") == 0 && e->size == BIG,
	      "%s: the big member: %s", what, sqp_tar_reader_error(r));
	src = sqp_tar_data(r);
	while (whole && left > 0 && ok) {
		size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);

		ok = src.read(src.user, buf, n) == 0 && buf[0] == 'b' && buf[n - 1] == 'b' &&
		     memcmp(buf, buf + 1, n - 1) == 0;
		left -= n;
	}
	CHECK(ok, "%s: big's data, %llu bytes before its end", what, (unsigned long long)left);
	CHECK(sqp_tar_next(r, &e) == 1 && strcmp(e->path, "after") == 0,
	      "%s: the member after it: %s", what, sqp_tar_reader_error(r));
	src = sqp_tar_data(r);
	CHECK(src.read(src.user, buf, 5) == 0 && memcmp(buf, "ccccc", 5) == 0,
	      "%s: its data '%.5s'", what, buf);
	CHECK(sqp_tar_next(r, &e) == 0, "%s: the end: %s", what, sqp_tar_reader_error(r));
}

/* A pipe that a child fills with fd's bytes from its start. */
static int pipe_of(int fd, pid_t *child)
{
	int p[2];

	if (pipe(p) != 0 || (*child = fork()) < 0)
		return -1;
	if (*child == 0) {
		char buf[65536];
		off_t at = 0;
		ssize_t n;

		close(p[0]);
		while ((n = pread(fd, buf, sizeof(buf), at)) > 0 && write(p[1], buf, (size_t)n) == n)
			at += n;
		_exit(n == 0 ? 0 : 1);
	}
	close(p[1]);
	return p[0];
}

int main(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int big = archive(dir, "index", 0, write_big), at = archive(dir, "index", 7 * BLOCK + 3,
								    write_big);
	struct sqp_tar_reader *r;
	const struct sqp_entry *e;
	long long before, after;
	pid_t child;
	int cut, p, status = 0;

	if (big < 0 || at < 0) {
		perror("writing the archives");
		return 99;
	}
	signal(SIGPIPE, SIG_IGN);

	before = rchar();
	r = open_index(big, "big");
	read_big(r, "skipped", 0);
	after = rchar();
	sqp_tar_reader_destroy(r);
	if (before < 0 || after < 0)
		printf("/proc/self/io: not readable, the bytes read not counted\n");
	else
		CHECK(after - before < READ_MAX, "a skip is a seek: %lld bytes read for an "
		      "archive of %u", after - before, BIG + 4 * BLOCK);

	CHECK(lseek(big, 0, SEEK_SET) == 0, "rewinding");
	r = open_index(big, "big");
	read_big(r, "read whole", 1);
	sqp_tar_reader_destroy(r);

	r = open_index(at, "at");
	read_big(r, "opened 3587 bytes in", 0);
	sqp_tar_reader_destroy(r);

	CHECK((p = pipe_of(big, &child)) >= 0, "a pipe");
	r = open_index(p, "pipe");
	read_big(r, "a pipe", 0);
	sqp_tar_reader_destroy(r);
	close(p);
	CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status) &&
	      WEXITSTATUS(status) == 0, "the pipe's writer wrote it all: %d", status);

	/* Cut 1 MiB into big's data: the skip reads to the end and fails. */
	CHECK((cut = dup(big)) >= 0 && ftruncate(cut, 1 << 20) == 0 && lseek(cut, 0, SEEK_SET) == 0,
	      "cutting the archive");
	r = open_index(cut, "cut");
	CHECK(sqp_tar_next(r, &e) == 1 && sqp_tar_next(r, &e) == SQP_ERR_TRUNCATED &&
	      strstr(sqp_tar_reader_error(r), "'big': truncated data") != NULL,
	      "a cut archive: %s", sqp_tar_reader_error(r));
	sqp_tar_reader_destroy(r);
	close(cut);
	close(big);
	close(at);
	return check_done();
}
