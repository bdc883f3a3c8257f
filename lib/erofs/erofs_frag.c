/* SPDX-License-Identifier: MIT */
/*
 * erofs_frag.c - EROFS fragments (--erofs-fragments, mkfs.erofs's
 * -E fragments): the tails of compressed files, and whole small files,
 * gathered in one packed inode, itself a compressed file, so that many
 * small pieces compress together instead of each filling a block.
 *
 * With SQP_WRITE_EROFS_ALL_FRAGMENTS (-E all-fragments) every file is
 * wholly a fragment, whatever its size, and goes to the whole files'
 * log; FRAGDEDUPE shares equal whole files there (dedup_whole).
 *
 * FRAGDEDUPE (or DEDUPE) also finds a new fragment inside an earlier
 * one, as mkfs.erofs 1.9's fragdedupe=full does: where it ends as an
 * earlier one ends (files that end alike: two versions of a text, a
 * file that is another's end) it is those bytes' offset, nothing
 * appended (find_end). With all-fragments and FRAGDEDUPE_FULL a whole
 * file that only ends as an earlier one does is split: that end is its
 * fragment, its front compressed as clusters (split_fits says when).
 *
 * Why two logs: a file of a pcluster or less is wholly a fragment and is
 * read on the caller's thread as it arrives (a pool job per small file
 * would cost a hand-off each); a larger file's tail is known only when
 * its last segment comes back from the pool, in submission order. Each
 * order depends on the input alone, but how the two interleave depends
 * on -j, so each goes to its own log: tails first in the packed inode,
 * whole files after them. A tail's offset is then final when it is
 * written (a tail's map header holds 32 bits of it, and erofs_zip.c
 * stops making tails before the tail log could pass 4 GiB); a whole
 * file's (63 bits) is the tail log's length plus its own, known at
 * finish. Each log is a temporary file behind a small buffer
 * (erofs_flog.c), so memory does not grow with them whatever --mem
 * says; finish reads them back, in that order, as the packed inode's
 * data, which goes through the ordinary compressed data path.
 *
 * Compressed directories (SQP_WRITE_EROFS_COMPRESS_DIRS, mkfs.erofs
 * --zD) are whole fragments too, as mkfs.erofs makes them: a listing
 * holds nids, known only at finish, so the listings have a third log,
 * after the other two, filled by finish before it stores the packed
 * inode.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "codec/codec_dest.h"
#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "util/spill.h"
#include "write/words.h"
#include "write/writer_impl.h"

void erofs_frag_cleanup(struct sqp_writer *w)
{
	erofs_flog_free(&erofs_of(w)->frag.tails);
	erofs_flog_free(&erofs_of(w)->frag.whole);
	erofs_flog_free(&erofs_of(w)->frag.dirs);
}

/* A listing's blocks into the dirs log: whole blocks but the last. */
struct dirlog {
	struct sqp_writer *w;
	int first;
	uint64_t off;            /* where its first block went */
};

static int put_dirlog(void *user, const uint8_t *blk, uint32_t used, int last)
{
	struct dirlog *d = user;
	const struct erofs_frag *fr = &erofs_of(d->w)->frag;

	if (d->first)
		d->off = fr->tails.len + fr->whole.len + fr->dirs.len;
	d->first = 0;
	return erofs_flog_append(d->w, &erofs_of(d->w)->frag.dirs, blk,
				 last ? used : erofs_of(d->w)->bs);
}

int erofs_frag_dirs(struct erofs_wlayout *L, uint8_t *buf)
{
	struct dirlog d = { .w = L->w };
	const struct fs_irec *r;
	uint64_t size;
	uint32_t i;
	int ret;

	for (i = 0; i < L->count; i++) {
		r = fstree_inode(L->t, i);
		if (r->nlink == 0 || !S_ISDIR(r->mode))
			continue;
		d.first = 1;
		if ((ret = erofs_w_dir_pack(L, i, buf, put_dirlog, &d, &size)) != 0)
			return ret;
		L->doff[i] = d.off;
		sqp_spill_tick(L->w->spill);
	}
	return 0;
}

/* Records rec[0] (8 bytes) and rec[1] of a file's index record (see
 * EROFS_W_ZIP): the kind in its byte ZREC_KIND of the first, the offset in its
 * log in the second. */
static void mark(uint8_t *rec, unsigned kind, uint64_t off)
{
	rec[ZREC_KIND] = (uint8_t)kind;
	sqp_put64(rec + EROFS_Z_INDEX_SIZE, off);
}

/* The search for a fragment inside an earlier one. Every fragment of
 * END_KEYED bytes or more is keyed by a hash of its last END_KEYED
 * bytes (a record EROFS_DD_END_*, aux where it ends); a new one whose
 * key was met is compared, byte for byte, with the bytes of its length
 * that end where the nominee ended, and is those bytes when they are
 * equal. Shorter ones would save too little for a key each. Each log
 * is searched for its own fragments alone (tails in the tail log,
 * whole files in the whole files' log): each log's order depends on
 * the input alone, how they interleave on -j. Memory: a record per
 * fragment appended, in the dedup table (spilled with it). */
#define END_KEYED 64u
/* Nominees compared per fragment, oldest first: the work stays bounded
 * where many fragments end alike (a licence's last paragraph). */
#define END_TRIES 16u

static uint64_t end_key(const struct erofs_dedup *d, const uint8_t *last)
{
	return erofs_dedup_key(d, XXH3_64bits(last, END_KEYED));
}

/* Whether the len bytes of log l that end at end are those at mem: 1
 * when they are, 0 when not, or an error. Compared from the end, a
 * block at a time: fragments that end alike part nearest it. */
static int ends_same(struct sqp_writer *w, const struct erofs_flog *l, uint64_t end,
		     const uint8_t *mem, uint64_t len)
{
	uint64_t left;
	uint32_t n;
	int ret;

	if (end < len)
		return 0;
	for (left = len; left > 0; left -= n) {
		n = left < EROFS_W_BLOCK ? (uint32_t)left : EROFS_W_BLOCK;
		ret = erofs_flog_same(w, l, end - len + (left - n), mem + (left - n), n);
		if (ret != 1)
			return ret;
	}
	return 1;
}

/* An earlier fragment's last len bytes (records of kind, in log l) that
 * are those at mem (as ends_same) and whose last bytes have key: 1 with
 * *off where they start, 0 when none, or an error. */
static int find_end(struct sqp_writer *w, const struct erofs_flog *l, unsigned kind,
		    uint64_t key, const uint8_t *mem, uint64_t len, uint64_t *off)
{
	struct erofs_dedup *d = &erofs_of(w)->dd;
	struct erofs_ddrec r;
	uint32_t i = HCHAIN_END, tries;
	int ret;

	for (tries = 0; tries < END_TRIES; tries++) {
		if ((i = erofs_dedup_next(d, i, key, kind, 0, &r)) == HCHAIN_END)
			return 0;
		if ((ret = ends_same(w, l, r.aux, mem, len)) < 0)
			return ret;
		if (ret == 1) {
			*off = r.aux - len;
			return 1;
		}
		w->stats.dedup_rejected++;
	}
	return 0;
}

/* A fragment of log l just appended (ending at its end) recorded for
 * find_end, under key. */
static int add_end(struct sqp_writer *w, const struct erofs_flog *l, unsigned kind,
		   uint64_t key)
{
	const struct erofs_ddrec r = { .kind = kind, .aux = l->len };

	return erofs_dedup_add(w, key, &r);
}

int erofs_frag_tail(struct sqp_writer *w, const uint8_t *data, uint32_t len,
		    int whole, uint8_t *rec, const uint8_t *like)
{
	struct erofs_dedup *d = &erofs_of(w)->dd;
	struct erofs_frag *fr = &erofs_of(w)->frag;
	unsigned kind = whole ? EROFS_FRAG_WHOLE_T : EROFS_FRAG_TAIL;
	int ended = d->whole && len >= END_KEYED, ret;
	uint64_t key = 0, off;

	/* Dedup: an equal file's fragment, when its bytes are these
	 * (not under -E ^fragdedupe alone: the clusters only). */
	if (like != NULL && d->whole && like[ZREC_KIND] == kind) {
		off = sqp_get64(like + EROFS_Z_INDEX_SIZE);
		if ((ret = erofs_flog_same(w, &fr->tails, off, data, len)) < 0)
			return ret;
		if (ret == 1) {
			mark(rec, kind, off);
			w->stats.tails_deduped++;
			return 0;
		}
	}
	if (ended) {
		key = end_key(d, data + len - END_KEYED);
		if ((ret = find_end(w, &fr->tails, EROFS_DD_END_T, key, data, len, &off)) < 0)
			return ret;
		if (ret == 1) {
			mark(rec, kind, off);
			w->stats.tails_deduped++;
			return 0;
		}
	}
	mark(rec, kind, fr->tails.len);
	if (!whole && fr->tails.len + len > UINT32_MAX)
		return writer_fail(w, SQP_ERR_INTERNAL, "EROFS: a tail fragment past 4 GiB");
	if ((ret = erofs_flog_append(w, &fr->tails, data, len)) != 0)
		return ret;
	return ended ? add_end(w, &fr->tails, EROFS_DD_END_T, key) : 0;
}

/* The split (SQP_WRITE_EROFS_FRAGDEDUPE_FULL, with all-fragments): a
 * file whose end equals an earlier whole file's end for at least
 * SPLIT_LEAST bytes, its front differing, keeps only that end as its
 * fragment, from a block boundary, and its front is compressed as any
 * file's clusters, as mkfs.erofs 1.9's fragdedupe=full does. Less would
 * save too little: the front's last block is half empty on average and
 * its indexes cost bytes too (on rootfs-small, zstd at 64 KiB, one file
 * of 877 whose ends match qualifies: templates.dat-old, 333 KB in
 * common with templates.dat; the others share 8 KiB or less). Only
 * with all-fragments, where the tail log stays empty: the end's offset
 * is then final when decided, and must fit the 32 bits a tail's map
 * header holds. A front of one segment: one job, no seam. */
#define SPLIT_LEAST ((uint64_t)16 * EROFS_W_BLOCK)

/* How many of the size bytes at mine of log l are the same as those
 * ending at end (an earlier fragment's end), counted from the end, into
 * *m: 0 or an error. */
static int ends_alike(struct sqp_writer *w, const struct erofs_flog *l, uint64_t end,
		      uint64_t mine, uint64_t size, uint64_t *m)
{
	uint8_t theirs[EROFS_W_BLOCK], *ours = erofs_of(w)->dd.buf;
	uint64_t most = size < end ? size : end;
	uint32_t n, k;
	int ret;

	for (*m = 0; *m < most; *m += n) {
		n = most - *m < EROFS_W_BLOCK ? (uint32_t)(most - *m) : EROFS_W_BLOCK;
		if (!erofs_flog_has(l, mine + size - *m - n, n) ||
		    !erofs_flog_has(l, end - *m - n, n))
			return 0;
		if ((ret = erofs_flog_read(w, l, mine + size - *m - n, ours, n)) != 0 ||
		    (ret = erofs_flog_read(w, l, end - *m - n, theirs, n)) != 0)
			return ret;
		if (memcmp(ours, theirs, n) != 0) {
			for (k = n; k > 0 && ours[k - 1] == theirs[k - 1]; k--)
				(*m)++;
			return 0;
		}
	}
	return 0;
}

/* What dedup_whole found for a whole file. */
struct whole_fate {
	uint64_t off;            /* where its bytes are in the whole files' log */
	uint64_t cut;            /* split: its end's bytes there (0: not split) */
	int shared;              /* off names an earlier file's bytes */
};

/* Whether a split of size bytes keeping cut of them as the fragment at
 * off is taken (see SPLIT_LEAST), the earlier copy's end far bytes
 * before ours. Within twice the reach of the packed inode's codec (its
 * history; lz4's 64 KiB) the packed inode compresses the repeat
 * itself, and the front alone costs more: templates.dat-old, 713 KB
 * after templates.dat, split gained 80 KiB with lz4hc in 64 KiB
 * clusters (a 64 KiB reach), lost a block with zstd (512 KiB) and
 * 82 KiB with lzma in 1 MiB clusters (4 MiB). */
static int split_fits(const struct sqp_writer *w, uint64_t size, uint64_t cut, uint64_t off,
		      uint64_t far)
{
	const struct erofs_wstate *e = erofs_of(w);
	unsigned need = SQP_WRITE_EROFS_ALL_FRAGMENTS | SQP_WRITE_EROFS_FRAGDEDUPE_FULL;
	uint64_t reach = e->zdest[0]->history != NULL ?
			 e->zdest[0]->history(&e->zcfg[0], e->pcl_def) : (uint64_t)64 << 10;

	uint32_t seg = erofs_w_segment(e->sel.cap, e->zdest[e->sel.zc]->erofs_alg);

	return (w->desc.flags & need) == need && e->frag.reserved == 0 &&
	       cut >= SPLIT_LEAST && cut < size && size - cut <= seg &&
	       off <= UINT32_MAX && far > 2 * reach;
}

/* Dedup: the whole file just appended to the whole files' log (size
 * bytes at its end) given back when an earlier one there is equal,
 * byte for byte, or an earlier fragment there ends with it, or (a
 * split) ends as it does for long enough; *fate says which. */
static int dedup_whole(struct sqp_writer *w, uint64_t size, struct whole_fate *fate)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_flog *l = &e->frag.whole;
	uint64_t key = erofs_dedup_key(&e->dd, XXH3_64bits_digest(e->dd.st));
	uint64_t mine = l->len - size, ekey, m, best = 0, best_end = 0;
	struct erofs_ddrec r;
	uint32_t i = HCHAIN_END, tries;
	int ret;

	memset(fate, 0, sizeof(*fate));
	fate->off = mine;
	while ((i = erofs_dedup_next(&e->dd, i, key, EROFS_DD_WHOLE, size, &r)) != HCHAIN_END) {
		if ((ret = erofs_flog_equal(w, l, mine, r.aux, size)) < 0)
			return ret;
		if (ret == 1) {
			erofs_flog_cut(l, mine); /* the next file overwrites ours */
			fate->off = r.aux;
			fate->shared = 1;
			w->stats.files_deduped++;
			return 0;
		}
		w->stats.dedup_rejected++;
	}
	r = (struct erofs_ddrec){ .size = size, .kind = EROFS_DD_WHOLE, .aux = mine };
	if (size < END_KEYED)
		return erofs_dedup_add(w, key, &r);
	if ((ret = erofs_flog_read(w, l, l->len - END_KEYED, e->dd.buf, END_KEYED)) != 0)
		return ret;
	ekey = end_key(&e->dd, e->dd.buf);
	/* The earlier ends with our last bytes, oldest first: one that
	 * holds all of ours is taken; else the longest part, to split. */
	for (i = HCHAIN_END, tries = 0; tries < END_TRIES; tries++) {
		if ((i = erofs_dedup_next(&e->dd, i, ekey, EROFS_DD_END_W, 0, &r)) == HCHAIN_END)
			break;
		if ((ret = ends_alike(w, l, r.aux, mine, size, &m)) != 0)
			return ret;
		if (m == size) {
			/* Recorded where it is, for a later equal file. */
			erofs_flog_cut(l, mine);
			fate->off = r.aux - size;
			fate->shared = 1;
			w->stats.files_deduped++;
			r = (struct erofs_ddrec){ .size = size, .kind = EROFS_DD_WHOLE,
						  .aux = fate->off };
			return erofs_dedup_add(w, key, &r);
		}
		w->stats.dedup_rejected++;
		if (m > best) {
			best = m;
			best_end = r.aux;
		}
	}
	/* The split's end starts on a block boundary of the file. */
	m = size - (size - best + e->bs - 1) / e->bs * e->bs;
	if (best > 0 && split_fits(w, size, m, best_end - m, mine + size - best_end)) {
		fate->cut = m;
		fate->off = best_end - m;
		return 0;
	}
	r = (struct erofs_ddrec){ .size = size, .kind = EROFS_DD_WHOLE, .aux = mine };
	if ((ret = erofs_dedup_add(w, key, &r)) != 0)
		return ret;
	return add_end(w, l, EROFS_DD_END_W, ekey);
}

/* Reads the front of a split file back out of the whole files' log. */
struct log_src {
	struct sqp_writer *w;
	const struct erofs_flog *l;
	uint64_t pos;
};

static int log_read(void *user, void *buf, size_t n)
{
	struct log_src *s = user;
	int ret = erofs_flog_read(s->w, s->l, s->pos, buf, n);

	s->pos += n;
	return ret;
}

/* The split file (size bytes at mine of the whole files' log): its
 * front compressed as a file's clusters, its end fate->cut bytes at
 * fate->off; its own bytes leave the log. */
static int split(struct sqp_writer *w, struct fs_irec *ino, uint64_t size, uint32_t xattr_size,
		 uint64_t mine, const struct whole_fate *fate, struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	struct log_src ls = { w, &e->frag.whole, mine };
	struct sqp_data_source src = { .read = log_read, .user = &ls };
	int ret;

	e->frag.cut = fate->cut;
	e->frag.cut_off = fate->off;
	ret = erofs_zip_add(w, ino, size, xattr_size, &src, f);
	e->frag.cut = 0;
	/* Read already, counted once. */
	w->stats.bytes_in -= size - fate->cut;
	erofs_flog_cut(&e->frag.whole, mine);
	w->stats.tails_deduped++;
	return ret;
}

void erofs_frag_cut_mark(uint8_t *rec, uint64_t off)
{
	mark(rec, EROFS_FRAG_TAIL_W, off);
}

int erofs_frag_whole(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		     uint32_t xattr_size, const struct sqp_data_source *src,
		     struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	struct whole_fate fate = { .off = e->frag.whole.len };
	uint64_t off, mine = e->frag.whole.len;
	uint8_t *to;
	uint32_t rec;
	size_t n;
	int ret;

	if (e->dd.whole)
		XXH3_64bits_reset_withSeed(e->dd.st, size);
	/* Read straight into the log, as much as its buffer holds at a
	 * time: no copy through a block, and a read per buffer, not per
	 * block. The log's length counts the bytes once they are read. */
	for (off = 0; off < size; off += n) {
		if ((to = erofs_flog_room(w, &e->frag.whole, &n)) == NULL)
			return w->err.code;
		if (n > size - off)
			n = (size_t)(size - off);
		if ((ret = src->read(src->user, to, n)) != 0)
			return ret;
		e->frag.whole.len += n;
		w->stats.bytes_in += n;
		if (e->dd.whole)
			XXH3_64bits_update(e->dd.st, to, n);
	}
	if (e->dd.whole && (ret = dedup_whole(w, size, &fate)) != 0)
		return ret;
	if (fate.cut != 0)
		return split(w, ino, size, xattr_size, mine, &fate, f);
	if ((ret = chunkarr_add(&e->zidx, ZREC_INDEXES, &rec)) != 0)
		return writer_fail(w, ret, "out of memory");
	memset(chunkarr_at(&e->zidx, rec), 0, ZREC_INDEXES * EROFS_Z_INDEX_SIZE);
	mark(chunkarr_at(&e->zidx, rec), EROFS_FRAG_WHOLE_W, fate.off);
	f->u.file.size = size;
	f->u.file.blocks_start = 0;
	f->u.file.ero_rec = rec;
	f->u.file.ero_zip = EROFS_W_ZIP;
	return 0;
}

unsigned erofs_frag_of(const struct erofs_wstate *e, const uint8_t *rec, uint64_t *off)
{
	unsigned kind = rec[ZREC_KIND];

	*off = sqp_get64(rec + EROFS_Z_INDEX_SIZE);
	if (kind == EROFS_FRAG_WHOLE_W || kind == EROFS_FRAG_TAIL_W)
		*off += e->frag.tails.len;
	return kind;
}

/* The packed inode's data: the tail log, the whole files' log, then
 * the listings', read back from their files. */
struct packed_src {
	struct sqp_writer *w;
	const struct erofs_frag *fr;
	uint64_t pos;
};

static int packed_read(void *user, void *buf, size_t n)
{
	struct packed_src *s = user;
	const struct erofs_flog *logs[] = { &s->fr->tails, &s->fr->whole, &s->fr->dirs };
	const struct erofs_flog *l;
	uint8_t *out = buf;
	uint64_t at;
	size_t k, i;
	int ret;

	while (n > 0) {
		for (i = 0, at = s->pos; i < 2 && at >= logs[i]->len; i++)
			at -= logs[i]->len;
		l = logs[i];
		if (at >= l->len)
			return writer_fail(s->w, SQP_ERR_INTERNAL, "EROFS: fragments: the "
					   "packed inode read past its logs");
		k = l->len - at < n ? (size_t)(l->len - at) : n;
		if ((ret = erofs_flog_read(s->w, l, at, out, k)) != 0)
			return ret;
		out += k;
		n -= k;
		s->pos += k;
	}
	return 0;
}

/* The metabox's data, from memory. */
struct mem_src {
	const uint8_t *p;
	uint64_t left;
};

static int mem_read(void *user, void *buf, size_t n)
{
	struct mem_src *s = user;

	if (n > s->left)
		return SQP_ERR_INTERNAL;
	memcpy(buf, s->p, n);
	s->p += n;
	s->left -= n;
	return 0;
}

/* A regular file no directory names (the packed inode, the metabox). */
static void special_irec(struct fs_irec *r, int64_t mod_time)
{
	memset(r, 0, sizeof(*r));
	r->mode = S_IFREG | 0600;
	r->nlink = 1;
	r->mtime = mod_time;
	r->xattr_set = WR_NO_XATTR;
	r->u.file.blocks = FS_NONE;
}

int erofs_frag_mbox(struct sqp_writer *w, const uint8_t *area, uint64_t size,
		    int64_t mod_time)
{
	struct erofs_wstate *e = erofs_of(w);
	struct mem_src ms = { area, size };
	struct sqp_data_source src = { .read = mem_read, .user = &ms };
	struct fs_inode f;
	int ret;

	special_irec(&e->frag.mbox_irec, mod_time);
	/* Neither a fragment nor shared: packing turns both off. */
	e->frag.packing = 1;
	erofs_hints_pick(e, NULL);
	e->sel.zc = w->desc.erofs_metabox_codec;
	e->sel.cap = w->desc.erofs_metabox_pcluster;
	memset(&f, 0, sizeof(f));
	if ((ret = erofs_w_add_file(w, &e->frag.mbox_irec, size, 0, &src, &f)) != 0 ||
	    (ret = fstree_file_set(&w->tree, &e->frag.mbox_irec, &f)) != 0 ||
	    (ret = erofs_zip_drain(w)) != 0)
		return ret;
	w->stats.bytes_in -= size;
	return 0;
}

int erofs_frag_finish(struct sqp_writer *w, int64_t mod_time)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_frag *fr = &e->frag;
	uint64_t size = fr->tails.len + fr->whole.len + fr->dirs.len;
	struct packed_src ps = { .w = w, .fr = fr };
	struct sqp_data_source src = { .read = packed_read, .user = &ps };
	struct fs_inode f;
	int ret;

	if (size == 0)
		return 0;
	/* Stored as any other file (it may not hold fragments itself:
	 * fr->packing turns them off). */
	special_irec(&fr->irec, mod_time);
	fr->packing = 1;
	/* The defaults' codec and pcluster, whatever the last file took. */
	erofs_hints_pick(erofs_of(w), NULL);
	memset(&f, 0, sizeof(f));
	if ((ret = erofs_w_add_file(w, &fr->irec, size, 0, &src, &f)) != 0 ||
	    (ret = fstree_file_set(&w->tree, &fr->irec, &f)) != 0 ||
	    (ret = erofs_zip_drain(w)) != 0)
		return ret;
	/* Its bytes were counted once already, as the files' own. */
	w->stats.bytes_in -= size;
	fr->present = 1;
	return 0;
}
