/* SPDX-License-Identifier: MIT */
/*
 * treecmp - compare two extracted file trees the way an image must
 * preserve them. The suite's judge of every tree comparison; it replaces
 * a Python version whose per-entry overhead made it a large part of the
 * suite's run time.
 *
 * usage: treecmp [OPTIONS] DIR_A DIR_B
 *
 * Compares, for every path (lstat, symlinks never followed, the roots
 * included as "."): type, permission bits with suid/sgid/sticky,
 * uid/gid, mtime in seconds, symlink targets, device numbers, file size
 * and content (XXH3 128-bit), extended attributes (binary values compared
 * as bytes) and the hard-link structure (which paths share an inode with
 * which). Exit 0 when equal, 1 printing each difference as
 * "PATH: WHAT: A vs B" (at most 50 lines), 2 on bad usage.
 *
 * The walk is relative to open directory descriptors, so paths longer
 * than PATH_MAX are compared like any other.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <xxhash.h>

static const char usage[] =
"usage: treecmp [OPTIONS] DIR_A DIR_B\n"
"\n"
"options:\n"
"  --no-xattrs            do not compare extended attributes\n"
"  --ignore-dir-mtime     do not compare the mtimes of directories\n"
"  --ignore-root-mtime    do not compare the mtime of the roots themselves\n"
"  --swap-xattr-prefixes  read DIR_A's trusted.* as security.* and back\n"
"                         (squashfuse reports them swapped)\n"
"  --skip-symlink-targets do not compare symlink targets\n"
"  --no-hardlinks         do not compare hard-link groups (FUSE mounts\n"
"                         without inode numbers)\n"
"  --ignore=KEY[,KEY...]  do not compare these: type perm owner mtime target\n"
"                         rdev size content xattrs hardlinks\n"
"  --exclude=GLOB         leave out paths matching GLOB (fnmatch on the path\n"
"                         relative to the root; \"*\" also matches \"/\"), in\n"
"                         both trees; may be repeated\n";

/* The compared keys in the (alphabetical) order differences print in;
 * "error" is no option's to ignore. */
enum { K_CONTENT, K_ERROR, K_HARDLINKS, K_MTIME, K_OWNER, K_PERM, K_RDEV,
       K_SIZE, K_TARGET, K_TYPE, K_XATTRS, NKEYS };
static const char *const keys[NKEYS] = { "content", "error", "hardlinks",
	"mtime", "owner", "perm", "rdev", "size", "target", "type", "xattrs" };

#define MAX_LINES 50

struct entry {
	char *path;
	char *val[NKEYS];	/* NULL: the key is absent ("None") */
	dev_t dev;
	ino_t ino;
	int linkable;		/* non-directory that joins a hard-link group */
};

struct tree {
	struct entry *e;
	size_t n, cap;
};

static unsigned ignore;		/* bit per key */
static int ignore_dir_mtime, ignore_root_mtime, swap;
static char **excludes;
static size_t nexcludes;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("treecmp");
		exit(2);
	}
	return p;
}

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		perror("treecmp");
		exit(2);
	}
	va_end(ap);
	return s;
}

/* A growing string, for the repr()-like values. */
struct buf {
	char *s;
	size_t n, cap;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Length of a valid UTF-8 sequence at s (code point in *cp), 0 if not. */
static size_t utf8(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len, i;
	unsigned c = s[0];

	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	c &= 0x3f >> (len - 1);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c < 0xe000))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return len;
}

/* Python's repr() of a str (names decoded with surrogateescape) or, with
 * bytes set, of a bytes object: tests see these in the xattrs and
 * hardlinks values, so the text follows Python's where it matters. */
static void repr(struct buf *b, const char *s, size_t n, int bytes)
{
	const unsigned char *u = (const unsigned char *)s;
	char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
	char esc[16];
	size_t i, len;
	unsigned cp;

	if (bytes)
		put(b, "b", 1);
	put(b, &q, 1);
	for (i = 0; i < n; i++) {
		unsigned c = u[i];

		if (c == '\\' || c == (unsigned char)q) {
			put(b, "\\", 1);
			put(b, s + i, 1);
		} else if (c == '\t') {
			puts_(b, "\\t");
		} else if (c == '\n') {
			puts_(b, "\\n");
		} else if (c == '\r') {
			puts_(b, "\\r");
		} else if (c >= 0x20 && c < 0x7f) {
			put(b, s + i, 1);
		} else if (bytes || c < 0x80) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			puts_(b, esc);
		} else if ((len = utf8(u + i, n - i, &cp)) == 0) {
			snprintf(esc, sizeof(esc), "\\udc%02x", c);
			puts_(b, esc);
		} else if (cp < 0xa0) {
			snprintf(esc, sizeof(esc), "\\x%02x", cp);
			puts_(b, esc);
			i += len - 1;
		} else {
			put(b, s + i, len);
			i += len - 1;
		}
	}
	put(b, &q, 1);
}

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

static void clear(struct entry *e)
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
static void scan(struct tree *t, const char *root, int swapped)
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

/* Characters (UTF-8 code points, a stray byte counting as one) in s. */
static size_t chars(const char *s, size_t n)
{
	size_t i, c = 0;

	for (i = 0; i < n; i++)
		c += ((unsigned char)s[i] & 0xc0) != 0x80;
	return c;
}

/* Byte offset of the character number c in s. */
static size_t offset(const char *s, size_t n, size_t c)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && c-- == 0)
			break;
	return i;
}

/* Long values shortened to their two ends and their length. */
static void print_short(const char *s)
{
	const size_t limit = 120;
	size_t n, c, head, tail;

	if (!s)
		s = "None";
	n = strlen(s);
	c = chars(s, n);
	if (c <= limit) {
		fputs(s, stdout);
		return;
	}
	head = offset(s, n, limit / 2);
	tail = offset(s, n, c - limit / 3);
	printf("%.*s...(%zu chars)...%s", (int)head, s, c, s + tail);
}

static int same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static size_t ndiffs;

static void diff(const char *path, const char *key, const char *a,
		 const char *b)
{
	if (ndiffs++ >= MAX_LINES)
		return;
	print_short(path);
	if (key) {
		printf(": %s: ", key);
		print_short(a);
		fputs(" vs ", stdout);
		print_short(b);
	} else {
		printf(": only in %s", a);
	}
	putchar('\n');
}

/* Walk both sorted lists together; a subtree present on one side only
 * is one line. */
static void compare(const struct tree *ta, const struct tree *tb,
		    const char *na, const char *nb)
{
	size_t i = 0, j = 0, glen = 0;
	char *gone = NULL;
	int k;

	while (i < ta->n || j < tb->n) {
		int c = i == ta->n ? 1 : j == tb->n ? -1
			: strcmp(ta->e[i].path, tb->e[j].path);
		const struct entry *a = &ta->e[i], *b = &tb->e[j];
		const char *p = c <= 0 ? a->path : b->path;

		if (gone && !strncmp(p, gone, glen)) {
			i += c <= 0;
			j += c >= 0;
			continue;
		}
		if (c) {
			diff(p, NULL, c < 0 ? na : nb, NULL);
			free(gone);
			gone = xasprintf("%s/", p);
			glen = strlen(gone);
			i += c < 0;
			j += c > 0;
			continue;
		}
		for (k = 0; k < NKEYS; k++)
			if (!same(a->val[k], b->val[k]))
				diff(p, keys[k], a->val[k], b->val[k]);
		i++;
		j++;
	}
	free(gone);
}

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("treecmp: ", stderr);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", usage);
	return 2;
}

int main(int argc, char **argv)
{
	struct tree ta = { 0 }, tb = { 0 };
	const char *dirs[2];
	size_t ndirs = 0, i;
	struct stat st;
	int a, k;

	for (a = 1; a < argc; a++) {
		const char *s = argv[a];

		if (!strcmp(s, "--no-xattrs")) {
			ignore |= 1u << K_XATTRS;
		} else if (!strcmp(s, "--skip-symlink-targets")) {
			ignore |= 1u << K_TARGET;
		} else if (!strcmp(s, "--no-hardlinks")) {
			ignore |= 1u << K_HARDLINKS;
		} else if (!strcmp(s, "--ignore-dir-mtime")) {
			ignore_dir_mtime = 1;
		} else if (!strcmp(s, "--ignore-root-mtime")) {
			ignore_root_mtime = 1;
		} else if (!strcmp(s, "--swap-xattr-prefixes")) {
			swap = 1;
		} else if (!strncmp(s, "--ignore=", 9)) {
			const char *p = s + 9;

			for (;;) {
				size_t len = strcspn(p, ",");

				for (k = 0; k < NKEYS; k++)
					if (k != K_ERROR && strlen(keys[k]) == len &&
					    !strncmp(p, keys[k], len))
						break;
				if (k == NKEYS)
					return bad_usage("unknown key in %s (known: type "
						"perm owner mtime target rdev size content "
						"xattrs hardlinks)", s);
				ignore |= 1u << k;
				if (!p[len])
					break;
				p += len + 1;
			}
		} else if (!strncmp(s, "--exclude=", 10)) {
			excludes = xrealloc(excludes,
					    (nexcludes + 1) * sizeof(*excludes));
			excludes[nexcludes++] = argv[a] + 10;
		} else if (s[0] == '-') {
			return bad_usage("unknown option %s", s);
		} else if (ndirs < 2) {
			dirs[ndirs++] = s;
		} else {
			ndirs = 3;
		}
	}
	if (ndirs != 2)
		return bad_usage("need two directories%s", "");
	for (i = 0; i < 2; i++)
		if (stat(dirs[i], &st) || !S_ISDIR(st.st_mode))
			return bad_usage("%s: not a directory", dirs[i]);
	/* the swap describes DIR_A's reader only */
	scan(&ta, dirs[0], swap);
	scan(&tb, dirs[1], 0);
	compare(&ta, &tb, dirs[0], dirs[1]);
	if (ndiffs > MAX_LINES)
		printf("... and %zu more differences\n", ndiffs - MAX_LINES);
	for (i = 0; i < ta.n; i++) {
		clear(&ta.e[i]);
		free(ta.e[i].path);
	}
	for (i = 0; i < tb.n; i++) {
		clear(&tb.e[i]);
		free(tb.e[i].path);
	}
	free(ta.e);
	free(tb.e);
	free(excludes);
	return ndiffs ? 1 : 0;
}
