/* SPDX-License-Identifier: MIT */
/*
 * img2tar.c - sqp_image_to_tar(): the walk (walk.c) describes each entry,
 * the ordered block reader (read/blockrd.h) decompresses file data on
 * the pool, and its callbacks write header, then data, to the tar
 * strictly in walk order, so the tar is the same for any -j.
 *
 * An entry (struct pending) owns everything its tar header points to
 * until the reader ends or drops it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/blockrd.h"
#include "sqpack/error.h"
#include "sqpack/img2tar.h"
#include "unpack/walk.h"
#include "util/abi.h"

struct pending {
	struct rd_bentry be;     /* first: the reader hands this back */
	struct sqp_entry e;
	char *path;              /* owned; e.path and be.name point here */
	char *link;              /* owned */
	struct rd_xattrs xattrs; /* owned; e.xattrs points into it */
	struct sqp_sparse_run *runs; /* owned (sparse output only) */
};

struct totar {
	struct sqp_image *img;
	struct sqp_tar_writer *tw;
	struct rd_blockrd *br;
	unsigned flags;
};

static void pending_free(struct pending *p)
{
	free(p->path);
	free(p->link);
	free(p->runs);
	rd_xattrs_free(&p->xattrs);
	free(p);
}

static int tw_failed(struct totar *t, int ret)
{
	return rd_err(t->img, ret, "%s", sqp_tar_writer_error(t->tw));
}

static int on_start(void *user, struct rd_bentry *be)
{
	struct totar *t = user;
	int ret = sqp_tar_write_header(t->tw, &((struct pending *)be)->e);

	return ret != 0 ? tw_failed(t, ret) : 0;
}

static int on_data(void *user, struct rd_bentry *be, uint64_t pos,
		   const uint8_t *data, uint32_t len)
{
	static const uint8_t zeros[4096];
	struct totar *t = user;
	int ret = 0;

	(void)be;
	(void)pos;
	if (data != NULL) {
		ret = sqp_tar_write_data(t->tw, data, len);
	} else if (!(t->flags & SQP_IMG2TAR_SPARSE)) {
		while (ret == 0 && len > 0) {
			uint32_t n = len > sizeof(zeros) ? sizeof(zeros) : len;

			ret = sqp_tar_write_data(t->tw, zeros, n);
			len -= n;
		}
	}
	return ret != 0 ? tw_failed(t, ret) : 0;
}

static int on_end(void *user, struct rd_bentry *be)
{
	(void)user;
	pending_free((struct pending *)be);
	return 0;
}

static void on_drop(void *user, struct rd_bentry *be)
{
	(void)user;
	pending_free((struct pending *)be);
}

static const struct rd_blockrd_ops tar_ops = {
	on_start, on_data, on_end, on_drop, NULL, NULL,
};

/* Sparse output: the data runs of a file, gathered from its pieces
 * (adjacent data pieces make one run). */
struct runs {
	struct sqp_sparse_run *v;
	size_t n, cap;
	uint64_t holes;
};

static int add_piece(void *user, uint64_t off, uint64_t len, int hole)
{
	struct runs *r = user;

	if (hole) {
		r->holes++;
		return 0;
	}
	if (r->n > 0 && r->v[r->n - 1].offset + r->v[r->n - 1].length == off) {
		r->v[r->n - 1].length += len;
		return 0;
	}
	if (r->n + 1 >= r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 16;
		struct sqp_sparse_run *v = realloc(r->v, cap * sizeof(*v));

		if (v == NULL)
			return SQP_ERR_NOMEM;
		r->v = v;
		r->cap = cap;
	}
	r->v[r->n++] = (struct sqp_sparse_run){ off, len };
	return 0;
}

/* The runs of a file with holes (none: no sparse map), ending with an
 * empty run at its size when the last run ends before it. */
static int file_runs(struct sqp_image *img, struct pending *p,
		     const struct rd_inode *ino)
{
	struct runs r = { NULL, 0, 0, 0 };
	int ret = rd_file_pieces(img, ino, add_piece, &r);

	if (ret == SQP_ERR_NOMEM)
		ret = rd_err(img, ret, "out of memory");
	if (ret != 0 || r.holes == 0) {
		free(r.v);
		return ret;
	}
	/* add_piece leaves room for one more; all holes: none made yet. */
	if (r.v == NULL && (r.v = malloc(sizeof(*r.v))) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if (r.n == 0 || r.v[r.n - 1].offset + r.v[r.n - 1].length < ino->size)
		r.v[r.n++] = (struct sqp_sparse_run){ ino->size, 0 };
	p->runs = r.v;
	p->e.sparse = p->runs;
	p->e.sparse_count = r.n;
	return 0;
}

static int entry_attrs(struct totar *t, struct pending *p, struct unp_node *n)
{
	struct rd_inode *ino = n->ino;
	struct sqp_entry *e = &p->e;
	int ret;

	e->mode = ino->mode;
	e->uid = ino->uid;
	e->gid = ino->gid;
	e->mtime = ino->mtime;
	e->mtime_nsec = ino->mtime_nsec;
	if (n->first_path != NULL) {
		p->link = strdup(n->first_path);
		if (p->link == NULL)
			return rd_err(t->img, SQP_ERR_NOMEM, "out of memory");
		e->link_target = p->link;
		e->is_hardlink = 1;
		return 0;
	}
	if (S_ISLNK(e->mode)) {
		p->link = ino->target;
		ino->target = NULL;
		e->link_target = p->link;
	} else if (S_ISCHR(e->mode) || S_ISBLK(e->mode)) {
		e->dev_major = ino->dev_major;
		e->dev_minor = ino->dev_minor;
	} else if (S_ISREG(e->mode)) {
		e->size = ino->size;
		if ((t->flags & SQP_IMG2TAR_SPARSE) &&
		    (ret = file_runs(t->img, p, ino)) != 0)
			return ret;
	}
	if (!(t->flags & SQP_IMG2TAR_NO_XATTRS)) {
		ret = rd_xattrs_of(t->img, ino, &p->xattrs);
		if (ret != 0)
			return ret;
		e->xattrs = p->xattrs.items;
		e->xattr_count = p->xattrs.count;
	}
	return 0;
}

/* Describe the entry to the reader, with its data. */
static int on_entry(void *user, struct unp_node *n)
{
	struct totar *t = user;
	struct pending *p;
	int ret;

	if (S_ISSOCK(n->ino->mode)) {
		if (t->img->warn != NULL) {
			char msg[SQP_ERRMSG_MAX];

			snprintf(msg, sizeof(msg), "'%s': a socket cannot be "
				 "stored in a tar; skipped", n->path);
			t->img->warn(t->img->warn_user, msg);
		}
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL || (p->path = strdup(n->path)) == NULL) {
		free(p);
		return rd_err(t->img, SQP_ERR_NOMEM, "out of memory");
	}
	p->e.struct_size = sizeof(p->e);
	p->e.path = p->be.name = p->path;
	if ((ret = entry_attrs(t, p, n)) != 0) {
		pending_free(p);
		return ret;
	}
	return rd_blockrd_add(t->br, &p->be, S_ISREG(p->e.mode) &&
			      !p->e.is_hardlink ? n->ino : NULL);
}

static const struct unp_walk_ops walk_ops = { on_entry, NULL };

SQP_API int sqp_image_to_tar(struct sqp_image *img, struct sqp_tar_writer *tw,
			     const struct sqp_img2tar_desc *desc)
{
	struct totar t = { img, tw, NULL, 0 };
	struct rd_blockrd_desc bd = { img, 0, &tar_ops, &t, 0, 1 };
	struct unp_walk_desc wd = { img, NULL, 0, &walk_ops, &t };
	struct sqp_img2tar_desc d;
	int ret;

	if (img == NULL || tw == NULL || desc == NULL)
		return SQP_ERR_ARG;
	if (img->err.code != 0)
		return img->err.code;
	if ((ret = sqp_abi_in(&img->err, "sqp_img2tar_desc", &d, sizeof(d),
			      SQP_SIZE_TO(struct sqp_img2tar_desc, path_count), desc)) != 0)
		return ret;
	desc = &d; /* the caller's struct only up to its size */
	t.flags = desc->flags;
	bd.jobs = desc->jobs;
	wd.paths = desc->paths;
	wd.path_count = desc->path_count;
	ret = rd_blockrd_create(&bd, &t.br);
	if (ret == 0)
		ret = unp_walk(&wd);
	if (ret == 0)
		ret = rd_blockrd_flush(t.br);
	rd_blockrd_destroy(t.br);
	return ret;
}
