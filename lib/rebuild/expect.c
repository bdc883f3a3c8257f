/* SPDX-License-Identifier: MIT */
/*
 * expect.c - sqp_writer_expect_images (merge.h): the sizes that files of
 * two or more of the images to merge share, into the writer's set of
 * sizes that rebuild_add (data.c) reads through deduplication rather
 * than copying stored blocks. One walk of each image's metadata. Equal
 * files within one image were stored once when it was built, and its
 * copy keeps them shared, so sizes that repeat only inside one image are
 * left out: decoding and compressing those again would buy nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "read/rd_walk.h"
#include "sqpack/error.h"
#include "sqpack/merge.h"
#include "write/writer_impl.h"

/* One file met: its size and the image it is in. */
struct sized {
	uint64_t size;
	size_t img;
};

struct sizes {
	struct sized *v;
	size_t n, cap;
};

static int sizes_add(struct sizes *s, uint64_t size, size_t img)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		struct sized *v = realloc(s->v, cap * sizeof(*v));

		if (v == NULL)
			return SQP_ERR_NOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = (struct sized){ size, img };
	return 0;
}

static int cmp_sized(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->img < y->img ? -1 : x->img > y->img;
}

static int collect(struct sqp_writer *w, struct sqp_image *img, size_t k, struct sizes *s)
{
	struct rd_walk_desc wd = { img, NULL, 0, 0, NULL, NULL };
	struct rd_walk *walk = NULL;
	struct rd_walk_node n;
	int ret = rd_walk_create(&wd, &walk);

	while (ret == 0 && (ret = rd_walk_next(walk, &n)) > 0) {
		ret = 0;
		if (n.again || !S_ISREG(n.ino->mode) || n.ino->size == 0)
			continue;
		if (sizes_add(s, n.ino->size, k) != 0)
			ret = writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	if (ret < 0 && w->err.code == 0)
		ret = writer_fail(w, ret, "'%s': %s", walk ? rd_walk_path(walk) : "",
				  sqp_image_error(img));
	rd_walk_destroy(walk);
	return ret < 0 ? ret : 0;
}

/* The fragment blocks of img that hold a tail of a file whose size the
 * census marked (it is read through, so its tail must not also stay in
 * a block copied whole), into a new w->expect record. */
static int mark_blocks(struct sqp_writer *w, struct sqp_image *img)
{
	struct rd_walk_desc wd = { img, NULL, 0, 0, NULL, NULL };
	struct rd_stored st = { 0 };
	struct writer_expect *e;
	struct rd_walk *walk = NULL;
	struct rd_walk_node n;
	int ret;

	if (img->fmt->stored == NULL)
		return 0;   /* no stored blocks to copy: everything is decoded */
	e = realloc(w->expect, (w->expect_count + 1) * sizeof(*e));
	if (e == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	w->expect = e;
	e = &w->expect[w->expect_count];
	e->img = img;
	e->frag_count = img->fmt->stored_tails(img);
	e->repack = calloc(e->frag_count + 1, 1);
	if (e->repack == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	w->expect_count++;
	ret = rd_walk_create(&wd, &walk);
	while (ret == 0 && (ret = rd_walk_next(walk, &n)) > 0) {
		ret = 0;
		if (n.again || !S_ISREG(n.ino->mode) || !writer_size_seen(w, n.ino->size))
			continue;
		ret = img->fmt->stored(img, n.ino, &st);
		if (ret == 0 && st.has_tail && st.tail_index < e->frag_count)
			e->repack[st.tail_index] = 1;
	}
	if (ret < 0 && w->err.code == 0)
		ret = writer_fail(w, ret, "'%s': %s", walk ? rd_walk_path(walk) : "",
				  sqp_image_error(img));
	free(st.words);
	rd_walk_destroy(walk);
	return ret < 0 ? ret : 0;
}

int sqp_writer_expect_images(struct sqp_writer *w, struct sqp_image *const *img, size_t n)
{
	struct sizes s = { NULL, 0, 0 };
	size_t i;
	int ret = 0;

	if (w->err.code != 0)
		return w->err.code;
	if (!w->pipe.dedup)
		return 0;
	for (i = 0; i < n && ret == 0; i++)
		ret = collect(w, img[i], i, &s);
	if (ret == 0 && s.n > 1)
		qsort(s.v, s.n, sizeof(*s.v), cmp_sized);
	/* sorted by size, then image: a size in two images shows as a
	 * neighbour of the same size from another image */
	for (i = 1; i < s.n && ret == 0; i++) {
		if (s.v[i].size != s.v[i - 1].size || s.v[i].img == s.v[i - 1].img ||
		    writer_size_seen(w, s.v[i].size))
			continue;
		if ((w->layer_sizes.buckets == 0 && hchain_init(&w->layer_sizes, NULL) != 0) ||
		    hchain_insert(&w->layer_sizes, s.v[i].size) != 0)
			ret = writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	free(s.v);
	for (i = 0; i < n && ret == 0; i++)
		ret = mark_blocks(w, img[i]);
	return ret;
}
