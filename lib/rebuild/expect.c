/* SPDX-License-Identifier: MIT */
/*
 * expect.c - sqp_writer_expect_images (merge.h): the sizes that files of
 * two or more of the images to merge share, into the writer's set of
 * sizes, whose files rebuild_add (data.c) copies keyed by the hash of
 * their stored blocks (basecopy.c), so that one equal to an earlier copy
 * shares it. One walk of each image's metadata. Equal files within one
 * image were stored once when it was built, and its copy keeps them
 * shared, so sizes that repeat only inside one image are left out.
 *
 * Tails cannot be compared stored: they share compressed fragment
 * blocks. The fragment blocks that hold tails of those files (of the
 * files narrow nominates, but for blocks whose tails weigh too little
 * stored to matter: leave_light) are decoded once here (decoding is
 * cheaper than compressing, which a merge must avoid) and the blocks
 * that hold a tail another image also has are marked to be repacked
 * (mark_blocks).
 * The images' layouts also say whether the merge's tables may go at a
 * fast level (tables_small).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_walk.h"
#include "rebuild/tails.h"
#include "sqpack/error.h"
#include "sqpack/image_info.h"
#include "sqpack/merge.h"
#include "util/array.h"
#include "util/fileio.h"
#include "write/words.h"
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
	struct sized *v = sqp_array_grow(s->v, &s->cap, s->n + 1, sizeof(*v), 4096);

	if (v == NULL)
		return SQP_ERR_NOMEM;
	s->v = v;
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

/* A fragment block holding dup tails: dup of its len bytes, which it
 * stores in stored bytes. */
struct dup_block {
	uint32_t img, index;
	uint64_t dup, len, stored;
};

static int tails_add(struct tails *t, const struct tail *x)
{
	struct tail *v = sqp_array_grow(t->v, &t->cap, t->n + 1, sizeof(*v), 4096);

	if (v == NULL)
		return SQP_ERR_NOMEM;
	t->v = v;
	t->v[t->n++] = *x;
	return 0;
}

/* A new w->expect record for img, and the tails of the files in it
 * whose size the census marked, into t. */
static int find_tails(struct sqp_writer *w, struct sqp_image *img, struct tails *t)
{
	struct rd_walk_desc wd = { img, NULL, 0, 0, NULL, NULL };
	struct rd_stored st = { 0 };
	struct writer_expect *e;
	struct rd_walk *walk = NULL;
	struct rd_walk_node n;
	struct tail x;
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
		if (ret != 0 || !st.has_tail || st.tail_index >= e->frag_count)
			continue;
		x = (struct tail){ .size = st.size, .start = st.tail_start,
				   .blocks = XXH3_64bits(st.words, st.count * sizeof(*st.words)),
				   .name = XXH3_64bits(n.name, strlen(n.name)),
				   .mtime = n.ino->mtime, .tail_only = st.count == 0,
				   .word = st.tail_word, .index = st.tail_index,
				   .offset = st.tail_offset,
				   .img = (uint32_t)(w->expect_count - 1) };
		if (tails_add(t, &x) != 0)
			ret = writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	if (ret < 0 && w->err.code == 0)
		ret = writer_fail(w, ret, "'%s': %s", walk ? rd_walk_path(walk) : "",
				  sqp_image_error(img));
	free(st.words);
	rd_walk_destroy(walk);
	return ret < 0 ? ret : 0;
}

static int cmp_place(const void *a, const void *b)
{
	const struct tail *x = a, *y = b;

	if (x->img != y->img)
		return x->img < y->img ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The file's shape: size, then size words. */
static int cmp_shape(const struct tail *x, const struct tail *y)
{
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if (x->blocks != y->blocks)
		return x->blocks < y->blocks ? -1 : 1;
	return 0;
}

/* By bytes: shape, hash, then image. */
static int cmp_bytes(const void *a, const void *b)
{
	const struct tail *x = a, *y = b;
	int c = cmp_shape(x, y);

	if (c != 0)
		return c;
	if (x->hash.high64 != y->hash.high64)
		return x->hash.high64 < y->hash.high64 ? -1 : 1;
	if (x->hash.low64 != y->hash.low64)
		return x->hash.low64 < y->hash.low64 ? -1 : 1;
	return x->img < y->img ? -1 : x->img > y->img;
}

/* Fewer bytes of the blocks repacked first: dup in len, cross-multiplied. */
static int cmp_share(const void *a, const void *b)
{
	const struct dup_block *x = a, *y = b;
	uint64_t l = x->dup * y->len, r = y->dup * x->len;

	if (l != r)
		return l < r ? -1 : 1;
	if (x->img != y->img)
		return x->img < y->img ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The fragment blocks that hold dup tails (t sorted by place), into
 * *out (*n of them). */
static int dup_blocks(const struct tails *t, struct dup_block **out, size_t *n)
{
	struct dup_block *b = NULL;
	size_t i, k = 0, cap = 0;

	for (i = 0; i < t->n; i++) {
		const struct tail *x = &t->v[i];

		if (!x->dup)
			continue;
		if (k > 0 && b[k - 1].img == x->img && b[k - 1].index == x->index) {
			b[k - 1].dup += x->len;
			continue;
		}
		if (k == cap) {
			struct dup_block *m = sqp_array_grow(b, &cap, k + 1, sizeof(*m), 256);

			if (m == NULL) {
				free(b);
				return SQP_ERR_NOMEM;
			}
			b = m;
		}
		b[k++] = (struct dup_block){ x->img, x->index, x->len, x->block_len,
					     x->word & WR_BLOCK_SIZE_MASK };
	}
	*out = b;
	*n = k;
	return 0;
}

/* What the dup tails of b weigh in the image: their share of the
 * block's stored bytes (len > 0: tails_hash decoded it to a tail). */
static uint64_t stored_share(const struct dup_block *b)
{
	return b->dup * b->stored / b->len;
}

/* By the file's shape, then key, then image. */
static int cmp_key(const void *a, const void *b)
{
	const struct tail *x = a, *y = b;
	int c = cmp_shape(x, y);

	if (c != 0)
		return c;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->img < y->img ? -1 : x->img > y->img;
}

/* keep set on the tails of t whose shape and key a tail of another
 * image shares. */
static void keep_shared(struct tails *t)
{
	size_t i, j, k;

	qsort(t->v, t->n, sizeof(*t->v), cmp_key);
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && cmp_shape(&t->v[j], &t->v[i]) == 0 &&
			     t->v[j].key == t->v[i].key; j++)
			;
		/* sorted by image last: two images show at both ends */
		if (t->v[i].img != t->v[j - 1].img)
			for (k = i; k < j; k++)
				t->v[k].keep = 1;
	}
}

/*
 * Only tails that may be a tail of the same file in another image are
 * kept in t, nominated by what the metadata says, so that the fragment
 * blocks decoded (tails_hash) are only theirs:
 *
 * - of a file with full blocks, one of a file of the same size whose
 *   blocks are stored in the same size words (the shards of one build
 *   compress an equal block to equal bytes);
 * - of a file of a tail alone, whose size words say nothing, one of a
 *   file of the same size and the same mtime or the same name. Sizes
 *   of small files meet by chance: of big.tar's 4 shards' 6594 tails
 *   of a size in two shards (850 fragment blocks, 110-125 ms of CPU
 *   to decode, a third of the merge), 39 were equal; 369 share an
 *   mtime too, in 135 blocks, and hold 34 of the 39 (small.tar: 89 of
 *   1487, in 61 of 225 blocks, 14 of the 18 equal). Copies within a
 *   tree keep their mtime (tar, cp -a, a package's clamped times) or
 *   their name (a LICENSE, a sidecar per subject).
 *
 * A tail nominated by neither is copied where its block stores it,
 * even if another image holds the same bytes: the merge is then
 * larger than one pass by that tail, which the budget of mark_blocks
 * does not count (5 tails of big.tar's 39, all of whose blocks
 * mark_blocks copied anyway).
 */
static void narrow(struct tails *t)
{
	size_t i, n = 0;

	if (t->n == 0)
		return;   /* t->v may be NULL, which qsort must not see */
	for (i = 0; i < t->n; i++) {
		t->v[i].keep = 0;
		t->v[i].key = t->v[i].tail_only ? (uint64_t)t->v[i].mtime : 0;
	}
	keep_shared(t);
	for (i = 0; i < t->n; i++)
		t->v[i].key = t->v[i].tail_only ? t->v[i].name : 0;
	keep_shared(t);
	for (i = 0; i < t->n; i++)
		if (t->v[i].keep)
			t->v[n++] = t->v[i];
	t->n = n;
}

/* The fragment block of tails [first, first + count) of t (sorted by
 * place), and the most its tails could weigh stored were all of them
 * equal to another image's. */
struct nominee_block {
	uint64_t bound;
	uint32_t img, index;
	size_t first, count;
};

/*
 * What the nominated tails of one fragment block can weigh stored,
 * before it is decoded: a tail's share of its block's stored bytes is
 * len * stored / block_len (stored_share), and the block decodes to at
 * least its furthest tail's end (maxend), so it is at most
 * len * stored / maxend, and never more than the block's stored bytes
 * or the tails' own (stored <= decoded, or the block is stored raw).
 */
static uint64_t nominee_bound(const struct sqp_writer *w, const struct tail *v, size_t n)
{
	uint32_t bs = w->expect[v->img].img->block_size;
	uint64_t stored = v->word & WR_BLOCK_SIZE_MASK, len = 0, maxend = 0, share;

	for (size_t i = 0; i < n; i++) {
		uint64_t l = v[i].size % bs;

		len += l;
		if (v[i].offset + l > maxend)
			maxend = v[i].offset + l;
	}
	share = maxend > 0 ? (len * stored + maxend - 1) / maxend : len;
	if (share > stored)
		share = stored;
	return share < len ? share : len;
}

static int cmp_bound(const void *a, const void *b)
{
	const struct nominee_block *x = a, *y = b;

	if (x->bound != y->bound)
		return x->bound < y->bound ? -1 : 1;
	if (x->img != y->img)
		return x->img < y->img ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * The fragment blocks whose nominated tails weigh least (nominee_bound)
 * are left as they are, undecoded, while their bounds add up to at
 * most room: their tails leave t, and *left is what they may keep
 * twice. Room is the budget when all of them fit in it (then nothing
 * is decoded), else half of it. Decoding is most of what the census
 * costs and, where shards share few tails, it found nothing: of
 * small.tar's 4 zstd shards' 61 blocks that hold nominated tails (8 MB
 * decoded, 11% of the merge's CPU), all were copied as they are, their
 * 14 equal tails (6.5 KB stored) far within the budget of 86 KB. Half
 * the budget, so that the tails found equal in the blocks decoded have
 * the other half before a block is compressed again, which costs far
 * more than decoding it. t is sorted by place, and is again. A tail of a block
 * decoded whose partners (narrow) were all left has nothing to be found
 * equal to: narrow drops it again, and a block left with none is not
 * decoded. small.tar's merge decodes 34 blocks instead of 61, big.tar's
 * 42 instead of 135.
 */
static int leave_light(struct sqp_writer *w, struct tails *t, uint64_t budget, uint64_t *left)
{
	struct nominee_block *b = NULL;
	uint64_t all = 0, room;
	size_t i, j, k = 0, cap = 0, n = 0;

	*left = 0;
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && t->v[j].img == t->v[i].img &&
			     t->v[j].index == t->v[i].index; j++)
			;
		if (k == cap) {
			struct nominee_block *m = sqp_array_grow(b, &cap, k + 1, sizeof(*m), 256);

			if (m == NULL) {
				free(b);
				return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
			}
			b = m;
		}
		b[k++] = (struct nominee_block){ nominee_bound(w, &t->v[i], j - i),
						 t->v[i].img, t->v[i].index, i, j - i };
		all += b[k - 1].bound;
	}
	room = all <= budget ? budget : budget / 2;
	if (k > 0)
		qsort(b, k, sizeof(*b), cmp_bound);
	for (i = 0; i < k && *left + b[i].bound <= room; i++) {
		*left += b[i].bound;
		for (j = 0; j < b[i].count; j++)
			t->v[b[i].first + j].keep = 0;
	}
	free(b);
	for (i = 0; i < t->n; i++)
		if (t->v[i].keep)
			t->v[n++] = t->v[i];
	t->n = n;
	return 0;
}

/*
 * The fragment blocks to repack: those that hold a tail equal (by its
 * hash; repacking proves it) to one in another image, which is packed
 * anew through deduplication so that the merge stores it once. Other
 * fragment blocks are copied as they are.
 *
 * Repacking compresses a whole block again to save its equal tails, so
 * the blocks where they weigh least are copied after all, while the
 * equal tails they keep twice add up to at most a thousandth of the
 * images' bytes (one pass's size is the bound, within 0.5%): a build
 * whose shards share little is merged at the speed of copying. Kept
 * tails are weighed as the image stores them (their share of their
 * block's stored bytes), as the budget is: weighed decoded, a tail that
 * compresses well counted several times what it costs, and its block
 * was compressed again for nothing. The blocks left undecoded
 * (leave_light) count with the most they could keep.
 */
static int mark_blocks(struct sqp_writer *w, struct tails *t)
{
	struct dup_block *b = NULL;
	uint64_t budget = 0, kept = 0;
	size_t i, j, k, n;
	int ret;

	for (i = 0; i < w->expect_count; i++)
		budget += w->expect[i].img->end / 1000;
	narrow(t);
	if (t->n == 0)
		return 0;   /* t->v may be NULL, which qsort must not see */
	qsort(t->v, t->n, sizeof(*t->v), cmp_place);
	if ((ret = leave_light(w, t, budget, &kept)) != 0)
		return ret;
	/* a tail whose partners were all left has none to be equal to */
	narrow(t);
	if (t->n == 0)
		return 0;
	qsort(t->v, t->n, sizeof(*t->v), cmp_place);
	if ((ret = tails_hash(w, t)) != 0)
		return ret;
	qsort(t->v, t->n, sizeof(*t->v), cmp_bytes);
	for (i = 0; i < t->n; i = j) {
		for (j = i + 1; j < t->n && t->v[j].size == t->v[i].size &&
			     dedup_hash_eq(t->v[j].hash, t->v[i].hash); j++)
			;
		/* sorted by image last: two images show at both ends */
		for (k = i; k < j; k++)
			t->v[k].dup = t->v[i].img != t->v[j - 1].img;
	}
	qsort(t->v, t->n, sizeof(*t->v), cmp_place);
	if (dup_blocks(t, &b, &n) != 0)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	if (n > 0)
		qsort(b, n, sizeof(*b), cmp_share);
	for (i = 0; i < n && kept + stored_share(&b[i]) <= budget; i++)
		kept += stored_share(&b[i]);
	for (; i < n; i++)
		w->expect[b[i].img].repack[b[i].index] = 1;
	free(b);
	return 0;
}

/*
 * Whether the merge's inode and directory tables may go at the codec's
 * fastest level (w->tables_fast, read by the SquashFS back end): when
 * the images' own tables are at most a 100th of their bytes. A merge copies
 * the data and must compress the tables again (every reference in them
 * changes), and at a high level they are what it spends most on: zstd
 * 15 compresses 8 KiB metadata blocks at about 5 MB/s, level 1 at some
 * 300, and small.tar's merge in 4 shards spent more on its 120 KB of
 * tables than `cat` on the 86 MB of shards. Level 1 made those tables
 * 11% larger, and the 690 KB of a tree of /etc, docs, man pages and
 * Python (0.6% of its 116 MB) 10.7% (74 KB, 0.06% of the image, where
 * level 15 took 0.45 s more CPU than `cat` of the shards takes in all):
 * so tables of a 100th cost about a thousandth of the image. A tree of
 * tiny files, whose tables weigh more, keeps the level.
 */
static int tables_small(struct sqp_image *const *img, size_t n)
{
	struct sqp_image_layout l;
	uint64_t tables = 0, all = 0;

	for (size_t i = 0; i < n; i++) {
		if (sqp_image_get_layout(img[i], &l) != 0)
			return 0;
		tables += l.inode_bytes + l.dir_bytes;
		all += l.bytes_used;
	}
	return tables * 100 <= all;
}

int sqp_writer_expect_images(struct sqp_writer *w, struct sqp_image *const *img, size_t n)
{
	struct sizes s = { NULL, 0, 0 };
	struct tails t = { NULL, 0, 0 };
	size_t i;
	int ret = 0;

	if (w->err.code != 0)
		return w->err.code;
	w->tables_fast = tables_small(img, n);
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
		ret = find_tails(w, img[i], &t);
	if (ret == 0)
		ret = mark_blocks(w, &t);
	free(t.v);
	return ret;
}
