/* SPDX-License-Identifier: MIT */
/*
 * walk.c - unp_walk(): the image's tree (or the subtrees asked for),
 * depth first in directory order, parents before children, for the
 * conversions of lib/unpack.
 *
 * A hostile image cannot make the walk loop or explode: each directory
 * inode is entered at most once (a second visit is an error: a cycle or
 * a directory with two parents), and the depth is bounded. Names come
 * from rd_dir_next, which refuses ".", "..", '/', duplicates and
 * unsorted listings. Hard links are found by inode number; later paths
 * are given the first path met.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "unpack/walk.h"

#define DEPTH_MAX UNP_DEPTH_MAX

/* An open-addressing set of u64 keys with a string per key (paths of
 * hard-linked inodes; NULL for visited directories). */
struct keyset {
	uint64_t *keys;
	char **vals;
	size_t cap, count;
};

static char **keyset_slot(struct keyset *s, uint64_t key, int *found)
{
	size_t i = (size_t)((key + 1) * 0x9e3779b97f4a7c15ull) & (s->cap - 1);

	while (s->vals[i] != NULL || s->keys[i] != 0) {
		if (s->keys[i] == key + 1) {
			*found = 1;
			return &s->vals[i];
		}
		i = (i + 1) & (s->cap - 1);
	}
	*found = 0;
	s->keys[i] = key + 1;
	s->count++;
	return &s->vals[i];
}

static int keyset_grow(struct keyset *s)
{
	struct keyset n = { 0 };

	if (s->cap != 0 && (s->count + 1) * 2 < s->cap)
		return 0;
	n.cap = s->cap ? s->cap * 2 : 1024;
	n.keys = calloc(n.cap, sizeof(*n.keys));
	n.vals = calloc(n.cap, sizeof(*n.vals));
	if (n.keys == NULL || n.vals == NULL) {
		free(n.keys);
		free(n.vals);
		return SQP_ERR_NOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		int found;

		if (s->keys[i] != 0)
			*keyset_slot(&n, s->keys[i] - 1, &found) = s->vals[i];
	}
	free(s->keys);
	free(s->vals);
	*s = n;
	return 0;
}

static void keyset_free(struct keyset *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->vals[i]);
	free(s->keys);
	free(s->vals);
}

struct walk {
	struct sqp_image *img;
	const struct unp_walk_ops *ops;
	void *user;
	struct keyset dirs;   /* directory inode refs entered */
	struct keyset links;  /* inode number -> first path */
};

/* Hand the inode at path to the callback, naming a hard link's first
 * path. */
static int visit(struct walk *w, const char *path, unsigned depth,
		 uint64_t ref, struct rd_inode *ino)
{
	const char *slash = strrchr(path, '/');
	struct unp_node n = { path, slash ? slash + 1 : path, depth, ino, ref,
			      NULL };
	int found;

	if (!S_ISDIR(ino->mode) && ino->raw.nlink > 1) {
		char **slot;

		if (keyset_grow(&w->links) != 0)
			return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
		slot = keyset_slot(&w->links, ino->raw.inode_number, &found);
		if (found)
			n.first_path = *slot;
		else if ((*slot = strdup(path)) == NULL)
			return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
	}
	return w->ops->entry(w->user, &n);
}

static int leave(struct walk *w, const char *path, unsigned depth,
		 uint64_t ref, struct rd_inode *ino)
{
	const char *slash = strrchr(path, '/');
	struct unp_node n = { path, slash ? slash + 1 : path, depth, ino, ref,
			      NULL };

	return w->ops->leave != NULL ? w->ops->leave(w->user, &n) : 0;
}

static int enter_dir(struct walk *w, uint64_t ref)
{
	int found;

	if (keyset_grow(&w->dirs) != 0)
		return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
	keyset_slot(&w->dirs, ref, &found);
	if (found)
		return rd_err(w->img, SQP_ERR_CORRUPT, "%s: a directory is "
			      "reached twice (a loop in the tree)", w->img->name);
	return 0;
}

struct frame {
	struct rd_dir it;
	struct rd_inode ino;     /* the directory's, for leave() */
	uint64_t ref;
	size_t path_len;
};

/* Make room for len + name + 2 bytes in *buf. */
static int path_room(struct walk *w, char **buf, size_t *cap, size_t need)
{
	while (need > *cap) {
		char *nb = realloc(*buf, *cap * 2);

		if (nb == NULL)
			return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
		*buf = nb;
		*cap *= 2;
	}
	return 0;
}

/* Leave the directory of frame f: path cut back to it. */
static int pop(struct walk *w, struct frame *f, char *buf, unsigned depth)
{
	int ret;

	buf[f->path_len] = '\0';
	ret = leave(w, buf, depth, f->ref, &f->ino);
	rd_inode_free(&f->ino);
	return ret;
}

/* One entry of the directory at stack[*depth]: visit it, and descend
 * into it when it is a directory. */
static int step(struct walk *w, struct frame *stack, size_t *depth,
		char *buf, const struct rd_dirent *de, unsigned base)
{
	struct rd_inode ino;
	int ret;

	if ((ret = rd_inode_read(w->img, de->inode_ref, &ino)) != 0)
		return ret;
	if (S_ISDIR(ino.mode) && (ret = enter_dir(w, de->inode_ref)) == 0 &&
	    *depth + 1 >= DEPTH_MAX)
		ret = rd_err(w->img, SQP_ERR_CORRUPT, "%s: directories nested "
			     "deeper than %d", w->img->name, DEPTH_MAX);
	if (ret == 0)
		ret = visit(w, buf, base + (unsigned)*depth + 1, de->inode_ref,
			    &ino);
	if (ret == 0 && S_ISDIR(ino.mode)) {
		struct frame *f = &stack[++*depth];

		f->path_len = strlen(buf);
		f->ref = de->inode_ref;
		f->ino = ino;
		return rd_dir_open(w->img, &f->ino, &f->it);
	}
	rd_inode_free(&ino);
	return ret;
}

/* Everything below the directory dir at path (may be ""), then dir's
 * leave(). Frames above 0 own their inode. */
static int walk_tree(struct walk *w, const char *path, uint64_t ref,
		     struct rd_inode *dir, unsigned base)
{
	struct frame *stack = calloc(DEPTH_MAX, sizeof(*stack));
	size_t cap = strlen(path) + 1024, depth = 0;
	char *buf = malloc(cap);
	struct rd_dirent de;
	int ret;

	if (stack == NULL || buf == NULL) {
		ret = rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
		goto out;
	}
	strcpy(buf, path);
	stack[0].path_len = strlen(path);
	if ((ret = rd_dir_open(w->img, dir, &stack[0].it)) != 0)
		goto out;
	for (;;) {
		struct frame *f = &stack[depth];
		size_t len = f->path_len;

		if ((ret = rd_dir_next(w->img, &f->it, &de)) < 0)
			goto out;
		if (ret == 0) {
			if (depth == 0)
				break;
			ret = pop(w, f, buf, base + (unsigned)depth);
			depth--;
			if (ret != 0)
				goto out;
			continue;
		}
		ret = path_room(w, &buf, &cap, len + strlen(de.name) + 2);
		if (ret == 0) {
			sprintf(buf + len, "%s%s", len > 0 ? "/" : "", de.name);
			ret = step(w, stack, &depth, buf, &de, base);
		}
		if (ret != 0)
			goto out;
	}
	buf[stack[0].path_len] = '\0';
	ret = leave(w, buf, base, ref, dir);
out:
	while (stack != NULL && depth > 0)
		rd_inode_free(&stack[depth--].ino);
	free(stack);
	free(buf);
	return ret;
}

/* The entry at path (normalised, "" for the root) and all below it. */
static int subtree(struct walk *w, const char *path)
{
	struct rd_inode ino;
	uint64_t ref;
	int ret;

	ret = rd_path_lookup(w->img, path, &ref);
	if (ret == SQP_ERR_NOT_FOUND)
		return rd_err(w->img, ret, "%s: '%s': no such path in the "
			      "image", w->img->name, path);
	if (ret == SQP_ERR_ARG)
		return rd_err(w->img, ret, "'%s': a path may not contain '..'",
			      path);
	if (ret != 0 || (ret = rd_inode_read(w->img, ref, &ino)) != 0)
		return ret;
	if (S_ISDIR(ino.mode))
		ret = enter_dir(w, ref);
	if (ret == 0)
		ret = visit(w, path, 0, ref, &ino);
	if (ret == 0 && S_ISDIR(ino.mode))
		ret = walk_tree(w, path, ref, &ino, 0);
	rd_inode_free(&ino);
	return ret;
}

/* path without empty or "." components or a '/' at either end. */
static char *normalise(const char *path)
{
	char *out = malloc(strlen(path) + 1), *d = out;
	const char *s = path;

	if (out == NULL)
		return NULL;
	while (*s != '\0') {
		size_t n = strcspn(s, "/");

		if (n > 0 && !(n == 1 && s[0] == '.')) {
			if (d != out)
				*d++ = '/';
			memcpy(d, s, n);
			d += n;
		}
		s += n + (s[n] == '/');
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

/* The subtrees asked for, each once: a path inside another one given
 * (or given twice) is left out, as its entries come with the other. */
static int subtrees(struct walk *w, const struct unp_walk_desc *desc)
{
	size_t n = desc->path_count;
	char **norm = calloc(n, sizeof(*norm));
	int ret = 0;

	if (norm == NULL)
		return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
	for (size_t i = 0; ret == 0 && i < n; i++)
		if ((norm[i] = normalise(desc->paths[i])) == NULL)
			ret = rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
	for (size_t i = 0; ret == 0 && i < n; i++) {
		int covered = 0;

		for (size_t j = 0; j < n && !covered; j++)
			covered = j != i && inside(norm[i], norm[j]) &&
				  (j < i || !inside(norm[j], norm[i]));
		if (!covered)
			ret = subtree(w, norm[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(norm[i]);
	free(norm);
	return ret;
}

int unp_walk(const struct unp_walk_desc *desc)
{
	struct walk w = { desc->img, desc->ops, desc->user, { 0 }, { 0 } };
	int ret;

	if (desc->img->err.code != 0)
		return desc->img->err.code;
	ret = desc->path_count == 0 ? subtree(&w, "") : subtrees(&w, desc);
	keyset_free(&w.dirs);
	keyset_free(&w.links);
	return ret;
}
