/* SPDX-License-Identifier: MIT */
/*
 * erofs_record.c - one inode's record in the EROFS metadata area (or
 * the metabox), for erofs_finish.c: its shape, measured from the
 * tree alone (inode form, xattr area, inline tail, cluster indexes),
 * and its bytes, written with the same measurements so that placing
 * and writing cannot drift.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/writer_impl.h"

/* The block size, with the layout L in scope. */
#define BS (erofs_of(L->w)->bs)


/* A compressed file's map header: after the inode and xattrs, at 8;
 * its compact indexes right after it. */
static uint32_t zmap_at(const struct erofs_shape *s)
{
	return (s->isize + s->xsize + 7) & ~7u;
}

static uint32_t zidx_at(const struct erofs_shape *s)
{
	return zmap_at(s) + EROFS_Z_HEADER_SIZE;
}

/* Full indexes start 8 bytes further (a whole fragment's file has
 * none). */
static uint32_t zfull_at(const struct erofs_shape *s)
{
	return zmap_at(s) + EROFS_Z_HEADER_SIZE + 8;
}

/* A chunk-based file's map: the kernel finds 8-byte indexes at the
 * next multiple of 8, a block map's 4-byte entries right after the
 * xattrs (4-byte units). */
static uint32_t map_at(const struct erofs_shape *s)
{
	uint32_t base = s->isize + s->xsize;

	return s->ei.u & EROFS_CHUNK_INDEXES ? (base + 7) & ~7u : base;
}

/* Inode i's record: the tree's, or past its end the packed inode and
 * the metabox inode. */
const struct fs_irec *erofs_rec_of(const struct erofs_wlayout *L, uint32_t i)
{
	return i < L->count ? fstree_inode(L->t, i) : i == L->count ?
	       &erofs_of(L->w)->frag.irec : &erofs_of(L->w)->frag.mbox_irec;
}



int erofs_shape_of(const struct erofs_wlayout *L, uint32_t i, int64_t build_time,
		    struct erofs_shape *s)
{
	const struct fs_irec *r = erofs_rec_of(L, i);
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
	} else if (S_ISDIR(r->mode) && (flags & SQP_WRITE_EROFS_COMPRESS_DIRS)) {
		s->ei.layout = EROFS_COMPRESSED_FULL;
	} else if (S_ISDIR(r->mode) || S_ISLNK(r->mode)) {
		s->nblocks = s->ei.size / BS;
		if (tail > 0 && s->isize + s->xsize + tail <= BS &&
		    !(L->root_plain && i == L->root)) {
			s->ei.layout = EROFS_FLAT_INLINE;
			s->inl = (uint32_t)tail;
		} else if (tail > 0) {
			s->nblocks++;
		}
		s->ei.u = s->nblocks > 0 ? L->blk[i] : 0;
	}
	s->head = s->isize + s->xsize + s->inl;
	s->total = s->head;
	/* The kernel reads an inline tail from one block (the rest of a
	 * record by its own place, across blocks if need be). */
	s->tail = s->inl;
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
		/* erofs_zip.c fitted the tail after the indexes counting
		 * from a block's start: all of such a record shares one. */
		s->tail = s->inl > 0 ? s->total : 0;
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


int erofs_put_dirblock(void *user, const uint8_t *blk, uint32_t used, int last)
{
	struct erofs_dirblocks *d = user;

	if (d->dest != NULL) {
		if (last)
			memcpy(d->dest, blk, used);
		return 0;
	}
	if (last && d->skip_last)
		return 0;
	return erofs_w_append(d->w, blk, erofs_of(d->w)->bs);
}

/* One inode record into rec (a block): the inode, its xattr area, its
 * inline tail or a compressed file's map header. */
static int encode_record(struct erofs_wlayout *L, uint32_t i, const struct erofs_shape *s,
			 uint32_t ino_number, uint8_t *rec, uint8_t *scratch)
{
	const struct fs_irec *r = erofs_rec_of(L, i);
	uint8_t *tail = rec + s->isize + s->xsize;
	struct erofs_dirblocks d = { .w = L->w, .dest = tail };
	struct fs_inode f;
	uint64_t size;

	memset(rec, 0, BS);
	erofs_inode_encode(&s->ei, ino_number, rec);
	if (s->xsize > 0)
		erofs_w_xattr_encode(L->w, r->xattr_set, rec + s->isize);
	if (S_ISDIR(r->mode) && s->ei.layout == EROFS_COMPRESSED_FULL) {
		/* Wholly a fragment: its offset, the top bit saying so. */
		sqp_put64(rec + zmap_at(s), L->doff[i] | (uint64_t)1 << 63);
		return 0;
	}
	if (s->ei.layout == EROFS_COMPRESSED_COMPACT || s->ei.layout == EROFS_COMPRESSED_FULL) {
		fstree_file_get(L->t, r, &f);
		erofs_zidx_header(L->w, s->ei.layout == EROFS_COMPRESSED_COMPACT, s->inl,
				  chunkarr_at(&erofs_of(L->w)->zidx, f.u.file.ero_rec),
				  rec + zmap_at(s));
		return 0;
	}
	if (s->inl == 0)
		return 0;
	if (S_ISDIR(r->mode))
		return erofs_w_dir_pack(L, i, scratch, erofs_put_dirblock, &d, &size);
	if (S_ISLNK(r->mode)) {
		memcpy(tail, fstree_target(L->t, r) + (s->ei.size - s->inl), s->inl);
		return 0;
	}
	fstree_file_get(L->t, r, &f);
	memcpy(tail, chunkarr_at(&erofs_of(L->w)->tails, f.u.file.ero_rec), s->inl);
	return 0;
}

/* Inode i's record at area + at. */
int erofs_put_record(struct erofs_wlayout *L, uint32_t i, const struct erofs_shape *s,
		      uint8_t *area, uint32_t ino_number, uint8_t *scratch)
{
	int zip = s->ei.layout == EROFS_COMPRESSED_COMPACT;
	int full = s->ei.layout == EROFS_COMPRESSED_FULL;
	uint32_t head = zip ? zidx_at(s) : full ? zfull_at(s) : s->head;
	uint8_t *rec = scratch + BS;
	const uint8_t *idx;
	struct fs_inode f;
	int ret;

	if ((ret = encode_record(L, i, s, ino_number, rec, scratch)) != 0)
		return ret;
	memcpy(area, rec, head);
	if (s->ei.layout == EROFS_CHUNK_BASED) {
		fstree_file_get(L->t, erofs_rec_of(L, i), &f);
		if (f.u.file.ero_zip == EROFS_W_CHUNKED)
			erofs_chunk_encode(L->w, f.u.file.ero_rec, area + map_at(s));
		else
			erofs_tidx_encode(L->w, &f, area + map_at(s));
	}
	if (!zip && !(full && s->nlc > 0))
		return 0;
	/* The full indexes the data path kept, packed, or as they are. */
	fstree_file_get(L->t, erofs_rec_of(L, i), &f);
	idx = chunkarr_at(&erofs_of(L->w)->zidx, f.u.file.ero_rec + ZREC_INDEXES);
	if (full)
		erofs_zidx_full(L->w, s->nlc, f.u.file.ero_rec, idx, area + head);
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
