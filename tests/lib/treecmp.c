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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "treecmp.h"

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

static const char *const keys[NKEYS] = { "content", "error", "hardlinks",
	"mtime", "owner", "perm", "rdev", "size", "target", "type", "xattrs" };

#define MAX_LINES 50

unsigned ignore;		/* bit per key */
int ignore_dir_mtime, ignore_root_mtime;
static int swap;
char **excludes;
size_t nexcludes;

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
