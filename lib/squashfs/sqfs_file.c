/* SPDX-License-Identifier: MIT */
/*
 * file.c - reading a regular file's contents through the public API
 * (sqp_file_open / sqp_file_pread): full blocks, the short last block,
 * a fragment tail, holes (a block of size 0 reads as zeros) and blocks
 * stored uncompressed.
 *
 * Memory stays at one block buffer whatever the file's size, and the
 * image's one compressed block: instead of loading the block list, a
 * cursor walks it (block index, its position on disk, its size word's
 * position in the inode table). Sequential reads move the cursor
 * forward one block at a time; a read before the cursor restarts it
 * from the first block. The last block read is kept, so reads smaller
 * than a block decompress each block once; a read of a whole block
 * into a buffer that holds one decodes it there, with no copy, and a
 * file read only so (sqpack-fuse's chunks) allocates no block at all:
 * opening one is a few small allocations, not two blocks' fresh pages. Fragment blocks
 * stay decompressed in the image (rd_image.h, a few, least recently used
 * goes), since many files' tails share one: reading the files of a
 * directory one after the other decompresses each block about once, not
 * once per tail (imginfo diff, cat). Invariant: every
 * block is checked to lie inside the image and to decompress to exactly
 * the length the file size implies before any byte of it is returned.
 * This is the SquashFS back end's file reader (rd_format.file_*); the
 * public calls are in browse.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "sqpack/image_info.h"
#include "util/fileio.h"

#define NO_BLOCK UINT64_MAX

struct sq_file {
	struct sqp_image *img;
	const struct rd_inode *ino;  /* the sqp_file's */
	uint64_t size;
	int has_frag;
	uint64_t next;          /* cursor: block index ... */
	uint64_t disk;          /* ... where it starts on disk ... */
	struct meta_pos word;   /* ... and where its size word is */
	uint64_t cached;        /* block in blk; block_count = the tail */
	uint32_t cached_len;
	uint8_t *blk;           /* allocated on first use */
};

void rd_sqfs_file_close(struct sqp_file *pub)
{
	struct sq_file *f = pub->own;

	if (f == NULL)
		return;
	free(f->blk);
	free(f);
	pub->own = NULL;
}

int rd_sqfs_file_open(struct sqp_file *pub)
{
	struct sqp_image *img = pub->img;
	struct sq_file *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	pub->own = f;
	f->img = img;
	f->ino = &pub->ino;
	f->size = sqi(f->ino)->raw.u.file.size;
	f->has_frag = sqi(f->ino)->raw.u.file.frag_index != SQFS_NO_FRAGMENT;
	f->next = 0;
	f->disk = sqi(f->ino)->raw.u.file.blocks_start;
	f->word = sqi(f->ino)->blocks;
	f->cached = NO_BLOCK;
	return 0;
}

/* Read disk bytes at pos (stored raw or not) into dst (a block), at
 * least want bytes, through the image's compressed block. inode: for
 * messages. */
static int load_at(struct sqp_image *img, uint32_t inode, uint8_t *dst,
		   uint64_t pos, uint32_t word, uint32_t want,
		   const char *what)
{
	uint32_t disk = word & SQFS_BLOCK_SIZE_MASK;
	uint8_t *cbuf;
	int n, ret;

	if (disk > img->block_size || pos > img->end ||
	    disk > img->end - pos)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: %s at %llu "
			      "lies outside the image", img->name, inode, what,
			      (unsigned long long)pos);
	if (word & SQFS_BLOCK_UNCOMPRESSED) {
		if ((ret = rd_read_at(img, pos, dst, disk, what)) != 0)
			return ret;
		n = (int)disk;
	} else {
		if (sq(img)->dbuf == NULL &&
		    (sq(img)->dbuf = malloc(img->block_size)) == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		cbuf = sq(img)->dbuf;
		if ((ret = rd_read_at(img, pos, cbuf, disk, what)) != 0)
			return ret;
		n = sqp_decompress(sq(img)->codec, cbuf, disk, dst,
				   img->block_size);
	}
	if (n < 0 || (uint32_t)n < want)
		return rd_err(img, n < 0 ? SQP_ERR_BAD_DATA : SQP_ERR_CORRUPT,
			      "%s: inode %u: %s at %llu %s", img->name, inode,
			      what, (unsigned long long)pos, n < 0 ?
			      "does not decompress" : "is too short");
	return n;
}

static int load(struct sq_file *f, uint8_t *dst, uint64_t pos,
		uint32_t word, uint32_t want, const char *what)
{
	return load_at(f->img, sqi(f->ino)->raw.inode_number, dst, pos, word,
		       want, what);
}

/* Move the cursor onto block idx (< block_count): *word is its size
 * word, f->disk where it starts, f->next idx + 1. */
static int walk_to(struct sq_file *f, uint64_t idx, uint32_t *word)
{
	struct sqp_image *img = f->img;
	uint8_t raw[4];
	int ret;

	if (idx < f->next) {
		f->next = 0;
		f->disk = sqi(f->ino)->raw.u.file.blocks_start;
		f->word = sqi(f->ino)->blocks;
	}
	for (;;) {
		if ((ret = meta_read(img, &f->word, raw, 4)) != 0)
			return ret;
		*word = sqp_get32(raw);
		if ((*word & SQFS_BLOCK_SIZE_MASK) > img->block_size)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: block "
				      "of %u bytes", img->name,
				      sqi(f->ino)->raw.inode_number,
				      *word & SQFS_BLOCK_SIZE_MASK);
		if (f->next++ == idx)
			return 0;
		f->disk += *word & SQFS_BLOCK_SIZE_MASK;
	}
}

/* Block idx (< block_count) into dst (a block). */
static int load_block(struct sq_file *f, uint64_t idx, uint32_t want,
		      uint8_t *dst)
{
	struct sqp_image *img = f->img;
	uint32_t word;
	int ret;

	if ((ret = walk_to(f, idx, &word)) != 0)
		return ret;
	if ((word & SQFS_BLOCK_SIZE_MASK) == 0) {
		memset(dst, 0, want);
		ret = 0;
	} else {
		ret = load(f, dst, f->disk, word, want, "data block");
		if (ret >= 0 && (uint32_t)ret != want)
			ret = rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: block "
				     "%llu holds %d bytes, not %u", img->name,
				     sqi(f->ino)->raw.inode_number,
				     (unsigned long long)idx, ret, want);
	}
	f->disk += word & SQFS_BLOCK_SIZE_MASK;
	return ret < 0 ? ret : 0;
}

/* Fragment block index decompressed into dst (a block): its length,
 * or an error. inode: for messages. */
static int frag_decode(struct sqp_image *img, uint32_t inode,
		       uint32_t index, uint8_t *dst)
{
	struct sqfs_frag_entry fe;
	int ret;

	if ((ret = rd_fragment(img, index, &fe)) != 0)
		return ret;
	return load_at(img, inode, dst, fe.start, fe.size, 0,
		       "fragment block");
}

/* Fragment block index, decompressed, from the image's cache. */
static int frag_block(struct sq_file *f, uint32_t index,
		      struct rd_frag_slot **out)
{
	struct sqp_image *img = f->img;
	struct rd_frag_slot *s = &sq(img)->frags[0];
	int n;

	for (unsigned i = 0; i < RD_FRAG_SLOTS; i++) {
		struct rd_frag_slot *c = &sq(img)->frags[i];

		if (c->len > 0 && c->index == index) {
			c->used = ++sq(img)->frag_clock;
			*out = c;
			return 0;
		}
		if (c->used < s->used)
			s = c;
	}
	if (s->buf == NULL && (s->buf = malloc(img->block_size)) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	s->len = 0;
	if ((n = frag_decode(img, sqi(f->ino)->raw.inode_number, index,
			     s->buf)) < 0)
		return n;
	s->index = index;
	s->len = (uint32_t)n;
	s->used = ++sq(img)->frag_clock;
	*out = s;
	return 0;
}

/* The tail (want bytes) from its fragment block into dst. */
static int load_tail(struct sq_file *f, uint32_t want, uint8_t *dst)
{
	const struct sqfs_inode *r = &sqi(f->ino)->raw;
	struct rd_frag_slot *s = NULL;
	int ret;

	if ((ret = frag_block(f, r->u.file.frag_index, &s)) != 0)
		return ret;
	if (r->u.file.frag_offset > s->len ||
	    want > s->len - r->u.file.frag_offset)
		return rd_err(f->img, SQP_ERR_CORRUPT, "%s: inode %u: tail "
			      "outside its fragment block", f->img->name,
			      r->inode_number);
	memcpy(dst, s->buf + r->u.file.frag_offset, want);
	return 0;
}

/* Block idx (the tail when idx == block_count), want bytes, into dst
 * (a block). */
static int fill(struct sq_file *f, uint64_t idx, uint32_t want, uint8_t *dst)
{
	if (idx < f->ino->block_count)
		return load_block(f, idx, want, dst);
	if (f->has_frag && idx == f->ino->block_count)
		return load_tail(f, want, dst);
	return rd_err(f->img, SQP_ERR_CORRUPT, "%s: inode %u: no block %llu",
		      f->img->name, sqi(f->ino)->raw.inode_number,
		      (unsigned long long)idx);
}

/* Make block idx, want bytes, the cached one. */
static int fetch(struct sq_file *f, uint64_t idx, uint32_t want)
{
	int ret;

	if (f->cached == idx)
		return 0;
	f->cached = NO_BLOCK;
	if (f->blk == NULL && (f->blk = malloc(f->img->block_size)) == NULL)
		return rd_err(f->img, SQP_ERR_NOMEM, "out of memory");
	if ((ret = fill(f, idx, want, f->blk)) != 0)
		return ret;
	f->cached = idx;
	f->cached_len = want;
	return 0;
}

int rd_sqfs_file_pread(struct sqp_file *pub, uint8_t *d, size_t n,
		       uint64_t off)
{
	struct sq_file *f = pub->own;
	uint32_t bs = f->img->block_size;
	int ret;

	while (n > 0) {
		uint64_t idx = off / bs, rest = f->size - idx * bs;
		uint32_t in = (uint32_t)(off % bs);
		uint32_t want = rest < bs ? (uint32_t)rest : bs;
		size_t take;

		/* A whole block where a block fits: decoded in place. */
		if (in == 0 && n >= bs && f->cached != idx) {
			if ((ret = fill(f, idx, want, d)) != 0)
				return ret;
			d += want;
			off += want;
			n -= want;
			continue;
		}
		if ((ret = fetch(f, idx, want)) != 0)
			return ret;
		take = f->cached_len - in;
		if (take > n)
			take = n;
		memcpy(d, f->blk + in, take);
		d += take;
		off += take;
		n -= take;
	}
	return 0;
}

/* sqp_file_span: a block stored uncompressed is read from the image as
 * it lies; the tail is in its fragment block; anything else decodes. A
 * stored block must hold exactly the bytes the file size gives it, as
 * load_block requires. */
int rd_sqfs_file_span(struct sqp_file *pub, uint64_t off, uint64_t max,
		      struct sqp_file_span *s)
{
	struct sq_file *f = pub->own;
	struct sqp_image *img = f->img;
	uint32_t bs = img->block_size, in = (uint32_t)(off % bs), word, disk;
	uint64_t idx = off / bs, rest = f->size - idx * bs;
	uint32_t want = rest < bs ? (uint32_t)rest : bs;
	int ret;

	s->kind = SQP_SPAN_DECODE;
	s->len = want - in < max ? want - in : max;
	if (idx >= f->ino->block_count) {
		if (!f->has_frag || idx != f->ino->block_count)
			return 0;       /* the reader will say why */
		s->kind = SQP_SPAN_FRAGMENT;
		s->shared = sqi(f->ino)->raw.u.file.frag_index;
		s->pos = (uint64_t)sqi(f->ino)->raw.u.file.frag_offset + in;
		return 0;
	}
	if ((ret = walk_to(f, idx, &word)) != 0)
		return ret;
	disk = word & SQFS_BLOCK_SIZE_MASK;
	if ((word & SQFS_BLOCK_UNCOMPRESSED) && disk == want &&
	    f->disk <= img->end && disk <= img->end - f->disk &&
	    img->end <= img->file_size && (img->dev_fd < 0 ||
					   f->disk + disk <= img->dev_at)) {
		s->kind = SQP_SPAN_STORED;
		s->pos = img->base + f->disk + in;
	}
	f->disk += disk;
	return 0;
}

int rd_sqfs_fragment(struct sqp_image *img, uint32_t index, uint8_t *buf,
		     size_t cap, size_t *len)
{
	int n;

	*len = 0;
	if (cap < img->block_size)
		return rd_err(img, SQP_ERR_ARG, "%s: a fragment block needs "
			      "%u bytes", img->name, img->block_size);
	n = frag_decode(img, 0, index, buf);
	if (n < 0)
		return n;
	*len = (size_t)n;
	return 0;
}
