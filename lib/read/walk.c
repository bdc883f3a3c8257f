/* SPDX-License-Identifier: MIT */
/*
 * walk.c - rd_walk: the one walk of an image's tree, pulled one entry
 * at a time, under img2tar, img2dir, the checker and sqp_walk.
 *
 * Why one: each of those used to carry its own loop guard and path
 * builder, and a hostile image needs only one of them to be wrong. Here
 * every inode met has its number (the inode's own, which a loop cannot
 * vary, unlike a listing's) marked in a bit per inode of the superblock;
 * a directory whose number is marked already is refused, so no
 * directory is entered twice and the walk enters at most inode_count of
 * them; and no directory is entered at RD_WALK_DEPTH_MAX or below, which
 * bounds the stack and, with names of at most 256 bytes, the path.
 * Listings come from rd_dir_next, which refuses ".", "..", '/',
 * duplicates and unsorted names, so a path never escapes or repeats.
 *
 * Invariant: the stack holds one open directory per level; each frame
 * knows its directory's path length, and the path buffer holds the path
 * of the entry last returned. What the last call returned is settled
 * (entered, freed, popped) at the start of the next, so the caller's
 * node stays valid in between and may skip a directory first.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_walk.h"
#include "sqpack/error.h"
#include "util/array.h"

struct frame {
	struct rd_dir it;
	struct rd_inode ino;        /* the directory's, owned */
	uint64_t ref;
	size_t path_len;
	uint32_t entries, subdirs;
};

struct rd_walk {
	struct sqp_image *img;
	unsigned max_depth;
	rd_walk_problem_fn problem;
	void *user;
	char **starts;
	size_t start_count, next_start;
	uint8_t *seen;              /* a bit per inode number, 1-based */
	uint32_t inode_count;
	struct frame *stack;
	size_t depth, cap;          /* open directories */
	char *path;
	size_t pcap;
	struct rd_dirent de;
	struct rd_inode cur;        /* the last ENTRY's inode, owned */
	uint64_t cur_ref;
	int have_cur, enter, left;  /* what the last call returned */
};

/* A problem latched in the image: the caller's hook says whether to go
 * on (0); without one, the walk ends with the latched error. */
static int problem(struct rd_walk *w, const char *table, uint32_t inode)
{
	int code = w->img->err.code != 0 ? w->img->err.code : SQP_ERR_CORRUPT;

	if (w->problem == NULL)
		return code;
	return w->problem(w->user, table, inode, w->path);
}

/* Path buffer holding need bytes. */
static int path_room(struct rd_walk *w, size_t need)
{
	char *p = sqp_array_grow(w->path, &w->pcap, need, 1, 256);

	if (p == NULL)
		return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
	w->path = p;
	return 0;
}

/* The inode in w->cur, at w->path, met: marked, refused when a
 * directory met before, else handed out (1). 0 when a problem skipped
 * it, < 0 to end. */
static int found(struct rd_walk *w, struct rd_walk_node *n, uint64_t ref,
		 const struct rd_dirent *de, uint32_t parent)
{
	uint32_t num = w->cur.inode_number;
	const char *slash = strrchr(w->path, '/');
	int dir = S_ISDIR(w->cur.mode), again;
	uint8_t bit;

	if (num == 0 || num > w->inode_count) {
		rd_inode_free(&w->cur);
		rd_err(w->img, SQP_ERR_CORRUPT, "%s: inode number %u out of "
		       "range (1..%u)", w->img->name, num, w->inode_count);
		return problem(w, "inode", num);
	}
	bit = (uint8_t)(1u << ((num - 1) % 8));
	again = (w->seen[(num - 1) / 8] & bit) != 0;
	w->seen[(num - 1) / 8] |= bit;
	if (again && dir) {
		rd_inode_free(&w->cur);
		rd_err(w->img, SQP_ERR_CORRUPT, "%s: directory reached twice "
		       "(a loop, or two parents)", w->img->name);
		return problem(w, "directory", num);
	}
	w->have_cur = 1;
	w->cur_ref = ref;
	w->enter = dir && (w->max_depth == 0 || w->depth < w->max_depth);
	*n = (struct rd_walk_node){ w->path, slash ? slash + 1 : w->path,
				    (unsigned)w->depth, ref, &w->cur, de,
				    parent, again, 0, 0 };
	return 1;
}

/* Enter the directory the last ENTRY returned; a problem may leave it
 * out. */
static int descend(struct rd_walk *w)
{
	uint32_t num = w->cur.inode_number;
	struct frame *f;

	if (w->depth >= RD_WALK_DEPTH_MAX) {
		rd_inode_free(&w->cur);
		rd_err(w->img, SQP_ERR_CORRUPT, "%s: directories nested deeper "
		       "than %d", w->img->name, RD_WALK_DEPTH_MAX);
		return problem(w, "directory", num);
	}
	f = sqp_array_grow(w->stack, &w->cap, w->depth + 1, sizeof(*f), 16);
	if (f == NULL) {
		rd_inode_free(&w->cur);
		return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
	}
	w->stack = f;
	f += w->depth;
	memset(f, 0, sizeof(*f));
	f->ino = w->cur;
	f->ref = w->cur_ref;
	f->path_len = strlen(w->path);
	memset(&w->cur, 0, sizeof(w->cur));
	if (rd_dir_open(w->img, &f->ino, &f->it) != 0) {
		rd_inode_free(&f->ino);
		return problem(w, "directory", num);
	}
	w->depth++;
	return 0;
}

/* Finish what the last call returned. */
static int settle(struct rd_walk *w)
{
	if (w->left) {
		w->left = 0;
		rd_inode_free(&w->stack[--w->depth].ino);
	}
	if (!w->have_cur)
		return 0;
	w->have_cur = 0;
	if (w->enter) {
		w->enter = 0;
		return descend(w);
	}
	rd_inode_free(&w->cur);
	return 0;
}

/* The next start path: 1 (an ENTRY), 0 when a problem skipped it. */
static int start(struct rd_walk *w, const char *path, struct rd_walk_node *n)
{
	uint64_t ref;
	int ret;

	if ((ret = path_room(w, strlen(path) + 1)) != 0)
		return ret;
	strcpy(w->path, path);
	ret = rd_path_lookup(w->img, path, &ref);
	if (ret == SQP_ERR_NOT_FOUND)
		return rd_err(w->img, ret, "%s: '%s': no such path in the "
			      "image", w->img->name, path);
	if (ret == SQP_ERR_ARG)
		return rd_err(w->img, ret, "'%s': a path may not contain '..'",
			      path);
	if (ret != 0)
		return ret;
	if (rd_inode_read(w->img, ref, &w->cur) != 0)
		return problem(w, "inode", 0);
	return found(w, n, ref, NULL, 0);
}

/* One entry of the top directory, or its end: the event, or 0 when a
 * problem skipped an entry. */
static int step(struct rd_walk *w, struct rd_walk_node *n)
{
	struct frame *f = &w->stack[w->depth - 1];
	const char *slash;
	int ret;

	w->path[f->path_len] = '\0';
	ret = rd_dir_next(w->img, &f->it, &w->de);
	if (ret < 0 && (ret = problem(w, "directory",
				      f->ino.inode_number)) != 0)
		return ret;
	if (ret == 0) { /* the end, or a broken listing left */
		slash = strrchr(w->path, '/');
		*n = (struct rd_walk_node){ w->path,
			slash ? slash + 1 : w->path, (unsigned)w->depth - 1,
			f->ref, &f->ino, NULL, 0, 0, f->entries, f->subdirs };
		w->left = 1;
		return RD_WALK_LEAVE;
	}
	f->entries++;
	ret = path_room(w, f->path_len + strlen(w->de.name) + 2);
	if (ret != 0)
		return ret;
	if (f->path_len > 0)
		w->path[f->path_len] = '/';
	strcpy(w->path + f->path_len + (f->path_len > 0), w->de.name);
	if (rd_inode_read(w->img, w->de.inode_ref, &w->cur) != 0)
		return problem(w, "inode", w->de.inode_number);
	if (S_ISDIR(w->cur.mode))
		f->subdirs++;
	return found(w, n, w->de.inode_ref, &w->de, f->ino.inode_number);
}

int rd_walk_next(struct rd_walk *w, struct rd_walk_node *n)
{
	int ret;

	if (w->img->err.code != 0)
		return w->img->err.code;
	if ((ret = settle(w)) != 0)
		return ret;
	for (;;) {
		if (w->depth > 0)
			ret = step(w, n);
		else if (w->next_start < w->start_count)
			ret = start(w, w->starts[w->next_start++], n);
		else
			return 0;
		if (ret != 0)
			return ret;
	}
}

const char *rd_walk_path(const struct rd_walk *w)
{
	return w->path != NULL ? w->path : "";
}

void rd_walk_skip(struct rd_walk *w)
{
	w->enter = 0;
}

/* path without empty or "." components or a '/' at either end. */
static char *normalise(const char *path)
{
	char *out = malloc(strlen(path) + 1), *d = out;

	if (out == NULL)
		return NULL;
	while (*path != '\0') {
		size_t n = strcspn(path, "/");

		if (n > 0 && !(n == 1 && path[0] == '.')) {
			if (d != out)
				*d++ = '/';
			memcpy(d, path, n);
			d += n;
		}
		path += n + (path[n] == '/');
	}
	*d = '\0';
	return out;
}

/* Whether path a is b or lies below it ("" holds everything). */
static int inside(const char *a, const char *b)
{
	size_t n = strlen(b);

	return n == 0 || (strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/'));
}

/* The start paths, normalised, each once: one inside another (or given
 * twice) is dropped, as its entries come with the other. */
static int starts(struct rd_walk *w, const char *const *paths, size_t count)
{
	static const char *const root[] = { "" };
	unsigned char *drop;
	size_t kept = 0;

	if (count == 0) {
		paths = root;
		count = 1;
	}
	w->starts = calloc(count, sizeof(*w->starts));
	if (w->starts == NULL)
		return SQP_ERR_NOMEM;
	w->start_count = count;
	for (size_t i = 0; i < count; i++)
		if ((w->starts[i] = normalise(paths[i])) == NULL)
			return SQP_ERR_NOMEM;
	drop = calloc(count, 1);
	if (drop == NULL)
		return SQP_ERR_NOMEM;
	for (size_t i = 0; i < count; i++)
		for (size_t j = 0; j < count && !drop[i]; j++)
			drop[i] = j != i && inside(w->starts[i], w->starts[j]) &&
				  (j < i || !inside(w->starts[j], w->starts[i]));
	for (size_t i = 0; i < count; i++) {
		if (drop[i])
			free(w->starts[i]);
		else
			w->starts[kept++] = w->starts[i];
	}
	free(drop);
	w->start_count = kept;
	return 0;
}

int rd_walk_create(const struct rd_walk_desc *desc, struct rd_walk **out)
{
	struct rd_walk *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (w == NULL)
		return rd_err(desc->img, SQP_ERR_NOMEM, "out of memory");
	w->img = desc->img;
	w->max_depth = desc->max_depth;
	w->problem = desc->problem;
	w->user = desc->user;
	w->inode_count = desc->img->inode_count;
	w->seen = calloc((size_t)w->inode_count / 8 + 1, 1);
	if (w->seen == NULL ||
	    starts(w, desc->paths, desc->paths ? desc->path_count : 0) != 0) {
		rd_walk_destroy(w);
		return rd_err(desc->img, SQP_ERR_NOMEM, "out of memory");
	}
	*out = w;
	return 0;
}

void rd_walk_destroy(struct rd_walk *w)
{
	if (w == NULL)
		return;
	if (w->have_cur)
		rd_inode_free(&w->cur);
	while (w->depth > 0)
		rd_inode_free(&w->stack[--w->depth].ino);
	for (size_t i = 0; w->starts != NULL && i < w->start_count; i++)
		free(w->starts[i]);
	free(w->starts);
	free(w->seen);
	free(w->stack);
	free(w->path);
	free(w);
}
