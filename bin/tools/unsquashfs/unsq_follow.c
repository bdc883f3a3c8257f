/* SPDX-License-Identifier: MIT */
/*
 * unsq_follow.c - -follow-symlinks (-L) and -missing-symlinks: each
 * extract PATH is resolved inside the image (unsq_resolve.c) and, when
 * it resolves, every symlink met on the way and the entry it leads to
 * join the selection as literal PATHs. So "usr/lib/x" where lib is a
 * link to "/lib64" extracts usr/lib (the link) and lib64/x, and the
 * tree extracted resolves the PATH as the image does.
 *
 * Why a selection and not a second extraction: the plan, the counts,
 * -i and the exit status then treat the added entries like any other.
 * A PATH that does not resolve (dangling, a loop) adds nothing: it
 * stays as given, a warning says so, or with -missing-symlinks nothing
 * is extracted (exit 1), as unsquashfs does.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/sqpack.h"
#include "unsq.h"

/* The links met resolving one PATH: added only if it resolves. */
struct met {
	char **paths;
	size_t count, cap;
};

static int on_link(void *user, const char *path)
{
	struct met *m = user;

	if (m->count == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 8;
		char **n = realloc(m->paths, cap * sizeof(*n));

		if (n == NULL)
			return SQP_ERR_NOMEM;
		m->paths = n;
		m->cap = cap;
	}
	if ((m->paths[m->count] = strdup(path)) == NULL)
		return SQP_ERR_NOMEM;
	m->count++;
	return 0;
}

static void met_clear(struct met *m)
{
	while (m->count > 0)
		free(m->paths[--m->count]);
}

/* The PATH a pattern was made from. */
static void joined(const struct unsq_pattern *pt, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < pt->count && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s", i ? "/" : "",
				       pt->comp[i]);
}

/* One PATH: 0, 1 when it does not resolve, or an error. */
static int follow_one(struct sqp_image *img, struct unsq_opts *o,
		      const char *path, struct unsq_resolved *r, struct met *m)
{
	int ret = unsq_resolve(img, path, r, on_link, m);

	if (ret > 0) {
		fprintf(stderr, "%s: %s: extract file %s cannot be resolved: %s\n",
			unsq_prog(o), o->missing_symlinks ? "error" : "warning",
			path, r->why);
		return 1;
	}
	for (size_t i = 0; ret == 0 && i < m->count; i++)
		if (unsq_add_pattern(&o->extract, m->paths[i]) != 0)
			ret = SQP_ERR_NOMEM;
	if (ret == 0 && unsq_add_pattern(&o->extract, r->path) != 0)
		ret = SQP_ERR_NOMEM;
	return ret;
}

int unsq_follow(struct sqp_image *img, struct unsq_opts *o)
{
	size_t given = o->extract.count;
	struct unsq_resolved *r = malloc(sizeof(*r));
	char *path = malloc(UNSQ_PATH_CAP);
	struct met m = { NULL, 0, 0 };
	int ret = 0;

	if (r == NULL || path == NULL) {
		fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
		ret = 1;
	}
	/* Only the PATHs given: those added are resolved already. */
	for (size_t i = 0; ret == 0 && i < given; i++) {
		int r1;

		joined(&o->extract.items[i], path, UNSQ_PATH_CAP);
		r1 = follow_one(img, o, path, r, &m);
		met_clear(&m);
		if (r1 < 0) {
			fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img)[0] ?
				sqp_image_error(img) : sqp_strerror(r1));
			ret = 1;
		} else if (r1 == 1) {
			ret = o->missing_symlinks;
		}
	}
	free(m.paths);
	free(path);
	free(r);
	return ret;
}
