/* SPDX-License-Identifier: MIT */
/*
 * expect.c - sqp_writer_expect_images (merge.h): the sizes that files of
 * the images to merge share, into the writer's set of sizes that
 * rebuild_add (data.c) reads through deduplication rather than copying
 * stored blocks. One walk of each image's metadata; a hard link's later
 * names are not counted again, so a file linked within one image alone
 * is still copied as it is.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "read/rd_walk.h"
#include "sqpack/error.h"
#include "sqpack/merge.h"
#include "write/writer_impl.h"

struct sizes {
	uint64_t *v;
	size_t n, cap;
};

static int sizes_add(struct sizes *s, uint64_t size)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 4096;
		uint64_t *v = realloc(s->v, cap * sizeof(*v));

		if (v == NULL)
			return SQP_ERR_NOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = size;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int collect(struct sqp_writer *w, struct sqp_image *img, struct sizes *s)
{
	struct rd_walk_desc wd = { img, NULL, 0, 0, NULL, NULL };
	struct rd_walk *walk = NULL;
	struct rd_walk_node n;
	int ret = rd_walk_create(&wd, &walk);

	while (ret == 0 && (ret = rd_walk_next(walk, &n)) > 0) {
		ret = 0;
		if (n.again || !S_ISREG(n.ino->mode) || n.ino->size == 0)
			continue;
		if (sizes_add(s, n.ino->size) != 0)
			ret = writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	if (ret < 0 && w->err.code == 0)
		ret = writer_fail(w, ret, "'%s': %s", walk ? rd_walk_path(walk) : "",
				  sqp_image_error(img));
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
		ret = collect(w, img[i], &s);
	if (ret == 0 && s.n > 1)
		qsort(s.v, s.n, sizeof(*s.v), cmp_u64);
	for (i = 1; i < s.n && ret == 0; i++) {
		if (s.v[i] != s.v[i - 1] || writer_size_seen(w, s.v[i]))
			continue;
		if ((w->layer_sizes.buckets == 0 && hchain_init(&w->layer_sizes, NULL) != 0) ||
		    hchain_insert(&w->layer_sizes, s.v[i]) != 0)
			ret = writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	free(s.v);
	return ret;
}
