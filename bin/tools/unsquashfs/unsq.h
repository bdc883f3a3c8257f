/* SPDX-License-Identifier: MIT */
/*
 * unsq.h - sqpack-unsquashfs and sqfscat: unsquashfs's command line and
 * output over the library's reader (listings, -s, -cat) and its img2dir
 * extraction. What the parts share: the parsed options, the selection of
 * entries by the PATH arguments, and the printing of one entry the way
 * unsquashfs 4.5.1 prints it.
 */
#ifndef SQP_BIN_UNSQ_H
#define SQP_BIN_UNSQ_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "sqpack/inspect.h"
#include "sqpack/reader.h"
#include "../common/tool_msg.h"

enum unsq_mode {
	UNSQ_EXTRACT, UNSQ_LIST, UNSQ_STAT, UNSQ_MKFS_TIME, UNSQ_CAT, UNSQ_PF
};
enum unsq_match { UNSQ_GLOB, UNSQ_LITERAL, UNSQ_REGEX };

/* One PATH argument split at '/', empty components dropped. */
struct unsq_pattern {
	char **comp;
	regex_t *re;          /* UNSQ_REGEX: one per component */
	size_t count;
};

struct unsq_patterns {
	struct unsq_pattern *items;
	size_t count, cap;
};

struct unsq_opts {
	enum unsq_mode mode;
	int sqfscat;          /* running as sqfscat */
	const char *image;    /* as given: messages name it so */
	const char *dest;     /* default "squashfs-root" */
	const char *pf;       /* -pf FILE ("-": stdout) */
	int force, no_progress, quiet, utc, no_exit_code, strict;
	int percentage;       /* -percentage: bare percentages, no bar */
	int follow, missing_symlinks;  /* -follow-symlinks, -missing-symlinks */
	int ignore_errors;    /* -ignore-errors */
	int no_xattrs, user_xattrs;
	regex_t *xattr_inc, *xattr_exc;  /* -xattrs-include/-exclude */
	int info;             /* 0, 1 (-i) or 2 (-li) */
	int lng;              /* listings: 0 -l, 1 -ll, 2 -lln */
	int concise;          /* -lc, -llc */
	unsigned max_depth;   /* 0: unlimited; else levels + 1 */
	unsigned jobs;
	uint64_t offset;
	enum unsq_match match;
	int excludes_on_line; /* -excludes: the PATHs exclude */
	struct unsq_patterns extract, exclude;
	char **cat_paths;     /* -cat: the PATHs as given */
	size_t cat_count;
};

/* The program: sqfscat when sqfscat, else sqpack-unsquashfs. Returns
 * the exit status. */
int unsq_main(int argc, char **argv, int sqfscat);
/* Parse argv into *o. Returns -1 to go on, else the exit status. */
int unsq_parse(int argc, char **argv, int sqfscat, struct unsq_opts *o);
void unsq_opts_free(struct unsq_opts *o);
/* One more PATH (split at '/') into ps; -1: out of memory. */
int unsq_add_pattern(struct unsq_patterns *ps, const char *path);
/* A PATH resolved in the image through its symbolic links
 * (unsq_resolve.c): what unsq_resolve() gives besides the entry. */
#define UNSQ_PATH_CAP 4096
enum unsq_res {
	UNSQ_RES_OK,
	UNSQ_RES_MISSING,     /* a name of the PATH is not there */
	UNSQ_RES_NOTDIR,      /* a name of the PATH, not a directory, has more after it */
	UNSQ_RES_BROKEN,      /* a link of the PATH cannot be resolved */
	UNSQ_RES_LINK_NOTDIR  /* a link of the PATH, with more after it, leads to
				 what is not a directory */
};
struct unsq_resolved {
	char path[UNSQ_PATH_CAP];  /* where it stands in the image, "" the root */
	uint64_t ref;
	uint32_t mode;
	size_t at;      /* the end, in the PATH, of the name last resolved (on
			   failure: of the one that failed) */
	int via_link;   /* that name was a link */
	const char *why;  /* on failure: why, for a message */
};
/* Resolve path from the image's root: 0 (UNSQ_RES_OK) with the entry in
 * *res, another enum unsq_res, or a negative error (of the image, or
 * on_link's). on_link, when not NULL, is told each link met by its path
 * in the image, before its target is followed. */
int unsq_resolve(struct sqp_image *img, const char *path,
		 struct unsq_resolved *res,
		 int (*on_link)(void *user, const char *path), void *user);
/* -follow-symlinks: the links on each extract PATH, and where they lead,
 * added to the extract PATHs (unsq_follow.c). 0, else the exit status. */
int unsq_follow(struct sqp_image *img, struct unsq_opts *o);

/* Where an entry stands against the selection. */
enum unsq_sel { UNSQ_OUT, UNSQ_ABOVE, UNSQ_IN };
/* The entry at path (components from the root) of a directory (isdir)
 * or not: UNSQ_IN when it or an ancestor is selected and none is
 * excluded, UNSQ_ABOVE for a directory on the way to a selected one,
 * UNSQ_OUT otherwise. */
enum unsq_sel unsq_select(const struct unsq_opts *o, const char *path,
			  int isdir);
/* Whether an exclude pattern may match something strictly below path. */
int unsq_excludes_below(const struct unsq_opts *o, const char *path);

/* Print e's line as unsquashfs does: the name below dest, with the
 * attributes when lng (numeric owners when lng == 2). Returns 0 or an
 * error from reading a symlink's target. */
int unsq_print_entry(struct sqp_image *img, const struct unsq_opts *o,
		     const struct sqp_walk_entry *e, int lng);

/* The modes over an open image; each returns the exit status. */
int unsq_stat(struct sqp_image *img, const struct unsq_opts *o);
int unsq_list(struct sqp_image *img, const struct unsq_opts *o);
int unsq_cat(struct sqp_image *img, const struct unsq_opts *o);
int unsq_extract(struct sqp_image *img, const struct unsq_opts *o);
int unsq_pf(struct sqp_image *img, const struct unsq_opts *o);

/* unsquashfs's bar on stdout (unsq_progress.c): live on a terminal,
 * else drawn once at the end; or -percentage's lines. */
struct unsq_progress {
	unsigned long long total, done;
	int live, percentage, last_pct;
	unsigned spin;
	long long last_ns;
};
void unsq_progress_init(struct unsq_progress *pg, const struct unsq_opts *o,
			unsigned long long total);
/* units more made (clamped to the total). */
void unsq_progress_add(struct unsq_progress *pg, unsigned long long units);
/* All done: the full bar and a newline, or 100. */
void unsq_progress_end(struct unsq_progress *pg);
/* Stopped short: the bar where it stands and a newline. */
void unsq_progress_halt(struct unsq_progress *pg);

/* Whether -xattrs-include/-xattrs-exclude keep the xattr key. */
int unsq_xattr_keep(void *user, const char *key);

/* "PROG: " prefix for messages: "sqpack-unsquashfs" or "sqfscat". */
const char *unsq_prog(const struct unsq_opts *o);
/* Non-fatal problems met so far (warnings from the library, and
 * unsq_extract.c's own). */
extern struct tool_warnings unsq_warnings;

#endif
