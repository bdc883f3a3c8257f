/* SPDX-License-Identifier: MIT */
/*
 * unsq_follow.c - -follow-symlinks (-L) and -missing-symlinks: each
 * extract PATH is resolved inside the image, component by component,
 * and every symlink met on the way, with the entry it leads to, is
 * added to the selection as one more literal PATH. So "usr/lib/x"
 * where lib is a link to "/lib64" extracts usr/lib (the link) and
 * lib64/x, and the tree extracted resolves the PATH as the image does.
 *
 * Why a selection and not a second extraction: the plan, the counts,
 * -i and the exit status then treat the added entries like any other.
 * Resolution never leaves the image: an absolute target starts again
 * at its root, ".." at the root stays there, and a path or target
 * longer than PATH_CAP or more than FOLLOW_MAX links deep is one that
 * cannot be resolved (a warning, or with -missing-symlinks the end),
 * so a hostile image with link loops or huge targets costs little.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/sqpack.h"
#include "unsq.h"

#define FOLLOW_MAX 40     /* links on one path, as Linux's ELOOP */
#define PATH_CAP 4096

/* One resolution in progress: cur is the resolved prefix, todo what is
 * left, both '/'-separated. */
struct res {
	char cur[PATH_CAP], todo[PATH_CAP], next[PATH_CAP];
	unsigned links;
};

/* Follow the link at r->next, whose rest is rest: the link joins the
 * selection, its target goes in front of what is left. 0, 1 when it
 * cannot be resolved (why), or an error. */
static int through_link(struct sqp_image *img, struct unsq_opts *o,
			struct res *r, uint64_t ref, const char *rest,
			const char **why)
{
	char target[PATH_CAP], left[PATH_CAP];
	int n;

	if (++r->links > FOLLOW_MAX) {
		*why = "too many symbolic links";
		return 1;
	}
	if (unsq_add_pattern(&o->extract, r->next) != 0)
		return SQP_ERR_NOMEM;
	if ((n = sqp_image_readlink(img, ref, target, sizeof(target))) < 0)
		return n;
	snprintf(left, sizeof(left), "%s", rest);
	if ((size_t)n >= sizeof(target) ||
	    snprintf(r->todo, sizeof(r->todo), "%s/%s", target, left) >=
	    (int)sizeof(r->todo)) {
		*why = "a symbolic link's target is too long";
		return 1;
	}
	if (target[0] == '/')
		r->cur[0] = '\0';
	return 0;
}

/* Resolve path into r->cur, adding the links met. 0, 1 when it cannot
 * be resolved (why), or an error of the image. */
static int resolve(struct sqp_image *img, struct unsq_opts *o, struct res *r,
		   const char *path, const char **why)
{
	struct sqp_inode_info info = { .struct_size = sizeof(info) };
	uint64_t ref;
	const char *p;
	int ret;

	r->cur[0] = '\0';
	r->links = 0;
	snprintf(r->todo, sizeof(r->todo), "%s", path);
	for (p = r->todo; *p != '\0';) {
		size_t len = strcspn(p, "/");
		const char *comp = p;

		p += len + (p[len] == '/');
		if (len == 0 || (len == 1 && comp[0] == '.'))
			continue;
		if (len == 2 && comp[0] == '.' && comp[1] == '.') {
			char *slash = strrchr(r->cur, '/');

			*(slash != NULL ? slash : r->cur) = '\0';
			continue;
		}
		if (snprintf(r->next, sizeof(r->next), "%s%s%.*s", r->cur,
			     r->cur[0] ? "/" : "", (int)len, comp) >= (int)sizeof(r->next)) {
			*why = "the path is too long";
			return 1;
		}
		ret = sqp_image_lookup(img, r->next, &ref);
		if (ret == SQP_ERR_NOT_FOUND) {
			*why = "no such entry";
			return 1;
		}
		if (ret != 0 || (ret = sqp_image_stat(img, ref, &info)) != 0)
			return ret;
		if (S_ISLNK(info.mode)) {
			if ((ret = through_link(img, o, r, ref, p, why)) != 0)
				return ret;
			p = r->todo;
			continue;
		}
		if (!S_ISDIR(info.mode) && p[strspn(p, "/")] != '\0') {
			*why = "not a directory";
			return 1;
		}
		memcpy(r->cur, r->next, strlen(r->next) + 1);
	}
	return unsq_add_pattern(&o->extract, r->cur) != 0 ? SQP_ERR_NOMEM : 0;
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

int unsq_follow(struct sqp_image *img, struct unsq_opts *o)
{
	size_t given = o->extract.count;
	struct res *r = malloc(sizeof(*r));
	char *path = malloc(PATH_CAP);
	int ret = 0;

	if (r == NULL || path == NULL) {
		fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
		ret = 1;
	}
	/* Only the PATHs given: those added are resolved already. */
	for (size_t i = 0; ret == 0 && i < given; i++) {
		const char *why = NULL;
		int r1;

		joined(&o->extract.items[i], path, PATH_CAP);
		r1 = resolve(img, o, r, path, &why);
		if (r1 < 0) {
			fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img)[0] ?
				sqp_image_error(img) : sqp_strerror(r1));
			ret = 1;
		} else if (r1 == 1) {
			fprintf(stderr, "%s: %s: extract file %s cannot be resolved: %s\n",
				unsq_prog(o), o->missing_symlinks ? "error" : "warning",
				path, why);
			ret = o->missing_symlinks;
		}
	}
	free(path);
	free(r);
	return ret;
}
