/* SPDX-License-Identifier: MIT */
/*
 * erofs_dedup.c - EROFS file dedup (--erofs-dedupe, mkfs.erofs's
 * -E dedupe): a file whose stored data equals an earlier file's points
 * at the earlier file's blocks instead of storing them again.
 *
 * Why this shape: as for SquashFS (dedupstore.c), a hash only nominates
 * an earlier file; nothing is shared until the bytes it would share have
 * been read back from the image and compared. One table of records, one
 * per file that stored its data (never one that shares: it would only
 * lengthen the chains), keyed by a hash of the file's first bytes and
 * its size, so a file equal to another's prefix is never even
 * nominated. Three kinds of record: a file stored as it is (its first
 * block and whether its tail has a block of its own), a compressed file
 * (its index record: the same compressed blocks with the same indexes
 * decode to the same bytes, so comparing what is stored proves the
 * contents equal) and a whole file in the fragments' log (its offset).
 * Inline tails stay with each inode. Every decision is made on the
 * caller's thread, in the order files arrive, from their bytes alone,
 * so the image is the same for any -j and with the tree spilled.
 *
 * A file stored as it is arrives as a stream, one block at a time: its
 * blocks are compared with the nominee's as they come, and only when one
 * differs are the blocks matched so far (equal, so read back from the
 * nominee) and the rest appended: nothing is written twice and nothing
 * needs buffering. A compressed file's clusters are compared the same
 * way, one at a time as erofs_zip_put (erofs_zidx.c) stores them: what
 * is compared is what is stored, whichever cut made it (a segment's,
 * or the re-cut across a seam, erofs_seam.c, which holds a segment's
 * last cluster back), and twins, cut alike from the same bytes, store
 * the same clusters in the same order. A nominee refuted late (a file
 * of the same size and first block that differs further on) gives way
 * to a later one that stored the same blocks so far and the one that
 * differed: both read back, so a near-twin met first hides no twin.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "erofs/erofs_zip.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/writer_impl.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)
/* 2^14 records of 24 bytes: 384 KiB chunks. */
#define REC_SHIFT 14

int erofs_dedup_shares(const struct sqp_writer *w)
{
	return (w->desc.flags & SQP_WRITE_EROFS_DEDUPE) ||
	       ((w->desc.flags & SQP_WRITE_EROFS_FRAGMENTS) && w->desc.codec.id != 0);
}

int erofs_dedup_init(struct sqp_writer *w, unsigned hash_bits)
{
	struct erofs_dedup *d = &erofs_of(w)->dd;

	if (!erofs_dedup_shares(w) && !(w->desc.flags & SQP_WRITE_EROFS_FRAGDEDUPE))
		return 0;
	d->hash_bits = hash_bits;
	chunkarr_init(&d->recs, sizeof(struct erofs_ddrec), REC_SHIFT, w->spill);
	/* Two blocks here; erofs_frag.c compares 4 KiB at a time in it
	 * whatever the block size. */
	d->buf = malloc(2 * EROFS_W_BLOCK);
	d->st = XXH3_createState();
	if (d->buf == NULL || d->st == NULL || hchain_init(&d->idx, w->spill) != 0)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	d->whole = (w->desc.flags & (SQP_WRITE_EROFS_DEDUPE | SQP_WRITE_EROFS_FRAGDEDUPE)) != 0;
	d->on = erofs_dedup_shares(w);
	return 0;
}

void erofs_dedup_cleanup(struct sqp_writer *w)
{
	struct erofs_dedup *d = &erofs_of(w)->dd;

	if (d->buf == NULL && d->st == NULL)
		return;
	hchain_cleanup(&d->idx);
	chunkarr_cleanup(&d->recs);
	free(d->buf);
	XXH3_freeState(d->st);
	memset(d, 0, sizeof(*d));
}

uint64_t erofs_dedup_key(const struct erofs_dedup *d, uint64_t h)
{
	/* writer_test.h's hash_bits: collisions become the rule. */
	if (d->hash_bits > 0 && d->hash_bits < 64)
		h &= (UINT64_C(1) << d->hash_bits) - 1;
	return h;
}

uint32_t erofs_dedup_next(const struct erofs_dedup *d, uint32_t after, uint64_t key,
			  unsigned kind, uint64_t size, struct erofs_ddrec *r)
{
	uint32_t i = after == HCHAIN_END ? hchain_first(&d->idx, key) :
		     hchain_next(&d->idx, after, key);

	for (; i != HCHAIN_END; i = hchain_next(&d->idx, i, key)) {
		*r = *(const struct erofs_ddrec *)chunkarr_at(&d->recs, i);
		if (r->kind == kind && r->size == size)
			return i;
	}
	return HCHAIN_END;
}

int erofs_dedup_add(struct sqp_writer *w, uint64_t key, const struct erofs_ddrec *r)
{
	struct erofs_dedup *d = &erofs_of(w)->dd;
	uint32_t i;
	int ret;

	if ((ret = chunkarr_add(&d->recs, 1, &i)) != 0 ||
	    (ret = hchain_insert(&d->idx, key)) != 0)
		return writer_fail(w, ret, "EROFS: dedup: out of memory");
	memcpy(chunkarr_at(&d->recs, i), r, sizeof(*r));
	return 0;
}

/* Block blk of the image, read back into d->buf. */
static int read_block(struct sqp_writer *w, uint64_t blk)
{
	struct erofs_wstate *e = erofs_of(w);
	int ret;

	if ((blk + 1) * BS > w->out.flushed && (ret = imgout_flush(&w->out)) != 0)
		return ret;
	if ((ret = imgout_pread(&w->out, blk * BS, e->dd.buf, BS)) != 0)
		return writer_fail(w, ret, "EROFS: dedup: reading back block %llu",
				   (unsigned long long)blk);
	return 0;
}

/* Whether n blocks from blk hold data (the last block's tail bytes,
 * zero padded, when tail > 0). */
static int same_blocks(struct sqp_writer *w, uint64_t blk, const uint8_t *data,
		       uint64_t n, uint32_t tail)
{
	struct erofs_wstate *e = erofs_of(w);
	uint8_t *b = e->dd.buf;
	uint64_t k;
	uint32_t used;
	int ret;

	for (k = 0; k < n; k++) {
		if ((ret = read_block(w, blk + k)) != 0)
			return ret;
		used = k + 1 == n && tail > 0 ? tail : BS;
		if (memcmp(b, data + k * BS, used) != 0)
			return 0;
		while (used < BS)
			if (b[used++] != 0)
				return 0;
	}
	return 1;
}

/* Whether the n blocks from a and from b hold the same bytes, both read
 * back (the second half of d->buf keeps a's block). */
static int stored_alike(struct sqp_writer *w, uint64_t a, uint64_t b, uint64_t n)
{
	struct erofs_wstate *e = erofs_of(w);
	uint8_t *keep = e->dd.buf + BS;
	uint64_t k;
	int ret;

	for (k = 0; k < n; k++) {
		if ((ret = read_block(w, a + k)) != 0)
			return ret;
		memcpy(keep, e->dd.buf, BS);
		if ((ret = same_blocks(w, b + k, keep, 1, 0)) != 1)
			return ret;
	}
	return 1;
}

/* A flat file's nominee: same size, with a tail block when one is
 * needed (one that has a tail block serves a file whose tail is inline:
 * the kernel never reads it then). */
static uint32_t find_flat(const struct erofs_dedup *d, uint32_t from, uint64_t key,
			  uint64_t size, int tailblk, struct erofs_ddrec *r)
{
	uint32_t i = from;

	while ((i = erofs_dedup_next(d, i, key, EROFS_DD_FLAT, size, r)) != HCHAIN_END)
		if (!tailblk || r->aux != 0)
			return i;
	return HCHAIN_END;
}

int erofs_dedup_flat_mem(struct sqp_writer *w, const uint8_t *data, uint64_t size,
			 uint32_t xsize, uint64_t *start)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_dedup *d = &e->dd;
	uint32_t tail = (uint32_t)(size % BS);
	int tailblk = tail > 0 && erofs_w_tail_blocked(w, tail, xsize);
	uint64_t key, n = size / BS + (uint64_t)tailblk;
	struct erofs_ddrec r;
	uint32_t i = HCHAIN_END;
	int ret;

	key = erofs_dedup_key(d, XXH3_64bits_withSeed(data, size < BS ? size : BS, size));
	while ((i = find_flat(d, i, key, size, tailblk, &r)) != HCHAIN_END) {
		if ((ret = same_blocks(w, r.ref, data, n, tailblk ? tail : 0)) < 0)
			return ret;
		if (ret == 1) {
			*start = r.ref;
			w->stats.files_deduped++;
			w->stats.blocks_deduped += n;
			return 1;
		}
		w->stats.dedup_rejected++;
	}
	r = (struct erofs_ddrec){ .size = size, .kind = EROFS_DD_FLAT, .ref = (uint32_t)*start,
				  .aux = (uint64_t)tailblk };
	return erofs_dedup_add(w, key, &r);
}

/* The first matched blocks of the nominee at blk, appended: the file
 * differs from it after them. */
static int copy_back(struct sqp_writer *w, uint64_t blk, uint64_t matched)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t k;
	int ret;

	w->stats.dedup_rejected++;
	for (k = 0; k < matched; k++)
		if ((ret = read_block(w, blk + k)) != 0 ||
		    (ret = erofs_w_append(w, e->dd.buf, BS)) != 0)
			return ret;
	return 0;
}

/* The streamed file matched nominee *r for matched blocks and differs
 * in the next, b: a later nominee that stored the same matched blocks
 * and b after them takes over (*i, *r; 1), so that a file met first
 * that differs late (one of the same size and first block) hides no
 * twin after it; 0 when none does. */
static int renominate_flat(struct sqp_writer *w, uint32_t *i, uint64_t key, uint64_t size,
			   int tailblk, struct erofs_ddrec *r, uint64_t matched, const uint8_t *b)
{
	struct erofs_ddrec c;
	uint32_t j = *i;
	int ret;

	while ((j = find_flat(&erofs_of(w)->dd, j, key, size, tailblk, &c)) != HCHAIN_END) {
		if ((ret = same_blocks(w, c.ref + matched, b, 1, 0)) == 1)
			ret = stored_alike(w, r->ref, c.ref, matched);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			w->stats.dedup_rejected++; /* *r */
			*i = j;
			*r = c;
			return 1;
		}
		w->stats.dedup_rejected++;
	}
	return 0;
}

int erofs_dedup_flat_stream(struct sqp_writer *w, uint64_t size, uint32_t xsize,
			    const struct sqp_data_source *src, struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_dedup *d = &e->dd;
	uint8_t *b = e->block;
	uint32_t tail = (uint32_t)(size % BS), i = HCHAIN_END, n;
	int tailblk = tail > 0 && erofs_w_tail_blocked(w, tail, xsize), ret;
	uint64_t full = size / BS, nstore = full + (uint64_t)tailblk, k, matched = 0;
	uint64_t key = 0; /* set by the first block: the caller sends files that have one */
	uint64_t start = w->out.pos / BS;
	struct erofs_ddrec r;

	if (start > UINT32_MAX - nstore)
		return SQP_ERR_LIMIT;
	for (k = 0; k < full + (tail > 0); k++) {
		n = k < full ? BS : tail;
		if ((ret = src->read(src->user, b, n)) != 0)
			return ret;
		w->stats.bytes_in += n;
		if (k == 0) {
			key = erofs_dedup_key(d, XXH3_64bits_withSeed(b, n, size));
			i = find_flat(d, HCHAIN_END, key, size, tailblk, &r);
		}
		if (k == full && !tailblk)
			break; /* the tail goes inline, the file's own */
		memset(b + n, 0, BS - n);
		if (i != HCHAIN_END) {
			if ((ret = same_blocks(w, r.ref + k, b, 1, 0)) < 0)
				return ret;
			if (ret == 1 ||
			    (ret = renominate_flat(w, &i, key, size, tailblk, &r, matched, b)) == 1) {
				matched++;
				continue;
			}
			if (ret < 0 || (ret = copy_back(w, r.ref, matched)) != 0)
				return ret;
			i = HCHAIN_END;
		}
		if ((ret = erofs_w_append(w, b, BS)) != 0)
			return ret;
	}
	f->u.file.size = size;
	if (i != HCHAIN_END) {
		f->u.file.blocks_start = r.ref;
		w->stats.files_deduped++;
		w->stats.blocks_deduped += nstore;
	} else {
		f->u.file.blocks_start = start;
		w->stats.blocks_written += nstore;
		r = (struct erofs_ddrec){ .size = size, .kind = EROFS_DD_FLAT,
					  .ref = (uint32_t)start, .aux = (uint64_t)tailblk };
		if ((ret = erofs_dedup_add(w, key, &r)) != 0)
			return ret;
	}
	/* The inline tail, if any, is in b; erofs_w_put_tail keeps it. */
	return erofs_w_put_tail(w, b, tailblk ? 0 : tail, xsize, f);
}

/* The blocks the compressed file of index record rec stored. */
static uint32_t zip_blocks(const struct erofs_wstate *e, uint32_t rec)
{
	return sqp_get32(chunkarr_at(&e->zidx, rec));
}

/* The current file's first cluster, of n blocks at blk: the first
 * earlier file of its key and size that stored those blocks first (for
 * n 0, one that stored none) becomes the one it shares with. */
static int nominate(struct sqp_writer *w, uint32_t n, const uint8_t *blk)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t key = erofs_dedup_key(&e->dd, e->cur.key);
	struct erofs_ddrec r;
	uint32_t i = HCHAIN_END, total;
	int ret;

	while ((i = erofs_dedup_next(&e->dd, i, key, EROFS_DD_ZIP, e->cur.size, &r)) != HCHAIN_END) {
		total = zip_blocks(e, r.ref);
		if (n == 0 ? total != 0 : total < n)
			continue;
		if ((ret = same_blocks(w, r.aux, blk, n, 0)) < 0)
			return ret;
		if (ret == 1) {
			e->cur.like = r.ref;
			e->cur.like_base = r.aux;
			return 1;
		}
		w->stats.dedup_rejected++;
	}
	return 0;
}

/* The heads so far (the file has its first one at least) name the
 * blocks from to where they named them from from. */
static void rebase_heads(struct erofs_wstate *e, uint64_t from, uint64_t to)
{
	uint64_t k;
	uint8_t *x;

	for (k = 0; k <= e->cur.prev; k++) {
		x = chunkarr_at(&e->zidx, e->cur.rec + ZREC_INDEXES + (uint32_t)k);
		if ((sqp_get16(x) & 3u) != EROFS_LC_NONHEAD)
			sqp_put32(x + 4, (uint32_t)(sqp_get32(x + 4) - from + to));
	}
	e->cur.xp.next = e->cur.xp.next - from + to; /* extent dedupe's view */
}

/* The file shared e->cur.like's blocks so far and differs in the next
 * n (blk): as for a streamed flat file (renominate_flat), an earlier
 * file of its key and size that stored the same blocks so far and blk
 * after them becomes the one it shares with (1); 0 when none did. */
static int renominate_zip(struct sqp_writer *w, uint32_t n, const uint8_t *blk)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t key = erofs_dedup_key(&e->dd, e->cur.key), done = e->cur.blocks;
	struct erofs_ddrec r;
	uint32_t i = HCHAIN_END;
	int ret;

	while ((i = erofs_dedup_next(&e->dd, i, key, EROFS_DD_ZIP, e->cur.size, &r)) != HCHAIN_END) {
		if (r.ref == e->cur.like || zip_blocks(e, r.ref) < done + n)
			continue;
		if ((ret = same_blocks(w, r.aux + done, blk, n, 0)) == 1)
			ret = stored_alike(w, e->cur.like_base, r.aux, done);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			rebase_heads(e, e->cur.like_base, r.aux);
			e->cur.like = r.ref;
			e->cur.like_base = r.aux;
			return 1;
		}
	}
	return 0;
}

/* The file differs from the one it shared with: with extent dedupe,
 * its heads so far keep naming that one's blocks, as extents (the same
 * stored bytes decode to the same input), one after the other from the
 * file's start, as compact indexes can say. Else they are copied. */
static int keep_run(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);

	if (e->cur.like == FS_NONE || !e->xd.on)
		return erofs_dedup_zip_unshare(w);
	e->cur.like = FS_NONE;
	w->stats.dedup_rejected++;
	w->stats.blocks_deduped += e->cur.blocks;
	erofs_xdedup_adopt(e);
	return 0;
}

int erofs_dedup_zip_put(struct sqp_writer *w, uint32_t n, const uint8_t *blk)
{
	struct erofs_wstate *e = erofs_of(w);
	int ret;

	if (e->cur.like == FS_NONE)
		return e->cur.blocks == 0 ? nominate(w, n, blk) : 0;
	if (zip_blocks(e, e->cur.like) >= (uint64_t)e->cur.blocks + n &&
	    (ret = same_blocks(w, e->cur.like_base + e->cur.blocks, blk, n, 0)) != 0)
		return ret;
	if ((ret = renominate_zip(w, n, blk)) != 0)
		return ret;
	return keep_run(w);
}

int erofs_dedup_zip_unshare(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t to = w->out.pos / BS, base = e->cur.like_base, nblk = e->cur.blocks;
	int ret;

	if (e->cur.like == FS_NONE)
		return 0;
	e->cur.like = FS_NONE;
	if (to + nblk > UINT32_MAX)
		return writer_fail(w, SQP_ERR_LIMIT, "EROFS: more than 2^32 blocks");
	if ((ret = copy_back(w, base, nblk)) != 0)
		return ret;
	rebase_heads(e, base, to);
	e->cur.start = to;
	w->stats.blocks_written += nblk;
	return 0;
}

/* Whether the index records a and b map the current file's logical
 * clusters alike (a run of records never straddles two chunks). */
static int same_map(const struct erofs_wstate *e, uint32_t a, uint32_t b)
{
	uint64_t k;

	for (k = ZREC_INDEXES; k < ZREC_INDEXES + e->cur.nlc; k++)
		if (memcmp(chunkarr_at(&e->zidx, a + (uint32_t)k),
			   chunkarr_at(&e->zidx, b + (uint32_t)k), EROFS_Z_INDEX_SIZE) != 0)
			return 0;
	return 1;
}

int erofs_dedup_zip_end(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_ddrec r = { .size = e->cur.size, .kind = EROFS_DD_ZIP, .ref = e->cur.rec };
	int ret;

	/* The same blocks decode alike only under the same codec. */
	if (e->cur.like != FS_NONE && zip_blocks(e, e->cur.like) == e->cur.blocks &&
	    same_map(e, e->cur.like, e->cur.rec) &&
	    ((uint8_t *)chunkarr_at(&e->zidx, e->cur.like))[ZREC_CODEC] ==
	    ((uint8_t *)chunkarr_at(&e->zidx, e->cur.rec))[ZREC_CODEC]) {
		w->stats.files_deduped++;
		w->stats.blocks_deduped += e->cur.blocks;
		return 0;
	}
	/* Every block stored so far is the other file's: copied, they are
	 * this one's (or with extent dedupe, named as extents). */
	if ((ret = keep_run(w)) != 0)
		return ret;
	/* Heads that name other files' pclusters (extent dedupe): its
	 * blocks are not one run from its start, which a file sharing
	 * with it would take them for. */
	if (e->cur.xp.shared)
		return 0;
	r.aux = e->cur.start;
	return erofs_dedup_add(w, erofs_dedup_key(&e->dd, e->cur.key), &r);
}
