/* SPDX-License-Identifier: MIT */
/*
 * treecmp.h - what the parts of treecmp share: the compared keys, an
 * entry's values, the options (globals of the program: set once by
 * main, read by the scan), the text helpers (treecmp_text.c) and the
 * scan of one tree (treecmp_scan.c).
 */
#ifndef TREECMP_H
#define TREECMP_H

#include <stddef.h>
#include <sys/types.h>

/* The compared keys in the (alphabetical) order differences print in;
 * "error" is no option's to ignore. */
enum { K_CONTENT, K_ERROR, K_HARDLINKS, K_MTIME, K_OWNER, K_PERM, K_RDEV,
       K_SIZE, K_TARGET, K_TYPE, K_XATTRS, NKEYS };

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

extern unsigned ignore;		/* bit per key */
extern int ignore_dir_mtime, ignore_root_mtime;
extern char **excludes;
extern size_t nexcludes;

/* treecmp_text.c: allocation that exits 2 on failure, a growing string,
 * and Python's repr() of a name or a bytes value. */
struct buf {
	char *s;
	size_t n, cap;
};

void *xrealloc(void *p, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void put(struct buf *b, const char *s, size_t n);
void puts_(struct buf *b, const char *s);
void repr(struct buf *b, const char *s, size_t n, int bytes);

/* treecmp_scan.c: every entry below root (and root as "."), sorted by
 * path; swapped reads trusted.* as security.* and back. Exits 2 when
 * root cannot be read. */
void scan(struct tree *t, const char *root, int swapped);
/* Free an entry's values. */
void clear(struct entry *e);

#endif
