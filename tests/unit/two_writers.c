/* SPDX-License-Identifier: MIT */
/*
 * two_writers.c - the library keeps no global state: two writers running
 * at the same time in two threads, with different numbers of workers,
 * produce byte-identical images of the same entries, and so does a third
 * run afterwards.
 */
#include "config.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "check.h"

struct gen {               /* deterministic file contents */
	uint64_t state;
	uint64_t left;
	int kind;              /* 0 random, 1 zeros, 2 text */
};

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int gen_read(void *user, void *buf, size_t n)
{
	struct gen *g = user;
	uint8_t *p = buf;
	size_t i;

	if (n > g->left)
		return SQP_ERR_TRUNCATED;
	for (i = 0; i < n; ++i) {
		if (g->kind == 1)
			p[i] = 0;
		else if (g->kind == 2)
			p[i] = (uint8_t)("lorem ipsum dolor sit amet\n"[next_rand(&g->state) % 27]);
		else
			p[i] = (uint8_t)next_rand(&g->state);
	}
	g->left -= n;
	return 0;
}

struct job {
	char path[64];
	unsigned jobs;
	int ret;
};

static void *write_image(void *arg)
{
	static const struct { const char *path; uint64_t size; int kind; uint64_t seed; } files[] = {
		{ "empty", 0, 0, 1 }, { "one", 1, 0, 2 }, { "d/edge", 4095, 2, 3 },
		{ "d/block", 131072, 2, 4 }, { "d/block1", 131073, 0, 5 },
		{ "big", 1 << 20, 0, 6 }, { "bigcopy", 1 << 20, 0, 6 },
		{ "zeros", 3 << 20, 1, 7 }, { "d/e/text", 300000, 2, 8 },
		{ "d/e/textcopy", 300000, 2, 8 },
	};
	struct job *j = arg;
	struct sqp_writer_desc desc = { .struct_size = sizeof(desc),
		.jobs = j->jobs, .mod_time = 12345 };
	struct sqp_writer *w = NULL;
	struct sqp_xattr xa = { "user.k", (const uint8_t *)"v", 1 };
	struct sqp_entry e;
	size_t i;
	int ret;

	desc.fd = open(j->path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	ret = sqp_codec_config_init(&desc.codec, sqp_codec_available(SQP_CODEC_ZSTD) ?
				    SQP_CODEC_ZSTD : SQP_CODEC_GZIP, 131072);
	if (ret == 0)
		ret = sqp_writer_create(&desc, &w);
	for (i = 0; ret == 0 && i < sizeof(files) / sizeof(files[0]); ++i) {
		struct gen g = { files[i].seed, files[i].size, files[i].kind };
		struct sqp_data_source src = { .read = gen_read, .user = &g };

		memset(&e, 0, sizeof(e));
		e.struct_size = sizeof(e);
		e.path = files[i].path;
		e.mode = S_IFREG | 0644;
		e.mtime = 1000 + (int64_t)i;
		e.size = files[i].size;
		e.xattrs = i % 3 == 0 ? &xa : NULL;
		e.xattr_count = i % 3 == 0;
		ret = sqp_writer_add(w, &e, &src);
	}
	if (ret == 0) {
		memset(&e, 0, sizeof(e));
		e.struct_size = sizeof(e);
		e.path = "d/link";
		e.mode = S_IFLNK | 0777;
		e.link_target = "../big";
		ret = sqp_writer_add(w, &e, NULL);
	}
	if (ret == 0)
		ret = sqp_writer_finish(w);
	if (ret != 0)
		fprintf(stderr, "%s: %s\n", j->path, w ? sqp_writer_error(w) : sqp_strerror(ret));
	sqp_writer_destroy(w);
	close(desc.fd);
	j->ret = ret;
	return NULL;
}

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	int ca, cb, same = fa && fb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = 0;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

int main(void)
{
	struct job a = { "two_writers_a.img", 1, -1 }, b = { "two_writers_b.img", 3, -1 };
	struct job c = { "two_writers_c.img", 2, -1 };
	pthread_t ta, tb;

	pthread_create(&ta, NULL, write_image, &a);
	pthread_create(&tb, NULL, write_image, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	write_image(&c);
	CHECK(a.ret == 0 && b.ret == 0 && c.ret == 0, "all three writers succeed");
	CHECK(same_file(a.path, b.path), "concurrent -j1 and -j3 images are identical");
	CHECK(same_file(a.path, c.path), "a later -j2 run is identical too");
	unlink(a.path);
	unlink(b.path);
	unlink(c.path);
	return check_done();
}
