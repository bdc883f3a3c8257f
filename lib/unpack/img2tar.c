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
#include "read/rd_erofs.h"
#include "sqpack/error.h"
#include "sqpack/img2tar.h"
#include "unpack/walk.h"
#include "util/abi.h"
#include "util/endian.h"

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

/* For sparse output, an EROFS file's data runs from its block map
 * (which gives each hole as one run): counted, then filled. */
static int erofs_runs(struct sqp_image *img, struct pending *p,
		      const struct rd_inode *ino)
{
	uint64_t size = ino->e.size, phys;
	size_t n = 0, holes = 0;
	uint32_t len;
	int ret;

	/* A compressed file has no holes: all of it is one run. */
	if (rd_erofs_compressed(&ino->e))
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		n = 0;
		for (uint64_t off = 0; off < size; off += len) {
			if ((ret = rd_erofs_map(img, &ino->e, off, &phys, &len)) != 0)
				return ret;
			if (phys == UINT64_MAX)
				holes++;
			else if (n > 0 && p->runs != NULL &&
				 p->runs[n - 1].offset + p->runs[n - 1].length == off)
				p->runs[n - 1].length += len;
			else if (p->runs != NULL)
				p->runs[n++] = (struct sqp_sparse_run){ off, len };
			else
				n++;
		}
		if (holes == 0)
			return 0;
		if (pass == 0 && (p->runs = calloc(n + 1, sizeof(*p->runs))) == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	}
	if (n == 0 || p->runs[n - 1].offset + p->runs[n - 1].length < size)
		p->runs[n++] = (struct sqp_sparse_run){ size, 0 };
	p->e.sparse = p->runs;
	p->e.sparse_count = n;
	return 0;
}

/* For sparse output: the data runs of a file with holes (none: 0). */
static int file_runs(struct sqp_image *img, struct pending *p,
		     const struct rd_inode *ino)
{
	uint32_t bs = img->sb.block_size;
	struct meta_pos bl = ino->blocks;
	uint64_t size = ino->raw.u.file.size, holes = 0;
	size_t n = 0;
	uint8_t word[4];
	int ret;

	for (int pass = 0; pass < 2; pass++) {
		bl = ino->blocks;
		for (uint64_t i = 0; i < ino->block_count; i++) {
			uint64_t off = i * bs, len = size - off < bs ? size - off : bs;

			if ((ret = meta_read(img, &bl, word, 4)) != 0)
				return ret;
			if ((sqp_get32(word) & SQFS_BLOCK_SIZE_MASK) == 0) {
				holes++;
				continue;
			}
			if (pass == 1 && n > 0 &&
			    p->runs[n - 1].offset + p->runs[n - 1].length == off)
				p->runs[n - 1].length += len;
			else if (pass == 1)
				p->runs[n++] = (struct sqp_sparse_run){ off, len };
			else
				n++;
		}
		if (holes == 0)
			return 0;
		if (pass == 0) {
			/* + the tail, + an empty run marking the end */
			p->runs = calloc(n + 2, sizeof(*p->runs));
			if (p->runs == NULL)
				return rd_err(img, SQP_ERR_NOMEM, "out of memory");
			n = 0;
			holes = 0;
		}
	}
	if (ino->raw.u.file.frag_index != SQFS_NO_FRAGMENT) {
		uint64_t off = ino->block_count * bs;

		if (n > 0 && p->runs[n - 1].offset + p->runs[n - 1].length == off)
			p->runs[n - 1].length += size - off;
		else
			p->runs[n++] = (struct sqp_sparse_run){ off, size - off };
	}
	if (n == 0 || p->runs[n - 1].offset + p->runs[n - 1].length < size)
		p->runs[n++] = (struct sqp_sparse_run){ size, 0 };
	p->e.sparse = p->runs;
	p->e.sparse_count = n;
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
		sqfs_decode_rdev(ino->raw.u.dev.rdev, &e->dev_major, &e->dev_minor);
	} else if (S_ISREG(e->mode)) {
		e->size = ino->raw.u.file.size;
		if ((t->flags & SQP_IMG2TAR_SPARSE) &&
		    (ret = (t->img->ero != NULL ? erofs_runs :
			    file_runs)(t->img, p, ino)) != 0)
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
	struct rd_blockrd_desc bd = { img, 0, &tar_ops, &t, 0 };
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
