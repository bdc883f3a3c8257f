/* SPDX-License-Identifier: MIT */
/*
 * treecmp_scan.c - one tree's entries and their compared values: lstat,
 * symlink targets, devices, contents (XXH3 128-bit), xattrs and hard-link
 * groups, walked through open directory descriptors (paths longer than
 * PATH_MAX are compared like any other), leaving out what --exclude and
 * --ignore say.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <xxhash.h>

#include "treecmp.h"

struct xattr {
	char *name;
	char *val;
	size_t len;
	int bytes;		/* 0: an error text shown as a str */
};

static int xattr_cmp(const void *a, const void *b)
{
	return strcmp(((const struct xattr *)a)->name,
		      ((const struct xattr *)b)->name);
}

/* The xattrs value: Python's repr of the sorted (name, value) tuple.
 * There is no *at() form of listxattr; /proc/self/fd/N/NAME keeps the
 * path short whatever the depth, and the l* calls stop at NAME. The root
 * (name NULL) is reached through the magic link itself, so followed. */
static char *xattrs(int dirfd, const char *name, int swapped)
{
	char path[64 + NAME_MAX], *list = NULL, *p;
	ssize_t size, vlen;
	struct xattr *x = NULL;
	size_t nx = 0, i, j;
	struct buf b = { 0 };

	if (name)
		snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", dirfd, name);
	else
		snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
	for (;;) {
		size = name ? llistxattr(path, NULL, 0) : listxattr(path, NULL, 0);
		if (size < 0)
			break;
		list = xrealloc(list, size);
		size = name ? llistxattr(path, list, size)
			    : listxattr(path, list, size);
		if (size >= 0 || errno != ERANGE)
			break;
	}
	if (size < 0) {
		free(list);
		if (errno == ENOTSUP)
			return xasprintf("()");
		return NULL;
	}
	for (p = list; p < list + size; p += strlen(p) + 1) {
		struct xattr v = { 0 };

		if (swapped && !strncmp(p, "trusted.", 8))
			v.name = xasprintf("security.%s", p + 8);
		else if (swapped && !strncmp(p, "security.", 9))
			v.name = xasprintf("trusted.%s", p + 9);
		else
			v.name = xasprintf("%s", p);
		for (;;) {
			vlen = name ? lgetxattr(path, p, NULL, 0)
				    : getxattr(path, p, NULL, 0);
			if (vlen < 0)
				break;
			v.val = xrealloc(v.val, vlen);
			vlen = name ? lgetxattr(path, p, v.val, vlen)
				    : getxattr(path, p, v.val, vlen);
			if (vlen >= 0 || errno != ERANGE)
				break;
		}
		if (vlen < 0) {	/* listed but unreadable: a difference to show */
			free(v.val);
			v.val = xasprintf("<%s>", strerror(errno));
			v.len = strlen(v.val);
		} else {
			v.len = vlen;
			v.bytes = 1;
		}
		/* a swapped name may meet an unswapped one: the later wins,
		 * as in a dict */
		for (j = 0; j < nx && strcmp(x[j].name, v.name); j++)
			;
		if (j < nx) {
			free(x[j].name);
			free(x[j].val);
			x[j] = v;
		} else {
			x = xrealloc(x, (nx + 1) * sizeof(*x));
			x[nx++] = v;
		}
	}
	free(list);
	if (nx)	/* qsort must not get NULL, even for no items */
		qsort(x, nx, sizeof(*x), xattr_cmp);
	puts_(&b, "(");
	for (i = 0; i < nx; i++) {
		if (i)
			puts_(&b, ", ");
		puts_(&b, "(");
		repr(&b, x[i].name, strlen(x[i].name), 0);
		puts_(&b, ", ");
		repr(&b, x[i].val, x[i].len, x[i].bytes);
		puts_(&b, ")");
		free(x[i].name);
		free(x[i].val);
	}
	puts_(&b, nx == 1 ? ",)" : ")");
	free(x);
	return b.s;
}

/* 128-bit hash of a file's bytes, read in large chunks. */
static char *content(int dirfd, const char *name)
{
	static char *chunk;
	const size_t chunk_size = 1 << 20;
	XXH3_state_t *st;
	XXH128_hash_t h;
	ssize_t n;
	int fd, err;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (!chunk)
		chunk = xrealloc(NULL, chunk_size);
	st = XXH3_createState();
	if (!st) {
		perror("treecmp");
		exit(2);
	}
	XXH3_128bits_reset(st);
	while ((n = read(fd, chunk, chunk_size)) > 0)
		XXH3_128bits_update(st, chunk, n);
	err = errno;
	h = XXH3_128bits_digest(st);
	XXH3_freeState(st);
	close(fd);
	if (n < 0) {
		errno = err;
		return NULL;
	}
	return xasprintf("%016llx%016llx", (unsigned long long)h.high64,
			 (unsigned long long)h.low64);
}

static const char *type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "directory";
	case S_IFLNK: return "symlink";
	case S_IFCHR: return "char device";
	case S_IFBLK: return "block device";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	}
	return NULL;
}

void clear(struct entry *e)
{
	int k;

	for (k = 0; k < NKEYS; k++) {
		free(e->val[k]);
		e->val[k] = NULL;
	}
}

/* Fill e's values for one entry (name NULL: the root at dirfd). On a
 * failure only "error" is left, as for an entry that cannot be read. */
static int describe(struct entry *e, int dirfd, const char *name,
		    const struct stat *st, int swapped)
{
	mode_t m = st->st_mode;
	const char *t = type_name(m);
	int k;

	e->val[K_TYPE] = t ? xasprintf("%s", t)
			   : xasprintf("0o%o", (unsigned)(m & S_IFMT));
	e->val[K_OWNER] = xasprintf("%u:%u", (unsigned)st->st_uid,
				    (unsigned)st->st_gid);
	/* tv_nsec is in [0, 1e9): tv_sec is the floor in whole seconds,
	 * negative times included */
	if (!((S_ISDIR(m) && ignore_dir_mtime) || (!name && ignore_root_mtime)))
		e->val[K_MTIME] = xasprintf("%lld", (long long)st->st_mtim.tv_sec);
	if (S_ISLNK(m)) {
		/* symlink permissions carry no meaning on Linux: no perm. The
		 * size lstat gives may be 0 (procfs-like): grow until it fits. */
		size_t cap = st->st_size > 0 ? (size_t)st->st_size + 1 : 256;
		char *buf = NULL;
		ssize_t n;

		for (;;) {
			buf = xrealloc(buf, cap);
			n = readlinkat(dirfd, name, buf, cap);
			if (n < 0 || (size_t)n < cap)
				break;
			cap *= 2;
		}
		if (n < 0) {
			free(buf);
			goto fail;
		}
		buf[n] = '\0';
		e->val[K_TARGET] = buf;
	} else {
		e->val[K_PERM] = xasprintf("%04o", (unsigned)(m & 07777));
	}
	if (S_ISREG(m)) {
		e->val[K_SIZE] = xasprintf("%lld", (long long)st->st_size);
		if (!(ignore & 1u << K_CONTENT) &&
		    !(e->val[K_CONTENT] = content(dirfd, name)))
			goto fail;
	} else if (S_ISCHR(m) || S_ISBLK(m)) {
		e->val[K_RDEV] = xasprintf("%u,%u", major(st->st_rdev),
					   minor(st->st_rdev));
	}
	if (!(ignore & 1u << K_XATTRS) &&
	    !(e->val[K_XATTRS] = xattrs(dirfd, name, swapped)))
		goto fail;
	for (k = 0; k < NKEYS; k++) {
		if (ignore & 1u << k) {
			free(e->val[k]);
			e->val[k] = NULL;
		}
	}
	return 0;
fail:
	k = errno;
	clear(e);
	e->val[K_ERROR] = xasprintf("%s", strerror(k));
	return -1;
}

static struct entry *add(struct tree *t, char *path)
{
	struct entry *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->e = xrealloc(t->e, t->cap * sizeof(*t->e));
	}
	e = &t->e[t->n++];
	memset(e, 0, sizeof(*e));
	e->path = path;
	return e;
}

static int excluded(const char *rel)
{
	size_t i;

	/* no FNM_PATHNAME: "*" also matches "/"; no escapes, as in
	 * Python's fnmatchcase */
	for (i = 0; i < nexcludes; i++)
		if (!fnmatch(excludes[i], rel, FNM_NOESCAPE))
			return 1;
	return 0;
}

/* Add every entry below dirfd (whose path is prefix, "" for the root);
 * an error reading the directory itself is the caller's to record. */
static int walk(struct tree *t, int dirfd, const char *prefix, int swapped)
{
	struct dirent *d;
	DIR *dir;
	int fd = dup(dirfd), err = 0;

	if (fd < 0 || !(dir = fdopendir(fd))) {
		err = errno;
		if (fd >= 0)
			close(fd);
		errno = err;
		return -1;
	}
	for (;;) {
		struct entry *e;
		struct stat st;
		char *rel;
		size_t i;
		int sub;

		errno = 0;
		if (!(d = readdir(dir))) {
			err = errno;
			break;
		}
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		rel = xasprintf("%s%s", prefix, d->d_name);
		if (excluded(rel)) {
			free(rel);
			continue;
		}
		e = add(t, rel);
		i = t->n - 1;
		if (fstatat(dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
			e->val[K_ERROR] = xasprintf("%s", strerror(errno));
			continue;
		}
		if (describe(e, dirfd, d->d_name, &st, swapped))
			continue;
		if (!S_ISDIR(st.st_mode)) {
			e->linkable = 1;
			e->dev = st.st_dev;
			e->ino = st.st_ino;
			continue;
		}
		sub = openat(dirfd, d->d_name,
			     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			e->val[K_ERROR] = xasprintf("cannot open: %s",
						    strerror(errno));
			continue;
		}
		rel = xasprintf("%s/", rel);
		if (walk(t, sub, rel, swapped)) {
			/* the array may have moved: index, not pointer */
			e = &t->e[i];
			free(e->val[K_ERROR]);
			e->val[K_ERROR] = xasprintf("cannot list: %s",
						    strerror(errno));
		}
		free(rel);
		close(sub);
	}
	closedir(dir);
	errno = err;
	return err ? -1 : 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path,
		      ((const struct entry *)b)->path);
}

static int by_inode(const void *a, const void *b)
{
	const struct entry *x = *(struct entry *const *)a;
	const struct entry *y = *(struct entry *const *)b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Give each non-directory the sorted list of the paths sharing its
 * inode, itself included, as Python's repr of a list. */
static void hardlinks(struct tree *t)
{
	struct entry **v = xrealloc(NULL, t->n * sizeof(*v));
	size_t n = 0, i, j, k;

	for (i = 0; i < t->n; i++)
		if (t->e[i].linkable)
			v[n++] = &t->e[i];
	qsort(v, n, sizeof(*v), by_inode);
	for (i = 0; i < n; i = j) {
		struct buf b = { 0 };

		puts_(&b, "[");
		for (j = i; j < n && v[j]->dev == v[i]->dev &&
			    v[j]->ino == v[i]->ino; j++) {
			if (j > i)
				puts_(&b, ", ");
			repr(&b, v[j]->path, strlen(v[j]->path), 0);
		}
		puts_(&b, "]");
		for (k = i; k < j; k++)
			v[k]->val[K_HARDLINKS] = xasprintf("%s", b.s);
		free(b.s);
	}
	free(v);
}

/* Map each relative path to its values; "." is the root. */
void scan(struct tree *t, const char *root, int swapped)
{
	struct entry *e;
	struct stat st;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "treecmp: %s: %s\n", root, strerror(errno));
		exit(2);
	}
	e = add(t, xasprintf("."));
	describe(e, fd, NULL, &st, swapped);
	if (walk(t, fd, "", swapped)) {
		fprintf(stderr, "treecmp: %s: %s\n", root, strerror(errno));
		exit(2);
	}
	close(fd);
	if (!(ignore & 1u << K_HARDLINKS))
		hardlinks(t);
	qsort(t->e, t->n, sizeof(*t->e), by_path);
}
