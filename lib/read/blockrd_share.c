/* SPDX-License-Identifier: MIT */
/*
 * blockrd_share.c - blocks that several files share, decompressed once.
 *
 * Packers deduplicate: identical files point at the same stored blocks
 * (the same start and block list) or the same tail in the same fragment
 * block. The ordered block reader used to decompress such a block once
 * per file; on a Debian root packed with xz that was 79 data blocks and
 * 27 fragment blocks too many (6,594 decodes for 6,488 distinct blocks),
 * and with xz a block's decode is most of what an extraction costs.
 *
 * So the reader plans before its first entry: the back end's one pass
 * over its inodes (rd_format.share_plan; SquashFS reads its inode
 * table) counts how many files reference each stored data block and
 * each fragment block, through rd_share_ref and rd_share_tail_ref. A
 * data block referenced more than once is kept
 * decompressed, in one of at most KEEP_MEMORY's worth of slots, from the
 * retirement of its first referrer's job until its last referrer's job
 * is made; that referrer's job copies nothing from the image, it is
 * handed the kept bytes when it reaches the FIFO's head. When no slot is
 * free the block is decompressed again, as before. Fragment blocks keep
 * the LRU cache, but a slot whose block no tail still needs goes first.
 *
 * Like the fragment cache, slots are assigned when jobs are made, and
 * jobs are retired in the order they were made: a slot given to a new
 * block after its old block's last referrer was made is only filled
 * when the new block's job retires, after that referrer's.
 *
 * The plan is only ever an optimisation: counts past PLAN_MAX block
 * references, or an inode table the pass cannot read to its end, leave
 * the rest unplanned (decompressed per file), and the pass's error is
 * cleared; the walk refuses what is broken when it gets there. A count
 * too high (files outside an extraction's selection) only holds a slot
 * to the end.
 *
 * Memory: the pass's list of references (16 bytes each, PLAN_MAX of
 * them: 4 MiB at most, freed when the shared ones are picked out), a
 * count per fragment block (FRAG_PLAN_MAX: 4 MiB at most), and the keep
 * slots, allocated when first used.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "read/blockrd_impl.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "util/fileio.h"

/* Block references the pass records, at most (16 bytes each). */
#define PLAN_MAX (256u << 10)
/* Fragment blocks counted, at most (4 bytes each). */
#define FRAG_PLAN_MAX (1u << 20)
/* Kept data blocks, in bytes, and the slots at least. */
#define KEEP_MEMORY (8u << 20)
#define KEEP_MIN 4

static int blk_cmp(const void *a, const void *b)
{
	const struct share_blk *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->sw < y->sw ? -1 : x->sw > y->sw;
}

int rd_share_ref(struct rd_share_refs *l, uint64_t offset, uint32_t sw)
{
	if (l->count == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct share_blk *v;

		if (cap > PLAN_MAX)
			cap = PLAN_MAX;
		if (l->count == cap ||
		    (v = realloc(l->v, cap * sizeof(*v))) == NULL)
			return 1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->count++] = (struct share_blk){ offset, sw, 1, -1 };
	return 0;
}

/* Keep, of the references, the blocks met more than once, counted. */
static int shared_only(struct rd_blockrd *b, struct rd_share_refs *l)
{
	size_t out = 0;

	if (l->count == 0)
		return 0;
	qsort(l->v, l->count, sizeof(*l->v), blk_cmp);
	for (size_t i = 0, j; i < l->count; i = j) {
		for (j = i + 1; j < l->count && blk_cmp(&l->v[i], &l->v[j]) == 0; j++)
			;
		if (j - i > 1) {
			l->v[out] = l->v[i];
			l->v[out++].left = (uint32_t)(j - i);
		}
	}
	if (out == 0)
		return 0;
	b->sh.blk = realloc(l->v, out * sizeof(*l->v));
	if (b->sh.blk == NULL)
		return SQP_ERR_NOMEM;
	l->v = NULL;
	b->sh.count = out;
	b->sh.keep_max = KEEP_MEMORY / b->img->block_size;
	if (b->sh.keep_max < KEEP_MIN)
		b->sh.keep_max = KEEP_MIN;
	b->sh.keep = calloc(b->sh.keep_max, sizeof(*b->sh.keep));
	return b->sh.keep == NULL ? SQP_ERR_NOMEM : 0;
}

int rd_share_tails(struct rd_blockrd *b, uint32_t count)
{
	if (count == 0 || count > FRAG_PLAN_MAX)
		return 0;
	if ((b->sh.frag_left = calloc(count, sizeof(uint32_t))) == NULL)
		return rd_err(b->img, SQP_ERR_NOMEM, "out of memory");
	b->sh.frag_count = count;
	return 0;
}

int rd_share_tail_ref(struct rd_blockrd *b, uint32_t index)
{
	if (index < b->sh.frag_count)
		b->sh.frag_left[index]++;
	return 0;
}

int rd_share_pick(struct rd_blockrd *b, struct rd_share_refs *l)
{
	int ret = shared_only(b, l);

	free(l->v);
	l->v = NULL;
	return ret != 0 ? rd_err(b->img, ret, "out of memory") : 0;
}

void rd_share_free(struct rd_blockrd *b)
{
	for (unsigned i = 0; i < b->sh.keep_max; i++)
		free(b->sh.keep[i].buf);
	free(b->sh.keep);
	free(b->sh.blk);
	free(b->sh.frag_left);
}

uint32_t rd_share_frag_left(const struct rd_blockrd *b, uint32_t index)
{
	return index < b->sh.frag_count ? b->sh.frag_left[index] : 1;
}

void rd_share_frag_ref(struct rd_blockrd *b, uint32_t index)
{
	if (index < b->sh.frag_count && b->sh.frag_left[index] > 0)
		b->sh.frag_left[index]--;
}

/* A free keep slot, its buffer allocated on first use; -1: none (or
 * no memory for it: the block is then decompressed again). */
static int keep_slot(struct rd_blockrd *b)
{
	for (unsigned i = 0; i < b->sh.keep_max; i++) {
		struct keep_slot *k = &b->sh.keep[i];

		if (k->reserved)
			continue;
		if (k->buf == NULL &&
		    (k->buf = sqp_iobuf_alloc(b->img->block_size)) == NULL)
			return -1;
		k->reserved = 1;
		return (int)i;
	}
	return -1;
}

int rd_share_block(struct rd_blockrd *b, uint64_t offset, uint32_t sw,
		   unsigned *slot)
{
	struct share_blk key = { offset, sw, 0, -1 };
	struct share_blk *s = b->sh.count == 0 ? NULL :
		bsearch(&key, b->sh.blk, b->sh.count, sizeof(key), blk_cmp);
	int k;

	/* Not shared, or more referrers than counted: decompress it. */
	if (s == NULL || s->left == 0)
		return SHARE_NONE;
	s->left--;
	if (s->slot >= 0) {
		*slot = (unsigned)s->slot;
		if (s->left == 0) {
			b->sh.keep[s->slot].reserved = 0;
			s->slot = -1;
		}
		return SHARE_TAKE;
	}
	if (s->left == 0 || (k = keep_slot(b)) < 0)
		return SHARE_NONE;
	s->slot = k;
	*slot = (unsigned)k;
	return SHARE_FILL;
}

void rd_share_fill(struct rd_blockrd *b, struct bjob *j)
{
	struct keep_slot *k = &b->sh.keep[j->kslot];
	uint8_t *t = k->buf;

	/* got is set whenever the block decompressed, even to a size this
	 * file did not expect (another's may) or when put() failed. */
	k->buf = j->buf;
	j->buf = t;
	k->got = j->got;
	k->status = j->got != 0 ? 0 : j->pj.status;
}

void rd_share_take(struct rd_blockrd *b, struct bjob *j)
{
	const struct keep_slot *k = &b->sh.keep[j->kslot];

	/* What decompressing it for this file would have given. */
	if (k->got == 0)
		j->pj.status = k->status;
	else if (k->got != j->out_len)
		j->pj.status = SQP_ERR_CORRUPT;
}
