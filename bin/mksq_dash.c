/* SPDX-License-Identifier: MIT */
/*
 * mksq_dash.c - "-" as the first source without -tar: mksquashfs then
 * packs no source at all, only its pseudo definitions (-p), and the "/" line it
 * requires gives the root (in a first run and when appending: `- DEST -p
 * "/ d 755 0 0" -p ...`). The other sources of such a line are ignored,
 * as there, and -keep-as-directory has nothing to keep.
 *
 * The packer needs a directory to pack: an empty one of ours in TMPDIR
 * stands for the sources, its contents (none) the root, whose attributes
 * the "/" line then sets. Without a "/" line the run fails as mksquashfs
 * fails, before anything is written.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mksq_dash.h"

#define PROG "sqpack-mksquashfs"

/* A -p definition of "/": its first word is "/". */
static int defines_root(const char *def)
{
	while (*def == ' ' || *def == '\t')
		def++;
	return def[0] == '/' && (def[1] == ' ' || def[1] == '\t');
}

/* What the options say: 1 when a -p line defines "/", -1 with -tar or
 * -cpiostyle (the "-" is stdin's there), else 0. Options end at -e, whose
 * list is names. */
static int options_root(int first, int argc, char **argv)
{
	int root = 0;

	for (int i = first; i < argc; i++) {
		if (strcmp(argv[i], "-tar") == 0 || strncmp(argv[i], "-cpiostyle", 10) == 0)
			return -1;
		if (strcmp(argv[i], "-e") == 0)
			break;
		if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && defines_root(argv[++i]))
			root = 1;
	}
	return root;
}

int mksq_dash_prepare(struct mksq_dash *d, int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char **v = *argv;
	int npos = 1, root, n = 0;

	memset(d, 0, sizeof(*d));
	/* SOURCE... DEST: up to the first option ("-" is not one) */
	while (npos < *argc && (v[npos][0] != '-' || strcmp(v[npos], "-") == 0))
		npos++;
	/* only the first: a later "-" is a path mksquashfs cannot stat */
	if (npos < 3 || strcmp(v[1], "-") != 0 || (root = options_root(npos, *argc, v)) < 0)
		return 0;
	if (root == 0) {
		fprintf(stderr, PROG ": the source is \"-\", but no pseudo definition "
			"for \"/\" (-p \"/ d MODE UID GID\"); did you forget -tar?\n");
		return 1;
	}
	if (asprintf(&d->dir, "%s/sqpack-mksquashfs.XXXXXX", tmp && tmp[0] ? tmp : "/tmp") < 0) {
		d->dir = NULL;
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	if (mkdtemp(d->dir) == NULL) {
		fprintf(stderr, PROG ": an empty directory in TMPDIR: %s\n", strerror(errno));
		free(d->dir);
		d->dir = NULL;
		return 1;
	}
	d->made = 1;
	if ((d->argv = calloc((size_t)*argc + 1, sizeof(char *))) == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	d->argv[n++] = v[0];
	d->argv[n++] = d->dir;
	for (int i = npos - 1, e = 0; i < *argc; i++) {
		e |= strcmp(v[i], "-e") == 0;
		if (e || strcmp(v[i], "-keep-as-directory") != 0)
			d->argv[n++] = v[i];
	}
	*argc = n;
	*argv = d->argv;
	return 0;
}

void mksq_dash_free(struct mksq_dash *d)
{
	if (d->made)
		rmdir(d->dir);
	free(d->dir);
	free(d->argv);
	memset(d, 0, sizeof(*d));
}
