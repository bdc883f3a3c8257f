/* SPDX-License-Identifier: MIT */
/*
 * mksq_args.h - mksquashfs's command line read into the packers' options
 * (struct tool_options: dir2img's, or with -tar tar2img's), each value
 * checked and reported in mksquashfs's words. The translation is a pure
 * function of argv, the environment value passed in, the -ef files, the
 * user database and (for -one-file-system) the mount table, so it can be
 * unit-tested without packing anything.
 */
#ifndef MKSQ_ARGS_H
#define MKSQ_ARGS_H

#include <stddef.h>

#include "../common/tool_options.h"

/* A growable argv of owned strings, always NULL-terminated. */
struct mksq_argv {
	char **v;
	int n;
	int cap;
};

enum mksq_action {
	MKSQ_RUN,      /* pack: run dir2img (or tar2img) with opt */
	MKSQ_HELP,     /* -help / -h */
	MKSQ_VERSION,  /* -version */
};

struct mksq_args {
	enum mksq_action action;
	/* What the packer is given: opt.tool is TOOL_TAR2IMG for -tar, else
	 * TOOL_DIR2IMG; OUTPUT is dest; tool_options_finish is the caller's
	 * (it reads SOURCE_DATE_EPOCH); dirs become opt.dirs (mksq_args_dirs)
	 * once mksq_rename_sources has patched them. */
	struct tool_options opt;
	struct mksq_argv dirs;   /* the packer's DIRs, in order */
	const char *dest;        /* borrowed from the caller's argv */
	char **src;              /* the sources, borrowed from argv */
	int nsrc;
	int tar;                 /* 1: a tar on stdin, for tar2img */
	int noappend;            /* -noappend: DEST may be replaced */
	int keep_dir;            /* -keep-as-directory */
	int no_strip;            /* -no-strip: each source at its path */
	int wildcards;           /* -wildcards: excludes are globs on names */
	int one_fs;              /* -one-file-system */
	unsigned long long offset; /* -offset: where the image starts in DEST */
	const char *root_becomes; /* -root-becomes NAME, or NULL */
	struct mksq_argv warn;   /* messages for stderr: -p lines dropped */
};

/*
 * An append (DEST an image, no -noappend): what the image decides, as
 * mksquashfs lets it: the codec, the block size and the export table,
 * whatever -comp, -b, -noI... say; -no-xattrs counts only when the image
 * stores none either. names are its root's entries (with
 * -root-becomes NAME, just NAME): a -p line whose first component is one
 * of them is dropped with a warning, as mksquashfs does. src, when not
 * NULL, replaces each source path (a link under a clashing name's new
 * name). drop, when not NULL, marks the sources left out: with
 * -wildcards, excluded under the name they take (mksquashfs then frees
 * it); keep_dir then says one source is left of several (it stays a
 * top-level directory), empty names a directory standing for none. top
 * and top_as, with -wildcards when an entry of one source
 * directory is renamed: its entries and the names they take (NAME_1 for
 * a renamed one), which mksquashfs matches its excludes against.
 */
struct mksq_base {
	const char *comp;
	unsigned long long block;
	int exportable;
	int no_xattrs;           /* its superblock says none are stored */
	char **names;            /* sorted (strcmp) */
	size_t count;
	char **src;
	unsigned char *drop;
	int keep_dir;
	const char *empty;
	char **top;
	char **top_as;
	size_t ntop;
};

/* The sources' names as they appear in the image: what exclude paths that
 * mksquashfs resolves per source turn into. */
struct mksq_sources {
	char **path;             /* as given */
	char **name;             /* the top-level name, "" when flat */
	int n;
	int flat;                /* one directory whose contents are the root */
	char *const *top;        /* mksq_base's top and top_as, or NULL */
	char *const *top_as;
	size_t ntop;
};

/*
 * Translate argv (mksquashfs order: SOURCE... DEST [OPTIONS] [-e LIST]).
 * sde is SOURCE_DATE_EPOCH or NULL; base is NULL unless appending.
 * Returns 0 (args filled; free it with mksq_args_free), 2 for a usage
 * error or 1 for a failure (an -ef or -pf file unreadable, memory); then
 * msg says why (empty when a --verity option's value was reported on
 * stderr already), and nothing needs freeing.
 */
int mksq_translate(int argc, char **argv, const char *sde,
		   const struct mksq_base *base, struct mksq_args *args,
		   char *msg, size_t msg_size);
void mksq_args_free(struct mksq_args *args);
/* Point args->opt's DIRs at args->dirs, before the packer runs. */
void mksq_args_dirs(struct mksq_args *args);

/* The top-level name the packer gives source path (malloc'd; NULL: out of
 * memory): its last component, or that of its real path for "." and "..". */
char *mksq_source_name(const char *path);

/* -no-strip (mksq_nostrip.c). mksq_nostrip_name: the path source path
 * is packed at, its leading '/', "./" and "../" dropped, "//" and a
 * trailing '/' too (malloc'd; NULL: out of memory). mksq_nostrip_root:
 * 1 when the n paths start in one directory (*st: its attributes), 0
 * when they do not, -1 when one cannot be statted (the packer says
 * why). */
char *mksq_nostrip_name(const char *path);
struct stat;
int mksq_nostrip_root(char *const *paths, int n, struct stat *st);

/* Helpers shared with mksq_exclude.c. */
int mksq_argv_push(struct mksq_argv *a, const char *s);
int mksq_argv_pushf(struct mksq_argv *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void mksq_argv_free(struct mksq_argv *a);

/* Add the packer's exclude patterns for one mksquashfs exclude
 * (wildcards: 1 for -wildcards semantics, 0 for exact paths). Returns 0
 * or -1 (memory). */
int mksq_exclude_add(struct mksq_argv *out, const struct mksq_sources *src,
		     int wildcards, const char *pattern);
/* -one-file-system: exclude patterns for the mount points under each
 * source that lie on another file system. Returns 0 or -1 (memory). */
int mksq_exclude_mounts(struct mksq_argv *out, const struct mksq_sources *src);
/* The same for each line of an -ef file. Returns 0, or 1 with msg set. */
int mksq_exclude_file(struct mksq_argv *out, const struct mksq_sources *src,
		      int wildcards, const char *file, char *msg,
		      size_t msg_size);

#endif
