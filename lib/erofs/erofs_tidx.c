/* SPDX-License-Identifier: MIT */
/*
 * erofs_tidx.c - an EROFS index of a tar (SQP_WRITE_EROFS_TAR_INDEX,
 * mkfs.erofs --tar=i): the image holds the tree, the tar holds the file
 * data, and the tar's bytes stay as they are (containerd keeps a layer
 * by its digest and appends the tar to the index).
 *
 * Why these choices: a tar member's data starts on a 512-byte boundary,
 * so the image has 512-byte blocks and every address is a tar block.
 * The tar is extra device 1 in the device table; its slot maps it right
 * after the image's own blocks (mapped_blkaddr), so the kernel reads the
 * image with the tar appended as one flat device, or with the tar as the
 * device named by mount -o device=. A member's data is one run in the
 * tar, so each file is chunk based with chunks as large as a power of
 * two of blocks allows: one 8-byte index for any file up to 1 TiB.
 *
 * A sparse member's data regions lie back to back in the tar. Its chunks
 * are as large as its regions' edges allow (every edge but the file's
 * end on a chunk boundary): a chunk in a hole has no block (the null
 * address, read as zeros), a chunk in a region points to its bytes in
 * the tar. The chunks' addresses are kept in the file's block_sizes
 * words until the map is written. mkfs.erofs 1.9.3 reads no sparse map
 * (GNU.sparse.* are unknown pax keys to it, an old GNU 'S' member an
 * unknown type): its index holds the stored bytes alone (for 0.1 and
 * 1.0 as GNUSparseFile.N/NAME), or leaves the member out; this one
 * reads as GNU tar extracts the member.
 *
 * A headerball (SQP_WRITE_EROFS_TAR_HEADERBALL, mkfs.erofs
 * --tar=headerball) is a tar without its members' data: the same tree,
 * 4096-byte blocks, each file's chunks holes in a 4-byte block map (no
 * device to point into), as mkfs.erofs 1.9 writes it.
 */
#include "config.h"

#include <stdlib.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/writer_impl.h"

#define TAR_BLOCK 512u
#define TAR_BITS 9u
/* The largest chunk: the format's 5 bits of block bits. */
#define CHUNK_BITS_MAX EROFS_CHUNK_BLKBITS_MASK
/* A sparse member's chunks at most: its map's words are on the heap and
 * its indexes in the metadata (128 MiB of them here, a 64 GiB file in
 * 4 KiB chunks); a tar's few bytes must not ask for more. */
#define SPARSE_CHUNKS_MAX ((uint64_t)1 << 24)

/* The chunk bits of a file of blocks: the fewest whose chunk count is
 * at most n (the count itself for one chunk). For n >= 2 the count
 * halves (rounded up) with each bit, so a count gives back its bits. */
static unsigned chunk_bits(uint64_t blocks, uint64_t n)
{
	unsigned bits = 0;

	while (bits < CHUNK_BITS_MAX && ((blocks + ((uint64_t)1 << bits) - 1) >> bits) > n)
		bits++;
	return bits;
}

/* The largest chunk bits a sparse member's regions allow (up to
 * max_bits): each region's start, and its end unless it is the file's,
 * on a chunk boundary. -1 when an edge is not on a 512-byte block. */
static int sparse_bits(const struct sqp_entry *e, unsigned max_bits)
{
	uint64_t edges = 0, end;
	unsigned bits = TAR_BITS;

	for (size_t i = 0; i < e->sparse_count; i++) {
		end = e->sparse[i].offset + e->sparse[i].length;
		if (e->sparse[i].length == 0)
			continue;
		edges |= e->sparse[i].offset | (end == e->size ? 0 : end);
	}
	if (edges % TAR_BLOCK != 0)
		return -1;
	while (bits - TAR_BITS < max_bits && (edges & (((uint64_t)2 << bits) - 1)) == 0)
		bits++;
	return (int)(bits - TAR_BITS);
}

/* A sparse member whose stored bytes start at tar byte off: its chunks'
 * first blocks in the tar (EROFS_NULL_ADDR for a hole) into f's
 * block_sizes, one word per chunk. */
static int sparse_map(struct sqp_writer *w, const struct sqp_entry *e, uint64_t off,
		      struct fs_inode *f)
{
	uint64_t blocks = (e->size + TAR_BLOCK - 1) / TAR_BLOCK, n, k, at = off, chunk;
	int bits = sparse_bits(e, chunk_bits(blocks, 1));
	size_t i = 0;

	if (bits < 0)
		return writer_fail(w, SQP_ERR_UNSUPPORTED, "'%s': a sparse member whose data "
				   "regions are not on 512-byte blocks of the file cannot "
				   "be indexed", e->path);
	chunk = (uint64_t)TAR_BLOCK << bits;
	n = (blocks + ((uint64_t)1 << bits) - 1) >> bits;
	if (n > SPARSE_CHUNKS_MAX)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': a sparse member of %llu chunks "
				   "of %llu bytes (its data regions' edges); at most 2^24",
				   e->path, (unsigned long long)n, (unsigned long long)chunk);
	f->u.file.block_sizes = malloc(n * sizeof(uint32_t));
	if (f->u.file.block_sizes == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	f->u.file.block_count = (uint32_t)n;
	for (k = 0; k < n; k++) {
		/* the region chunk k starts in, if any (regions end on chunk
		 * boundaries, so it covers the whole chunk) */
		while (i < e->sparse_count &&
		       e->sparse[i].offset + e->sparse[i].length <= k * chunk) {
			at += e->sparse[i].length;
			i++;
		}
		if (i == e->sparse_count || e->sparse[i].offset > k * chunk) {
			f->u.file.block_sizes[k] = EROFS_NULL_ADDR;
			continue;
		}
		f->u.file.block_sizes[k] = (uint32_t)((at + k * chunk - e->sparse[i].offset) /
						      TAR_BLOCK);
	}
	return 0;
}

int erofs_tidx_add(struct sqp_writer *w, const struct sqp_entry *e, struct fs_inode *f)
{
	struct erofs_wstate *s = erofs_of(w);
	uint64_t off, blocks = (e->size + TAR_BLOCK - 1) / TAR_BLOCK, stored = e->size;

	f->u.file.size = e->size;
	f->u.file.blocks_start = 0;
	f->u.file.ero_rec = FS_NONE;
	if (e->size == 0 || s->tidx == EROFS_TIDX_HEADERBALL)
		return 0;
	if (w->layer_tar == NULL || w->tree.layered)
		return writer_fail(w, SQP_ERR_ARG, "'%s': an index of a tar takes "
				   "its files from one tar only", e->path);
	off = w->tar_data_at;
	if (!w->tar_data_known)
		return writer_fail(w, SQP_ERR_UNSUPPORTED, "'%s': an index of a tar "
				   "needs the member's bytes in an uncompressed tar "
				   "(compressed tars are not indexed)", e->path);
	if (e->sparse_count > 0) {
		blocks = 0;
		for (size_t i = 0; i < e->sparse_count; i++)
			blocks += e->sparse[i].length;
		stored = blocks;
		blocks = (blocks + TAR_BLOCK - 1) / TAR_BLOCK;
	}
	/* every block below EROFS_NULL_ADDR, a hole's address */
	if (off % TAR_BLOCK != 0 || off / TAR_BLOCK + blocks > UINT32_MAX)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': data at byte %llu of the "
				   "tar: not a 512-byte block EROFS can address",
				   e->path, (unsigned long long)off);
	f->u.file.blocks_start = off / TAR_BLOCK;
	if (off + stored > s->tar_end)
		s->tar_end = off + stored;
	return e->sparse_count > 0 ? sparse_map(w, e, off, f) : 0;
}

uint64_t erofs_tidx_chunks(const struct sqp_writer *w, const struct fs_inode *f,
			   uint32_t *format)
{
	uint32_t bs = erofs_of(w)->bs;
	uint64_t blocks = (f->u.file.size + bs - 1) / bs;
	/* a sparse member's count (sparse_map), else one chunk if it can */
	unsigned bits = chunk_bits(blocks, f->u.file.block_sizes != NULL ?
				   f->u.file.block_count : 1);

	*format = bits | (erofs_of(w)->tidx == EROFS_TIDX_INDEX ? EROFS_CHUNK_INDEXES : 0);
	return (blocks + ((uint64_t)1 << bits) - 1) >> bits;
}

void erofs_tidx_encode(const struct sqp_writer *w, const struct fs_inode *f, uint8_t *out)
{
	uint32_t format;
	uint64_t n = erofs_tidx_chunks(w, f, &format), k;
	unsigned bits = format & EROFS_CHUNK_BLKBITS_MASK;

	if (erofs_of(w)->tidx == EROFS_TIDX_HEADERBALL) {
		for (k = 0; k < n; k++, out += 4)
			sqp_put32(out, EROFS_NULL_ADDR);
		return;
	}
	/* device 1 (the tar), the chunk's first block in the tar */
	for (k = 0; k < n; k++, out += 8)
		erofs_chunk_index_encode(1, f->u.file.block_sizes != NULL ?
					 f->u.file.block_sizes[k] :
					 (uint32_t)(f->u.file.blocks_start + (k << bits)), out);
}

void erofs_tidx_super(const struct sqp_writer *w, struct erofs_super *sb)
{
	sb->feature_incompat |= EROFS_IN_CHUNKED_FILE;
	if (erofs_of(w)->tidx == EROFS_TIDX_INDEX)
		sb->blkszbits = TAR_BITS;
}

uint64_t erofs_tidx_blocks(const struct sqp_writer *w)
{
	return (erofs_of(w)->tar_end + TAR_BLOCK - 1) / TAR_BLOCK;
}
