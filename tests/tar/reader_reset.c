/* SPDX-License-Identifier: MIT */
/*
 * reader_reset.c - sqp_tar_reader_reset() reads the next archive exactly
 * as a new reader would.
 *
 * tar2img reads a stack of layers through one reader, reset between
 * layers, so anything of the archive before that survived a reset would
 * change the next layer's entries: a global pax header's fields, the end
 * already reached, the stream offset (the skip of a large file becomes a
 * seek counted from it), the name in messages, an error. The archives
 * are written here by hand, ustar headers and pax records, into
 * temporary files.
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../unit/check.h"
#include "handtar.h"
#include "sqpack/error.h"
#include "sqpack/tar.h"

/* Past the reader's 8 MiB read-ahead, so skipping it is a seek. */
#define BIG (12u << 20)

/* A: a global pax header (uid 4242 for every later entry), two files. */
static int write_a(FILE *f)
{
	static const char rec[] = "12 uid=4242\n";

	return member(f, "pax_global_header", 'g', strlen(rec), rec, 0) ||
	       member(f, "a1", '0', 3, NULL, 'a') || member(f, "a2", '0', 3, NULL, 'a') ||
	       end_archive(f);
}

/* B: a file larger than the read-ahead, then a small one after it. */
static int write_b(FILE *f)
{
	return member(f, "big", '0', BIG, NULL, 'b') || member(f, "b2", '0', 5, NULL, 'c') ||
	       end_archive(f);
}

/* C: a header whose checksum is wrong. */
static int write_c(FILE *f)
{
	uint8_t h[BLOCK];

	memset(h, 'x', BLOCK);
	return fwrite(h, BLOCK, 1, f) == 1 ? 0 : -1;
}

/* The next entry's path ("" at the end, "!" on error), uid in *uid. */
static const char *next(struct sqp_tar_reader *r, uint64_t *uid)
{
	const struct sqp_entry *e;
	int ret = sqp_tar_next(r, &e);

	if (ret < 0)
		return "!";
	if (ret == 0)
		return "";
	*uid = e->uid;
	return e->path;
}

static void check_b(struct sqp_tar_reader *r)
{
	const struct sqp_entry *e;
	struct sqp_data_source src;
	uint64_t uid = 0;
	char data[8] = "";

	CHECK(strcmp(next(r, &uid), "big") == 0, "B's first entry");
	CHECK(uid == 5, "B's uid is its header's, not A's global 4242: %llu",
	      (unsigned long long)uid);
	/* "big" is skipped unread: a seek past the read-ahead. */
	CHECK(sqp_tar_next(r, &e) == 1 && strcmp(e->path, "b2") == 0, "B's second entry");
	src = sqp_tar_data(r);
	CHECK(src.read(src.user, data, 5) == 0 && memcmp(data, "ccccc", 5) == 0,
	      "b2's data after the seek: '%.5s'", data);
	CHECK(strcmp(next(r, &uid), "") == 0, "B ends");
	CHECK(strcmp(sqp_tar_reader_compression(r), "none") == 0, "B is plain");
}

int main(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	struct sqp_tar_reader_desc d = { .struct_size = sizeof(d), .name = "A" };
	struct sqp_tar_reader *r = NULL;
	int a = archive(dir, "a", 0, write_a), b = archive(dir, "b", 7 * BLOCK + 3, write_b);
	int b2 = archive(dir, "b", 0, write_b), c = archive(dir, "c", 0, write_c);
	uint64_t uid = 0;

	if (a < 0 || b < 0 || b2 < 0 || c < 0) {
		perror("writing the archives");
		return 99;
	}
	d.fd = a;
	if (sqp_tar_reader_create(&d, &r) != 0) {
		fprintf(stderr, "creating the reader: %s\n", r ? sqp_tar_reader_error(r) : "");
		return 99;
	}
	/* A read to its end, then B (opened 3587 bytes into its file). */
	CHECK(strcmp(next(r, &uid), "a1") == 0 && uid == 4242, "A's global uid: %llu",
	      (unsigned long long)uid);
	CHECK(strcmp(next(r, &uid), "a2") == 0, "A's second entry");
	CHECK(strcmp(next(r, &uid), "") == 0, "A ends");
	CHECK(sqp_tar_reader_reset(r, b, "B") == 0, "reset to B: %s", sqp_tar_reader_error(r));
	check_b(r);

	/* A left after its first entry: B still from its first byte. */
	CHECK(lseek(a, 0, SEEK_SET) == 0, "rewinding A");
	CHECK(sqp_tar_reader_reset(r, a, "A") == 0, "reset to A: %s", sqp_tar_reader_error(r));
	CHECK(strcmp(next(r, &uid), "a1") == 0 && uid == 4242, "A again");
	CHECK(sqp_tar_reader_reset(r, b2, "B2") == 0, "reset to B2");
	check_b(r);

	/* Messages name the archive being read; a failed reader stays so. */
	CHECK(sqp_tar_reader_reset(r, -1, "none") == SQP_ERR_ARG, "a negative fd is refused");
	sqp_tar_reader_destroy(r);
	d.fd = a;
	CHECK(lseek(a, 0, SEEK_SET) == 0 && sqp_tar_reader_create(&d, &r) == 0, "a new reader");
	CHECK(strcmp(next(r, &uid), "a1") == 0 && strcmp(next(r, &uid), "a2") == 0, "A read");
	CHECK(sqp_tar_reader_reset(r, c, "C") == 0, "reset to C");
	CHECK(strcmp(next(r, &uid), "!") == 0, "C's bad header is an error");
	/* The offset counts from C's start, not from where A stood. */
	CHECK(strstr(sqp_tar_reader_error(r), "C: bad header checksum at offset 0 ") != NULL,
	      "the message names C: %s", sqp_tar_reader_error(r));
	CHECK(sqp_tar_reader_reset(r, a, "A") == SQP_ERR_BAD_TAR, "the error stays after reset");
	sqp_tar_reader_destroy(r);
	close(a);
	close(b);
	close(b2);
	close(c);
	return check_done();
}
