/* SPDX-License-Identifier: MIT */
/*
 * mksq_nostrip.c - -no-strip: each source packed at its path, the
 * directories on the way included ("/usr/share/doc" as usr/share/doc).
 * The packer does that itself (SQP_DIRSCAN_KEEP_PATH: lib/dir/keep.c),
 * reading only the named components; what is decided here is what
 * mksquashfs 4.5.1 decides around it:
 *
 * - a leading '/', "./" and "../" are dropped from each path; the root
 *   takes the attributes of the directory the paths start in, or, when
 *   they start in different ones, is a root of its own (mode 0777);
 * - an exclude names entries from each source's kept path;
 * - on an append, a source whose first component the image's root holds
 *   already is fatal (exit status 1): nothing is renamed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mksq_append.h"

#define PROG "sqpack-mksquashfs"

/* How many leading bytes of path are its '/', "./" and "../". */
static size_t lead_len(const char *path)
{
	const char *p = path;

	for (;;) {
		if (p[0] == '/')
			p++;
		else if (p[0] == '.' && (p[1] == '/' || p[1] == '\0'))
			p += 1;
		else if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			p += 2;
		else
			return (size_t)(p - path);
	}
}

char *mksq_nostrip_name(const char *path)
{
	const char *p = path + lead_len(path);
	char *name = malloc(strlen(p) + 1), *o = name;

	if (name == NULL)
		return NULL;
	for (; *p != '\0'; p++)
		if (*p != '/' || (o != name && o[-1] != '/'))
			*o++ = *p;
	if (o != name && o[-1] == '/')
		o--;
	*o = '\0';
	return name;
}

/* stat of the directory path starts in ("." when it has no lead). */
static int start_stat(const char *path, struct stat *st)
{
	size_t n = lead_len(path);
	char *start = n > 0 ? strndup(path, n) : strdup(".");
	int r = start != NULL ? stat(start, st) : -1;

	free(start);
	return r;
}

int mksq_nostrip_root(char *const *paths, int n, struct stat *st)
{
	struct stat other;

	if (n == 0 || start_stat(paths[0], st) != 0)
		return -1;
	for (int i = 1; i < n; i++) {
		if (start_stat(paths[i], &other) != 0)
			return -1;
		if (other.st_dev != st->st_dev || other.st_ino != st->st_ino)
			return 0;
	}
	return 1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int mksq_nostrip_append(const struct mksq_append *ap, const struct mksq_args *args)
{
	for (int i = 0; i < args->nsrc; i++) {
		char *name = mksq_nostrip_name(args->src[i]), *slash;
		int held;

		if (name == NULL) {
			fprintf(stderr, PROG ": out of memory\n");
			return 1;
		}
		if ((slash = strchr(name, '/')) != NULL)
			*slash = '\0';
		held = name[0] != '\0' && ap->base.count > 0 &&
		       bsearch(&name, ap->base.names, ap->base.count, sizeof(char *),
			       name_cmp) != NULL;
		if (held)
			fprintf(stderr, PROG ": %s: the image holds %s already, and "
				"with -no-strip a source is not merged into it nor "
				"renamed (mksquashfs refuses it too)\n", args->src[i], name);
		free(name);
		if (held)
			return 1;
	}
	return 0;
}
