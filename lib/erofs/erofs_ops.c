/* SPDX-License-Identifier: MIT */
/*
 * erofs_ops.c - the EROFS back end's table (struct rd_format) and what
 * the core asks of it beyond inodes and listings: the image's info and
 * layout (none of SquashFS's tables: all of it counts as data), a
 * file's layout from its block map or extents, its data and holes, and
 * its bytes at any offset (erofs_zread.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "erofs/rd_erofs.h"
#include "sqpack/error.h"
#include "sqpack/image_info.h"
#include "sqpack/reader.h"

/* What an EROFS inode's xattr index reads as where it has none. */
#define NO_XATTR_INDEX 0xFFFFFFFFu

static uint32_t pcluster_of(const struct rd_erofs *e, uint32_t codecs);

static void info(const struct sqp_image *img, struct sqp_image_info *all)
{
	const struct rd_erofs *e = rd_ero(img);
	/* With the 48-bit layout, build_time is the epoch base. */
	uint64_t bt = e->sb.build_time + e->sb.build_delta;

	all->format = SQP_FORMAT_EROFS;
	all->mod_time = (uint32_t)(bt > UINT32_MAX ? UINT32_MAX : bt);
	all->codecs = rd_erofs_codecs(e);
	all->inodes = e->sb.inos;
	all->packed_ref = e->sb.packed_nid;
	/* The lowest id, 0 for none: what a caller of the first version,
	 * which knows one codec, sees. */
	all->codec = 0;
	for (int id = SQP_CODEC_MAX; id > 0; id--)
		if (all->codecs & (1u << id))
			all->codec = id;
	/* The unit a file is decoded in: its largest pcluster. */
	all->decode_unit = all->codecs == 0 ? e->bs :
			   pcluster_of(e, all->codecs);
}

/* The largest pcluster, a whole number of blocks up to 1 MiB, whose
 * history by the writer's codec (codec_dest.h) is at most what the
 * image's record declares: image_info.h's erofs_pcluster. */
static uint32_t pcluster_of(const struct rd_erofs *e, uint32_t codecs)
{
	struct sqp_codec_config cfg = { .block_size = e->bs };
	const struct codec_dest_ops *d;
	unsigned alg;

	if (codecs == 0 || (codecs & (codecs - 1)) != 0)
		return 0;
	while (!(codecs & (1u << cfg.id)))
		cfg.id++;
	if ((d = codec_dest_of(cfg.id)) == NULL)
		return 0;
	alg = (unsigned)d->erofs_alg;
	if (d->history == NULL)
		return e->lz4_blocks > 1 ? e->lz4_blocks * e->bs : e->bs;
	if (d->history(&cfg, e->bs) == d->history(&cfg, EROFS_Z_PCLUSTER_MAX))
		return 0;
	for (uint32_t p = EROFS_Z_PCLUSTER_MAX / e->bs * e->bs; p > e->bs; p -= e->bs)
		if (d->history(&cfg, p) <= e->history[alg])
			return p;
	return e->bs;
}

static int layout(struct sqp_image *img, struct sqp_image_layout *o)
{
	const struct rd_erofs *e = rd_ero(img);

	o->file_size = img->file_size;
	o->bytes_used = img->end;
	o->data_bytes = img->end;
	o->erofs_pcluster = pcluster_of(e, rd_erofs_codecs(e));
	o->erofs_features = ((e->sb.feature_incompat & EROFS_IN_ZTAILPACKING) ?
			     SQP_EROFS_SHOWS_ZTAILPACKING : 0) |
			    ((e->sb.feature_incompat & EROFS_IN_FRAGMENTS) ?
			     SQP_EROFS_SHOWS_FRAGMENTS : 0);
	return 0;
}

/* A compressed EROFS file's blocks: its pclusters, their bytes stored;
 * a fragment's (in the packed inode) count as none. */
static int erofs_zlayout(struct sqp_image *img, const struct rd_inode *ino,
			 struct sqp_file_layout *o)
{
	uint32_t bs = img->block_size;
	struct rd_zwalk w;
	struct rd_extent x;
	int ret;

	if ((ret = rd_erofs_zwalk_init(img, eri(ino), &w)) != 0)
		return ret;
	o->block_count = (eri(ino)->size + bs - 1) / bs;
	while ((ret = rd_erofs_zwalk_next(img, &w, &x)) > 0) {
		if (x.fmt == RD_Z_FRAGMENT)
			continue;
		if (o->stored_bytes == 0)
			o->blocks_start = x.pa;
		o->stored_bytes += x.plen;
		o->raw_blocks += x.fmt == RD_Z_RAW || x.fmt == RD_Z_INTERLACED;
	}
	return ret;
}

/* An EROFS file's blocks from its block map: every stored block is
 * uncompressed, a hole run counts its blocks, nothing is a fragment. */
int rd_erofs_file_layout(struct sqp_image *img, const struct rd_inode *ino,
			 struct sqp_file_layout *o)
{
	uint32_t bs = img->block_size, len;
	uint64_t phys;
	int ret;

	o->frag_index = SQP_NO_FRAGMENT;
	o->xattr_index = ino->has_xattrs ? 0 : NO_XATTR_INDEX;
	if (rd_erofs_compressed(eri(ino)))
		return erofs_zlayout(img, ino, o);
	for (uint64_t off = 0; off < eri(ino)->size; off += len) {
		if ((ret = rd_erofs_map(img, eri(ino), off, &phys, &len)) != 0)
			return ret;
		o->block_count += (len + bs - 1) / bs;
		if (phys == UINT64_MAX) {
			o->hole_blocks += (len + bs - 1) / bs;
			o->sparse += len;
			continue;
		}
		if (o->raw_blocks++ == 0)
			o->blocks_start = phys;
		o->stored_bytes += len;
	}
	return 0;
}

/* Inode number n is nid n - 1. */
static int inode_ref(struct sqp_image *img, uint32_t n, uint64_t *ref)
{
	if (n == 0 || n > img->inode_count)
		return SQP_ERR_UNSUPPORTED;
	*ref = n - 1;
	return 0;
}

static int xattrs(struct sqp_image *img, const struct rd_inode *ino,
		  struct rd_xattrs *x)
{
	return rd_erofs_xattrs(img, eri(ino), x);
}

/* From the block map, which gives each hole as one run; a compressed
 * file has no holes: all of it is one piece. */
static int pieces(struct sqp_image *img, const struct rd_inode *ino,
		  rd_piece_fn fn, void *user)
{
	uint64_t size = eri(ino)->size, phys;
	uint32_t len;
	int ret;

	if (rd_erofs_compressed(eri(ino)))
		return size > 0 ? fn(user, 0, size, 0) : 0;
	for (uint64_t off = 0; off < size; off += len)
		if ((ret = rd_erofs_map(img, eri(ino), off, &phys, &len)) != 0 ||
		    (ret = fn(user, off, len, phys == UINT64_MAX)) != 0)
			return ret;
	return 0;
}

static int file_open(struct sqp_file *f)
{
	struct rd_zfile *z = NULL;
	int ret = rd_zfile_open(f->img, eri(&f->ino), &z);

	f->own = z;
	return ret;
}

static int file_pread(struct sqp_file *f, uint8_t *dst, size_t n,
		      uint64_t off)
{
	return rd_zfile_pread(f->img, f->own, dst, n, off);
}

static void file_close(struct sqp_file *f)
{
	rd_zfile_close(f->own);
	f->own = NULL;
}

static int zdecode(const struct sqp_image *img, const struct rd_extent *x,
		   const uint8_t *in, uint8_t *out, struct sqp_erofs_unz **unz)
{
	return rd_erofs_zdecode(rd_ero(img), x, in, out, unz);
}

/* Nothing to check when a directory is left, nor after the walk: EROFS
 * has no directory index and no tables of its own beyond what the walk
 * reads. */
static int check_dir_done(struct sqp_image *img, struct rd_checker *k,
			  const char *path, const struct rd_inode *dir)
{
	(void)img;
	(void)k;
	(void)path;
	(void)dir;
	return 0;
}

static int check_tables(struct sqp_image *img, struct rd_checker *k)
{
	(void)img;
	(void)k;
	return 0;
}

const struct rd_format rd_erofs_format = {
	.format = SQP_FORMAT_EROFS,
	.own_codec = 1,
	.dense_numbers = 0,
	.destroy = rd_erofs_free,
	.info = info,
	.layout = layout,
	.inode_read = rd_erofs_inode_read,
	.inode_ref = inode_ref,
	.parent = rd_erofs_parent,
	.dir_open = rd_erofs_dir_open,
	.dir_next = rd_erofs_dir_next,
	.dir_seek = NULL,
	.xattrs = xattrs,
	.pieces = pieces,
	.file_layout = rd_erofs_file_layout,
	.file_span = rd_erofs_file_span,
	.file_open = file_open,
	.file_pread = file_pread,
	.file_close = file_close,
	.jobs = rd_erofs_jobs,
	.share_plan = NULL,
	.zdecode = zdecode,
	.check_file = rd_erofs_check_file,
	.check_dir = rd_erofs_check_dir,
	.check_dir_done = check_dir_done,
	.check_tables = check_tables,
	.stored = NULL,
	.stored_tails = NULL,
};
