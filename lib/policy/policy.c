/* SPDX-License-Identifier: MIT */
/*
 * policy.c - the entry transforms both packers share: exclusion, owners,
 * times and the spec's "m" lines, applied in that fixed order (see
 * policy.h) so the same options give the same tree from a directory and
 * from a tar of it. Exclusion regexes (mkfs.erofs's --exclude-regex) use
 * the C library's POSIX regex, as mkfs.erofs does, so that a pattern
 * means the same to both.
 *
 * Invariant: every path stored here is normalised like an entry's path, so
 * lookups are plain string comparisons. The sort table is sorted lazily on
 * first use; adding to it afterwards sorts again.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/policy_impl.h"
#include "util/array.h"

int sqp_policy_create(const struct sqp_policy_desc *desc, struct sqp_policy **out)
{
	struct sqp_policy *p = calloc(1, sizeof(*p));

	*out = p;
	if (p == NULL)
		return SQP_ERR_NOMEM;
	p->desc = *desc;
	return 0;
}

void sqp_policy_destroy(struct sqp_policy *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->excl_count; i++) {
		free(p->excl[i].pat);
		if (p->excl[i].re != NULL)
			regfree(p->excl[i].re);
		free(p->excl[i].re);
	}
	for (i = 0; i < p->sort_count; i++)
		free(p->sorts[i].path);
	for (i = 0; i < p->mod_count; i++)
		free((char *)p->mods[i].path);
	for (i = 0; i < p->extra_count; i++) {
		free((char *)p->extras[i].path);
		free((char *)p->extras[i].link_target);
	}
	free(p->excl);
	free(p->sorts);
	free(p->mods);
	free(p->extras);
	policy_security_free(p);
	free(p);
}

const char *sqp_policy_error(const struct sqp_policy *p)
{
	return sqp_errmsg(&p->err);
}

int policy_grow(struct sqp_policy *p, void **arr, size_t *cap, size_t count, size_t elem)
{
	void *n = sqp_array_grow(*arr, cap, count + 1, elem, 16);

	if (n == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	*arr = n;
	return 0;
}

char *policy_norm_path(struct sqp_policy *p, const char *path, const char *where)
{
	char *out = malloc(strlen(path) + 1);
	const char *s = path, *e;
	size_t len = 0;

	if (out == NULL) {
		sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
		return NULL;
	}
	while (*s != '\0') {
		while (*s == '/')
			s++;
		e = s;
		while (*e != '\0' && *e != '/')
			e++;
		if (e - s == 2 && s[0] == '.' && s[1] == '.') {
			sqp_err(&p->err, SQP_ERR_ARG, "%s: '%s': '..' is not allowed", where, path);
			free(out);
			return NULL;
		}
		if (e > s && !(e - s == 1 && s[0] == '.')) {
			if (len > 0)
				out[len++] = '/';
			memcpy(out + len, s, (size_t)(e - s));
			len += (size_t)(e - s);
		}
		s = e;
	}
	out[len] = '\0';
	return out;
}

int sqp_policy_add_exclude(struct sqp_policy *p, const char *pattern)
{
	const char *s = pattern;
	char *copy;

	if (p->err.code != 0)
		return p->err.code;
	while (s[0] == '/' || (s[0] == '.' && s[1] == '/'))
		s += s[0] == '/' ? 1 : 2;
	if (*s == '\0')
		return sqp_err(&p->err, SQP_ERR_ARG, "exclude pattern '%s' matches nothing", pattern);
	if (policy_grow(p, (void **)&p->excl, &p->excl_cap, p->excl_count, sizeof(*p->excl)))
		return p->err.code;
	copy = strdup(s);
	if (copy == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	/* "dir/" means the same directory as "dir" */
	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = '\0';
	p->excl[p->excl_count].pat = copy;
	p->excl[p->excl_count].anchored = strchr(copy, '/') != NULL;
	p->excl[p->excl_count].re = NULL;
	p->excl_count++;
	return 0;
}

int sqp_policy_add_exclude_regex(struct sqp_policy *p, const char *regex)
{
	regex_t *re;
	int rc;

	if (p->err.code != 0)
		return p->err.code;
	if (policy_grow(p, (void **)&p->excl, &p->excl_cap, p->excl_count, sizeof(*p->excl)))
		return p->err.code;
	if ((re = malloc(sizeof(*re))) == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	if ((rc = regcomp(re, regex, REG_EXTENDED | REG_NOSUB)) != 0) {
		char why[128];

		regerror(rc, re, why, sizeof(why));
		free(re);
		return sqp_err(&p->err, SQP_ERR_ARG, "exclude regex '%s': %s", regex, why);
	}
	p->excl[p->excl_count].pat = NULL;
	p->excl[p->excl_count].anchored = 1;
	p->excl[p->excl_count].re = re;
	p->excl_count++;
	return 0;
}

/* One pattern against every ancestor of path (and path itself): an
 * excluded directory takes its contents with it, also for tar entries
 * that arrive without their directory. */
static int pattern_hits(const struct exclude_pat *x, const char *path)
{
	char buf[4096];
	size_t len = strlen(path), i, start = 0;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, path, len);
	buf[len] = '\0';
	for (i = 0; i <= len; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (x->re != NULL ? regexec(x->re, buf, 0, NULL, 0) == 0 :
		    policy_glob_match(x->pat, x->anchored ? buf : buf + start))
			return 1;
		if (i < len)
			buf[i] = '/';
		start = i + 1;
	}
	return 0;
}

int sqp_policy_excluded(const struct sqp_policy *p, const char *path)
{
	size_t i;

	if (path[0] == '\0')
		return 0;
	for (i = 0; i < p->excl_count; i++) {
		if (pattern_hits(&p->excl[i], path))
			return 1;
	}
	return 0;
}

static int cmp_sort(const void *a, const void *b)
{
	const struct sort_rec *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

/* A later line wins: the table is sorted by path, then file order. */
const void *policy_find_last(const void *base, size_t count, size_t elem, const char *path)
{
	size_t lo = 0, hi = count;
	const char *rec_path;

	while (lo < hi) {   /* first index whose path is > path */
		size_t mid = lo + (hi - lo) / 2;

		rec_path = *(char *const *)((const char *)base + mid * elem);
		if (strcmp(rec_path, path) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	rec_path = *(char *const *)((const char *)base + (lo - 1) * elem);
	return strcmp(rec_path, path) == 0 ? (const char *)base + (lo - 1) * elem : NULL;
}

int sqp_policy_priority(const struct sqp_policy *p, const char *path)
{
	struct sqp_policy *mp = (struct sqp_policy *)p;
	const struct sort_rec *r;

	if (p->sort_count == 0)
		return 0;
	if (!p->sorts_sorted) {
		qsort(mp->sorts, p->sort_count, sizeof(*p->sorts), cmp_sort);
		mp->sorts_sorted = 1;
	}
	r = policy_find_last(p->sorts, p->sort_count, sizeof(*p->sorts), path);
	return r ? r->priority : 0;
}

int sqp_policy_has_sort(const struct sqp_policy *p)
{
	return p->sort_count > 0;
}

static void apply_owner_time(const struct sqp_policy *p, struct sqp_entry *e)
{
	const struct sqp_policy_desc *d = &p->desc;
	int64_t uid = (int64_t)e->uid + d->uid_offset;
	int64_t gid = (int64_t)e->gid + d->gid_offset;

	/* an offset never takes an id below 0 or past 32 bits */
	e->uid = uid < 0 ? 0 : uid > (int64_t)UINT32_MAX ? UINT32_MAX : (uint64_t)uid;
	e->gid = gid < 0 ? 0 : gid > (int64_t)UINT32_MAX ? UINT32_MAX : (uint64_t)gid;
	if (d->flags & SQP_POLICY_SET_UID)
		e->uid = d->uid;
	if (d->flags & SQP_POLICY_SET_GID)
		e->gid = d->gid;
	if (d->flags & SQP_POLICY_ALL_ROOT)
		e->uid = e->gid = 0;
	if (d->flags & SQP_POLICY_SET_MTIME) {
		e->mtime = d->mtime;
		e->mtime_nsec = 0;
	} else if ((d->flags & SQP_POLICY_CLAMP_MTIME) &&
		   (e->mtime > d->mtime || (e->mtime == d->mtime && e->mtime_nsec != 0))) {
		/* d->mtime.5 is newer than d->mtime: it is clamped too */
		e->mtime = d->mtime;
		e->mtime_nsec = 0;
	}
}

void sqp_policy_set_keep(struct sqp_policy *p, int (*keep)(void *user, const char *path),
			 void *user)
{
	p->keep = keep;
	p->keep_user = user;
}

int sqp_policy_apply(const struct sqp_policy *p, struct sqp_entry *e)
{
	if (p->keep != NULL && !p->keep(p->keep_user, e->path))
		return 1;
	if (sqp_policy_excluded(p, e->path))
		return 1;
	if (e->is_hardlink)
		return e->link_target != NULL && sqp_policy_excluded(p, e->link_target);
	if (sqp_policy_fs_config(p, e) != 0)
		return SQP_ERR_NOT_FOUND;
	apply_owner_time(p, e);
	return 0;
}

size_t sqp_policy_extra_count(const struct sqp_policy *p)
{
	return p->extra_count;
}

const struct sqp_entry *sqp_policy_extra(const struct sqp_policy *p, size_t i)
{
	return i < p->extra_count ? &p->extras[i] : NULL;
}

size_t sqp_policy_mod_count(const struct sqp_policy *p)
{
	return p->mod_count;
}

const struct sqp_entry *sqp_policy_mod(const struct sqp_policy *p, size_t i)
{
	return i < p->mod_count ? &p->mods[i] : NULL;
}
