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
 * A headerball (SQP_WRITE_EROFS_TAR_HEADERBALL, mkfs.erofs
 * --tar=headerball) is a tar without its members' data: the same tree,
 * 4096-byte blocks, each file's chunks holes in a 4-byte block map (no
 * device to point into), as mkfs.erofs 1.9 writes it.
 */
#include "config.h"

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/writer_impl.h"

#define TAR_BLOCK 512u
#define TAR_BITS 9u
/* The largest chunk: the format's 5 bits of block bits. */
#define CHUNK_BITS_MAX EROFS_CHUNK_BLKBITS_MASK

int erofs_tidx_add(struct sqp_writer *w, const struct sqp_entry *e, struct fs_inode *f)
{
	struct erofs_wstate *s = erofs_of(w);
	uint64_t off, blocks = (e->size + TAR_BLOCK - 1) / TAR_BLOCK;

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
				   "needs the member's bytes whole in an uncompressed "
				   "tar (sparse members and compressed tars are not "
				   "indexed)", e->path);
	if (off % TAR_BLOCK != 0 || off / TAR_BLOCK + blocks > UINT32_MAX)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': data at byte %llu of the "
				   "tar: not a 512-byte block EROFS can address",
				   e->path, (unsigned long long)off);
	f->u.file.blocks_start = off / TAR_BLOCK;
	if (off + e->size > s->tar_end)
		s->tar_end = off + e->size;
	return 0;
}

uint64_t erofs_tidx_chunks(const struct sqp_writer *w, uint64_t size, uint32_t *format)
{
	uint32_t bs = erofs_of(w)->bs, bits = 0;
	uint64_t blocks = (size + bs - 1) / bs;

	while (bits < CHUNK_BITS_MAX && ((uint64_t)1 << bits) < blocks)
		bits++;
	*format = bits | (erofs_of(w)->tidx == EROFS_TIDX_INDEX ? EROFS_CHUNK_INDEXES : 0);
	return (blocks + ((uint64_t)1 << bits) - 1) >> bits;
}

void erofs_tidx_encode(const struct sqp_writer *w, uint64_t size, uint64_t first_blk,
		       uint8_t *out)
{
	uint32_t format;
	uint64_t n = erofs_tidx_chunks(w, size, &format), k;
	unsigned bits = format & EROFS_CHUNK_BLKBITS_MASK;

	if (erofs_of(w)->tidx == EROFS_TIDX_HEADERBALL) {
		for (k = 0; k < n; k++, out += 4)
			sqp_put32(out, EROFS_NULL_ADDR);
		return;
	}
	/* advise 0, device 1, the chunk's first block in the tar */
	for (k = 0; k < n; k++, out += 8) {
		sqp_put16(out, 0);
		sqp_put16(out + 2, 1);
		sqp_put32(out + 4, (uint32_t)(first_blk + (k << bits)));
	}
}

void erofs_tidx_super(const struct sqp_writer *w, struct erofs_super *sb)
{
	sb->feature_incompat |= EROFS_IN_CHUNKED_FILE;
	if (erofs_of(w)->tidx != EROFS_TIDX_INDEX)
		return;
	sb->blkszbits = TAR_BITS;
	sb->feature_incompat |= EROFS_IN_DEVICE_TABLE;
	sb->extra_devices = 1;
}

uint64_t erofs_tidx_blocks(const struct sqp_writer *w)
{
	return (erofs_of(w)->tar_end + TAR_BLOCK - 1) / TAR_BLOCK;
}
