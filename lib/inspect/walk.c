/* SPDX-License-Identifier: MIT */
/*
 * walk.c - a streaming pre-order walk over an image's tree, on the
 * public reader API, for listings, summaries and anything else that
 * visits every entry.
 *
 * Why a walker object rather than a recursive callback: callers (ls,
 * the summary) interleave output with the walk and stop early; a pull
 * interface keeps their code flat. Invariant: the stack holds one open
 * directory per level below the start, and the path buffer holds the
 * path of the last entry returned; each frame remembers how long its
 * directory's own path is, so a child's path is that prefix plus its
 * name. A directory whose inode number was met before is refused, so a
 * crafted image cannot make the walk loop.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "inspect/inspect_impl.h"
#include "sqpack/inspect.h"
#include "util/errbuf.h"

struct frame {
	struct sqp_dir *dir;
	size_t plen;             /* length of the directory's path */
};

struct sqp_walk {
	struct sqp_errbuf err;
	struct sqp_image *img;
	unsigned max_depth;
	struct seen seen;
	struct frame *stack;
	size_t depth, cap;
	char *path;
	size_t pcap;
	uint64_t start_ref;
	size_t start_len;        /* start path's length in path */
	int started;
};

/* The image's latched error, copied into the walk. */
static int img_fail(struct sqp_walk *w, int ret, const char *path)
{
	return sqp_err_wrap(&w->err, ret, sqp_image_error(w->img), "'%s': ",
			    path);
}

static int grow_path(struct sqp_walk *w, size_t need)
{
	char *p = grow(w->path, &w->pcap, need, 1);

	if (p == NULL)
		return sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	w->path = p;
	return 0;
}

/* Copy path without empty and "." components or a leading "/". */
static int normalise_start(struct sqp_walk *w, const char *path)
{
	size_t n = 0;

	if (grow_path(w, strlen(path) + 1) != 0)
		return w->err.code;
	while (*path != '\0') {
		size_t len = strcspn(path, "/");

		if (len > 0 && !(len == 1 && path[0] == '.')) {
			if (n > 0)
				w->path[n++] = '/';
			memcpy(w->path + n, path, len);
			n += len;
		}
		path += len + (path[len] == '/');
	}
	w->path[n] = '\0';
	w->start_len = n;
	return 0;
}

static int push(struct sqp_walk *w, uint64_t ref, size_t plen)
{
	struct frame *s;
	struct sqp_dir *d;
	int ret;

	s = grow(w->stack, &w->cap, w->depth + 1, sizeof(*s));
	if (s == NULL)
		return sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	w->stack = s;
	if ((ret = sqp_dir_open(w->img, ref, &d)) != 0)
		return img_fail(w, ret, w->path);
	w->stack[w->depth++] = (struct frame){ d, plen };
	return 0;
}

/* Fill e for the inode at ref, whose path is in w->path; descend into
 * it when it is a directory within max_depth. */
static int visit(struct sqp_walk *w, uint64_t ref, unsigned depth,
		 size_t name_at, struct sqp_walk_entry *e)
{
	int ret = sqp_image_stat(w->img, ref, &e->info);

	if (ret != 0)
		return img_fail(w, ret, w->path);
	ret = seen_mark(&w->seen, e->info.inode_number);
	if (ret < 0 || (ret == 1 && S_ISDIR(e->info.mode)))
		return sqp_err(&w->err, SQP_ERR_CORRUPT, "'%s': %s", w->path,
			       ret < 0 ? "inode number out of range" :
			       "directory reached twice (a loop)");
	e->hardlink = ret;
	e->path = w->path;
	e->name = w->path + name_at;
	e->depth = depth;
	if (S_ISDIR(e->info.mode) && (w->max_depth == 0 || depth < w->max_depth))
		return push(w, ref, strlen(w->path));
	return 0;
}

SQP_API int sqp_walk_next(struct sqp_walk *w, struct sqp_walk_entry *e)
{
	struct sqp_dirent de;
	struct frame *top;
	size_t at;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (!w->started) {
		w->started = 1;
		at = w->start_len;
		while (at > 0 && w->path[at - 1] != '/')
			at--;
		ret = visit(w, w->start_ref, 0, at, e);
		return ret != 0 ? ret : 1;
	}
	while (w->depth > 0) {
		top = &w->stack[w->depth - 1];
		w->path[top->plen] = '\0';
		ret = sqp_dir_next(top->dir, &de);
		if (ret < 0)
			return img_fail(w, ret, w->path);
		if (ret == 0) {
			sqp_dir_close(top->dir);
			w->depth--;
			continue;
		}
		at = top->plen + (top->plen > 0);
		if (grow_path(w, at + strlen(de.name) + 1) != 0)
			return w->err.code;
		if (top->plen > 0)
			w->path[top->plen] = '/';
		strcpy(w->path + at, de.name);
		ret = visit(w, de.ref, (unsigned)w->depth, at, e);
		return ret != 0 ? ret : 1;
	}
	return 0;
}

SQP_API int sqp_walk_create(const struct sqp_walk_desc *desc,
			    struct sqp_walk **out)
{
	struct sqp_image_info ii;
	struct sqp_walk *w;
	int ret;

	*out = NULL;
	if (desc == NULL || desc->img == NULL)
		return SQP_ERR_ARG;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return SQP_ERR_NOMEM;
	*out = w; /* on failure too: it explains (sqpack/error.h) */
	w->img = desc->img;
	w->max_depth = desc->max_depth;
	sqp_image_get_info(w->img, &ii);
	if (seen_init(&w->seen, ii.inode_count) != 0)
		ret = sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	else if ((ret = normalise_start(w, desc->path ? desc->path : "")) == 0 &&
		 (ret = sqp_image_lookup(w->img, w->path, &w->start_ref)) != 0)
		ret = ret == SQP_ERR_NOT_FOUND ?
			sqp_err(&w->err, ret, "'%s': no such entry", w->path) :
			img_fail(w, ret, w->path);
	return ret;
}

SQP_API const char *sqp_walk_error(const struct sqp_walk *w)
{
	return sqp_errmsg(&w->err);
}

SQP_API void sqp_walk_destroy(struct sqp_walk *w)
{
	if (w == NULL)
		return;
	while (w->depth > 0)
		sqp_dir_close(w->stack[--w->depth].dir);
	free(w->stack);
	free(w->path);
	seen_free(&w->seen);
	free(w);
}
