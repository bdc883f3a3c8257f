/* SPDX-License-Identifier: MIT */
/*
 * erofs_chunk.c - chunk-based files (desc.erofs_chunk_size, mkfs.erofs
 * --chunksize; with SQP_WRITE_EROFS_BLOB, --blobdev): a file stored as
 * it is, cut into chunks of a power of two of blocks, each chunk named
 * by its own block address, so that equal chunks anywhere in the image
 * are stored once and chunks of zeros are not stored at all (a null
 * address, read as zeros).
 *
 * Why this shape: as everywhere in sqpack, a hash only nominates an
 * earlier chunk; the chunk is shared only once the stored bytes, read
 * back block by block, equal the new ones. A chunk of zeros (the last
 * one too, which mkfs.erofs 1.9 stores when it is short) is a hole.
 * Chunks go to the image as they come, or with a blob to the blob file
 * (extra device 1, in the device table; chunk indexes point into it),
 * in the order files arrive: nothing depends on -j.
 *
 * After a file's chunks, its map is merged: the largest chunk size (up
 * to the format's 2^31 blocks) for which every merged chunk is holes
 * only or one run of stored blocks, so that a file stored whole takes
 * one entry (mkfs.erofs merges by the runs' lengths; this takes every
 * merge the layout allows).
 *
 * With a codec, as mkfs.erofs 1.9 does, only the files that are not
 * compressed are chunk based: those no codec is tried on (erofs_data.c)
 * and those compression gained nothing on (erofs_zip.c), whose bytes
 * are in memory then (erofs_chunk_mem) or, for a file of several
 * segments, stored already as one run of blocks (erofs_chunk_run: no
 * holes or shared chunks there). No blob then: such a run is in the
 * image.
 *
 * The map is a 4-byte block map, or 8-byte chunk indexes with a blob
 * (they name the device) or when asked (mkfs.erofs -E
 * force-chunk-indexes).
 *
 * A file's map is a run of 4-byte records in the map arena: its chunk
 * format (EROFS i_u), its entry count, then each entry's block (or
 * EROFS_NULL_ADDR). Stored chunks are records of 8 bytes: first block
 * and bytes, indexed by hash.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/writer_impl.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)
/* 2^14 stored chunks of 8 bytes a chunk; 2^16 map entries of 4. */
#define REC_SHIFT 14
#define MAP_SHIFT 16
/* A map's head: its chunk format and its entry count. */
#define MAP_HEAD 2u

struct chunk_rec {
	uint32_t blk;
	uint32_t len;
};

int erofs_chunk_init(struct sqp_writer *w, unsigned hash_bits)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_chunks *c = &e->chunks;
	uint32_t size = w->desc.erofs_chunk_size;

	if (size == 0)
		return 0;
	while ((1u << c->bits) < size)
		c->bits++;
	while ((1u << c->blk_bits) < BS)
		c->blk_bits++;
	c->hash_bits = hash_bits;
	c->blob = (w->desc.flags & SQP_WRITE_EROFS_BLOB) != 0;
	c->indexes = c->blob || (w->desc.flags & SQP_WRITE_EROFS_CHUNK_INDEXES);
	chunkarr_init(&c->recs, sizeof(struct chunk_rec), REC_SHIFT, w->spill);
	chunkarr_init(&c->maps, 4, MAP_SHIFT, w->spill);
	c->buf = malloc(size);
	c->back = malloc(BS);
	if (c->buf == NULL || c->back == NULL || hchain_init(&c->idx, w->spill) != 0)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	if (c->blob && imgout_init(&c->out, w->desc.erofs_blob_fd, 0, &w->err) != 0)
		return w->err.code;
	c->out_open = c->blob;
	return 0;
}

void erofs_chunk_cleanup(struct sqp_writer *w)
{
	struct erofs_chunks *c = &erofs_of(w)->chunks;

	if (c->bits == 0)
		return;
	if (c->out_open)
		imgout_cleanup(&c->out);
	hchain_cleanup(&c->idx);
	chunkarr_cleanup(&c->recs);
	chunkarr_cleanup(&c->maps);
	free(c->buf);
	free(c->back);
	memset(c, 0, sizeof(*c));
}

/* Where chunks go: the blob, or the image. */
static struct imgout *chunk_out(struct sqp_writer *w)
{
	struct erofs_chunks *c = &erofs_of(w)->chunks;

	return c->blob ? &c->out : &w->out;
}

/* Whether the stored chunk at blk holds data's len bytes. */
static int same_stored(struct sqp_writer *w, uint32_t blk, const uint8_t *data, uint32_t len)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_chunks *c = &e->chunks;
	struct imgout *out = chunk_out(w);
	uint64_t at = (uint64_t)blk * BS;
	uint32_t done, n;
	int ret;

	if (at + len > out->flushed && (ret = imgout_flush(out)) != 0)
		return ret;
	for (done = 0; done < len; done += n) {
		n = len - done < BS ? len - done : BS;
		if ((ret = imgout_pread(out, at + done, c->back, n)) != 0)
			return writer_fail(w, ret, "EROFS: chunk dedup: reading back "
					   "block %llu", (unsigned long long)(at + done) / BS);
		if (memcmp(c->back, data + done, n) != 0)
			return 0;
	}
	return 1;
}

static int all_zero(const uint8_t *p, uint32_t len)
{
	return len == 0 || (p[0] == 0 && memcmp(p, p + 1, len - 1) == 0);
}

/* The chunk of len bytes in c->buf: *blk its block, shared, a hole
 * or appended now (zero padded to a block in c->buf, which a chunk's
 * size of whole blocks leaves room for). */
static int put_chunk(struct sqp_writer *w, uint32_t len, uint32_t *blk)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_chunks *c = &e->chunks;
	struct imgout *out = chunk_out(w);
	uint8_t *data = c->buf;
	uint32_t blocks = (len + BS - 1) / BS, i;
	uint64_t key = XXH3_64bits_withSeed(data, len, len), at;
	struct chunk_rec *r;
	int ret;

	if (all_zero(data, len)) {
		*blk = EROFS_NULL_ADDR;
		w->stats.blocks_sparse += blocks;
		return 0;
	}
	/* writer_test.h's hash_bits: collisions become the rule. */
	if (c->hash_bits > 0 && c->hash_bits < 64)
		key &= (UINT64_C(1) << c->hash_bits) - 1;
	w->stats.hashed++;
	for (i = hchain_first(&c->idx, key); i != HCHAIN_END; i = hchain_next(&c->idx, i, key)) {
		r = chunkarr_at(&c->recs, i);
		if (r->len != len)
			continue;
		if ((ret = same_stored(w, r->blk, data, len)) < 0)
			return ret;
		if (ret == 1) {
			*blk = r->blk;
			w->stats.blocks_deduped += blocks;
			return 0;
		}
		w->stats.dedup_rejected++;
	}
	at = out->pos / BS;
	if (at + blocks >= EROFS_NULL_ADDR)
		return writer_fail(w, SQP_ERR_LIMIT, "EROFS: chunks past the 32-bit "
				   "block range of the %s", c->blob ? "blob" : "image");
	*blk = (uint32_t)at;
	memset(data + len, 0, (size_t)blocks * BS - len);
	/* The blob's bytes feed the derived UUID as the image's do. */
	erofs_w_hash(w, data, (size_t)blocks * BS);
	if ((ret = imgout_append(out, data, (size_t)blocks * BS)) != 0)
		return ret;
	w->stats.blocks_written += blocks;
	if ((ret = chunkarr_add(&c->recs, 1, &i)) != 0 ||
	    (ret = hchain_insert(&c->idx, key)) != 0)
		return writer_fail(w, ret, "EROFS: chunk dedup: out of memory");
	r = chunkarr_at(&c->recs, i);
	r->blk = *blk;
	r->len = len;
	return 0;
}

/* Whether every group of 2^extra entries of m (n of them, each chunk
 * per blocks) is holes only or one run of blocks. */
static int mergeable(const uint32_t *m, uint64_t n, unsigned extra, uint64_t per)
{
	uint64_t g, j, size = (uint64_t)1 << extra;

	for (g = 0; g < n; g += size)
		for (j = 1; j < size && g + j < n; j++) {
			if (m[g] == EROFS_NULL_ADDR ? m[g + j] != EROFS_NULL_ADDR :
			    m[g + j] != m[g] + j * per)
				return 0;
		}
	return 1;
}

/* The map of n entries merged as far as it goes: the format's block
 * bits into head[0], the entry count into head[1]. */
static void merge(struct erofs_chunks *c, uint32_t *head, uint64_t n)
{
	uint32_t *m = head + MAP_HEAD;
	unsigned base = c->bits - c->blk_bits, extra = 0;
	uint64_t k, per = (uint64_t)1 << base;

	while (base + extra < EROFS_CHUNK_BLKBITS_MASK && ((uint64_t)1 << extra) < n &&
	       mergeable(m, n, extra + 1, per))
		extra++;
	for (k = 0; k << extra < n; k++)
		m[k] = m[k << extra];
	head[0] = (base + extra) | (c->indexes ? EROFS_CHUNK_INDEXES : 0);
	head[1] = (uint32_t)k;
}

/* A new map for a file of size bytes: its record in *rec, its entry
 * count in *n. */
static int map_new(struct sqp_writer *w, uint64_t size, uint32_t *rec, uint64_t *n)
{
	struct erofs_chunks *c = &erofs_of(w)->chunks;
	int ret;

	*n = (size + ((uint64_t)1 << c->bits) - 1) >> c->bits;
	if (*n > UINT32_MAX - MAP_HEAD)
		return writer_fail(w, SQP_ERR_LIMIT, "EROFS: a file of %llu chunks",
				   (unsigned long long)*n);
	if ((ret = chunkarr_add(&c->maps, (uint32_t)(*n + MAP_HEAD), rec)) != 0)
		return writer_fail(w, ret, "EROFS: chunk maps: out of memory");
	return 0;
}

/* The map's entries filled: merged, and f says the file is chunk based. */
static void map_done(struct sqp_writer *w, uint32_t rec, uint64_t n, uint64_t size,
		     struct fs_inode *f)
{
	merge(&erofs_of(w)->chunks, chunkarr_at(&erofs_of(w)->chunks.maps, rec), n);
	f->u.file.size = size;
	f->u.file.blocks_start = 0;
	f->u.file.ero_rec = rec;
	f->u.file.ero_zip = EROFS_W_CHUNKED;
}

/* The length of chunk k of a file of size bytes. */
static uint32_t chunk_len(const struct erofs_chunks *c, uint64_t size, uint64_t k)
{
	uint64_t csize = (uint64_t)1 << c->bits;

	return (uint32_t)(size - k * csize < csize ? size - k * csize : csize);
}

int erofs_chunk_add(struct sqp_writer *w, uint64_t size,
		    const struct sqp_data_source *src, struct fs_inode *f)
{
	struct erofs_chunks *c = &erofs_of(w)->chunks;
	uint64_t n, k;
	uint32_t rec, len, *head;
	int ret;

	/* After every cluster still being compressed, as a flat file's
	 * blocks go. */
	if ((ret = erofs_zip_drain(w)) != 0 || (ret = map_new(w, size, &rec, &n)) != 0)
		return ret;
	head = chunkarr_at(&c->maps, rec);
	for (k = 0; k < n; k++) {
		len = chunk_len(c, size, k);
		if ((ret = writer_read_filled(src, c->buf, len)) != 0)
			return ret;
		w->stats.bytes_in += len;
		if ((ret = put_chunk(w, len, &head[MAP_HEAD + k])) != 0)
			return ret;
	}
	map_done(w, rec, n, size, f);
	return 0;
}

int erofs_chunk_mem(struct sqp_writer *w, const uint8_t *data, uint64_t size,
		    struct fs_inode *f)
{
	struct erofs_chunks *c = &erofs_of(w)->chunks;
	uint64_t n, k;
	uint32_t rec, len, *head;
	int ret;

	if ((ret = map_new(w, size, &rec, &n)) != 0)
		return ret;
	head = chunkarr_at(&c->maps, rec);
	for (k = 0; k < n; k++) {
		len = chunk_len(c, size, k);
		memcpy(c->buf, data + (k << c->bits), len);
		if ((ret = put_chunk(w, len, &head[MAP_HEAD + k])) != 0)
			return ret;
	}
	map_done(w, rec, n, size, f);
	return 0;
}

int erofs_chunk_run(struct sqp_writer *w, uint64_t start, uint64_t size, struct fs_inode *f)
{
	const struct erofs_wstate *e = erofs_of(w);
	const struct erofs_chunks *c = &e->chunks;
	uint64_t n, k, per = (uint64_t)1 << (c->bits - c->blk_bits);
	uint32_t rec, *head;
	int ret;

	if (start + (size + BS - 1) / BS >= EROFS_NULL_ADDR)
		return writer_fail(w, SQP_ERR_LIMIT, "EROFS: chunks past the 32-bit "
				   "block range of the image");
	if ((ret = map_new(w, size, &rec, &n)) != 0)
		return ret;
	head = chunkarr_at(&c->maps, rec);
	for (k = 0; k < n; k++)
		head[MAP_HEAD + k] = (uint32_t)(start + k * per);
	map_done(w, rec, n, size, f);
	return 0;
}

uint64_t erofs_chunk_shape(const struct sqp_writer *w, uint32_t rec, uint32_t *format)
{
	const uint32_t *head = chunkarr_at(&erofs_of(w)->chunks.maps, rec);

	*format = head[0];
	return head[1];
}

void erofs_chunk_encode(const struct sqp_writer *w, uint32_t rec, uint8_t *out)
{
	const uint32_t *head = chunkarr_at(&erofs_of(w)->chunks.maps, rec);
	uint16_t dev = erofs_of(w)->chunks.blob ? 1 : 0;
	uint32_t k;

	for (k = 0; k < head[1]; k++) {
		uint32_t blk = head[MAP_HEAD + k];

		if (!(head[0] & EROFS_CHUNK_INDEXES)) {
			sqp_put32(out + 4 * k, blk);
			continue;
		}
		/* the blob's device 1, the image's 0 */
		erofs_chunk_index_encode(dev, blk, out + 8 * k);
	}
}

int erofs_chunk_flush(struct sqp_writer *w)
{
	struct erofs_chunks *c = &erofs_of(w)->chunks;

	return c->blob ? imgout_flush(&c->out) : 0;
}

uint64_t erofs_chunk_blob_blocks(const struct sqp_writer *w)
{
	const struct erofs_wstate *e = erofs_of(w);
	const struct erofs_chunks *c = &e->chunks;

	return c->blob ? c->out.pos / BS : 0;
}
