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
 * written with the same measurements (shape_of), so placement and
 * writing cannot drift. An inode with its xattrs and inline tail never
 * straddles a block: the kernel reads an inline tail from the inode's
 * block.
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
#include "write/writer_impl.h"

/* The block size, with the layout L in scope. */
#define BS (erofs_of(L->w)->bs)

struct shape {
	struct erofs_inode ei;
	uint32_t isize, xsize, inl; /* inode, xattr area, inline tail */
	uint64_t nblocks;           /* a directory's or symlink's blocks */
	uint64_t nlc;               /* a compressed file's logical clusters */
	uint32_t keep;              /* bytes that must share one block */
	uint64_t total;             /* the record's bytes, indexes included */
};

/* A compressed file's map header: after the inode and xattrs, at 8;
 * its compact indexes right after it. */
static uint32_t zmap_at(const struct shape *s)
{
	return (s->isize + s->xsize + 7) & ~7u;
}

static uint32_t zidx_at(const struct shape *s)
{
	return zmap_at(s) + EROFS_Z_HEADER_SIZE;
}

/* Full indexes start 8 bytes further (a whole fragment's file has
 * none). */
static uint32_t zfull_at(const struct shape *s)
{
	return zmap_at(s) + EROFS_Z_HEADER_SIZE + 8;
}

/* A chunk-based file's map: the kernel finds 8-byte indexes at the
 * next multiple of 8, a block map's 4-byte entries right after the
 * xattrs (4-byte units). */
static uint32_t map_at(const struct shape *s)
{
	uint32_t base = s->isize + s->xsize;

	return s->ei.u & EROFS_CHUNK_INDEXES ? (base + 7) & ~7u : base;
}

/* Inode i's record: the tree's, or the packed inode past its end. */
static const struct fs_irec *rec_of(const struct erofs_wlayout *L, uint32_t i)
{
	return i < L->count ? fstree_inode(L->t, i) : &erofs_of(L->w)->frag.irec;
}

/* The inode the k-th of the layout order: the root, then the rest. */
static uint32_t order_at(const struct erofs_wlayout *L, uint32_t k)
{
	if (k == 0)
		return L->root;
	return k - 1 < L->root ? k - 1 : k;
}

static int shape_of(const struct erofs_wlayout *L, uint32_t i, int64_t build_time,
		    struct shape *s)
{
	const struct fs_irec *r = rec_of(L, i);
	unsigned flags = L->w->desc.flags;
	struct fs_inode f;
	uint64_t tail, off;
	int64_t base;
	int fits, ret;

	memset(s, 0, sizeof(*s));
	if ((ret = erofs_w_xattr_size(L->w, r->xattr_set, &s->xsize)) != 0)
		return ret;
	s->ei.xattr_icount = erofs_xattr_icount(s->xsize);
	s->ei.mode = r->mode;
	s->ei.nlink = r->nlink;
	s->ei.uid = r->uid;
	s->ei.gid = r->gid;
	s->ei.mtime = (uint64_t)r->mtime;
	s->ei.mtime_nsec = r->mtime_nsec;
	s->ei.layout = EROFS_FLAT_PLAIN;
	if (S_ISREG(r->mode)) {
		fstree_file_get(L->t, r, &f);
		s->ei.size = f.u.file.size;
		s->ei.u = (uint32_t)f.u.file.blocks_start;
	} else if (S_ISDIR(r->mode) || S_ISLNK(r->mode)) {
		s->ei.size = L->dsize[i];
	} else if (S_ISCHR(r->mode) || S_ISBLK(r->mode)) {
		s->ei.u = erofs_rdev(r->u.dev.major, r->u.dev.minor);
	}
	/* A compact inode's time counts from the epoch base, in whole
	 * seconds: before the 48-bit layout the base is the build time and
	 * the count 0, so any other time needs the extended inode, as
	 * mkfs.erofs decides, unless told to give the build time instead. */
	base = erofs_w_epoch(L->w, build_time);
	fits = r->mtime_nsec == 0 && r->mtime >= base &&
	       (uint64_t)(r->mtime - base) <=
	       (flags & SQP_WRITE_EROFS_48BIT ? UINT32_MAX : 0);
	s->ei.extended = s->ei.uid > UINT16_MAX || s->ei.gid > UINT16_MAX ||
			 s->ei.nlink > UINT16_MAX || s->ei.size > UINT32_MAX;
	if (s->ei.extended && (flags & SQP_WRITE_EROFS_INODE_COMPACT))
		return writer_fail(L->w, SQP_ERR_LIMIT, "an inode (owner %u:%u, %u links, "
				   "%llu bytes) cannot be in compact form",
				   (unsigned)s->ei.uid, (unsigned)s->ei.gid,
				   (unsigned)s->ei.nlink, (unsigned long long)s->ei.size);
	if (!(flags & (SQP_WRITE_EROFS_IGNORE_MTIME | SQP_WRITE_EROFS_INODE_COMPACT)))
		s->ei.extended |= !fits;
	if (flags & SQP_WRITE_EROFS_INODE_EXTENDED)
		s->ei.extended = 1;
	s->isize = s->ei.extended ? 64 : 32;
	tail = s->ei.size % BS;
	if (S_ISREG(r->mode) && f.u.file.ero_zip == EROFS_W_ZIP) {
		const uint8_t *zr = chunkarr_at(&erofs_of(L->w)->zidx, f.u.file.ero_rec);

		s->ei.layout = sqp_get16(zr + 4) & EROFS_W_ZFULL ? EROFS_COMPRESSED_FULL :
			       EROFS_COMPRESSED_COMPACT;
		s->ei.u = sqp_get32(zr);
		s->inl = sqp_get16(zr + 4) & ~EROFS_W_ZFULL;
		s->nlc = (s->ei.size + BS - 1) / BS;
		/* A whole file in the packed inode: the map header alone,
		 * in the full form, as mkfs.erofs writes it. */
		if (erofs_frag_of(erofs_of(L->w), zr, &off) >= EROFS_FRAG_WHOLE_T) {
			s->ei.layout = EROFS_COMPRESSED_FULL;
			s->ei.u = 0;
			s->nlc = 0;
		}
	} else if (S_ISREG(r->mode) && erofs_of(L->w)->tidx && s->ei.size > 0) {
		s->ei.layout = EROFS_CHUNK_BASED;
		s->nlc = erofs_tidx_chunks(L->w, &f, &s->ei.u);
	} else if (S_ISREG(r->mode) && f.u.file.ero_zip == EROFS_W_CHUNKED) {
		s->ei.layout = EROFS_CHUNK_BASED;
		s->nlc = erofs_chunk_shape(L->w, f.u.file.ero_rec, &s->ei.u);
	} else if (S_ISREG(r->mode)) {
		if (f.u.file.ero_rec != FS_NONE) {
			s->ei.layout = EROFS_FLAT_INLINE;
			s->inl = (uint32_t)tail;
		}
	} else if (S_ISDIR(r->mode) || S_ISLNK(r->mode)) {
		s->nblocks = s->ei.size / BS;
		if (tail > 0 && s->isize + s->xsize + tail <= BS) {
			s->ei.layout = EROFS_FLAT_INLINE;
			s->inl = (uint32_t)tail;
		} else if (tail > 0) {
			s->nblocks++;
		}
		s->ei.u = s->nblocks > 0 ? L->blk[i] : 0;
	}
	s->keep = s->isize + s->xsize + s->inl;
	s->total = s->keep;
	if (s->ei.layout == EROFS_COMPRESSED_COMPACT || s->ei.layout == EROFS_COMPRESSED_FULL) {
		/* An inline tail pcluster follows the indexes: the kernel
		 * reads it in the inode's block, so all of it shares one
		 * (erofs_zip.c and erofs_zidx.c made sure it fits). */
		s->total = s->ei.layout == EROFS_COMPRESSED_FULL ?
			   zfull_at(s) + s->nlc * EROFS_Z_INDEX_SIZE + s->inl :
			   zidx_at(s) + erofs_z_compact_size(s->nlc, zidx_at(s) % 32) + s->inl;
		/* erofs_zip.c measured the tail's room after the extended
		 * inode; 32 bytes earlier it may cross a block boundary. */
		if (s->inl > 0 && !s->ei.extended && (s->total - s->inl) % BS + s->inl > BS) {
			if (flags & SQP_WRITE_EROFS_INODE_COMPACT)
				return writer_fail(L->w, SQP_ERR_LIMIT, "a compressed "
						   "tail inline needs an extended inode "
						   "here; not with compact inodes forced");
			s->ei.extended = 1;
			s->isize = 64;
			s->total += 32;
		}
		s->keep = s->inl > 0 ? (uint32_t)s->total : s->isize + s->xsize;
	} else if (s->ei.layout == EROFS_CHUNK_BASED) {
		s->total = map_at(s) +
			   (uint64_t)(s->ei.u & EROFS_CHUNK_INDEXES ? 8 : 4) * s->nlc;
	}
	/* The count a compact inode stores (the build time's where its
	 * own does not fit). */
	if (!s->ei.extended)
		s->ei.mtime = (uint64_t)((fits ? r->mtime : build_time) - base);
	return 0;
}

static int live(const struct erofs_wlayout *L, uint32_t i)
{
	return rec_of(L, i)->nlink > 0;
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
	struct shape s;
	uint32_t k, i;
	int ret;

	for (k = 0; k < L->slots; k++) {
		i = order_at(L, k);
		if (!live(L, i) || !(S_ISDIR(rec_of(L, i)->mode) ||
				     S_ISLNK(rec_of(L, i)->mode)))
			continue;
		if ((ret = shape_of(L, i, bt, &s)) != 0)
			return ret;
		L->blk[i] = (uint32_t)cur;
		cur += s.nblocks;
		if (cur > UINT32_MAX)
			return SQP_ERR_LIMIT;
	}
	*end = cur;
	return 0;
}

/* Every inode's nid (erofs_fit.c chooses; the root comes first, so its
 * nid fits 16 bits); the area's size in blocks from block first, and
 * meta_blkaddr. Block 0's room after the superblock takes the first
 * records (meta_blkaddr 0, the root's nid 36 or so, as in mkfs.erofs's
 * images) when the root's fits there, which saves most of a block; else
 * the nids count from the area (the root's 0). */
static int place_inodes(struct erofs_wlayout *L, int64_t bt, uint64_t first,
			uint64_t *inos, uint64_t *blocks, uint64_t *meta)
{
	struct erofs_fit fit;
	uint32_t k, i, from = erofs_w_head_from(L), head = erofs_head_blk(L->w);
	uint32_t room = (head + 1) * BS - from;
	struct shape s;
	uint64_t at;
	int ret;

	memset(&fit, 0, sizeof(fit));
	fit.slots = BS / EROFS_SLOT_SIZE;
	fit.blocks = first;
	*meta = first;
	*inos = 0;
	if ((ret = shape_of(L, L->root, bt, &s)) == 0 && s.total <= room) {
		*meta = 0;
		ret = erofs_fit_room(&fit, head, room / EROFS_SLOT_SIZE);
	}
	for (k = 0; k < L->slots && ret == 0; k++) {
		i = order_at(L, k);
		if (!live(L, i))
			continue;
		if ((ret = shape_of(L, i, bt, &s)) != 0 ||
		    (ret = erofs_fit_place(&fit, s.total, &at)) != 0)
			break;
		L->nid[i] = (at - *meta * BS) / EROFS_SLOT_SIZE;
		++*inos;
	}
	*blocks = fit.blocks - first;
	erofs_fit_cleanup(&fit);
	return ret;
}

struct dirblocks {
	struct sqp_writer *w;
	int skip_last;   /* the last block goes inline */
	uint8_t *dest;   /* meta pass: where the inline tail goes */
};

static int put_dirblock(void *user, const uint8_t *blk, uint32_t used, int last)
{
	struct dirblocks *d = user;

	if (d->dest != NULL) {
		if (last)
			memcpy(d->dest, blk, used);
		return 0;
	}
	if (last && d->skip_last)
		return 0;
	return erofs_w_append(d->w, blk, erofs_of(d->w)->bs);
}

/* A symlink's blocks (only when its target does not fit inline). */
static int put_target(struct erofs_wlayout *L, uint32_t i, const struct shape *s,
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
	struct dirblocks d = { .w = L->w };
	struct shape s;
	uint64_t size;
	uint32_t k, i;
	int ret;

	for (k = 0; k < L->slots; k++) {
		i = order_at(L, k);
		if (!live(L, i))
			continue;
		if ((ret = shape_of(L, i, bt, &s)) != 0)
			return ret;
		if (s.nblocks == 0)
			continue;
		d.skip_last = s.inl > 0;
		ret = S_ISDIR(s.ei.mode) ? erofs_w_dir_pack(L, i, buf, put_dirblock, &d, &size) :
		      put_target(L, i, &s, buf);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* A compressed file's map header at out, from its index record zr. */
static void encode_zheader(const struct erofs_wlayout *L, const struct shape *s,
			   const uint8_t *zr, uint8_t *out)
{
	uint64_t off;
	unsigned kind = erofs_frag_of(erofs_of(L->w), zr, &off);

	if (kind >= EROFS_FRAG_WHOLE_T) {
		/* The offset's top bit says the whole file is one. */
		sqp_put64(out, off | (uint64_t)1 << 63);
		return;
	}
	erofs_z_map_header_encode((s->ei.layout == EROFS_COMPRESSED_COMPACT ?
				   EROFS_Z_COMPACTED_2B : 0) | (erofs_w_big_pclusters(L->w) ?
				  EROFS_Z_BIG_PCLUSTER_1 | EROFS_Z_BIG_PCLUSTER_2 : 0) |
				  (s->inl > 0 ? EROFS_Z_INLINE_PCLUSTER : 0) |
				  (kind != 0 ? EROFS_Z_FRAGMENT_PCLUSTER : 0), (uint16_t)s->inl,
				  (uint8_t)erofs_of(L->w)->zdest[zr[ZREC_CODEC]]->erofs_alg, 0, out);
	/* A tail's offset (under 4 GiB) where an inline size goes. */
	if (kind != 0)
		sqp_put32(out, (uint32_t)off);
}

/* One inode record into rec (a block): the inode, its xattr area, its
 * inline tail or a compressed file's map header. */
static int encode_record(struct erofs_wlayout *L, uint32_t i, const struct shape *s,
			 uint32_t ino_number, uint8_t *rec, uint8_t *scratch)
{
	const struct fs_irec *r = rec_of(L, i);
	uint8_t *tail = rec + s->isize + s->xsize;
	struct dirblocks d = { .w = L->w, .dest = tail };
	struct fs_inode f;
	uint64_t size;

	memset(rec, 0, BS);
	erofs_inode_encode(&s->ei, ino_number, rec);
	if (s->xsize > 0)
		erofs_w_xattr_encode(L->w, r->xattr_set, rec + s->isize);
	if (s->ei.layout == EROFS_COMPRESSED_COMPACT || s->ei.layout == EROFS_COMPRESSED_FULL) {
		fstree_file_get(L->t, r, &f);
		encode_zheader(L, s, chunkarr_at(&erofs_of(L->w)->zidx, f.u.file.ero_rec),
			       rec + zmap_at(s));
		return 0;
	}
	if (s->inl == 0)
		return 0;
	if (S_ISDIR(r->mode))
		return erofs_w_dir_pack(L, i, scratch, put_dirblock, &d, &size);
	if (S_ISLNK(r->mode)) {
		memcpy(tail, fstree_target(L->t, r) + (s->ei.size - s->inl), s->inl);
		return 0;
	}
	fstree_file_get(L->t, r, &f);
	memcpy(tail, chunkarr_at(&erofs_of(L->w)->tails, f.u.file.ero_rec), s->inl);
	return 0;
}

/* A file's full indexes (extent dedupe named pclusters that compact
 * ones cannot count on to) into out. With a tail fragment, the last
 * head's block is the upper half of the fragment's offset in the full
 * form (the kernel reads it so): 0, as tails stay under 4 GiB. */
static void put_full(const struct erofs_wlayout *L, const struct shape *s, uint32_t rec,
		     const uint8_t *idx, uint8_t *out)
{
	uint64_t off, k = s->nlc;

	memcpy(out, idx, s->nlc * EROFS_Z_INDEX_SIZE);
	if (erofs_frag_of(erofs_of(L->w), chunkarr_at(&erofs_of(L->w)->zidx, rec), &off) == 0)
		return;
	while (k > 0 && (sqp_get16(out + --k * EROFS_Z_INDEX_SIZE) & 3u) == EROFS_LC_NONHEAD)
		;
	sqp_put32(out + k * EROFS_Z_INDEX_SIZE + 4, 0);
}

/* Inode i's record at area + at. */
static int put_record(struct erofs_wlayout *L, uint32_t i, const struct shape *s,
		      uint8_t *area, uint32_t ino_number, uint8_t *scratch)
{
	int zip = s->ei.layout == EROFS_COMPRESSED_COMPACT;
	int full = s->ei.layout == EROFS_COMPRESSED_FULL;
	uint32_t head = zip ? zidx_at(s) : full ? zfull_at(s) : s->keep;
	uint8_t *rec = scratch + BS;
	const uint8_t *idx;
	struct fs_inode f;
	int ret;

	if ((ret = encode_record(L, i, s, ino_number, rec, scratch)) != 0)
		return ret;
	memcpy(area, rec, head);
	if (s->ei.layout == EROFS_CHUNK_BASED) {
		fstree_file_get(L->t, rec_of(L, i), &f);
		if (f.u.file.ero_zip == EROFS_W_CHUNKED)
			erofs_chunk_encode(L->w, f.u.file.ero_rec, area + map_at(s));
		else
			erofs_tidx_encode(L->w, &f, area + map_at(s));
	}
	if (!zip && !(full && s->nlc > 0))
		return 0;
	/* The full indexes the data path kept, packed, or as they are. */
	fstree_file_get(L->t, rec_of(L, i), &f);
	idx = chunkarr_at(&erofs_of(L->w)->zidx, f.u.file.ero_rec + ZREC_INDEXES);
	if (full)
		put_full(L, s, f.u.file.ero_rec, idx, area + head);
	else if (erofs_z_compact_encode(idx, s->nlc, zidx_at(s) % 32, erofs_w_big_pclusters(L->w),
					area + head) != 0)
		return SQP_ERR_INTERNAL;
	/* The inline tail pcluster right after the indexes, where the
	 * kernel looks for it (the end of the last pack). */
	if (s->inl > 0)
		memcpy(area + s->total - s->inl, chunkarr_at(&erofs_of(L->w)->tails,
		       sqp_get32(chunkarr_at(&erofs_of(L->w)->zidx, f.u.file.ero_rec + 1))),
		       s->inl);
	return 0;
}

/* The metadata area, built whole (from the spill arena: it may be
 * large) at the places place_inodes chose, then appended in pieces;
 * with meta_blkaddr 0, the records in block 0 written into it. */
static int write_meta(struct erofs_wlayout *L, int64_t bt, uint64_t blocks,
		      uint64_t first, uint64_t meta, uint8_t *scratch)
{
	const uint64_t piece = (uint64_t)4 << 20;
	uint64_t size = blocks * BS, off, n, at;
	uint8_t *area = sqp_spill_alloc(L->w->spill, size ? size : 1);
	uint32_t k, i, ino_number = 0, from = erofs_w_head_from(L);
	uint32_t head_end = (erofs_head_blk(L->w) + 1) * BS;
	uint8_t *head = calloc(1, head_end);
	struct shape s;
	int ret = area != NULL && head != NULL ? 0 : SQP_ERR_NOMEM;

	for (k = 0; k < L->slots && ret == 0; k++) {
		i = order_at(L, k);
		if (!live(L, i))
			continue;
		at = meta * BS + L->nid[i] * EROFS_SLOT_SIZE;
		if ((ret = shape_of(L, i, bt, &s)) == 0)
			ret = put_record(L, i, &s, at < first * BS ? head + at : area + (at - first * BS),
					 ++ino_number, scratch);
		sqp_spill_tick(L->w->spill);
	}
	for (off = 0; ret == 0 && off < size; off += n) {
		n = size - off < piece ? size - off : piece;
		ret = erofs_w_append(L->w, area + off, (size_t)n);
		sqp_spill_check(L->w->spill);
	}
	if (ret == 0 && meta == 0) {
		XXH3_128bits_update(erofs_of(L->w)->hash, head + from, head_end - from);
		if ((ret = imgout_flush(&L->w->out)) == 0)
			ret = imgout_pwrite(&L->w->out, from, head + from, head_end - from);
	}
	if (area != NULL)
		sqp_spill_free(L->w->spill, area, size ? size : 1);
	free(head);
	return ret;
}

static int run(struct erofs_wlayout *L, int64_t bt, uint8_t *scratch)
{
	uint64_t first, meta, inos, meta_blocks;
	int ret;

	if ((ret = measure(L)) != 0 || (ret = place_blocks(L, bt, &first)) != 0 ||
	    (ret = place_inodes(L, bt, first, &inos, &meta_blocks, &meta)) != 0)
		return ret;
	if (L->nid[L->root] > UINT16_MAX)
		return SQP_ERR_INTERNAL; /* the root is placed first */
	if ((ret = write_blocks(L, bt, scratch)) != 0)
		return ret;
	if (L->w->out.pos != first * BS)
		return SQP_ERR_INTERNAL;
	if ((ret = write_meta(L, bt, meta_blocks, first, meta, scratch)) != 0)
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
	L.slots = L.count + (erofs_of(w)->frag.present ? 1 : 0);
	L.root = fstree_node(&w->tree, 0)->inode;
	n = L.count + 1;
	L.nid = sqp_spill_alloc(w->spill, n * sizeof(*L.nid));
	L.dsize = sqp_spill_alloc(w->spill, n * sizeof(*L.dsize));
	L.up = sqp_spill_alloc(w->spill, n * sizeof(*L.up));
	L.blk = sqp_spill_alloc(w->spill, n * sizeof(*L.blk));
	if (L.nid != NULL && L.dsize != NULL && L.up != NULL && L.blk != NULL)
		ret = run(&L, mod_time, scratch);
	sqp_spill_free(w->spill, L.nid, n * sizeof(*L.nid));
	sqp_spill_free(w->spill, L.dsize, n * sizeof(*L.dsize));
	sqp_spill_free(w->spill, L.up, n * sizeof(*L.up));
	sqp_spill_free(w->spill, L.blk, n * sizeof(*L.blk));
	return ret;
}

int erofs_w_finish(struct sqp_writer *w, int64_t mod_time)
{
	uint8_t *scratch = malloc(2 * EROFS_W_BLOCK);
	int ret = SQP_ERR_NOMEM;

	/* The last clusters first: the metadata goes after them. */
	if (scratch != NULL && (ret = erofs_zip_drain(w)) == 0 &&
	    (ret = erofs_frag_finish(w, mod_time)) == 0)
		ret = layout_and_write(w, mod_time, scratch);
	free(scratch);
	w->stats.image_bytes = w->out.pos;
	if (ret != 0 && w->err.code == 0)
		writer_fail(w, ret, "writing the EROFS image: %s", sqp_strerror(ret));
	return ret != 0 ? w->err.code : 0;
}
