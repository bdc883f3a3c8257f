/* SPDX-License-Identifier: MIT */
/*
 * basecopy.c - a base image's stored blocks and fragment blocks into the
 * data path as they are (see basecopy.h).
 *
 * Copying decompresses nothing: a base block's bytes are trusted to
 * decode as they did in the base (sqp_writer_add_image's caller chose
 * the base; `imginfo check` proves one). Converting (recode) decodes
 * every block on a worker, which refuses one that does not decode to its
 * length. What is checked either way is everything the new
 * image's structure depends on, before any job is queued: each size word
 * within the block size (a raw block exactly its length), every block
 * and fragment block inside the base, a tail inside its fragment block.
 * So a corrupt base gives an error, never an image whose tables point
 * outside what was written.
 *
 * Records of copied blocks: the base position of each, its size word,
 * its new block number and the number of the first block of the file it
 * was copied with. A later file whose blocks are all found at their
 * base positions, in one earlier copy and in order, shares them: the
 * blocks of one copy lie back to back in the image, which sharing needs,
 * while two copies may have a fragment block between them.
 *
 * Across images (by_bytes, the shards of one build): a file that may
 * also be in another image is keyed by a hash of its stored blocks,
 * read on the orchestrator, and shares an earlier copy with the same
 * key once the stored bytes, read back from the new image, are found
 * equal to its own. Equal stored bytes under one codec and block size
 * decode equal, so nothing is decompressed; files whose stored bytes
 * differ are simply kept apart.
 *
 * Copies in the kernel: a block as it is goes to the image by
 * copy_file_range (compress_copy, imgout_copy), which joins the copies
 * of blocks that lie back to back in the base, so the bytes never pass
 * through this process. Runs must be long (short copies cost ext4 as
 * much as a read and a write), so a fragment block taken with a tail is
 * held (hold) until the data blocks copied reach where it lies in the
 * base: files are added in the order the base stores them, so a
 * shard's data goes out as one copy, where copying each fragment block
 * when its first tail was met cut it at every one. small.tar in 4
 * zstd shards, img2img --shards -j 2: 4 copies instead of 1196 reads.
 *
 * The workers read a base's blocks until sqp_writer_finish, long after
 * sqp_writer_add_image has returned and its caller has closed the base:
 * so the jobs read a descriptor and a codec setting that the writer
 * owns (struct base_src, one per base, freed by datapipe_cleanup), not
 * the caller's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "util/fileio.h"
#include "util/hchain.h"
#include "write/basecopy.h"
#include "write/words.h"

/* A fragment block taken (copy_tail) and not queued yet: where it lies
 * in the base, its size word and its new number. */
struct held_frag {
	uint64_t pos;
	uint32_t word, index;
};

struct copied {
	uint64_t pos;          /* in the base */
	uint32_t word;
	uint32_t phys;         /* in the new image */
	uint32_t run;          /* phys of the first block copied with it */
};

/* What a base's queued jobs read: the writer's own, until cleanup. */
struct base_src {
	struct base_src *next;
	int fd;                       /* a duplicate of the base's */
	struct sqp_codec_config recode;
};

struct basecopy {
	struct datapipe *p;    /* borrowed */
	int fd;                /* the writer's (struct base_src) */
	uint64_t origin, end;
	uint32_t frag_count;
	/* NULL: blocks as they are; else the writer's copy (base_src) */
	const struct sqp_codec_config *recode;
	uint32_t *frag_map;    /* per base fragment block: new index + 1 */
	/* Fragment blocks taken and held until the data blocks queued
	 * reach where they lie in the base (held_release), sorted by
	 * position; cursor: the base position after the last data block
	 * queued. */
	struct held_frag *held;
	size_t held_count, held_cap;
	uint64_t cursor;
	/* basecopy_repack_tails: the last fragment block decoded, its
	 * stored bytes read into frag_in, and the decoder of the base's
	 * codec when it is not the writer's (recode). */
	int repack;
	const uint8_t *repack_map;  /* NULL: every fragment block */
	uint8_t *frag_raw, *frag_in;
	uint32_t frag_raw_index, frag_raw_len;
	struct sqp_compressor *dec;
	/* by_bytes: a base block's stored bytes and an earlier copy's,
	 * read back from the new image (NULL: not keyed by bytes). */
	uint8_t *stored, *back;
	struct hchain index;   /* copied[] by base position */
	struct copied *copied;
	size_t copied_cap;
};

int basecopy_create(struct datapipe *p, int fd, uint64_t origin, uint64_t end,
		    uint32_t frag_count, const struct sqp_codec_config *recode,
		    struct basecopy **out)
{
	struct basecopy *bc = calloc(1, sizeof(*bc));
	struct base_src *src = calloc(1, sizeof(*src));

	*out = bc;
	if (bc == NULL || src == NULL) {
		free(src);
		return sqp_err(p->err, SQP_ERR_NOMEM, "out of memory");
	}
	if ((src->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0)) < 0) {
		free(src);
		return sqp_err(p->err, SQP_ERR_IO, "the base image's descriptor: %s",
			       strerror(errno));
	}
	if (recode != NULL)
		src->recode = *recode;
	src->next = p->bases;
	p->bases = src;
	bc->p = p;
	bc->fd = src->fd;
	bc->origin = origin;
	bc->end = end;
	bc->frag_count = frag_count;
	bc->recode = recode != NULL ? &src->recode : NULL;
	if (hchain_init(&bc->index, NULL) != 0 ||
	    (frag_count > 0 &&
	     (bc->frag_map = calloc(frag_count, sizeof(*bc->frag_map))) == NULL))
		return sqp_err(p->err, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

void basecopy_sources_free(struct datapipe *p)
{
	struct base_src *src, *next;

	for (src = p->bases; src != NULL; src = next) {
		next = src->next;
		close(src->fd);
		free(src);
	}
	p->bases = NULL;
}

void basecopy_destroy(struct basecopy *bc)
{
	if (bc == NULL)
		return;
	hchain_cleanup(&bc->index);
	free(bc->frag_raw);
	free(bc->frag_in);
	free(bc->stored);
	free(bc->back);
	sqp_compressor_destroy(bc->dec);
	free(bc->copied);
	free(bc->frag_map);
	free(bc->held);
	free(bc);
}

int basecopy_repack_tails(struct basecopy *bc, const uint8_t *repack)
{
	uint32_t bs = bc->p->block_size;

	bc->frag_raw = malloc(bs);
	bc->frag_in = malloc(bs);
	if (bc->frag_raw == NULL || bc->frag_in == NULL ||
	    (bc->recode != NULL && sqp_compressor_create(bc->recode, &bc->dec) != 0))
		return sqp_err(bc->p->err, SQP_ERR_NOMEM, "out of memory");
	/* A recoded block's bytes are not the base's: nothing to compare. */
	if (bc->recode == NULL &&
	    ((bc->stored = malloc(bs)) == NULL || (bc->back = malloc(bs)) == NULL))
		return sqp_err(bc->p->err, SQP_ERR_NOMEM, "out of memory");
	bc->frag_raw_index = WR_NO_FRAGMENT;
	bc->repack = 1;
	bc->repack_map = repack;
	return 0;
}

int basecopy_fits(const struct datapipe *p, const struct base_file *f)
{
	if (f->frag_index == WR_NO_FRAGMENT)
		return 1;
	return p->fragment_mode == SQP_FRAGMENTS_ALL ||
	       (p->fragment_mode == SQP_FRAGMENTS_SMALL && f->block_count == 0);
}

/* Logical bytes of block i of f. */
static uint32_t block_len(const struct datapipe *p, const struct base_file *f,
			  uint32_t i)
{
	uint64_t left = f->size - (uint64_t)i * p->block_size;

	return left < p->block_size ? (uint32_t)left : p->block_size;
}

static int check(struct basecopy *bc, const struct base_file *f)
{
	const uint32_t bs = bc->p->block_size;
	uint64_t full = f->size / bs, pos = f->blocks_start;
	uint32_t tail = (uint32_t)(f->size % bs), i, len, flen;
	int frag = f->frag_index != WR_NO_FRAGMENT;

	if (f->block_count != full + (tail > 0 && !frag) || (frag && tail == 0))
		return SQP_ERR_CORRUPT;
	for (i = 0; i < f->block_count; i++) {
		len = f->words[i] & WR_BLOCK_SIZE_MASK;
		if (len > bs || pos > bc->end || len > bc->end - pos ||
		    ((f->words[i] & WR_BLOCK_RAW) && len != 0 &&
		     len != block_len(bc->p, f, i)))
			return SQP_ERR_CORRUPT;
		pos += len;
	}
	if (!frag)
		return 0;
	flen = f->frag_word & WR_BLOCK_SIZE_MASK;
	if (f->frag_index >= bc->frag_count || flen == 0 || flen > bs ||
	    f->frag_start > bc->end || flen > bc->end - f->frag_start ||
	    f->frag_offset > bs - tail)
		return SQP_ERR_CORRUPT;
	return 0;
}

/* The first block number of an earlier copy of all of f's stored blocks,
 * or PHYS_NONE. */
static uint32_t find_copy(const struct basecopy *bc, const struct base_file *f)
{
	uint32_t i, r, k = 0, first = PHYS_NONE, run = PHYS_NONE;
	uint64_t pos = f->blocks_start;
	const struct copied *c;

	for (i = 0; i < f->block_count; i++) {
		uint32_t len = f->words[i] & WR_BLOCK_SIZE_MASK;

		if (len == 0)
			continue;
		for (r = hchain_first(&bc->index, pos); r != HCHAIN_END;
		     r = hchain_next(&bc->index, r, pos)) {
			c = &bc->copied[r];
			if (c->pos == pos && c->word == f->words[i] &&
			    (run == PHYS_NONE ? 1 : c->run == run && c->phys == first + k))
				break;
		}
		if (r == HCHAIN_END)
			return PHYS_NONE;
		if (run == PHYS_NONE) {
			run = c->run;
			first = c->phys;
		}
		k++;
		pos += len;
	}
	return first;
}

static int remember(struct basecopy *bc, uint64_t pos, uint32_t word,
		    uint32_t phys, uint32_t run)
{
	size_t n = bc->index.count;
	struct copied *c;

	if (n == bc->copied_cap) {
		c = sqp_array_grow(bc->copied, &bc->copied_cap, n + 1, sizeof(*c), 1024);
		if (c == NULL)
			return SQP_ERR_NOMEM;
		bc->copied = c;
	}
	if (hchain_insert(&bc->index, pos) != 0)
		return SQP_ERR_NOMEM;
	bc->copied[n] = (struct copied){ pos, word, phys, run };
	return 0;
}

/* Queue one stored block of the base (a data block, or a fragment block
 * when frag) as new block or fragment block number index. */
static int queue(struct basecopy *bc, uint64_t pos, uint32_t word,
		 uint32_t raw_len, uint32_t index, int frag)
{
	struct blk_job *job;

	if (bc->recode == NULL && compress_can_copy(bc->p->comp))
		return compress_copy(bc->p->comp, frag ? JOB_BASE_FRAGMENT : JOB_BASE_BLOCK,
				     index, word, bc->fd, bc->origin + pos);
	if ((job = compress_get_job(bc->p->comp)) == NULL)
		return bc->p->err->code;
	job->kind = frag ? JOB_BASE_FRAGMENT : JOB_BASE_BLOCK;
	job->index = index;
	job->raw_len = raw_len;
	job->size_word = word;
	job->copy_fd = bc->fd;
	job->copy_from = bc->origin + pos;
	job->recode = bc->recode;
	return compress_submit(bc->p->comp, job);
}

/* Fragment block index (at pos of the base, size word word) held until
 * the data blocks reach it. */
static int hold(struct basecopy *bc, uint64_t pos, uint32_t word, uint32_t index)
{
	struct held_frag *h = bc->held;
	size_t i = bc->held_count;

	if (i == bc->held_cap) {
		h = sqp_array_grow(bc->held, &bc->held_cap, i + 1, sizeof(*h), 64);
		if (h == NULL)
			return sqp_err(bc->p->err, SQP_ERR_NOMEM, "out of memory");
		bc->held = h;
	}
	/* Tails are met about in the order of their blocks: from the end. */
	for (; i > 0 && h[i - 1].pos > pos; i--)
		;
	memmove(h + i + 1, h + i, (bc->held_count - i) * sizeof(*h));
	h[i] = (struct held_frag){ pos, word, index };
	bc->held_count++;
	return 0;
}

/* Queue the held fragment blocks that lie at from..to (to excluded) in
 * the base, in the base's order. */
static int held_release(struct basecopy *bc, uint64_t from, uint64_t to)
{
	struct held_frag *h = bc->held;
	size_t i = 0, j;
	int ret;

	while (i < bc->held_count && h[i].pos < from)
		i++;
	for (j = i; j < bc->held_count && h[j].pos < to; j++) {
		ret = queue(bc, h[j].pos, h[j].word, bc->p->block_size, h[j].index, 1);
		if (ret != 0)
			return ret;
	}
	if (j > i) {   /* h is NULL while nothing was ever held */
		memmove(h + i, h + j, (bc->held_count - j) * sizeof(*h));
		bc->held_count -= j - i;
	}
	return 0;
}

int basecopy_end(struct basecopy *bc)
{
	return held_release(bc, 0, UINT64_MAX);
}

static int by_bytes(const struct basecopy *bc, const struct base_file *f)
{
	return f->by_bytes && bc->stored != NULL;
}

/* The stored block at pos (size word word) into bc->stored, and its
 * key: a hash of those bytes, seeded with the word. */
static int stored_key(struct basecopy *bc, uint64_t pos, uint32_t word,
		      XXH128_hash_t *key)
{
	uint32_t len = word & WR_BLOCK_SIZE_MASK;
	int ret = sqp_pread_full(bc->fd, bc->origin + pos, bc->stored, len);

	if (ret != 0)
		return sqp_err(bc->p->err, ret, "reading the base image at %llu: %s",
			       (unsigned long long)pos, sqp_strerror(ret));
	*key = XXH3_128bits_withSeed(bc->stored, len, word);
	return 0;
}

/* Whether the stored blocks from c on, back to back in the new image,
 * hold f's stored blocks byte for byte (*fits). */
static int run_equal(struct basecopy *bc, const struct base_file *f, uint32_t c,
		     int *fits)
{
	struct dedup_store *s = bc->p->store;
	uint64_t pos = f->blocks_start;
	uint32_t i, k = 0, len;
	struct dedup_where w;
	int ret;

	for (i = 0; i < f->block_count; i++) {
		if ((len = f->words[i] & WR_BLOCK_SIZE_MASK) == 0)
			continue;
		*fits = 0;
		if ((uint64_t)c + k >= dedup_store_count(s))
			return 0;
		if ((ret = dedup_store_wait(s, c + k, &w)) != 0)
			return ret;
		if (w.size_word != f->words[i])
			return 0;
		if (k > 0 && ((ret = dedup_store_follows(s, c + k, fits)) != 0 || !*fits))
			return ret;
		ret = sqp_pread_full(bc->fd, bc->origin + pos, bc->stored, len);
		if (ret == 0)
			ret = imgout_pread(bc->p->out, w.offset, bc->back, len);
		if (ret != 0)
			return sqp_err(bc->p->err, ret, "comparing stored blocks: %s",
				       sqp_strerror(ret));
		if (memcmp(bc->stored, bc->back, len) != 0) {
			*fits = 0;
			bc->p->stats->dedup_rejected++;
			return 0;
		}
		k++;
		pos += len;
	}
	*fits = 1;
	return 0;
}

/* Earlier copies tried for one file. */
#define MAX_EQUAL_TRIES 8

/* by_bytes: the first block number of an earlier copy of f's stored
 * blocks, nominated by the key of its first stored block and proven by
 * run_equal, or PHYS_NONE in *first. */
static int find_equal(struct basecopy *bc, const struct base_file *f, uint32_t *first)
{
	uint32_t i = 0, c = PHYS_NONE;
	unsigned tries = 0;
	XXH128_hash_t key;
	int fits, ret;

	*first = PHYS_NONE;
	while (i < f->block_count && (f->words[i] & WR_BLOCK_SIZE_MASK) == 0)
		i++;
	if (i == f->block_count)
		return 0;   /* holes alone: nothing stored to share */
	/* holes take no room: the first stored block is at blocks_start */
	if ((ret = stored_key(bc, f->blocks_start, f->words[i], &key)) != 0)
		return ret;
	while (tries++ < MAX_EQUAL_TRIES &&
	       (c = dedup_store_next(bc->p->store, key, c)) != PHYS_NONE) {
		if ((ret = run_equal(bc, f, c, &fits)) != 0)
			return ret;
		if (fits) {
			*first = c;
			return 0;
		}
	}
	return 0;
}

/* f's blocks as new blocks, back to back. */
static int copy_blocks(struct basecopy *bc, struct fs_inode *ino,
		       const struct base_file *f)
{
	struct datapipe *p = bc->p;
	uint64_t pos = f->blocks_start;
	uint32_t i, len, phys, run = PHYS_NONE;
	XXH128_hash_t key;
	int ret;

	for (i = 0; i < f->block_count; i++) {
		len = f->words[i] & WR_BLOCK_SIZE_MASK;
		if (len == 0) {
			ino->u.file.block_sizes[i] = 0;
			ino->u.file.sparse += block_len(p, f, i);
			p->stats->blocks_sparse++;
			continue;
		}
		/* Never nominated by a content hash: the key is where the
		 * block was, or a hash of its stored bytes (by_bytes), and a
		 * nomination is verified in any case. */
		key.low64 = pos;
		key.high64 = ((uint64_t)f->words[i] << 32) | 0x62617365u;
		if (by_bytes(bc, f) && (ret = stored_key(bc, pos, f->words[i], &key)) != 0)
			return ret;
		/* the fragment blocks the base has between the last data
		 * block queued and this one go first, so a run of the
		 * base's blocks is one run in the image */
		ret = pos >= bc->cursor ? held_release(bc, bc->cursor, pos) : 0;
		if (ret == 0)
			ret = dedup_store_add(p->store, key, block_len(p, f, i), &phys);
		if (ret == 0)
			ret = queue(bc, pos, f->words[i], block_len(p, f, i), phys, 0);
		if (ret != 0)
			return ret;
		bc->cursor = pos + len;
		if (run == PHYS_NONE)
			run = phys;
		if (remember(bc, pos, f->words[i], phys, run) != 0)
			return sqp_err(p->err, SQP_ERR_NOMEM, "out of memory");
		if ((uint32_t)ino->u.file.blocks_start == PHYS_NONE)
			ino->u.file.blocks_start = phys;
		ino->u.file.block_sizes[i] = phys + 1;
		pos += len;
	}
	return 0;
}

/* Point ino at an earlier copy of its blocks starting at first. */
static void share_blocks(struct basecopy *bc, struct fs_inode *ino,
			 const struct base_file *f, uint32_t first)
{
	uint32_t i, k = 0;

	ino->u.file.blocks_start = first;
	for (i = 0; i < f->block_count; i++) {
		if ((f->words[i] & WR_BLOCK_SIZE_MASK) == 0) {
			ino->u.file.block_sizes[i] = 0;
			ino->u.file.sparse += block_len(bc->p, f, i);
			bc->p->stats->blocks_sparse++;
			continue;
		}
		ino->u.file.block_sizes[i] = first + k++ + 1;
		bc->p->stats->blocks_deduped++;
	}
}

static int copy_tail(struct basecopy *bc, struct fs_inode *ino,
		     const struct base_file *f)
{
	uint32_t *slot = &bc->frag_map[f->frag_index], index;
	int ret;

	if (*slot == 0) {
		ret = fragpack_reserve(bc->p->pack, &index);
		if (ret == 0)
			ret = hold(bc, f->frag_start, f->frag_word, index);
		if (ret != 0)
			return ret;
		*slot = index + 1;
	}
	ino->u.file.frag_index = *slot - 1;
	ino->u.file.frag_offset = f->frag_offset;
	return 0;
}

/* The fragment block f's tail is in, decoded into bc->frag_raw. */
static int decode_fragment(struct basecopy *bc, const struct base_file *f)
{
	uint32_t len = f->frag_word & WR_BLOCK_SIZE_MASK, bs = bc->p->block_size;
	struct sqp_compressor *dec = bc->dec ? bc->dec : bc->p->codec;
	int n, ret;

	if (bc->frag_raw_index == f->frag_index)
		return 0;
	bc->frag_raw_index = WR_NO_FRAGMENT;
	ret = sqp_pread_full(bc->fd, bc->origin + f->frag_start, bc->frag_in, len);
	if (ret != 0)
		return sqp_err(bc->p->err, ret, "reading the base image's fragment block "
			       "%u", f->frag_index);
	if (f->frag_word & WR_BLOCK_RAW) {
		memcpy(bc->frag_raw, bc->frag_in, len);
		n = (int)len;
	} else {
		n = sqp_decompress(dec, bc->frag_in, len, bc->frag_raw, bs);
	}
	if (n <= 0)
		return SQP_ERR_CORRUPT;
	bc->frag_raw_len = (uint32_t)n;
	bc->frag_raw_index = f->frag_index;
	return 0;
}

/* f's tail decoded and packed anew (basecopy_repack_tails). */
static int repack_tail(struct basecopy *bc, struct fs_inode *ino, const struct base_file *f)
{
	uint32_t tail = (uint32_t)(f->size % bc->p->block_size);
	int shared, ret = decode_fragment(bc, f);

	if (ret != 0)
		return ret;
	if (f->frag_offset > bc->frag_raw_len || tail > bc->frag_raw_len - f->frag_offset)
		return SQP_ERR_CORRUPT;
	memcpy(bc->p->tail_buf, bc->frag_raw + f->frag_offset, tail);
	return datapipe_place_tail(bc->p, ino, tail, &shared);
}

/* Whether f's tail is packed anew (basecopy_repack_tails); check() has
 * kept its block number below frag_count. */
static int repacked(const struct basecopy *bc, const struct base_file *f)
{
	return bc->repack && (bc->repack_map == NULL || bc->repack_map[f->frag_index]);
}

int datapipe_add_base(struct datapipe *p, struct basecopy *bc,
		      struct fs_inode *ino, const struct base_file *f)
{
	uint32_t first;
	int ret;

	ino->u.file.size = f->size;
	ino->u.file.blocks_start = PHYS_NONE;
	ino->u.file.frag_index = WR_NO_FRAGMENT;
	if (check(bc, f) != 0)
		return SQP_ERR_CORRUPT;
	if (f->block_count > 0) {
		ino->u.file.block_sizes = calloc(f->block_count, sizeof(uint32_t));
		if (ino->u.file.block_sizes == NULL)
			return sqp_err(p->err, SQP_ERR_NOMEM, "out of memory");
	}
	ino->u.file.block_count = f->block_count;
	first = find_copy(bc, f);
	if (first == PHYS_NONE && by_bytes(bc, f) && (ret = find_equal(bc, f, &first)) != 0)
		return ret;
	if (first != PHYS_NONE)
		share_blocks(bc, ino, f, first);
	else if ((ret = copy_blocks(bc, ino, f)) != 0)
		return ret;
	if (f->frag_index != WR_NO_FRAGMENT &&
	    (ret = repacked(bc, f) ? repack_tail(bc, ino, f) : copy_tail(bc, ino, f)) != 0)
		return ret;
	if (first != PHYS_NONE && f->frag_index == WR_NO_FRAGMENT)
		p->stats->files_deduped++;
	p->stats->files_copied += bc->recode == NULL;
	p->stats->bytes_in += f->size;
	return 0;
}
