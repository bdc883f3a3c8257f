/* SPDX-License-Identifier: MIT */
/*
 * oneblock.c - oneblock IMAGE NAME CHUNK COPY: 64 threads read chunk
 * CHUNK of the file NAME (in the image's root) through sqpack-fuse's
 * read operation at once, on a fresh cache, with no kernel between
 * (fakefuse.c answers for libfuse). Each must get the bytes of COPY,
 * and the chunk must be loaded (decompressed) once: the cache's loader
 * is counted, and it waits for every thread to have asked before it
 * runs, so the other 63 meet a miss in progress. Run under TSan in CI
 * (tests/fuse/threads.sh). Exit 0, or 1 with the reasons on stderr.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fakefuse.h"
#include "fuse_fs.h"

#define READERS 64

struct counted {
	struct fs fs;
	atomic_uint loads;          /* of file data, not listings */
	atomic_uint arrived;        /* readers that have asked */
	fuse_ino_t ino;
	struct fuse_file_info fi;
	uint64_t chunk;
	const char *copy;           /* the chunk's bytes */
	size_t len;
	atomic_uint wrong;          /* readers that got other bytes */
};

/* fs_load, counted; a data chunk's load waits (5 s at most) until every
 * reader has called read, so their gets overlap this miss. */
static int counting_load(void *user, uint64_t ref, uint64_t idx,
			 const void *arg, uint8_t **data, size_t *len)
{
	struct counted *c = user;
	struct timespec ms = { 0, 1000000 };

	if (idx != FS_LISTING) {
		atomic_fetch_add(&c->loads, 1);
		for (int i = 0; i < 5000 &&
		     atomic_load(&c->arrived) < READERS; i++)
			nanosleep(&ms, NULL);
	}
	return fs_load(&c->fs, ref, idx, arg, data, len);
}

static void *reader(void *arg)
{
	struct counted *c = arg;
	struct fuse_req r = { 0 };
	struct fuse_file_info fi = c->fi;

	fake_req(&r, &c->fs, c->len);
	atomic_fetch_add(&c->arrived, 1);
	fs_ops.read(&r, c->ino, c->len, (off_t)(c->chunk * c->fs.chunk), &fi);
	fake_answered(&r, "read", FAKE_BUF, FAKE_NONE);
	if (r.kind != FAKE_BUF || r.len != c->len ||
	    memcmp(r.buf, c->copy, c->len) != 0)
		atomic_fetch_add(&c->wrong, 1);
	fake_req_free(&r);
	return NULL;
}

/* COPY's bytes, malloc'd, in *out (*len of them): 0 or -1. */
static int slurp(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = f != NULL ? malloc(16 << 20) : NULL;

	if (buf == NULL || (*len = fread(buf, 1, 16 << 20, f)) == 0 ||
	    ferror(f)) {
		if (f != NULL)
			fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	*out = buf;
	return 0;
}

/* The file opened through lookup and open, the cache made counting. */
static int setup(struct counted *c, int fd, const char *image,
		 const char *name)
{
	struct fs_setup s = {
		.desc = { .struct_size = sizeof(s.desc), .fd = fd,
			  .name = image },
		.threads = READERS, .cache_bytes = 64 << 20,
	};
	struct fuse_req r = { 0 };
	char msg[256];

	if (fs_init(&c->fs, &s, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "oneblock: %s\n", msg);
		return -1;
	}
	fc_destroy(c->fs.cache);
	if (fc_create(64 << 20, counting_load, c, &c->fs.cache) != 0)
		return -1;
	fake_req(&r, &c->fs, SIZE_MAX);
	fs_ops.lookup(&r, FUSE_ROOT_ID, name);
	fake_answered(&r, "lookup", FAKE_ENTRY, FAKE_NONE);
	if (r.kind != FAKE_ENTRY || r.entry.ino == 0)
		return -1;
	c->ino = r.entry.ino;
	c->fi.flags = O_RDONLY;
	fake_req(&r, &c->fs, SIZE_MAX);
	fs_ops.open(&r, c->ino, &c->fi);
	fake_answered(&r, "open", FAKE_OPEN, FAKE_NONE);
	c->fi = r.fi;
	return r.kind == FAKE_OPEN ? 0 : -1;
}

int main(int argc, char **argv)
{
	static struct counted c;
	pthread_t tid[READERS];
	struct fuse_req r = { 0 };
	char *copy = NULL;
	int fd, ok;

	if (argc != 5) {
		fprintf(stderr, "usage: oneblock IMAGE NAME CHUNK COPY\n");
		return 2;
	}
	c.chunk = strtoull(argv[3], NULL, 10);
	if ((fd = open(argv[1], O_RDONLY)) < 0 ||
	    slurp(argv[4], &copy, &c.len) != 0 ||
	    setup(&c, fd, argv[1], argv[2]) != 0) {
		fprintf(stderr, "oneblock: cannot set up: %s\n", strerror(errno));
		return 1;
	}
	c.copy = copy;
	for (int i = 0; i < READERS; i++)
		if (pthread_create(&tid[i], NULL, reader, &c) != 0)
			return 1;
	for (int i = 0; i < READERS; i++)
		pthread_join(tid[i], NULL);
	ok = atomic_load(&c.loads) == 1 && atomic_load(&c.wrong) == 0;
	if (!ok)
		fprintf(stderr, "oneblock: %u loads of the chunk (1 expected), "
			"%u readers got other bytes\n", atomic_load(&c.loads),
			atomic_load(&c.wrong));
	fake_req(&r, &c.fs, SIZE_MAX);
	fs_ops.release(&r, c.ino, &c.fi);
	fake_req_free(&r);
	fs_fini(&c.fs);
	free(copy);
	close(fd);
	return ok ? 0 : 1;
}
