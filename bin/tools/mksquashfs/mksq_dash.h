/* SPDX-License-Identifier: MIT */
/*
 * mksq_dash.h - "-" as the first source without -tar: no source, only the
 * pseudo definitions (mksq_dash.c).
 */
#ifndef MKSQ_DASH_H
#define MKSQ_DASH_H

struct mksq_dash {
	char *dir;     /* the empty directory standing for the sources */
	int made;      /* dir exists: removed by mksq_dash_free */
	char **argv;   /* the line rewritten, or NULL */
	char uid[24], gid[24]; /* -no-strip's root owner, as -root-uid/-gid */
};

/*
 * When the line's first source is "-" (and no -tar): with a -p line or
 * a -pf file defining "/", make the empty directory and rewrite argc and argv as
 * `DIR DEST OPTIONS` (without -keep-as-directory); without one, say so
 * as mksquashfs refuses it. With -no-strip, "/" needs no definition and
 * any is ignored: the root is one of its own (0777, the user's). Other lines are left as they are. 0, or the
 * exit status 1 after a message; mksq_dash_free(d) either way.
 */
int mksq_dash_prepare(struct mksq_dash *d, int *argc, char ***argv);
/* 1 when -pf FILE is unsquashfs -pf's stream (stdin, or definitions of
 * uppercase types), for mksq_pseudo.c rather than the packer. */
int mksq_dash_pf_inline(const char *file);
void mksq_dash_free(struct mksq_dash *d);

#endif
