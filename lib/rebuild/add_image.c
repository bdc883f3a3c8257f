/* SPDX-License-Identifier: MIT */
/*
 * add_image.c - sqp_writer_add_image (writer.h): every entry of an image
 * taken into a writer's tree, so a new image can start from an old one
 * (img2img, mksquashfs's append).
 *
 * Why a folder of its own: the reader and the writer never use each
 * other (doc/architecture.md), and this is the one place that needs
 * both, the reader's walk and inodes on one side and the writer's entry
 * path on the other. Nothing in lib/read or lib/write depends on it.
 *
 * Every entry goes through sqp_writer_add, so the policy, the
 * replacement of a path added earlier and whatever the writer does with
 * shadowed entries apply to the base's entries exactly as to a tar's.
 * The walk is the reader's own (its guard against hostile trees); a hard
 * link's later names link to the first of its paths the writer took,
 * kept by inode number. SQP_ADD_IMAGE_NEW_ROOT leaves the image's root
 * directory out, so the writer's own root stands (mksquashfs's append).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_walk.h"
#include "rebuild/rebuild.h"
#include "sqpack/error.h"
#include "util/hchain.h"
#include "write/writer_impl.h"

/* First paths of hard-linked inodes: record i is inode ino[i], first
 * met as path[i] (the path as the writer got it, prefix included). */
struct links {
	struct hchain index;
	uint32_t *ino;
	char **path;
	size_t cap;
};

static void links_free(struct links *l)
{
	for (size_t i = 0; i < l->index.count; i++)
		free(l->path[i]);
	free(l->ino);
	free(l->path);
	hchain_cleanup(&l->index);
}

static const char *links_find(const struct links *l, uint32_t ino)
{
	uint32_t r;

	for (r = hchain_first(&l->index, ino); r != HCHAIN_END;
	     r = hchain_next(&l->index, r, ino))
		if (l->ino[r] == ino)
			return l->path[r];
	return NULL;
}

static int links_add(struct links *l, uint32_t ino, const char *path)
{
	size_t n = l->index.count;
	char *copy;

	if (n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 256;
		uint32_t *i2 = realloc(l->ino, cap * sizeof(*i2));
		char **p2;

		if (i2 == NULL)
			return SQP_ERR_NOMEM;
		l->ino = i2;
		if ((p2 = realloc(l->path, cap * sizeof(*p2))) == NULL)
			return SQP_ERR_NOMEM;
		l->path = p2;
		l->cap = cap;
	}
	if ((copy = strdup(path)) == NULL)
		return SQP_ERR_NOMEM;
	if (hchain_insert(&l->index, ino) != 0) {
		free(copy);
		return SQP_ERR_NOMEM;
	}
	l->ino[n] = ino;
	l->path[n] = copy;
	return 0;
}

/* `under` must be a path the writer takes as it is: relative, no empty,
 * "." or ".." component. */
static int under_ok(const char *under)
{
	const char *p = under;
	size_t len;

	if (*p == '\0')
		return 1;
	for (;;) {
		len = strcspn(p, "/");
		if (len == 0 || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (p[len] == '\0')
			return 1;
		p += len + 1;
	}
}

/* The writer's path of a base path: under, then the path. */
static int full_path(struct rebuild *rb, const char *path)
{
	size_t a = strlen(rb->under), b = strlen(path), need = a + b + 2;
	char *n;

	if (need > rb->path_cap) {
		if ((n = realloc(rb->path, need)) == NULL)
			return SQP_ERR_NOMEM;
		rb->path = n;
		rb->path_cap = need;
	}
	memcpy(rb->path, rb->under, a);
	if (a > 0 && b > 0)
		rb->path[a++] = '/';
	memcpy(rb->path + a, path, b + 1);
	return 0;
}

static int image_fail(struct rebuild *rb, int ret, const char *path)
{
	const char *why = sqp_image_error(rb->img);

	return writer_fail(rb->w, ret, "base image: '%s': %s", path,
			   why[0] != '\0' ? why : sqp_strerror(ret));
}

static int upper_is_dir(struct rebuild *rb, const char *path)
{
	const struct fs_irec *r = fstree_find(&rb->w->tree, path);

	return r != NULL && S_ISDIR(r->mode);
}

/* SQP_ADD_IMAGE_DISJOINT: an entry an upper layer hides is a shard
 * that overlaps another, unless both are directories (each shard has
 * the directories on the way to its files). */
static int disjoint(struct rebuild *rb, int ret, const struct sqp_entry *e)
{
	if (ret != SQP_ADD_SHADOWED || !rb->disjoint ||
	    (S_ISDIR(e->mode) && !e->is_hardlink && upper_is_dir(rb, e->path)))
		return ret;
	return writer_fail(rb->w, SQP_ERR_ARG, "'%s' is in this image and in one "
			   "given after it: the shards overlap", e->path);
}

/* One entry of the walk into the writer. A hard-linked inode's later
 * names link to the first name the writer took: one excluded, or
 * shadowed by an upper layer (whose entry is then at that path), is not
 * there to link to, so the next name carries the data instead. */
static int add_node(struct rebuild *rb, struct links *l,
		    const struct rd_walk_node *n)
{
	struct sqp_entry e = { .struct_size = sizeof(e) };
	struct sqp_inode_info info = { .struct_size = sizeof(info) };
	int linked, ret;

	if ((ret = full_path(rb, n->path)) != 0)
		return writer_fail(rb->w, ret, "out of memory");
	if ((ret = sqp_image_stat(rb->img, n->ref, &info)) != 0)
		return image_fail(rb, ret, n->path);
	linked = !S_ISDIR(info.mode) && info.nlink > 1;
	e.path = rb->path;
	e.mode = info.mode;
	if (linked && (e.link_target = links_find(l, info.inode_number)) != NULL) {
		e.is_hardlink = 1;
		return disjoint(rb, rebuild_add(rb, &e, NULL), &e);
	}
	e.uid = info.uid;
	e.gid = info.gid;
	e.mtime = info.mtime;
	e.size = S_ISREG(info.mode) ? info.size : 0;
	e.dev_major = info.dev_major;
	e.dev_minor = info.dev_minor;
	e.link_target = S_ISLNK(info.mode) ? n->ino->target : NULL;
	if (info.has_xattrs &&
	    (ret = sqp_image_xattrs(rb->img, n->ref, &e.xattrs, &e.xattr_count)) != 0)
		return image_fail(rb, ret, n->path);
	/* Taken: added (not SQP_ADD_SHADOWED) and not excluded. */
	ret = disjoint(rb, rebuild_add(rb, &e, n), &e);
	if (ret == 0 && linked && fstree_find(&rb->w->tree, rb->path) != NULL &&
	    links_add(l, info.inode_number, rb->path) != 0)
		return writer_fail(rb->w, SQP_ERR_NOMEM, "out of memory");
	return ret;
}

int sqp_writer_add_image(struct sqp_writer *w, struct sqp_image *base,
			 const char *under, unsigned flags)
{
	struct rebuild rb = { .w = w, .img = base, .under = under,
			      .disjoint = (flags & SQP_ADD_IMAGE_DISJOINT) != 0 };
	struct rd_walk_desc wd = { base, NULL, 0, 0, NULL, NULL };
	struct links l = { 0 };
	struct rd_walk_node n;
	struct rd_walk *walk = NULL;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (under == NULL || !under_ok(under))
		return writer_fail(w, SQP_ERR_ARG, "base image: '%s' is not a "
				   "relative path", under ? under : "(null)");
	if (flags & ~(unsigned)(SQP_ADD_IMAGE_AS_IS | SQP_ADD_IMAGE_NEW_ROOT |
				SQP_ADD_IMAGE_DISJOINT))
		return writer_fail(w, SQP_ERR_ARG, "base image: unknown flags %#x",
				   flags);
	if (hchain_init(&l.index, NULL) != 0)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	w->policy_off = (flags & SQP_ADD_IMAGE_AS_IS) != 0;
	if ((ret = rebuild_init(&rb)) != 0)
		goto out;
	if ((ret = rd_walk_create(&wd, &walk)) != 0) {
		ret = image_fail(&rb, ret, "");
		goto out;
	}
	while ((ret = rd_walk_next(walk, &n)) > 0) {
		if (ret == RD_WALK_LEAVE)
			continue;
		/* the root is the walk's first node, path "" */
		if ((flags & SQP_ADD_IMAGE_NEW_ROOT) && under[0] == '\0' &&
		    n.path[0] == '\0')
			continue;
		if ((ret = add_node(&rb, &l, &n)) < 0)
			break;
	}
	if (ret < 0 && w->err.code == 0)
		ret = image_fail(&rb, ret, rd_walk_path(walk));
	if (ret >= 0)
		ret = rebuild_end(&rb);
out:
	w->policy_off = 0;
	rd_walk_destroy(walk);
	rebuild_cleanup(&rb);
	links_free(&l);
	return ret < 0 ? ret : 0;
}
