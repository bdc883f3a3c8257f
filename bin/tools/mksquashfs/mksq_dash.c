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
 *
 * With -no-strip mksquashfs 4.5.1 makes no use of a "/" line and needs
 * none: the root is one of its own, mode 0777 and the user's, at the
 * time of the run (SOURCE_DATE_EPOCH's when set), in a first run and
 * when appending. The line then goes on without -no-strip and the "/"
 * definitions, with -root-* options that make such a root, given before
 * the user's own, which win as there.
 *
 * A -pf file of mksquashfs's own definitions (lowercase types: liminix
 * appends `- DEST -root-becomes nix -p "/ d 0755 0 0" -pf FILE`) is taken
 * here too; one that unsquashfs -pf wrote, its data inline (uppercase
 * types), is a stream of its own (mksq_pseudo.c).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mksq_dash.h"

#define PROG "sqpack-mksquashfs"
#define MARKER "# START OF DATA - DO NOT MODIFY"

/* A -p definition of "/": its first word is "/". */
static int defines_root(const char *def)
{
	while (*def == ' ' || *def == '\t')
		def++;
	return def[0] == '/' && (def[1] == ' ' || def[1] == '\t');
}

/*
 * The first definition of a -pf file: its type letter after the name
 * (which may hold escaped or quoted blanks), or 0 when there is none or
 * the file cannot be read (the translation says why). *root tells
 * whether any definition is of "/".
 */
static int pf_first_type(const char *file, int *root)
{
	FILE *f = fopen(file, "r");
	char line[4096];
	int type = 0;

	*root = 0;
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *p = line, quote = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		if (strncmp(line, MARKER, strlen(MARKER)) == 0)
			break;    /* unsquashfs -pf's data follows */
		*root |= defines_root(p);
		for (; *p != '\0' && (quote || (*p != ' ' && *p != '\t')); p++) {
			if (*p == '\\' && p[1] != '\0')
				p++;
			else if (*p == '"')
				quote = !quote;
		}
		while (*p == ' ' || *p == '\t')
			p++;
		if (type == 0)
			type = (unsigned char)*p;
	}
	if (f != NULL)
		fclose(f);
	return type;
}

int mksq_dash_pf_inline(const char *file)
{
	int root, type;

	if (strcmp(file, "-") == 0)
		return 1;
	type = pf_first_type(file, &root);
	return type >= 'A' && type <= 'Z';
}

/* What the options say: 1 when a -p line or a -pf file defines "/", -1
 * with -tar or -cpiostyle (the "-" is stdin's there), else 0. Options end
 * at -e, whose list is names. */
static int options_root(int first, int argc, char **argv)
{
	int root = 0, in_pf;

	for (int i = first; i < argc; i++) {
		if (strcmp(argv[i], "-tar") == 0 || strncmp(argv[i], "-cpiostyle", 10) == 0)
			return -1;
		if (strcmp(argv[i], "-e") == 0)
			break;
		if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && defines_root(argv[++i]))
			root = 1;
		if (strcmp(argv[i], "-pf") == 0 && i + 1 < argc &&
		    strcmp(argv[++i], "-") != 0) {
			pf_first_type(argv[i], &in_pf);
			root |= in_pf;
		}
	}
	return root;
}

/* Whether -no-strip is among the options (before -e's names). */
static int has_no_strip(int first, int argc, char **argv)
{
	for (int i = first; i < argc && strcmp(argv[i], "-e") != 0; i++)
		if (strcmp(argv[i], "-no-strip") == 0)
			return 1;
	return 0;
}

/* Whether option argv[i] is left out of the rewritten line: 1 for a
 * lone word, 2 for a -p with its definition. */
static int left_out(char **argv, int i, int argc, int no_strip)
{
	if (strcmp(argv[i], "-keep-as-directory") == 0)
		return 1;
	if (!no_strip)
		return 0;
	if (strcmp(argv[i], "-no-strip") == 0)
		return 1;
	if (strcmp(argv[i], "-p") == 0 && i + 1 < argc && defines_root(argv[i + 1]))
		return 2;
	return 0;
}

int mksq_dash_prepare(struct mksq_dash *d, int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR"), *sde = getenv("SOURCE_DATE_EPOCH");
	char **v = *argv;
	int npos = 1, root, n = 0, no_strip;

	memset(d, 0, sizeof(*d));
	/* SOURCE... DEST: up to the first option ("-" is not one) */
	while (npos < *argc && (v[npos][0] != '-' || strcmp(v[npos], "-") == 0))
		npos++;
	/* only the first: a later "-" is a path mksquashfs cannot stat */
	if (npos < 3 || strcmp(v[1], "-") != 0 || (root = options_root(npos, *argc, v)) < 0)
		return 0;
	no_strip = has_no_strip(npos, *argc, v);
	if (root == 0 && !no_strip) {
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
	if ((d->argv = calloc((size_t)*argc + 10, sizeof(char *))) == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	d->argv[n++] = v[0];
	d->argv[n++] = d->dir;
	d->argv[n++] = v[npos - 1];
	if (no_strip) {
		snprintf(d->uid, sizeof(d->uid), "%u", (unsigned)getuid());
		snprintf(d->gid, sizeof(d->gid), "%u", (unsigned)getgid());
		d->argv[n++] = "-root-mode";
		d->argv[n++] = "0777";
		d->argv[n++] = "-root-uid";
		d->argv[n++] = d->uid;
		d->argv[n++] = "-root-gid";
		d->argv[n++] = d->gid;
		if (sde != NULL && sde[0] != '\0') {
			d->argv[n++] = "-root-time";
			d->argv[n++] = (char *)sde;
		}
	}
	for (int i = npos, e = 0, skip; i < *argc; i++) {
		e |= strcmp(v[i], "-e") == 0;
		if (!e && (skip = left_out(v, i, *argc, no_strip)) > 0)
			i += skip - 1;
		else
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
