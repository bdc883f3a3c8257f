/* SPDX-License-Identifier: MIT */
/*
 * erofs_finish.c - the EROFS back end after the last entry: lay out the
 * directories and the metadata area, write them, then the superblock
 * (erofs_head.c).
 *
 * Why this shape: a listing holds its children's nids, and a nid is an
 * inode's place in the metadata area, which depends on the sizes of the
 * inodes before it (inline xattrs and tails). Sizes depend only on
 * names and attributes, so everything is measured first, then placed
 * (the directories' blocks, then every inode: the root first, the rest
 * in the order they arrived, each where erofs_fit.c finds room), then
 * written with the same measurements (erofs_record.c), so placement and
 * writing cannot drift. A record may straddle blocks, but its inline
 * tail never does: the kernel reads the tail from one block.
 *
 * Compressed directories (SQP_WRITE_EROFS_COMPRESS_DIRS) are wholly
 * fragments of the packed inode, as mkfs.erofs --zD makes them: a map
 * header of their listing's offset there, so their records' sizes do
 * not depend on what the codec makes of the listings. Their listings
 * need the nids, so the packed inode is stored after every other inode
 * is placed, and the metadata area after it: the nids then count from
 * the area (the head block's room is not used).
 *
 * With a metabox (desc.erofs_metabox_pcluster) every tree inode but the
 * root is placed in the metabox's data instead (its nid marked
 * EROFS_NID_MBOX), which is stored as a file after the packed inode;
 * the area then holds the root, the packed inode and the metabox
 * inode, placed as with compressed directories.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "util/spill.h"
#include "write/writer_impl.h"

/* The block size, with the layout L in scope. */
#define BS (erofs_of(L->w)->bs)

/* Whether inode i's record goes in the metabox: a tree inode's but
 * the root's (whose nid the superblock keeps in 16 bits). */
static int in_mbox(const struct erofs_wlayout *L, uint32_t i)
{
	return erofs_of(L->w)->frag.mbox && i < L->count && i != L->root;
}

/* The inode the k-th of the layout order: the root, then the rest. */
static uint32_t order_at(const struct erofs_wlayout *L, uint32_t k)
{
	if (k == 0)
		return L->root;
	return k - 1 < L->root ? k - 1 : k;
}

static int live(const struct erofs_wlayout *L, uint32_t i)
{
	return erofs_rec_of(L, i)->nlink > 0;
}

/* Parents, listing sizes and symlink lengths. */
static int measure(struct erofs_wlayout *L)
{
	uint32_t j, i;
	int ret;

	for (j = 0; j < L->t->nodes.count; j++) {
		const struct fs_node *n = fstree_node(L->t, j);

		if (n->inode >= FS_DEAD || !S_ISDIR(fstree_inode(L->t, n->inode)->mode))
			continue;
		L->up[n->inode] = n->parent == FS_NONE ? n->inode :
				  fstree_node(L->t, n->parent)->inode;
	}
	for (i = 0; i < L->count; i++) {
		const struct fs_irec *r = fstree_inode(L->t, i);

		L->nid[i] = UINT64_MAX;
		sqp_spill_tick(L->w->spill);
		if (!live(L, i))
			continue;
		if (S_ISLNK(r->mode))
			L->dsize[i] = strlen(fstree_target(L->t, r));
		if (S_ISDIR(r->mode) &&
		    (ret = erofs_w_dir_pack(L, i, NULL, NULL, NULL, &L->dsize[i])) != 0)
			return ret;
	}
	return 0;
}

/* Blocks of directories and symlinks from the first free one; returns
 * the metadata area's first block in *end. */
static int place_blocks(struct erofs_wlayout *L, int64_t bt, uint64_t *end)
{
	uint64_t cur = L->w->out.pos / BS;
	struct erofs_shape s;
	uint32_t k, i;
	int ret;

	for (k = 0; k < L->slots; k++) {
		i = order_at(L, k);
		if (!live(L, i) || !(S_ISDIR(erofs_rec_of(L, i)->mode) ||
				     S_ISLNK(erofs_rec_of(L, i)->mode)))
			continue;
		if ((ret = erofs_shape_of(L, i, bt, &s)) != 0)
			return ret;
		L->blk[i] = (uint32_t)cur;
		cur += s.nblocks;
		if (cur > UINT32_MAX)
			return SQP_ERR_LIMIT;
	}
	*end = cur;
	return 0;
}

/* Whether the area's place is known only after the tree's inodes are
 * placed: compressed directories and the metabox are stored first. */
static int late_area(const struct erofs_wlayout *L)
{
	return (L->w->desc.flags & SQP_WRITE_EROFS_COMPRESS_DIRS) || erofs_of(L->w)->frag.mbox;
}

/* Whether block 0's room after the superblock is left empty: the area
 * then starts at a block of its own, its nids counted from it. */
static int own_zone(const struct erofs_wlayout *L)
{
	return late_area(L) || (L->w->desc.flags & SQP_WRITE_EROFS_METAZONE);
}

/* Where the metadata area starts, from block first (fit set up for
 * it): block 0's room after the superblock takes the first records
 * (meta_blkaddr 0, the root's nid 36 or so, as in mkfs.erofs's images)
 * when the root's fits there, which saves most of a block; else, and
 * always with a late area, the nids count from the area (the root's
 * 0). SQP_WRITE_EROFS_METAZONE asks for the latter whenever. */
static int place_start(struct erofs_wlayout *L, int64_t bt, uint64_t first,
		       struct erofs_fit *fit, uint64_t *meta)
{
	uint32_t from = erofs_w_head_from(L), head = erofs_head_blk(L->w);
	uint32_t room = (head + 1) * BS - from;
	struct erofs_shape s;
	int ret;

	memset(fit, 0, sizeof(*fit));
	fit->slots = BS / EROFS_SLOT_SIZE;
	fit->blocks = first;
	*meta = first;
	if (own_zone(L))
		return 0;
	if ((ret = erofs_shape_of(L, L->root, bt, &s)) == 0 && s.total <= room) {
		*meta = 0;
		ret = erofs_fit_room(fit, head, room / EROFS_SLOT_SIZE);
	}
	return ret;
}

/* The nids of the k-th to the (end - 1)-th inodes of the layout order
 * (erofs_fit.c chooses, in the area or in the metabox's data, mfit;
 * the root comes first, so its nid fits 16 bits), counted into *inos. */
static int place_inodes(struct erofs_wlayout *L, int64_t bt, struct erofs_fit *fit,
			struct erofs_fit *mfit, uint64_t meta, uint32_t k, uint32_t end,
			uint64_t *inos)
{
	struct erofs_shape s;
	uint64_t at;
	uint32_t i;
	int ret;

	for (; k < end; k++) {
		i = order_at(L, k);
		if (!live(L, i))
			continue;
		if ((ret = erofs_shape_of(L, i, bt, &s)) != 0 ||
		    (ret = erofs_fit_place(in_mbox(L, i) ? mfit : fit, s.total,
					   s.tail, &at)) != 0)
			return ret;
		L->nid[i] = in_mbox(L, i) ? EROFS_NID_MBOX | at / EROFS_SLOT_SIZE :
			    (at - meta * BS) / EROFS_SLOT_SIZE;
		++*inos;
	}
	return 0;
}


/* A symlink's blocks (only when its target does not fit inline). */
static int put_target(struct erofs_wlayout *L, uint32_t i, const struct erofs_shape *s,
		      uint8_t *buf)
{
	const char *target = fstree_target(L->t, fstree_inode(L->t, i));
	uint64_t k, len = s->ei.size - s->inl, n;
	int ret;

	for (k = 0; k * BS < len; k++) {
		n = len - k * BS < BS ? len - k * BS : BS;
		memset(buf, 0, BS);
		memcpy(buf, target + k * BS, n);
		if ((ret = erofs_w_append(L->w, buf, BS)) != 0)
			return ret;
	}
	return 0;
}

static int write_blocks(struct erofs_wlayout *L, int64_t bt, uint8_t *buf)
{
	struct erofs_dirblocks d = { .w = L->w };
	struct erofs_shape s;
	uint64_t size;
	uint32_t k, i;
	int ret;

	for (k = 0; k < L->slots; k++) {
		i = order_at(L, k);
		if (!live(L, i))
			continue;
		if ((ret = erofs_shape_of(L, i, bt, &s)) != 0)
			return ret;
		if (s.nblocks == 0)
			continue;
		d.skip_last = s.inl > 0;
		ret = S_ISDIR(s.ei.mode) ? erofs_w_dir_pack(L, i, buf, erofs_put_dirblock, &d, &size) :
		      put_target(L, i, &s, buf);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* A record of the metadata area: where it goes, its inode, its i_ino. */
struct placed {
	uint64_t at;
	uint32_t i, ino_number;
};

static int cmp_placed(const void *a, const void *b)
{
	const struct placed *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* The area's bytes [win_at, win_at + cap) in memory, zeros where no
 * record is; those below win_at appended already. */
struct area_win {
	uint8_t *buf;
	size_t cap;
	uint64_t win_at, hi;   /* hi: the end of the records put */
};

/* Append the window's whole blocks below to (a block's start), keep
 * the bytes from there on at the window's start, and make room for
 * need bytes from to. */
static int slide(struct erofs_wlayout *L, struct area_win *a, uint64_t to, size_t need)
{
	size_t keep = a->hi > to ? (size_t)(a->hi - to) : 0;
	size_t dirty = a->hi > a->win_at ? (size_t)(a->hi - a->win_at) : 0;
	int ret = 0;

	if (to > a->win_at)
		ret = erofs_w_append(L->w, a->buf, (size_t)(to - a->win_at));
	if (ret != 0)
		return ret;
	if (to > a->win_at) {
		memmove(a->buf, a->buf + (to - a->win_at), keep);
		memset(a->buf + keep, 0, dirty - keep);
		a->win_at = to;
	}
	if (need > a->cap) {
		uint8_t *b = realloc(a->buf, need);

		if (b == NULL)
			return SQP_ERR_NOMEM;
		memset(b + a->cap, 0, need - a->cap);
		a->buf = b;
		a->cap = need;
	}
	sqp_spill_check(L->w->spill);
	return 0;
}

/*
 * The metadata area written in place order through a window of
 * AREA_WIN bytes (larger only for a record larger than that): the
 * records sorted by place, each put into the window, whose whole blocks
 * below the next record are appended. Built whole, the area was a
 * fresh allocation of its size, every page of it faulted in once: a
 * tenth of the CPU of a merge of small files' EROFS shards, whose area
 * holds their inline tails (small.tar's 4 shards: 5.6 MB, 1400 faults).
 * With meta_blkaddr 0, the records in block 0 go into the head.
 */
#define AREA_WIN ((size_t)1 << 20)

static int write_meta(struct erofs_wlayout *L, int64_t bt, uint64_t blocks,
		      uint64_t first, uint64_t meta, uint8_t *scratch)
{
	uint64_t size = blocks * BS, at, off, end;
	uint32_t k, i, ino_number = 0, from = erofs_w_head_from(L);
	uint32_t head_end = (erofs_head_blk(L->w) + 1) * BS;
	uint8_t *head = calloc(1, head_end);
	struct area_win a = { calloc(1, AREA_WIN), AREA_WIN, 0, 0 };
	struct placed *p = sqp_spill_alloc(L->w->spill, ((size_t)L->slots + 1) * sizeof(*p));
	struct erofs_shape s;
	size_t n = 0, j;
	int ret = head != NULL && a.buf != NULL && p != NULL ? 0 : SQP_ERR_NOMEM;

	for (k = 0; k < L->slots && ret == 0; k++) {
		i = order_at(L, k);
		if (!live(L, i) || (++ino_number, in_mbox(L, i)))
			continue;
		at = meta * BS + L->nid[i] * EROFS_SLOT_SIZE;
		if (at >= first * BS) {
			p[n++] = (struct placed){ at - first * BS, i, ino_number };
			continue;
		}
		if ((ret = erofs_shape_of(L, i, bt, &s)) == 0)
			ret = erofs_put_record(L, i, &s, head + at, ino_number, scratch);
	}
	if (ret == 0 && n > 1)
		qsort(p, n, sizeof(*p), cmp_placed);
	for (j = 0; j < n && ret == 0; j++) {
		if ((ret = erofs_shape_of(L, p[j].i, bt, &s)) != 0)
			break;
		off = p[j].at;
		end = off + s.total;
		if (end > size || off < a.win_at) {
			ret = SQP_ERR_INTERNAL;   /* placed past the area, or over */
			break;
		}
		if (end - a.win_at > a.cap &&
		    (ret = slide(L, &a, off - off % BS, (size_t)(end - (off - off % BS)))) != 0)
			break;
		ret = erofs_put_record(L, p[j].i, &s, a.buf + (off - a.win_at), p[j].ino_number,
				       scratch);
		if (end > a.hi)
			a.hi = end;
		sqp_spill_tick(L->w->spill);
	}
	/* the rest of the area: what the window holds, then zeros */
	while (ret == 0 && a.win_at < size) {
		end = size - a.win_at < a.cap ? size : a.win_at + a.cap;
		ret = slide(L, &a, end, 0);
	}
	if (ret == 0 && meta == 0) {
		erofs_w_hash(L->w, head + from, head_end - from);
		if ((ret = imgout_flush(&L->w->out)) == 0)
			ret = imgout_pwrite(&L->w->out, from, head + from, head_end - from);
	}
	if (p != NULL)
		sqp_spill_free(L->w->spill, p, ((size_t)L->slots + 1) * sizeof(*p));
	free(a.buf);
	free(head);
	return ret;
}

/* The metabox's data (mfit's blocks): the records of the inodes in
 * it, numbered as write_meta numbers them all, then stored. */
static int put_mbox(struct erofs_wlayout *L, int64_t bt, uint64_t blocks, uint8_t *scratch)
{
	uint64_t size = blocks * BS;
	uint8_t *area = sqp_spill_alloc(L->w->spill, size ? size : 1);
	uint32_t k, i, ino_number = 0;
	struct erofs_shape s;
	int ret = area != NULL ? 0 : SQP_ERR_NOMEM;

	for (k = 0; k < L->count && ret == 0; k++) {
		i = order_at(L, k);
		if (!live(L, i) || (++ino_number, !in_mbox(L, i)))
			continue;
		if ((ret = erofs_shape_of(L, i, bt, &s)) == 0)
			ret = erofs_put_record(L, i, &s, area + (L->nid[i] & ~EROFS_NID_MBOX) *
					 EROFS_SLOT_SIZE, ino_number, scratch);
		sqp_spill_tick(L->w->spill);
	}
	if (ret == 0)
		ret = erofs_frag_mbox(L->w, area, size, bt);
	if (area != NULL)
		sqp_spill_free(L->w->spill, area, size ? size : 1);
	return ret;
}

/* Once the tree's inodes are placed and the blocks written: the packed
 * inode with the listings, and the metabox, stored, then placed with
 * the packed inode; *first: the area's first block. */
static int store_late(struct erofs_wlayout *L, int64_t bt, struct erofs_fit *fit,
		      struct erofs_fit *mfit, uint64_t *inos, uint64_t *first, uint8_t *buf)
{
	int ret;

	if ((L->w->desc.flags & SQP_WRITE_EROFS_COMPRESS_DIRS) &&
	    ((ret = erofs_frag_dirs(L, buf)) != 0 || (ret = erofs_frag_finish(L->w, bt)) != 0))
		return ret;
	if (erofs_of(L->w)->frag.mbox && (ret = put_mbox(L, bt, mfit->blocks, buf)) != 0)
		return ret;
	*first = L->w->out.pos / BS;
	return place_inodes(L, bt, fit, mfit, 0, L->count, L->slots, inos);
}

/* The block after the last one a layout of the directories' blocks
 * and the area would take, in *end (L's places are made again after). */
static int layout_end(struct erofs_wlayout *L, int64_t bt, uint64_t *end)
{
	struct erofs_fit fit, mfit;
	uint64_t first, meta, inos = 0;
	int ret;

	memset(&fit, 0, sizeof(fit));
	memset(&mfit, 0, sizeof(mfit));
	mfit.slots = BS / EROFS_SLOT_SIZE;
	if ((ret = place_blocks(L, bt, &first)) == 0 &&
	    (ret = place_start(L, bt, first, &fit, &meta)) == 0 &&
	    (ret = place_inodes(L, bt, &fit, &mfit, meta, 0, L->slots, &inos)) == 0)
		*end = fit.blocks;
	erofs_fit_cleanup(&fit);
	erofs_fit_cleanup(&mfit);
	return ret;
}

/* A root whose record and inline tail do not fit the head block's room
 * sends the whole area past the data, the room left empty (most of a
 * block with blocks of 1K or 2K and a root of a few hundred entries):
 * mkfs.erofs writes its root before the data, which this writer, whose
 * data streams out first, cannot. Its listing wholly in blocks instead
 * costs the tail a block of its own but lets the root and the next
 * inodes use the room: that form is kept when the image ends earlier
 * with it. */
static int choose_root_form(struct erofs_wlayout *L, int64_t bt)
{
	uint32_t room = (erofs_head_blk(L->w) + 1) * BS - erofs_w_head_from(L);
	uint64_t inline_end, plain_end;
	struct erofs_shape s;
	int ret;

	if (own_zone(L))
		return 0;
	if ((ret = erofs_shape_of(L, L->root, bt, &s)) != 0 || s.total <= room || s.inl == 0)
		return ret;
	if ((ret = layout_end(L, bt, &inline_end)) != 0)
		return ret;
	L->root_plain = 1;
	if ((ret = layout_end(L, bt, &plain_end)) != 0)
		return ret;
	L->root_plain = plain_end < inline_end;
	return 0;
}

static int run(struct erofs_wlayout *L, int64_t bt, uint8_t *scratch)
{
	int late = late_area(L);
	uint64_t first, meta, inos = 0, base;
	struct erofs_fit fit, mfit;
	int ret;

	if ((ret = measure(L)) != 0 || (ret = choose_root_form(L, bt)) != 0 ||
	    (ret = place_blocks(L, bt, &first)) != 0)
		return ret;
	/* With compressed directories or a metabox the area's place is
	 * known only once they are stored: the nids count from it. */
	memset(&mfit, 0, sizeof(mfit));
	mfit.slots = BS / EROFS_SLOT_SIZE;
	base = late ? 0 : first;
	if ((ret = place_start(L, bt, base, &fit, &meta)) == 0 &&
	    (ret = place_inodes(L, bt, &fit, &mfit, meta, 0, late ? L->count : L->slots,
				&inos)) == 0 &&
	    (ret = write_blocks(L, bt, scratch)) == 0 && late &&
	    (ret = store_late(L, bt, &fit, &mfit, &inos, &first, scratch)) == 0)
		meta = first;
	base = fit.blocks - base;
	erofs_fit_cleanup(&fit);
	erofs_fit_cleanup(&mfit);
	if (ret != 0)
		return ret;
	if (L->nid[L->root] > UINT16_MAX)
		return SQP_ERR_INTERNAL; /* the root is placed first */
	if (L->w->out.pos != first * BS)
		return SQP_ERR_INTERNAL;
	if ((ret = write_meta(L, bt, base, first, meta, scratch)) != 0)
		return ret;
	L->w->stats.inodes = inos;
	return erofs_w_write_super(L, bt, meta, inos);
}

static int layout_and_write(struct sqp_writer *w, int64_t mod_time, uint8_t *scratch)
{
	struct erofs_wlayout L = { .w = w, .t = &w->tree };
	size_t n;
	int ret = SQP_ERR_NOMEM;

	fstree_finalize(&w->tree, mod_time);
	L.count = fstree_inode_count(&w->tree);
	/* the packed inode and the metabox inode past the tree's (each
	 * skipped while it is not stored) */
	L.slots = L.count + 2;
	L.root = fstree_node(&w->tree, 0)->inode;
	n = L.slots;
	L.nid = sqp_spill_alloc(w->spill, n * sizeof(*L.nid));
	L.dsize = sqp_spill_alloc(w->spill, n * sizeof(*L.dsize));
	L.up = sqp_spill_alloc(w->spill, n * sizeof(*L.up));
	L.blk = sqp_spill_alloc(w->spill, n * sizeof(*L.blk));
	L.doff = sqp_spill_alloc(w->spill, n * sizeof(*L.doff));
	if (L.nid != NULL && L.dsize != NULL && L.up != NULL && L.blk != NULL &&
	    L.doff != NULL)
		ret = run(&L, mod_time, scratch);
	sqp_spill_free(w->spill, L.nid, n * sizeof(*L.nid));
	sqp_spill_free(w->spill, L.dsize, n * sizeof(*L.dsize));
	sqp_spill_free(w->spill, L.up, n * sizeof(*L.up));
	sqp_spill_free(w->spill, L.blk, n * sizeof(*L.blk));
	sqp_spill_free(w->spill, L.doff, n * sizeof(*L.doff));
	return ret;
}

int erofs_w_finish(struct sqp_writer *w, int64_t mod_time)
{
	uint8_t *scratch = malloc(2 * EROFS_W_BLOCK);
	int ret = SQP_ERR_NOMEM;

	/* The last clusters first: the metadata goes after them (after
	 * the packed inode too, which holds compressed directories'
	 * listings: finish stores it then). */
	if (scratch != NULL && (ret = erofs_zip_drain(w)) == 0 &&
	    ((w->desc.flags & SQP_WRITE_EROFS_COMPRESS_DIRS) ||
	     (ret = erofs_frag_finish(w, mod_time)) == 0))
		ret = layout_and_write(w, mod_time, scratch);
	free(scratch);
	w->stats.image_bytes = w->out.pos;
	if (ret != 0 && w->err.code == 0)
		writer_fail(w, ret, "writing the EROFS image: %s", sqp_strerror(ret));
	return ret != 0 ? w->err.code : 0;
}
