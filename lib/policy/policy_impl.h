/* SPDX-License-Identifier: MIT */
/*
 * policy_impl.h - the policy's state, shared by policy.c (transforms and
 * queries), policy_files.c (exclude and sort files), spec.c (spec
 * definitions) and security.c (fs_config and SELinux labels).
 */
#ifndef SQP_POLICY_POLICY_IMPL_H
#define SQP_POLICY_POLICY_IMPL_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "sqpack/policy.h"
#include "util/errbuf.h"

struct exclude_pat {
	char *pat;
	int anchored;          /* contains '/': matched against the whole path */
	regex_t *re;           /* a regex (pat is then NULL), else a glob */
};

struct sort_rec {
	char *path;
	int priority;
	size_t order;          /* file order: a later line for a path wins */
};

/* One fs_config line. path first, as in sort_rec: policy_find_last. */
struct fs_config_rec {
	char *path;            /* without its leading '/'; the root is "" */
	uint32_t uid, gid, mode;
	uint64_t caps;
	size_t order;
};

/* A rule of Android's built-in fs_config (android_fs_config.c): a
 * generated file's record, or a line of libcutils' own table. */
struct android_rule {
	const char *prefix;    /* loaded: malloc'ed, a directory's as a pattern */
	uint16_t mode, uid, gid;
	uint64_t caps;
};

/* What fs_config gives an entry. */
struct fs_config_hit {
	uint32_t uid, gid, mode;
	uint64_t caps;
};

struct sqp_policy {
	struct sqp_policy_desc desc;
	struct sqp_errbuf err;

	struct exclude_pat *excl;
	size_t excl_count, excl_cap;

	struct sort_rec *sorts;     /* sorted by path once loading is done */
	size_t sort_count, sort_cap;
	int sorts_sorted;

	struct sqp_entry *mods;     /* "m" lines, file order; paths owned */
	size_t mod_count, mod_cap;

	struct sqp_entry *extras;   /* strings owned */
	size_t extra_count, extra_cap;

	int (*keep)(void *user, const char *path); /* sqp_policy_set_keep */
	void *keep_user;

	struct fs_config_rec *fscfg;  /* sorted by path, then file order */
	size_t fscfg_count, fscfg_cap;
	int has_fscfg;                /* a file was loaded (it may be empty) */
	struct android_rule *droid[2]; /* the generated files' records, in
	                                * libcutils' order: [0] files, [1] dirs */
	size_t droid_count[2], droid_cap[2];
	int has_droid;                /* sqp_policy_load_android_fs_config */
	char *mount_point;            /* NULL: none */
	sqp_label_fn label;           /* sqp_policy_set_labeler */
	void *label_user;
	void (*label_release)(void *user);
};

/* The last record for path in a table sorted by path (each record's
 * first member its char *path), or NULL. */
const void *policy_find_last(const void *base, size_t count, size_t elem, const char *path);

/* What fs_config gives path (a directory when dir): 1 with *hit set,
 * 0 when no rule applies (no fs_config loaded, or a canned file
 * without a line for it: *missing then 1). */
int policy_fs_config(const struct sqp_policy *p, const char *path, int dir,
		     struct fs_config_hit *hit, int *missing);

/* Android's built-in fs_config for input, the path as libcutils takes
 * it (no leading '/', a directory's ending in '/'); always a rule, the
 * default one at worst. */
void policy_android_lookup(const struct sqp_policy *p, const char *input, int dir,
			   struct fs_config_hit *hit);
void policy_android_free(struct sqp_policy *p);

/* security.c's share of sqp_policy_destroy. */
void policy_security_free(struct sqp_policy *p);

/* Shell glob match of a whole string; "**" crosses '/'. */
int policy_glob_match(const char *pat, const char *s);

/* Normalise a user-given path into the entry form (no leading "/" or
 * "./", no "." components, no doubled or trailing "/"). Returns a new
 * string, or NULL (out of memory, or a ".." component: err says which,
 * after where, the file and line). */
char *policy_norm_path(struct sqp_policy *p, const char *path, const char *where);

/* Grow an array of elem-sized records to hold one more. */
int policy_grow(struct sqp_policy *p, void **arr, size_t *cap, size_t count,
		size_t elem);

/* Call fn for every line of a file (without its newline). */
int policy_each_line(struct sqp_policy *p, const char *file,
		     int (*fn)(struct sqp_policy *, const char *, const char *, unsigned),
		     const char *what);

#endif
