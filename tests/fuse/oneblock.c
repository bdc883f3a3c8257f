/* SPDX-License-Identifier: MIT */
/*
 * oneblock.c - oneblock MODE IMAGE SRCDIR CHUNK NAME...: 64 threads read
 * chunk CHUNK of the files NAME (in the image's root; thread i the
 * (i mod count)th) through sqpack-fuse's read operation at once, on a
 * fresh cache, with no kernel between (fakefuse.c answers for libfuse).
 * Each must get the bytes of SRCDIR/NAME there, and what is shared must
 * be loaded once: the cache's loader is counted, and it waits for every
 * thread to have asked before it runs, so the others meet a miss in
 * progress. MODE says what is counted:
 *   decoded   the file's chunk, loaded (decompressed) once;
 *   stored    the same, and every reply taken whole from the image file
 *             (descriptor buffers, which libfuse splices);
 *   mixed     the same, the reply taken in part from the image file,
 *             the rest from the shared data (a tail in the packed
 *             inode after raw pclusters);
 *   fragment  what the files' tails share (a SquashFS fragment block,
 *             EROFS's packed inode), decoded once for all, not once per
 *             image of the pool;
 *   unit      thread i reads chunk CHUNK + i mod count of the files
 *             named (NAME... one file named again: its chunks one
 *             after the other), which lie in one decoded unit (an
 *             EROFS extent of several MiB): the unit, decoded once.
 * oneblock decoders IMAGE SRCDIR MIB CORES MOST NAME...: thread i reads
 * the first chunk of the (i mod count)th NAME, each a decoded unit of
 * its own, with a cache of MIB MiB on a machine of CORES cores: the
 * units decoded on MOST images at most (each keeps its dictionary: a
 * budget bounds them, not the cores alone), each unit once, and those
 * past two paid from the cache's budget, 16 MiB each.
 * oneblock chunk IMAGE BYTES: the file system on IMAGE caches file data
 * in chunks of BYTES (fuse_fs.c: the image's decode unit, bounded).
 * oneblock busy IMAGE NAME: the prefetch of NAME's first chunk loads
 * nothing while as many requests as cores are in flight (they keep the
 * cores busy, and what it loads ahead of 8 readers evicted what they
 * were reading: lzma extents decoded twice), and loads it with one
 * fewer.
 * Run under TSan in CI (tests/fuse/threads.sh). Exit 0, or 1 with the
 * reasons on stderr.
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

struct file {
	fuse_ino_t ino;
	struct fuse_file_info fi;
	char *copy;                 /* the chunk's bytes */
	size_t len;
	uint64_t chunk;             /* which chunk */
};

struct counted {
	struct fs fs;
	int fragments;              /* count fragment blocks, not chunks */
	int stored;                 /* replies must be the descriptor's */
	int mixed;                  /* ... in part */
	int units;                  /* count decoded units */
	int decoders;               /* ... of the files' first chunks */
	atomic_uint loads;
	atomic_uint arrived;        /* readers that have asked */
	uint64_t chunk;
	struct file files[READERS];
	unsigned count;
	atomic_uint wrong;          /* readers that got other bytes */
};

struct reader {
	struct counted *c;
	unsigned i;
};

/* fs_load, counted; a counted load waits (5 s at most) until every
 * reader has called read, so their gets overlap this miss. */
static int counting_load(void *user, uint64_t ref, uint64_t idx,
			 const void *arg, struct fc_load *out)
{
	struct counted *c = user;
	struct timespec ms = { 0, 1000000 };

	int shared = ref == FS_FRAGMENTS ||
		     (c->fs.info.packed_ref != 0 && ref == c->fs.info.packed_ref);

	if (idx != FS_LISTING && (c->units ? (idx & FS_UNIT) != 0 :
				  shared == c->fragments)) {
		atomic_fetch_add(&c->loads, 1);
		for (int i = 0; i < 5000 &&
		     atomic_load(&c->arrived) < READERS; i++)
			nanosleep(&ms, NULL);
	}
	return fs_load(&c->fs, ref, idx, arg, out);
}

static void *reader(void *arg)
{
	const struct reader *rd = arg;
	struct counted *c = rd->c;
	const struct file *f = &c->files[rd->i % c->count];
	struct fuse_req r = { 0 };
	struct fuse_file_info fi = f->fi;

	fake_req(&r, &c->fs, f->len);
	atomic_fetch_add(&c->arrived, 1);
	fs_ops.read(&r, f->ino, f->len, (off_t)(f->chunk * c->fs.chunk), &fi);
	fake_answered(&r, "read", FAKE_BUF, FAKE_NONE);
	if (r.kind != FAKE_BUF || r.len != f->len ||
	    memcmp(r.buf, f->copy, f->len) != 0 ||
	    (c->stored && r.fd_bytes != f->len) ||
	    (c->mixed && (r.fd_bytes == 0 || r.fd_bytes >= f->len)))
		atomic_fetch_add(&c->wrong, 1);
	fake_req_free(&r);
	return NULL;
}

/* SRCDIR/NAME's bytes in the chunk, malloc'd, in f: 0 or -1. */
static int slurp(struct counted *c, const char *dir, const char *name,
		 struct file *f)
{
	char path[4096];
	ssize_t n;
	int fd;

	f->chunk = c->chunk + (c->units && !c->decoders ?
			       (uint64_t)(f - c->files) : 0);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	f->copy = malloc(c->fs.chunk);
	n = f->copy == NULL ? -1 : pread(fd, f->copy, c->fs.chunk,
					 (off_t)(f->chunk * c->fs.chunk));
	close(fd);
	if (n <= 0)
		return -1;
	f->len = (size_t)n;
	return 0;
}

/* The file name opened through lookup and open into f. */
static int open_one(struct counted *c, const char *name, struct file *f)
{
	struct fuse_req r = { 0 };

	fake_req(&r, &c->fs, SIZE_MAX);
	fs_ops.lookup(&r, FUSE_ROOT_ID, name);
	fake_answered(&r, "lookup", FAKE_ENTRY, FAKE_NONE);
	if (r.kind != FAKE_ENTRY || r.entry.ino == 0)
		return -1;
	f->ino = r.entry.ino;
	f->fi.flags = O_RDONLY;
	fake_req(&r, &c->fs, SIZE_MAX);
	fs_ops.open(&r, f->ino, &f->fi);
	fake_answered(&r, "open", FAKE_OPEN, FAKE_NONE);
	f->fi = r.fi;
	return r.kind == FAKE_OPEN ? 0 : -1;
}

/* The file system on image, its cache made counting (of the budget
 * fs_init gave it, out of cache bytes), as on a machine of cores cores
 * (0: this one). */
static int setup(struct counted *c, int fd, const char *image,
		 uint64_t cache, unsigned cores)
{
	struct fs_setup s = {
		.desc = { .struct_size = sizeof(s.desc), .fd = fd,
			  .name = image },
		.threads = READERS, .cache_bytes = cache, .cores = cores,
	};
	char msg[256];

	if (fs_init(&c->fs, &s, msg, sizeof(msg)) != 0) {
		fprintf(stderr, "oneblock: %s\n", msg);
		return -1;
	}
	fc_destroy(c->fs.cache);
	return fc_create((size_t)c->fs.cache_budget, c->fs.chunk,
			 counting_load, c, &c->fs.cache);
}

/* oneblock busy: 0, or 1 with the reason on stderr. */
static int busy(struct counted *c, const char *image, const char *name)
{
	struct fuse_req r = { 0 };
	unsigned idle, spare;
	uint64_t ref, size;
	int fd, ok;

	if ((fd = open(image, O_RDONLY)) < 0 || setup(c, fd, image, 64 << 20, 0) != 0)
		return 1;
	atomic_store(&c->arrived, READERS);     /* no reader to wait for */
	fake_req(&r, &c->fs, SIZE_MAX);
	fs_ops.lookup(&r, FUSE_ROOT_ID, name);
	fake_answered(&r, "lookup", FAKE_ENTRY, FAKE_NONE);
	ok = r.kind == FAKE_ENTRY && r.entry.ino > FUSE_ROOT_ID;
	ref = r.entry.ino - 2;                  /* fuse_fs.h's node ids */
	size = (uint64_t)r.entry.attr.st_size;
	fake_req_free(&r);
	if (!ok) {
		fprintf(stderr, "oneblock: no %s\n", name);
		return 1;
	}
	atomic_store(&c->fs.busy, c->fs.cores);
	fs_prefetch(&c->fs, ref, 0, size);
	idle = atomic_load(&c->loads);
	atomic_store(&c->fs.busy, c->fs.cores - 1);
	fs_prefetch(&c->fs, ref, 0, size);
	spare = atomic_load(&c->loads) - idle;
	ok = idle == 0 && spare == 1;
	if (!ok)
		fprintf(stderr, "oneblock: the prefetch loaded %u chunks with "
			"%u requests in flight (0 expected), %u with one fewer "
			"(1 expected)\n", idle, c->fs.cores, spare);
	fs_fini(&c->fs);
	close(fd);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	static struct counted c;
	static struct reader rd[READERS];
	pthread_t tid[READERS];
	struct fuse_req r = { 0 };
	uint64_t cache = 64 << 20;
	unsigned cores = 0, most = 0;
	int fd, ok, names;

	if (argc == 4 && strcmp(argv[1], "chunk") == 0) {
		if ((fd = open(argv[2], O_RDONLY)) < 0 ||
		    setup(&c, fd, argv[2], 64 << 20, 0) != 0)
			return 1;
		ok = c.fs.chunk == strtoull(argv[3], NULL, 10);
		if (!ok)
			fprintf(stderr, "oneblock: chunks of %u bytes, not %s\n",
				c.fs.chunk, argv[3]);
		fs_fini(&c.fs);
		close(fd);
		return ok ? 0 : 1;
	}
	if (argc == 4 && strcmp(argv[1], "busy") == 0)
		return busy(&c, argv[2], argv[3]);
	c.decoders = argc >= 8 && strcmp(argv[1], "decoders") == 0;
	names = c.decoders ? 7 : 5;
	if (argc < names + 1 || argc - names > READERS) {
		fprintf(stderr, "usage: oneblock decoded|stored|mixed|fragment"
			"|unit IMAGE SRCDIR CHUNK NAME...\n"
			"       oneblock decoders IMAGE SRCDIR MIB CORES MOST "
			"NAME...\n"
			"       oneblock chunk IMAGE BYTES\n"
			"       oneblock busy IMAGE NAME\n");
		return 2;
	}
	c.fragments = strcmp(argv[1], "fragment") == 0;
	c.stored = strcmp(argv[1], "stored") == 0;
	c.mixed = strcmp(argv[1], "mixed") == 0;
	c.units = c.decoders || strcmp(argv[1], "unit") == 0;
	c.chunk = c.decoders ? 0 : strtoull(argv[4], NULL, 10);
	if (c.decoders) {
		cache = strtoull(argv[4], NULL, 10) << 20;
		cores = (unsigned)strtoul(argv[5], NULL, 10);
		most = (unsigned)strtoul(argv[6], NULL, 10);
	}
	c.count = (unsigned)(argc - names);
	if ((fd = open(argv[2], O_RDONLY)) < 0 ||
	    setup(&c, fd, argv[2], cache, cores) != 0) {
		fprintf(stderr, "oneblock: cannot set up: %s\n", strerror(errno));
		return 1;
	}
	for (unsigned i = 0; i < c.count; i++)
		if (slurp(&c, argv[3], argv[names + i], &c.files[i]) != 0 ||
		    open_one(&c, argv[names + i], &c.files[i]) != 0) {
			fprintf(stderr, "oneblock: cannot open %s\n",
				argv[names + i]);
			return 1;
		}
	for (unsigned i = 0; i < READERS; i++) {
		rd[i] = (struct reader){ &c, i };
		if (pthread_create(&tid[i], NULL, reader, &rd[i]) != 0)
			return 1;
	}
	for (int i = 0; i < READERS; i++)
		pthread_join(tid[i], NULL);
	if (c.decoders) {
		uint64_t paid = most > 2 ? (uint64_t)(most - 2) << 24 : 0;

		ok = atomic_load(&c.loads) == c.count &&
		     atomic_load(&c.wrong) == 0 && c.fs.units.count <= most &&
		     c.fs.cache_budget + paid == cache;
		if (!ok)
			fprintf(stderr, "oneblock: %u loads of %u units, %u "
				"readers got other bytes, %u decoders (%u at "
				"most), the cache's budget %llu MiB (%llu "
				"expected)\n", atomic_load(&c.loads), c.count,
				atomic_load(&c.wrong), c.fs.units.count, most,
				(unsigned long long)c.fs.cache_budget >> 20,
				(unsigned long long)(cache - paid) >> 20);
	} else {
		ok = atomic_load(&c.loads) == 1 &&
		     atomic_load(&c.wrong) == 0;
	}
	if (!ok && !c.decoders)
		fprintf(stderr, "oneblock: %u loads of the %s (1 expected), "
			"%u readers got other bytes%s\n", atomic_load(&c.loads),
			c.units ? "unit" : c.fragments ? "fragment block" :
			"chunk",
			atomic_load(&c.wrong), c.stored || c.mixed ?
			" or not from the image file" : "");
	for (unsigned i = 0; i < c.count; i++) {
		fake_req(&r, &c.fs, SIZE_MAX);
		fs_ops.release(&r, c.files[i].ino, &c.files[i].fi);
		free(c.files[i].copy);
	}
	fake_req_free(&r);
	fs_fini(&c.fs);
	close(fd);
	return ok ? 0 : 1;
}
