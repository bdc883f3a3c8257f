/* SPDX-License-Identifier: MIT */
/*
 * img2tar.c - sqp_image_to_tar(): walk the image depth-first in
 * directory order (parents before children) and describe each entry to
 * the ordered writer of img2tar_out.c, with its data as block jobs
 * (img2tar_data.c).
 *
 * A hostile image cannot make the walk loop or explode: each directory
 * inode is entered at most once (a second visit is an error: a cycle or
 * a directory with two parents), and the depth is bounded. Hard links
 * are found by inode number; later paths become tar hard links to the
 * first path written.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/img2tar_impl.h"
#include "sqpack/error.h"
#include "util/endian.h"

#define DEPTH_MAX 1024

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
	struct xout out;
	unsigned flags;
	struct keyset dirs;   /* directory inode refs entered */
	struct keyset links;  /* inode number -> first path */
};

static int entry_attrs(struct walk *w, struct pending *p, struct rd_inode *ino)
{
	struct sqp_entry *e = &p->e;
	int found, ret;

	e->mode = ino->mode;
	e->uid = ino->uid;
	e->gid = ino->gid;
	e->mtime = ino->raw.mtime;
	if (S_ISLNK(e->mode)) {
		p->link = ino->target;
		ino->target = NULL;
		e->link_target = p->link;
	} else if (S_ISCHR(e->mode) || S_ISBLK(e->mode)) {
		sqfs_decode_rdev(ino->raw.u.dev.rdev, &e->dev_major, &e->dev_minor);
	}
	if (!S_ISDIR(e->mode) && ino->raw.nlink > 1) {
		char **slot;

		if (keyset_grow(&w->links) != 0)
			return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
		slot = keyset_slot(&w->links, ino->raw.inode_number, &found);
		if (found) {
			free(p->link);
			p->link = strdup(*slot);
			if (p->link == NULL)
				return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
			e->link_target = p->link;
			e->is_hardlink = 1;
		} else if ((*slot = strdup(p->path)) == NULL) {
			return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
		}
	}
	if (!(w->flags & SQP_IMG2TAR_NO_XATTRS) && !e->is_hardlink) {
		ret = rd_xattrs_read(w->img, ino->raw.xattr_idx, &p->xattrs);
		if (ret != 0)
			return ret;
		e->xattrs = p->xattrs.items;
		e->xattr_count = p->xattrs.count;
	}
	return 0;
}

/* Describe the inode at path to the writer, with its data. */
static int emit(struct walk *w, const char *path, struct rd_inode *ino)
{
	struct pending *p;
	int file, ret;

	if (S_ISSOCK(ino->mode)) {
		if (w->img->warn != NULL) {
			char msg[SQP_ERRMSG_MAX];

			snprintf(msg, sizeof(msg), "'%s': a socket cannot be "
				 "stored in a tar; skipped", path);
			w->img->warn(w->img->warn_user, msg);
		}
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL || (p->path = strdup(path)) == NULL) {
		free(p);
		return rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
	}
	p->e.path = p->path;
	ret = entry_attrs(w, p, ino);
	file = S_ISREG(p->e.mode) && !p->e.is_hardlink;
	if (ret == 0 && file) {
		p->e.size = ino->raw.u.file.size;
		if (w->flags & SQP_IMG2TAR_SPARSE)
			ret = xfile_runs(w->img, p, ino);
	}
	if (ret != 0) {
		pending_free(p);
		return ret;
	}
	if ((ret = xout_push(&w->out, p)) != 0)
		return ret;
	if (file && (ret = xfile_jobs(&w->out, p, ino)) != 0)
		return ret;
	return xout_close_entry(&w->out, p);
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
	size_t path_len;
};

/* Everything below the directory ino, whose path is path (may be ""). */
static int walk_tree(struct walk *w, const char *path, struct rd_inode *dir)
{
	struct frame *stack = calloc(DEPTH_MAX, sizeof(*stack));
	size_t cap = strlen(path) + 1024, depth = 0;
	char *buf = malloc(cap);
	struct rd_dirent de;
	struct rd_inode ino;
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

		ret = rd_dir_next(w->img, &f->it, &de);
		if (ret < 0)
			goto out;
		if (ret == 0) {
			if (depth-- == 0)
				break;
			continue;
		}
		if (len + strlen(de.name) + 2 > cap) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				ret = rd_err(w->img, SQP_ERR_NOMEM, "out of memory");
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		sprintf(buf + len, "%s%s", len > 0 ? "/" : "", de.name);
		if ((ret = rd_inode_read(w->img, de.inode_ref, &ino)) != 0)
			goto out;
		if (S_ISDIR(ino.mode) && (ret = enter_dir(w, de.inode_ref)) == 0 &&
		    depth + 1 >= DEPTH_MAX)
			ret = rd_err(w->img, SQP_ERR_CORRUPT, "%s: directories "
				     "nested deeper than %d", w->img->name,
				     DEPTH_MAX);
		if (ret == 0)
			ret = emit(w, buf, &ino);
		if (ret == 0 && S_ISDIR(ino.mode)) {
			stack[depth + 1].path_len = strlen(buf);
			ret = rd_dir_open(w->img, &ino, &stack[depth + 1].it);
			depth++;
		}
		rd_inode_free(&ino);
		if (ret != 0)
			goto out;
	}
	ret = 0;
out:
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
		ret = emit(w, path, &ino);
	if (ret == 0 && S_ISDIR(ino.mode))
		ret = walk_tree(w, path, &ino);
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
static int subtrees(struct walk *w, const struct sqp_img2tar_desc *desc)
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

SQP_API int sqp_image_to_tar(struct sqp_image *img, struct sqp_tar_writer *tw,
			     const struct sqp_img2tar_desc *desc)
{
	struct walk w = { .img = img };
	int ret;

	if (img == NULL || tw == NULL || desc == NULL)
		return SQP_ERR_ARG;
	if (img->err.code != 0)
		return img->err.code;
	w.flags = desc->flags;
	ret = xout_init(&w.out, img, tw, desc->jobs,
			(desc->flags & SQP_IMG2TAR_SPARSE) != 0);
	if (ret == 0)
		ret = desc->path_count == 0 ? subtree(&w, "") : subtrees(&w, desc);
	if (ret == 0)
		ret = xout_flush(&w.out);
	xout_fini(&w.out);
	keyset_free(&w.dirs);
	keyset_free(&w.links);
	return ret;
}
