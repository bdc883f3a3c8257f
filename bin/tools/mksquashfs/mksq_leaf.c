/* SPDX-License-Identifier: MIT */
/*
 * mksq_leaf.c - sources that are not directories. mksquashfs takes any
 * source lstat finds (a file, a symlink it does not follow, a device, a
 * fifo) and puts it in the root under its own name, in a first run and
 * when appending: GNU Guix's `guix pack -f squashfs` passes a file among
 * its store items and appends the empty file `.empty`, NixOS's store
 * images pass their `nix-path-registration` file beside the store paths.
 * The packer (lib/dir) packs such a source as a top-level entry named
 * after it.
 *
 * What this file adds is their renaming. A source directory whose name is
 * taken is packed through a link of the new name (mksq_rename.c), but a
 * link to a file would be packed as the link. So a leaf keeps its own
 * name in the scan and the writer renames it as it is added
 * (sqp_writer_rename, after the image's entries: mksq_append_add), which
 * needs the old name to be that leaf's alone among what is packed: one
 * that another source takes too is refused, naming both, before anything
 * is written.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mksq_append.h"

#define PROG "sqpack-mksquashfs"

int mksq_leaf_is(const char *path)
{
	struct stat st;

	/* one that cannot be statted: the packer says why */
	return lstat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

int mksq_leaf_rename(struct mksq_append *ap, int n, const char *orig,
		     const char *name)
{
	char **v = realloc(ap->ren, (ap->nren + 2) * sizeof(*v));
	int *at;

	if (v == NULL)
		return -1;
	ap->ren = v;
	at = realloc(ap->ren_src, (ap->nren / 2 + 1) * sizeof(*at));
	if (at == NULL)
		return -1;
	ap->ren_src = at;
	if ((v[ap->nren] = strdup(orig)) == NULL ||
	    (v[ap->nren + 1] = strdup(name)) == NULL) {
		free(v[ap->nren]);
		return -1;
	}
	at[ap->nren / 2] = n;
	ap->nren += 2;
	return 0;
}

/* The top-level name source i is packed under: a leaf renamed by the
 * writer keeps its own there, the others their final names. */
static const char *packed_as(const struct mksq_append *ap, char **mine, int i)
{
	for (size_t k = 0; k < ap->nren; k += 2)
		if (ap->ren_src[k / 2] == i)
			return ap->ren[k];
	return mine[i];
}

int mksq_leaf_check(const struct mksq_append *ap, const struct mksq_args *args,
		    char **mine)
{
	for (size_t k = 0; k < ap->nren; k += 2) {
		int n = ap->ren_src[k / 2];

		for (int i = 0; i < args->nsrc; i++) {
			const char *as = i != n ? packed_as(ap, mine, i) : NULL;

			if (as == NULL || strcmp(as, ap->ren[k]) != 0)
				continue;
			fprintf(stderr, PROG ": %s and %s: a source that is not a "
				"directory is renamed %s only when no other source "
				"is packed as %s\n", args->src[n], args->src[i],
				ap->ren[k + 1], ap->ren[k]);
			return 1;
		}
	}
	return 0;
}
