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
	char *mount_point;            /* NULL: none */
	sqp_label_fn label;           /* sqp_policy_set_labeler */
	void *label_user;
	void (*label_release)(void *user);
};

/* The last record for path in a table sorted by path (each record's
 * first member its char *path), or NULL. */
const void *policy_find_last(const void *base, size_t count, size_t elem, const char *path);

/* The fs_config line for path, as sqp_policy_apply looks it up (NULL:
 * none). */
const struct fs_config_rec *policy_fs_config(const struct sqp_policy *p, const char *path);

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
