/* SPDX-License-Identifier: MIT */
/*
 * mksq_append.h - sqpack-mksquashfs's append: DEST an image and no
 * -noappend (mksq_append.c).
 */
#ifndef MKSQ_APPEND_H
#define MKSQ_APPEND_H

#include "sqpack/image_info.h"
#include "sqpack/sqpack.h"
#include "mksq_args.h"

struct mksq_append {
	struct mksq_base base;  /* for the second translation */
	struct sqp_image *img;
	struct sqp_codec_config codec; /* the image's, options included */
	struct sqp_image_layout lay;   /* the image's, for mksq_append_tell */
	struct sqp_image_info info;
	int fd;
	const char *under;      /* "" or -root-becomes NAME */
	char *stage;            /* the directory of renamed sources, or NULL */
	int nsrc;               /* entries of base.src */
	char **ren;             /* renames for the writer: name, new name... */
	size_t nren;            /* strings in ren (twice the renames) */
	int *ren_src;           /* with several sources: each rename's source */
};

/* Open DEST as the image to extend and read what the translation needs.
 * 0, or an exit status after mksquashfs's messages on stderr. */
int mksq_append_open(struct mksq_append *ap, const struct mksq_args *args);

/* Print on stdout what mksquashfs prints when it appends (the image
 * found, the lines about appending): scripts may read them. */
void mksq_append_tell(const struct mksq_append *ap, const char *dest);

/* Rename the sources whose top-level names the image's root holds, as
 * mksquashfs does (NAME_1, NAME_2...): each becomes a link of the new
 * name in a directory of our own; or, for one source directory, its
 * entries' renames kept for the writer (mksq_rename.c). 0, or an exit
 * status after a message. */
int mksq_append_sources(struct mksq_append *ap, const struct mksq_args *args);

/* -no-strip: 0 when no source's first component is in the image's
 * root (nothing is renamed then), else 1 after a message
 * (mksq_nostrip.c). */
int mksq_nostrip_append(const struct mksq_append *ap, const struct mksq_args *args);

/* Without an image to append to: rename sources of the same top-level
 * name as mksquashfs does (NAME_1...), patching args' translation, and
 * have the run remove the links once the scan holds the sources. 0, or
 * an exit status after a message; mksq_append_close(ap) either way. */
int mksq_rename_sources(struct mksq_append *ap, struct mksq_args *args);

/* Removes the links of renamed sources and their directory (at once
 * when the scan holds the sources, and from mksq_append_close). */
void mksq_rename_cleanup(struct mksq_append *ap);

/* Sources that are not directories (mksq_leaf.c). mksq_leaf_is: 1 when
 * lstat finds path and it is not a directory. mksq_leaf_rename: source n,
 * packed under its name orig, is renamed name by the writer; 0 or -1
 * (memory). mksq_leaf_check: after every source is named (mine: their
 * final names, NULL for one left out), 0 when each such rename's old name
 * is packed by its source alone, else 1 after a message. */
int mksq_leaf_is(const char *path);
int mksq_leaf_rename(struct mksq_append *ap, int n, const char *orig,
		     const char *name);
int mksq_leaf_check(const struct mksq_append *ap, const struct mksq_args *args,
		    char **mine);

/* For the options' before_input: the image into the writer, under
 * ap->under. */
int mksq_append_add(struct sqp_writer *w, void *ap);

/* Removes the links made and closes the image; for any ap that
 * mksq_append_open was called on. */
void mksq_append_close(struct mksq_append *ap);

#endif
