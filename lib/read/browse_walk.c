/* SPDX-License-Identifier: MIT */
/*
 * browse_walk.c - sqp_walk (reader.h): the reader's own walk, rd_walk,
 * offered to users of the public API (imginfo ls, the summary, the
 * diff), so that a tool outside lib/read walks a hostile tree with the
 * same guard as img2tar and the checker instead of a copy of it.
 *
 * What it adds to rd_walk: its own latched error, so that a failed walk
 * explains itself and a start path that is not there does not fail the
 * image (reader.h: "not found" does not latch); the entry's path in every
 * message; and the public inode information of each entry. Directories'
 * leave events are of no use here and are passed over.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "read/rd_walk.h"
#include "sqpack/error.h"
#include "util/abi.h"

struct sqp_walk {
	struct sqp_errbuf err;
	struct sqp_image *img;
	struct rd_walk *rw;
};

/* The image's latched error, copied into the walk with path. */
static int img_fail(struct sqp_walk *w, int ret, const char *path)
{
	return sqp_err_wrap(&w->err, ret, sqp_image_error(w->img), "'%s': ",
			    path);
}

SQP_API int sqp_walk_next(struct sqp_walk *w, struct sqp_walk_entry *e)
{
	struct sqp_walk_entry all = { .struct_size = sizeof(all) };
	struct rd_walk_node n;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	/* The entry grows only through its last member, info. */
	if ((ret = sqp_abi_out(&w->err, "sqp_walk_entry", e, &all, sizeof(all),
			       SQP_SIZE_TO(struct sqp_walk_entry, info))) != 0)
		return ret;
	while ((ret = rd_walk_next(w->rw, &n)) == RD_WALK_LEAVE)
		;
	if (ret < 0)
		return img_fail(w, ret, rd_walk_path(w->rw));
	if (ret == 0)
		return 0;
	if ((ret = rd_stat(w->img, n.ref, &all.info)) != 0)
		return img_fail(w, ret, n.path);
	all.path = n.path;
	all.name = n.name;
	all.depth = n.depth;
	all.hardlink = n.again;
	ret = sqp_abi_out(&w->err, "sqp_walk_entry", e, &all, sizeof(all),
			  SQP_SIZE_TO(struct sqp_walk_entry, info));
	return ret != 0 ? ret : 1;
}

SQP_API void sqp_walk_skip(struct sqp_walk *w)
{
	rd_walk_skip(w->rw);
}

SQP_API int sqp_walk_create(const struct sqp_walk_desc *desc,
			    struct sqp_walk **out)
{
	struct sqp_walk_desc d;
	const char *path;
	struct rd_walk_desc rd = { NULL, &path, 1, 0, NULL, NULL };
	struct sqp_walk *w;
	uint64_t ref;
	int ret;

	*out = NULL;
	w = calloc(1, sizeof(*w));
	if (w == NULL)
		return SQP_ERR_NOMEM;
	*out = w; /* on failure too: it explains (sqpack/error.h) */
	ret = sqp_abi_in(&w->err, "sqp_walk_desc", &d, sizeof(d),
			 SQP_SIZE_TO(struct sqp_walk_desc, max_depth), desc);
	if (ret == 0 && d.img == NULL)
		ret = sqp_err(&w->err, SQP_ERR_ARG, "walk: no image");
	if (ret != 0)
		return ret;
	desc = &d; /* the caller's struct only up to its size */
	path = desc->path ? desc->path : "";
	w->img = desc->img;
	rd.img = desc->img;
	rd.max_depth = desc->max_depth;
	/* Looked up here first, so that a path not found fails the walk
	 * only; the walk's own lookup then finds it. */
	ret = sqp_image_lookup(w->img, path, &ref);
	if (ret == SQP_ERR_NOT_FOUND)
		return sqp_err(&w->err, ret, "'%s': no such entry", path);
	if (ret == 0)
		ret = rd_walk_create(&rd, &w->rw);
	return ret != 0 ? img_fail(w, ret, path) : 0;
}

SQP_API const char *sqp_walk_error(const struct sqp_walk *w)
{
	return sqp_errmsg(&w->err);
}

SQP_API void sqp_walk_destroy(struct sqp_walk *w)
{
	if (w == NULL)
		return;
	rd_walk_destroy(w->rw);
	free(w);
}
