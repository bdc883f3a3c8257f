/* SPDX-License-Identifier: MIT */
/*
 * erofs_zcopy.c - a base EROFS image's files into the EROFS writer as
 * they are stored (img2img --shards, sqp_writer_add_image): each
 * compressed file's physical clusters read once and appended once,
 * nothing decoded, and its cluster index written anew for the blocks
 * they land at (erofs_zip_put, as for clusters the writer cut itself).
 *
 * Why it can: under one codec (zero padded) and 4 KiB logical
 * clusters, a pcluster decodes alone, so where it sits does not matter;
 * the image that cut it was built with the options the shards share,
 * so its cut is the one this writer would have made. The codec's own
 * parameters travel in each pcluster (lz4's block, MicroLZMA's
 * properties byte, a deflate stream, a zstd frame header) but for the
 * one the reader sizes for the whole image: lzma's dictionary, deflate's
 * and zstd's window, which the superblock's record declares (lz4 has
 * none: its 64 KiB is fixed). A base whose record is larger than this
 * writer's (built with a larger pcluster, or deflate with a wider
 * window) has pclusters this image's record would not cover: they are
 * decoded and compressed again. A larger record is not written instead,
 * as the kernel allocates that history per CPU for the image's life,
 * and the output keeps what its own options say. Dedup compares what is
 * stored (erofs_dedup.c), so an equal file of another shard, cut alike,
 * shares the first one's blocks: equal stored bytes under one codec and
 * cluster size decode equal.
 *
 * Tails: an inline (ztailpacking) last pcluster is copied as it is
 * when it fits after the new record (the same file gives the same
 * record, so it does); a fragment in the packed inode is decoded and
 * given to the writer's fragments (erofs_frag_tail), which packs it
 * with the others' and compresses the packed inode once: its bytes
 * sit among other files' tails and cannot be moved alone. A file
 * stored as it is is copied block for block (erofs_w_add_flat, no
 * codec tried). Anything else (another codec, a pcluster larger than
 * the writer's, interlaced or unpadded data, a tail the writer's
 * options would not keep so) is read decoded through the data source
 * and compressed again: slower, never wrong.
 *
 * Without dedup (which compares stored bytes) and --verity (which
 * hashes them), a base with a UUID has its pclusters copied in the
 * kernel, file range to file range (erofs_zip_put_copy), never read
 * here: the merge then costs what `cat` of the shards does. The derived
 * UUID of the new image hashes the base's UUID and where the bytes lie
 * in it instead of the bytes themselves; the base's UUID is the hash
 * of its own bytes (or one its builder chose), so other bytes still
 * give another UUID.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "codec/codec_dest.h"
#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "erofs/erofs_zip.h"
#include "erofs/rd_erofs.h"
#include "sqpack/codec.h"
#include "sqpack/error.h"
#include "write/writer_impl.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)

enum { TAIL_NONE, TAIL_INLINE, TAIL_FRAG };

/* What a file's walk found: where its copied clusters end and what
 * ends the file. */
struct zplan {
	uint64_t tail_at;       /* the tail's first byte (size: no tail) */
	int kind;               /* TAIL_* */
	struct rd_extent tail;  /* TAIL_INLINE: its extent */
};

int erofs_zcopy_fits(struct sqp_writer *w, struct sqp_image *img)
{
	const struct erofs_wstate *e = erofs_of(w);
	const struct rd_erofs *ero = rd_ero(img);
	unsigned alg;

	/* One codec and one pcluster size for every file: no hints. */
	if (e->dest == NULL || e->tidx || e->ncodec != 1 || e->nhints != 0 ||
	    e->chunks.bits != 0 || ero->bs != BS ||
	    ero->dev_count != 0 || !(ero->sb.feature_incompat & EROFS_IN_ZERO_PADDING) ||
	    rd_erofs_codecs(ero) != 1u << e->zcfg[0].id)
		return 0;
	alg = (unsigned)e->dest->erofs_alg;
	return e->dest->history == NULL ||
	       ero->history[alg] <= e->dest->history(&e->zcfg[0], e->pcluster);
}

/* Whether extent x (not a tail) can be copied: in the writer's codec or
 * stored as it is, whole blocks, no more than the writer's pcluster (a
 * plain one a block, as the writer's index says it) nor its most input
 * bytes. */
static int copyable(const struct erofs_wstate *e, const struct rd_extent *x)
{
	if (x->pa % BS != 0 || x->plen % BS != 0 || x->plen == 0 || x->llen > e->max_extent)
		return 0;
	if (x->fmt == RD_Z_RAW)
		return x->plen == BS;
	return x->fmt == (unsigned)e->dest->erofs_alg && x->plen <= e->pcluster;
}

/* Walk ei's map: 1 when the file can be copied (pl filled), 0 when it
 * must be decoded, or < 0 (the base's error, latched in img). */
static int plan(struct sqp_writer *w, struct sqp_image *img, const struct rd_einode *ei,
		uint32_t xsize, struct zplan *pl)
{
	struct erofs_wstate *e = erofs_of(w);
	struct rd_zwalk zw;
	struct rd_extent x;
	int ret;

	*pl = (struct zplan){ .tail_at = ei->size, .kind = TAIL_NONE };
	if ((ret = rd_erofs_zwalk_init(img, ei, &zw)) != 0)
		return ret;
	/* Encoded extents may start anywhere in a block: decoded. */
	if (zw.z.lcbits != 12 || zw.z.recsz != 0)
		return 0;
	while ((ret = rd_erofs_zwalk_next(img, &zw, &x)) == 1) {
		if (x.fmt == RD_Z_FRAGMENT) {
			pl->tail_at = x.la;
			pl->kind = TAIL_FRAG;
			break;
		}
		if ((zw.z.h.advise & EROFS_Z_INLINE_PCLUSTER) && x.pa == zw.z.idata &&
		    x.la + x.llen == ei->size) {
			pl->tail_at = x.la;
			pl->kind = TAIL_INLINE;
			pl->tail = x;
			break;
		}
		if (!copyable(e, &x))
			return 0;
	}
	if (ret < 0)
		return ret;
	if (pl->kind == TAIL_FRAG)
		return e->frag.on && pl->tail_at > 0 &&
		       ei->size - pl->tail_at <= erofs_frag_max(e) &&
		       e->frag.reserved + erofs_frag_max(e) <= UINT32_MAX;
	if (pl->kind == TAIL_INLINE)
		return (pl->tail.fmt == (unsigned)e->dest->erofs_alg || pl->tail.fmt == RD_Z_RAW) &&
		       pl->tail.llen <= e->max_extent &&
		       pl->tail.plen > 0 && pl->tail.plen < BS &&
		       pl->tail.plen <= erofs_zip_tail_room(w, (ei->size + BS - 1) / BS, xsize);
	return 1;
}

/* The file's index record and the writer's current file, as erofs_zip.c
 * sets them for a file's first segment; key: dedup's nomination. */
static int begin(struct sqp_writer *w, uint64_t size, uint64_t key, struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	int ret;

	if ((ret = erofs_zip_record(w, size, f)) != 0)
		return ret;
	e->cur.rec = f->u.file.ero_rec;
	e->cur.nlc = (size + BS - 1) / BS;
	e->cur.blocks = 0;
	e->cur.raw = 0;
	e->cur.start = w->out.pos / BS;
	e->cur.size = size;
	e->cur.dedup = e->dd.on && !e->frag.packing;
	e->cur.key = key;
	e->cur.like = FS_NONE;
	erofs_xdedup_begin(e, 0); /* its clusters come without their input: none shares */
	e->compressed = 1;
	return 0;
}

/* The fragment tail: its bytes decoded, into the writer's fragments. */
static int put_frag(struct sqp_writer *w, struct sqp_image *img, const struct rd_einode *ei,
		    uint64_t at)
{
	struct erofs_wstate *e = erofs_of(w);
	static const struct erofs_pcl head = { .blocks = 0 };
	uint32_t len = (uint32_t)(ei->size - at);
	struct rd_zfile *zf = NULL;
	uint8_t *data = malloc(len);
	int ret;

	if (data == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	ret = rd_zfile_open(img, ei, &zf);
	if (ret == 0)
		ret = rd_zfile_pread(img, zf, data, len, at);
	rd_zfile_close(zf);
	if (ret == 0)
		ret = erofs_zip_head_last(w, at, &head);
	if (ret == 0) {
		e->frag.reserved += erofs_frag_max(e);
		ret = erofs_frag_tail(w, data, len, 0, erofs_zip_rec(e, 0),
				      e->cur.like == FS_NONE ? NULL :
				      chunkarr_at(&e->zidx, e->cur.like));
		if (ret != 0)
			ret = w->err.code;
	}
	free(data);
	return ret;
}

/* The inline last pcluster's stored bytes, after the new record. */
static int put_inline(struct sqp_writer *w, const struct rd_extent *x, const uint8_t *bytes,
		      uint8_t *blk)
{
	const struct erofs_wstate *e = erofs_of(w);
	struct erofs_pcl p = { .blocks = 1, .plain = x->fmt == RD_Z_RAW };

	if (p.plain)
		return erofs_zip_inline(w, x->la, &p, bytes, x->plen);
	memset(blk, 0, BS - x->plen);
	memcpy(blk + BS - x->plen, bytes, x->plen);
	return erofs_zip_inline(w, x->la, &p, blk, x->plen);
}

/* Whether img's pclusters may be copied in the kernel (see above). */
static int by_range(struct sqp_writer *w, struct sqp_image *img)
{
	static const uint8_t none[16];
	const struct erofs_wstate *e = erofs_of(w);

	return !e->dd.on && w->out.tap.feed == NULL &&
	       img->dev_fd < 0 && memcmp(rd_ero(img)->uuid, none, 16) != 0;
}

/* Extent x's pcluster copied in the kernel. */
static int put_range(struct sqp_writer *w, struct sqp_image *img, const struct rd_extent *x,
		     const struct erofs_pcl *p)
{
	if (x->pa > img->file_size || x->plen > img->file_size - x->pa)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: a pcluster at offset %llu lies "
			      "past the end of the image", img->name, (unsigned long long)x->pa);
	return erofs_zip_put_copy(w, x->la, p, rd_ero(img)->uuid, img->fd, img->base + x->pa);
}

/* Whether the full blocks of flat file ei (but an inline last one) may
 * be copied in the kernel: into *cp. They lie back to back from its
 * raw_blkaddr (rd_erofs_map). */
static int flat_copy(struct sqp_writer *w, struct sqp_image *img, const struct rd_einode *ei,
		     struct erofs_flat_copy *cp)
{
	const struct erofs_wstate *e = erofs_of(w);
	uint64_t full = ei->size / BS, at = (uint64_t)ei->u * BS;

	if (!by_range(w, img) || rd_ero(img)->bs != BS ||
	    (ei->layout != EROFS_FLAT_PLAIN && ei->layout != EROFS_FLAT_INLINE))
		return 0;
	if (ei->layout == EROFS_FLAT_INLINE && ei->size % BS == 0 && full > 0)
		full--;   /* the last block is inline */
	if (full == 0 || at > img->file_size || full * BS > img->file_size - at)
		return 0;   /* read, and found corrupt there */
	*cp = (struct erofs_flat_copy){ rd_ero(img)->uuid, img->fd, img->base + at, full };
	return 1;
}

/* Copy ei's clusters up to pl's tail, then the tail. buf: a pcluster
 * of room and a block more. */
static int copy(struct sqp_writer *w, struct sqp_image *img, const struct rd_einode *ei,
		const struct zplan *pl, uint8_t *buf, struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	uint8_t *blk = buf + e->pcluster;
	struct rd_zwalk zw;
	struct rd_extent x;
	int first = 1, range = by_range(w, img), ret;

	if ((ret = erofs_zip_drain(w)) != 0 ||
	    (ret = rd_erofs_zwalk_init(img, ei, &zw)) != 0)
		return ret;
	while (zw.off < pl->tail_at && (ret = rd_erofs_zwalk_next(img, &zw, &x)) == 1) {
		struct erofs_pcl p = { .len = (uint32_t)x.llen, .clen = x.plen,
				       .blocks = x.plen / BS, .plain = x.fmt == RD_Z_RAW };

		if (range) {
			/* no dedup: its key is never read */
			if (first && (ret = begin(w, ei->size, 0, f)) != 0)
				return ret;
			first = 0;
			if ((ret = put_range(w, img, &x, &p)) != 0)
				return ret;
			continue;
		}
		if ((ret = rd_read_at(img, x.pa, buf, x.plen, "a pcluster")) != 0)
			return ret;
		/* Dedup nominates by the first stored bytes, seeded with the
		 * size: an equal file cut alike has the same. */
		if (first && (ret = begin(w, ei->size, XXH3_64bits_withSeed(buf, x.plen, ei->size),
					  f)) != 0)
			return ret;
		first = 0;
		if ((ret = erofs_zip_put(w, x.la, &p, NULL, buf)) != 0)
			return ret;
	}
	if (ret < 0)
		return ret;
	if (pl->kind == TAIL_INLINE) {
		const struct rd_extent *t = &pl->tail;

		if ((ret = rd_read_at(img, t->pa, buf, t->plen, "an inline pcluster")) != 0)
			return ret;
		if (first && (ret = begin(w, ei->size, XXH3_64bits_withSeed(buf, t->plen, ei->size),
					  f)) != 0)
			return ret;
		if ((ret = put_inline(w, t, buf, blk)) != 0)
			return ret;
	} else if (pl->kind == TAIL_FRAG && (ret = put_frag(w, img, ei, pl->tail_at)) != 0) {
		return ret;
	}
	w->stats.bytes_in += ei->size;
	w->stats.files_copied++;
	return erofs_zip_finish(w);
}

int erofs_zcopy_add(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		    uint32_t xattr_size, const struct writer_base *b, struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	const struct rd_einode *ei = eri(b->ino);
	struct zplan pl;
	uint8_t *buf;
	int ret;

	/* Whole files in fragments are packed anew, as one pass packs them. */
	if (size == 0 || ei->size != size ||
	    (e->frag.on && !e->frag.packing &&
	     (size <= e->pcluster || (w->desc.flags & SQP_WRITE_EROFS_ALL_FRAGMENTS))))
		return erofs_w_add_file(w, ino, size, xattr_size, b->src, f);
	/* The base compressed with the writer's codec and stored this one
	 * as it is: it gained nothing, and trying again would not either. */
	if (!rd_erofs_compressed(ei)) {
		struct erofs_flat_copy cp;

		ret = erofs_w_add_flat(w, size, xattr_size, b->src, f,
				       flat_copy(w, b->img, ei, &cp) ? &cp : NULL);
		w->stats.files_copied += ret == 0;
		return ret;
	}
	if (!erofs_zip_fits(w, size) || (ret = plan(w, b->img, ei, xattr_size, &pl)) == 0)
		return erofs_w_add_file(w, ino, size, xattr_size, b->src, f);
	if (ret < 0)
		return ret;
	if ((buf = malloc((size_t)e->pcluster + BS)) == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	ret = copy(w, b->img, ei, &pl, buf, f);
	free(buf);
	return ret;
}
