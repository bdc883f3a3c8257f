/* SPDX-License-Identifier: MIT */
/*
 * fuzz_fuse.c - libFuzzer harness for sqpack-fuse's operations, the
 * harness playing the kernel: the input is an image (either format) after
 * one byte of mount options, set up as sqpack-fuse's main() does
 * (fs_init), and then fs_ops' operations are called on it the way the
 * kernel would: the tree walked from the root down (readdir in small
 * pages and whole, readdirplus, lookup, getattr), each regular file
 * opened and read at several offsets and sizes, its holes sought, each
 * symlink read, each node's xattrs listed and got (size 0 and real),
 * statfs. tests/fuse/fakefuse.c answers for libfuse and checks each
 * reply; this checks that the replies agree with each other (lookup and
 * readdirplus and getattr, a page and the whole, a read twice, a hole
 * read as zeros). A violation abort()s. A bounded number of nodes is
 * visited, so an input stays fast.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fakefuse.h"
#include "fuse_fs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NODES 48          /* lookups per input, at most */
#define PAGE 160          /* readdir's small page: a few entries */
#define WHOLE 65536       /* readdir's page for a whole listing */

static void bad(const char *what, const char *name)
{
	fprintf(stderr, "fuzz_fuse: %s: %s\n", name, what);
	abort();
}

struct walk {
	struct fs *fs;
	struct fuse_req r;
	unsigned nodes;
	fuse_ino_t dirs[NODES + 1];
	unsigned ndirs;
};

static void getattr(struct walk *w, fuse_ino_t ino)
{
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.getattr(&w->r, ino, NULL);
	fake_answered(&w->r, "getattr", FAKE_ATTR, FAKE_NONE);
}

/* listxattr and getxattr of each name: size 0, exact, one short. */
static void xattrs(struct walk *w, fuse_ino_t ino, const char *name)
{
	size_t len, vlen;
	char *list;

	fake_req(&w->r, w->fs, 0);
	fs_ops.listxattr(&w->r, ino, 0);
	fake_answered(&w->r, "listxattr", FAKE_XATTR, FAKE_NONE);
	if (w->r.kind != FAKE_XATTR || (len = w->r.xattr_size) < 2)
		return;         /* a name and its NUL: 2 bytes at least */
	fake_req(&w->r, w->fs, len - 1);
	fs_ops.listxattr(&w->r, ino, len - 1);
	if (w->r.kind != FAKE_ERR || w->r.err != ERANGE)
		bad("listxattr one byte short: not ERANGE", name);
	fake_req(&w->r, w->fs, len);
	fs_ops.listxattr(&w->r, ino, len);
	fake_answered(&w->r, "listxattr", FAKE_BUF, FAKE_NONE);
	if (w->r.kind != FAKE_BUF)
		return;
	if (w->r.len != len || w->r.buf[len - 1] != 0)
		bad("listxattr: not the size it gave", name);
	list = w->r.buf;
	w->r.buf = NULL;
	for (size_t at = 0; at < len; at += strlen(list + at) + 1) {
		fake_req(&w->r, w->fs, 0);
		fs_ops.getxattr(&w->r, ino, list + at, 0);
		fake_answered(&w->r, "getxattr", FAKE_XATTR, FAKE_NONE);
		if (w->r.kind != FAKE_XATTR)
			continue;
		vlen = w->r.xattr_size;
		if (vlen == 0)
			continue;       /* empty: size 0 asks for the size
					 * again, and that was the answer */
		fake_req(&w->r, w->fs, vlen);
		fs_ops.getxattr(&w->r, ino, list + at, vlen);
		fake_answered(&w->r, "getxattr", FAKE_BUF, FAKE_NONE);
		if (w->r.kind == FAKE_BUF && w->r.len != vlen)
			bad("getxattr: not the size it gave", name);
		if (vlen < 2)
			continue;       /* one short would be size 0 */
		fake_req(&w->r, w->fs, vlen - 1);
		fs_ops.getxattr(&w->r, ino, list + at, vlen - 1);
		if (w->r.kind != FAKE_ERR || w->r.err != ERANGE)
			bad("getxattr one byte short: not ERANGE", name);
	}
	free(list);
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.getxattr(&w->r, ino, "user.no such name", 64);
	if (w->r.kind != FAKE_ERR || w->r.err == 0)
		bad("getxattr of a missing name: no error", name);
}

/* A read of n bytes at off: 0 with the bytes in w->r.buf, or -1 on an
 * error reply. Exactly the bytes there are: a file is never short. */
static int read_at(struct walk *w, fuse_ino_t ino, struct fuse_file_info *fi,
		   uint64_t fsize, uint64_t off, size_t n, const char *name)
{
	uint64_t want = off >= fsize ? 0 : fsize - off < n ? fsize - off : n;

	fake_req(&w->r, w->fs, n);
	fs_ops.read(&w->r, ino, n, (off_t)off, fi);
	fake_answered(&w->r, "read", FAKE_BUF, FAKE_NONE);
	if (w->r.kind != FAKE_BUF)
		return -1;
	if (w->r.len != want)
		bad("read: not the bytes the file has there", name);
	return 0;
}

/* SEEK_HOLE from 0: a hole that starts before the end reads as zeros
 * up to the next data (or 4 KiB of it). */
static void holes(struct walk *w, fuse_ino_t ino, struct fuse_file_info *fi,
		  uint64_t fsize, const char *name)
{
	uint64_t hole, data = fsize;

	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.lseek(&w->r, ino, 0, SEEK_HOLE, fi);
	fake_answered(&w->r, "lseek", FAKE_LSEEK, FAKE_NONE);
	if (w->r.kind != FAKE_LSEEK)
		return;
	if ((hole = (uint64_t)w->r.off) > fsize)
		bad("SEEK_HOLE past the end", name);
	if (hole == fsize)
		return;
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.lseek(&w->r, ino, (off_t)hole, SEEK_DATA, fi);
	fake_answered(&w->r, "lseek", FAKE_LSEEK, FAKE_NONE);
	if (w->r.kind == FAKE_LSEEK) {
		data = (uint64_t)w->r.off;
		if (data <= hole || data >= fsize)
			bad("SEEK_DATA not after the hole, within the file",
			    name);
	} else if (w->r.err != ENXIO) {
		return;
	}
	if (read_at(w, ino, fi, fsize, hole,
		    data - hole < 4096 ? (size_t)(data - hole) : 4096,
		    name) == 0)
		for (size_t i = 0; i < w->r.len; i++)
			if (w->r.buf[i] != 0)
				bad("a hole that does not read as zeros", name);
}

/* Open, read at several places (the first twice: the cache gives the
 * same bytes after the others, to a read with no open file too), seek,
 * release. */
static void file(struct walk *w, fuse_ino_t ino, uint64_t fsize,
		 const char *name)
{
	struct fuse_file_info fi = { .flags = O_RDONLY };
	uint64_t chunk = w->fs->chunk;
	const uint64_t offs[] = { chunk - 1, fsize / 2, fsize - 1, fsize,
				  fsize + chunk };
	size_t first = fsize < 4096 ? 4096 : 131072 + 7;
	char *again;

	fi.flags = O_WRONLY;
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.open(&w->r, ino, &fi);
	if (w->r.kind != FAKE_ERR || w->r.err == 0)
		bad("open for writing: no error", name);
	fi.flags = O_RDONLY;
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.open(&w->r, ino, &fi);
	fake_answered(&w->r, "open", FAKE_OPEN, FAKE_NONE);
	if (w->r.kind != FAKE_OPEN)
		return;
	fi = w->r.fi;
	if (read_at(w, ino, &fi, fsize, 0, first, name) == 0) {
		again = w->r.buf;
		w->r.buf = NULL;
		for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
			read_at(w, ino, &fi, fsize, offs[i], 4096 + i * 40000,
				name);
		/* Again as the kernel reads without an open (FS_NO_OPEN):
		 * no open file, fh 0. */
		if (read_at(w, ino, &(struct fuse_file_info){ .flags = O_RDONLY },
			    fsize, 0, first, name) == 0 &&
		    memcmp(again, w->r.buf, w->r.len) != 0)
			bad("read twice: other bytes", name);
		free(again);
	}
	holes(w, ino, &fi, fsize, name);
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.release(&w->r, ino, &fi);
	fake_answered(&w->r, "release", FAKE_NONE);
	if (w->r.err != 0)
		bad("release: an error", name);
}

/* A node found by lookup: its attributes again, and what its type
 * offers. */
static void node(struct walk *w, const struct fuse_entry_param *e,
		 const char *name)
{
	struct stat st = e->attr;
	fuse_ino_t ino = e->ino;

	getattr(w, ino);
	if (w->r.kind == FAKE_ATTR &&
	    memcmp(&w->r.attr, &st, sizeof(st)) != 0)
		bad("getattr differs from lookup", name);
	xattrs(w, ino, name);
	if (S_ISREG(st.st_mode)) {
		file(w, ino, (uint64_t)st.st_size, name);
	} else if (S_ISLNK(st.st_mode)) {
		fake_req(&w->r, w->fs, SIZE_MAX);
		fs_ops.readlink(&w->r, ino);
		fake_answered(&w->r, "readlink", FAKE_READLINK, FAKE_NONE);
	} else if (S_ISDIR(st.st_mode) && w->ndirs <= NODES) {
		w->dirs[w->ndirs++] = ino;
	}
}

/* dir opened as the kernel does (and refused to open as a file). */
static int opendir(struct walk *w, fuse_ino_t dir, struct fuse_file_info *fi)
{
	struct fuse_file_info file = { .flags = O_RDONLY };

	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.open(&w->r, dir, &file);
	if (w->r.kind != FAKE_ERR || w->r.err == 0)
		bad("a directory opened as a file", "a directory");
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.opendir(&w->r, dir, fi);
	fake_answered(&w->r, "opendir", FAKE_OPEN, FAKE_NONE);
	return w->r.kind == FAKE_OPEN ? 0 : -1;
}

/* dir's listing in whole (0), or an error reply (-1), checked against
 * the same read in small pages, each from where the last one ended. */
static int listing(struct walk *w, fuse_ino_t dir, struct fuse_file_info *fi,
		   struct fuse_req *whole)
{
	const struct fake_dirent *d, *p;
	size_t pos = 0, ppos;
	off_t off = 0;

	fake_req(whole, w->fs, WHOLE);
	fs_ops.readdir(whole, dir, WHOLE, 0, fi);
	fake_answered(whole, "readdir", FAKE_BUF, FAKE_NONE);
	if (whole->kind != FAKE_BUF)
		return -1;
	for (unsigned pages = 0; pages < 64; pages++) {
		fake_req(&w->r, w->fs, PAGE);
		fs_ops.readdir(&w->r, dir, PAGE, off, fi);
		fake_answered(&w->r, "readdir", FAKE_BUF, FAKE_NONE);
		if (w->r.kind != FAKE_BUF || w->r.len == 0)
			break;
		for (ppos = 0; (p = fake_dirent_next(&w->r, &ppos)) != NULL;
		     off = p->off) {
			if (p->off <= off)
				bad("readdir: offsets not increasing", p->name);
			if ((d = fake_dirent_next(whole, &pos)) == NULL)
				bad("readdir in pages: more entries", p->name);
			if (strcmp(d->name, p->name) != 0 || d->off != p->off)
				bad("readdir in pages: other entries", p->name);
		}
	}
	return 0;
}

/* Each entry of dir: looked up, compared with readdirplus's. */
static void directory(struct walk *w, fuse_ino_t dir)
{
	struct fuse_file_info fi = { .flags = O_RDONLY };
	struct fuse_req whole = { 0 }, plus = { 0 };
	const struct fake_dirent *d, *p;
	struct fuse_entry_param e;
	size_t pos = 0, ppos = 0;

	if (opendir(w, dir, &fi) != 0)
		return;
	fi = w->r.fi;
	if (listing(w, dir, &fi, &whole) != 0) {
		fake_req_free(&whole);
		return;
	}
	fake_req(&plus, w->fs, WHOLE);
	fs_ops.readdirplus(&plus, dir, WHOLE, 0, &fi);
	fake_answered(&plus, "readdirplus", FAKE_BUF, FAKE_NONE);
	while (w->nodes < NODES &&
	       (d = fake_dirent_next(&whole, &pos)) != NULL) {
		w->nodes++;
		p = fake_dirent_next(&plus, &ppos);
		fake_req(&w->r, w->fs, SIZE_MAX);
		fs_ops.lookup(&w->r, dir, d->name);
		fake_answered(&w->r, "lookup", FAKE_ENTRY, FAKE_NONE);
		if (w->r.kind != FAKE_ENTRY || w->r.entry.ino == 0)
			continue;
		e = w->r.entry;
		if (p != NULL && (strcmp(p->name, d->name) != 0 ||
				  p->e.ino != e.ino ||
				  memcmp(&p->e.attr, &e.attr,
					 sizeof(e.attr)) != 0))
			bad("readdirplus differs from lookup", d->name);
		node(w, &e, d->name);
	}
	fake_req_free(&plus);
	fake_req_free(&whole);
	fake_req(&w->r, w->fs, SIZE_MAX);
	fs_ops.lookup(&w->r, dir, "no such name");
	fake_answered(&w->r, "lookup", FAKE_ENTRY, FAKE_NONE);
}

/* Byte 0: the mount's options. Bits 0-1: the cache's budget (nothing
 * kept beyond what is in use, 64 KiB, 1 MiB, 64 MiB); bit 2: -o
 * subdir=d (the seeds' trees have one); bit 3: uid, gid and masks set. */
static void setup_of(uint8_t opt, struct fs_setup *s)
{
	static const uint64_t budgets[] = { 0, 64 << 10, 1 << 20, 64 << 20 };

	s->threads = 2;
	s->cache_bytes = budgets[opt & 3];
	s->subdir = opt & 4 ? "d" : NULL;
	if (opt & 8)
		s->o = (struct fs_opts){ .set_uid = 1, .set_gid = 1,
			.uid = 1000, .gid = 1000, .umask = 022,
			.fmask = 0111, .dmask = 0 };
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fs_setup s = { .desc = { .struct_size = sizeof(s.desc),
					.name = "fuzz" } };
	struct walk w = { 0 };
	struct fs fs;
	char msg[256];
	int fd;

	if (size < 2 || (fd = memfd_create("img", 0)) < 0)
		return 0;
	setup_of(data[0], &s);
	s.desc.fd = fd;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1) ||
	    fs_init(&fs, &s, msg, sizeof(msg)) != 0) {
		close(fd);
		return 0;
	}
	w.fs = &fs;
	fake_req(&w.r, &fs, SIZE_MAX);
	fs_ops.statfs(&w.r, FUSE_ROOT_ID);
	fake_answered(&w.r, "statfs", FAKE_STATFS, FAKE_NONE);
	if (w.r.sv.f_bsize == 0 || (w.r.sv.f_flag & ST_RDONLY) == 0)
		bad("statfs: no block size, or not read-only", "/");
	getattr(&w, FUSE_ROOT_ID);
	xattrs(&w, FUSE_ROOT_ID, "/");
	w.dirs[w.ndirs++] = FUSE_ROOT_ID;
	for (unsigned i = 0; i < w.ndirs && w.nodes < NODES; i++)
		directory(&w, w.dirs[i]);
	fake_req_free(&w.r);
	fs_fini(&fs);
	close(fd);
	return 0;
}
