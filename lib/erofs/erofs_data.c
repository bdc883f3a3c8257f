/* SPDX-License-Identifier: MIT */
/*
 * erofs_data.c - the EROFS back end's set-up, limits, data path and
 * inline xattrs (its struct writer_format).
 *
 * Its limits, met when an entry comes: none on owners (32-bit, as the
 * tree's) or times (64-bit seconds and nanoseconds: an extended inode
 * holds them, as mkfs.erofs keeps them); a 12-bit major and 20-bit minor
 * device number (the kernel's new_decode_dev form).
 *
 * Why its own path: an uncompressed EROFS file is one run of whole
 * blocks named by its first block, with the tail either inline after the
 * inode or in a last block of its own, so SquashFS's block lists,
 * fragments and holes do not apply. Full blocks are appended as they are
 * read, in the order files arrive; a tail that fits its inode's block
 * waits in an arena (spilled with the tree) until finish lays out the
 * metadata. Nothing here depends on timing, so the image is the same for
 * any -j. Every byte appended after block 0 also feeds the hash that a
 * derived UUID is made from.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/words.h"
#include "write/writer_impl.h"
#include "write/writer_test.h"

/* 2^16 units of 32 bytes: 2 MiB chunks. */
#define TAIL_CHUNK_SHIFT 16

static int check(const struct sqp_writer_desc *d, struct sqp_errbuf *err)
{
	uint32_t bs = d->codec.block_size;

	/* Linux mounts blocks below its page size since 6.x; a logical
	 * cluster is a block, pclusters and chunks whole blocks. A tar's
	 * index has 512-byte blocks whatever this says, as mkfs.erofs's. */
	if (bs < 512 || bs > EROFS_W_BLOCK || (bs & (bs - 1)) != 0)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: block size %u is not 512, "
			       "1024, 2048 or 4096", bs);
	if (d->erofs_pcluster_size % bs != 0 || d->erofs_pcluster_size > EROFS_Z_PCLUSTER_MAX)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: pcluster size %u is not a "
			       "multiple of the block size (%u) up to 1 MiB",
			       d->erofs_pcluster_size, bs);
	if ((d->flags & (SQP_WRITE_EROFS_TAR_INDEX | SQP_WRITE_EROFS_TAR_HEADERBALL)) &&
	    d->codec.id != 0)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: an index of a tar stores no "
			       "data to compress: no codec");
	if (d->erofs_max_extent != 0 && d->erofs_max_extent < bs)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: a compressed cluster's most "
			       "input bytes (%u) is less than a block",
			       d->erofs_max_extent);
	if (d->erofs_chunk_size != 0 && ((d->erofs_chunk_size & (d->erofs_chunk_size - 1)) ||
					 d->erofs_chunk_size < bs ||
					 d->erofs_chunk_size > EROFS_CHUNK_MAX))
		return sqp_err(err, SQP_ERR_ARG, "EROFS: chunk size %u is not a power "
			       "of two from the block size (%u) to 1 GiB",
			       d->erofs_chunk_size, bs);
	/* With a codec, a file of several segments that gains nothing is
	 * in the image already when it turns out so (erofs_chunk.c). */
	if ((d->flags & SQP_WRITE_EROFS_BLOB) && d->codec.id != 0)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: a blob device with a codec "
			       "is not done (chunk-based files in the image: no blob)");
	if (d->erofs_metabox_pcluster != 0 &&
	    (d->codec.id == 0 || d->erofs_metabox_pcluster % bs != 0 ||
	     d->erofs_metabox_pcluster > EROFS_Z_PCLUSTER_MAX ||
	     d->erofs_metabox_codec > (d->erofs_codec2.id != 0 ? 1u : 0u)))
		return sqp_err(err, SQP_ERR_ARG, "EROFS: the metabox needs a codec of "
			       "the image's and a pcluster size that is a multiple of "
			       "the block size up to 1 MiB");
	if (d->erofs_metabox_pcluster != 0 &&
	    (d->flags & (SQP_WRITE_EROFS_TAR_INDEX | SQP_WRITE_EROFS_TAR_HEADERBALL |
			 SQP_WRITE_EROFS_BLOB)))
		return sqp_err(err, SQP_ERR_ARG, "EROFS: the metabox's superblock slot is "
			       "where a device table goes: not with an extra device");
	if ((d->flags & SQP_WRITE_EROFS_COMPRESS_DIRS) &&
	    (d->flags & (SQP_WRITE_EROFS_TAR_INDEX | SQP_WRITE_EROFS_TAR_HEADERBALL)))
		return sqp_err(err, SQP_ERR_ARG, "EROFS: an index of a tar keeps its "
			       "directories as they are: no compressed directories");
	if (d->erofs_chunk_size != 0 &&
	    (d->flags & (SQP_WRITE_EROFS_TAR_INDEX | SQP_WRITE_EROFS_TAR_HEADERBALL)))
		return sqp_err(err, SQP_ERR_ARG, "EROFS: an index of a tar makes its "
			       "own chunks: no chunk size");
	if ((d->flags & SQP_WRITE_EROFS_BLOB) && d->erofs_chunk_size == 0)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: a blob device holds chunks: "
			       "it needs a chunk size");
	/* The tree would vouch for the image and not for the file data. */
	if ((d->flags & SQP_WRITE_EROFS_BLOB) && d->verity != NULL)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: dm-verity covers the image "
			       "alone, not its blob device: not with a blob");
	if ((d->erofs_codec2.id != 0 || d->erofs_hints != NULL) && d->codec.id == 0)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: a second codec and compress "
			       "hints need a codec");
	if (d->volume_label != NULL && strlen(d->volume_label) > 16)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: volume label '%s' is longer "
			       "than 16 bytes", d->volume_label);
	return 0;
}

/* The image's UUID is given (-U, --uuid): not derived from its bytes. */
static int uuid_given(const struct sqp_writer_desc *d)
{
	static const uint8_t zero[16];

	return (d->flags & SQP_WRITE_EROFS_UUID) || memcmp(d->uuid, zero, 16) != 0;
}

/* Block 0 reserved, the arena and buffers; dedup hashes cut to the
 * hook's hash_bits (writer_test.h; 0: whole). */
static int init(struct sqp_writer *w, const struct writer_test_hooks *hooks)
{
	struct erofs_wstate *e = calloc(1, sizeof(*e));

	w->fmt_state = e;
	if (e == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	chunkarr_init(&e->tails, EROFS_W_TAIL_UNIT, TAIL_CHUNK_SHIFT, w->spill);
	e->block = malloc(EROFS_W_BLOCK);
	if (e->block == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	/* The hash of the image's bytes is only for a UUID derived from
	 * them (erofs_head.c): with one given (-U) nothing is hashed. */
	if (!uuid_given(&w->desc)) {
		if ((e->hash = XXH3_createState()) == NULL)
			return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
		XXH3_128bits_reset(e->hash);
	}
	e->tidx = (w->desc.flags & SQP_WRITE_EROFS_TAR_INDEX) ? EROFS_TIDX_INDEX :
		  (w->desc.flags & SQP_WRITE_EROFS_TAR_HEADERBALL) ? EROFS_TIDX_HEADERBALL : 0;
	e->bs = e->tidx == EROFS_TIDX_INDEX ? 512 : w->desc.codec.block_size;
	e->frag.fail_read = hooks->fail_log_read;
	if (erofs_zip_init(w) != 0 || erofs_dedup_init(w, hooks->hash_bits) != 0 ||
	    erofs_chunk_init(w, hooks->hash_bits) != 0)
		return w->err.code;
	/* The head: zeros, then the superblock at 1024 once finish knows
	 * it (block 0, or blocks 0 to 2 of 512 bytes). */
	return imgout_append_zeros(&w->out, (size_t)(erofs_head_blk(w) + 1) * e->bs);
}

static void cleanup(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);

	if (e == NULL)
		return;
	imgout_stop_async(&w->out);   /* erofs_w_copy's */
	erofs_zip_cleanup(w);
	erofs_frag_cleanup(w);
	erofs_dedup_cleanup(w);
	erofs_chunk_cleanup(w);
	chunkarr_cleanup(&e->tails);
	free(e->block);
	XXH3_freeState(e->hash);
	free(e);
	w->fmt_state = NULL;
}

void erofs_w_hash(struct sqp_writer *w, const void *data, size_t len)
{
	if (erofs_of(w)->hash != NULL)
		XXH3_128bits_update(erofs_of(w)->hash, data, len);
}

int erofs_w_append(struct sqp_writer *w, const void *data, size_t len)
{
	erofs_w_hash(w, data, len);
	return imgout_append(&w->out, data, len);
}

int erofs_w_copy(struct sqp_writer *w, const uint8_t *id, int fd, uint64_t off,
		 uint64_t len)
{
	uint8_t rec[32];

	memcpy(rec, id, 16);
	sqp_put64(rec + 16, off);
	sqp_put64(rec + 24, len);
	erofs_w_hash(w, rec, sizeof(rec));
	/* The first copy starts the writer thread, which then makes the
	 * copies in the kernel while this thread goes on with the next
	 * files and the metadata (imgwriter.c); finish waits for it
	 * (imgout_flush). Without a tap: imgout_copy refuses one. */
	if (w->out.async == NULL && w->out.tap.feed == NULL &&
	    imgout_start_async(&w->out, 1) != 0)
		return w->err.code;
	return imgout_copy(&w->out, fd, off, len);
}

static int read_data(struct sqp_writer *w, const struct sqp_data_source *src,
		     uint8_t *buf, size_t n)
{
	int ret = writer_read_filled(src, buf, n);

	if (ret == 0)
		w->stats.bytes_in += n;
	return ret;
}

int erofs_w_tail_blocked(const struct sqp_writer *w, uint32_t tail, uint32_t xattr_size)
{
	return 64 + xattr_size + tail > erofs_of(w)->bs ||
	       (w->desc.flags & SQP_WRITE_EROFS_NO_INLINE);
}

int erofs_w_put_tail(struct sqp_writer *w, const uint8_t *data, uint32_t tail,
		     uint32_t xattr_size, struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);
	uint32_t units, index;
	int ret;

	f->u.file.ero_rec = FS_NONE;
	if (tail == 0)
		return 0;
	if (erofs_w_tail_blocked(w, tail, xattr_size)) {
		/* A last block, zero padded. */
		if (data != e->block)
			memcpy(e->block, data, tail);
		memset(e->block + tail, 0, e->bs - tail);
		w->stats.blocks_written++;
		return erofs_w_append(w, e->block, e->bs);
	}
	units = (tail + EROFS_W_TAIL_UNIT - 1) / EROFS_W_TAIL_UNIT;
	if ((ret = chunkarr_add(&e->tails, units, &index)) != 0)
		return ret;
	memcpy(chunkarr_at(&e->tails, index), data, tail);
	f->u.file.ero_rec = index;
	return 0;
}

int erofs_w_add_file(struct sqp_writer *w, struct fs_irec *ino, uint64_t size,
		     uint32_t xattr_size, const struct sqp_data_source *src,
		     struct fs_inode *f)
{
	struct erofs_wstate *e = erofs_of(w);

	/* e->sel.cap 0: a hint asks this file stored as it is. */
	if (e->frag.on && !e->frag.packing && size > 0 && e->sel.cap != 0 &&
	    (size <= e->sel.cap || (w->desc.flags & SQP_WRITE_EROFS_ALL_FRAGMENTS)))
		return erofs_frag_whole(w, ino, size, xattr_size, src, f);
	if (e->dest != NULL && e->sel.cap != 0 && erofs_zip_fits(w, size))
		return erofs_zip_add(w, ino, size, xattr_size, src, f);
	/* What is not compressed is chunk based, as in mkfs.erofs; the
	 * packed inode of the fragments stays as it is. */
	if (e->chunks.bits != 0 && size > 0 && !e->frag.packing)
		return erofs_chunk_add(w, size, src, f);
	return erofs_w_add_flat(w, size, xattr_size, src, f, NULL);
}

int erofs_w_add_flat(struct sqp_writer *w, uint64_t size, uint32_t xattr_size,
		     const struct sqp_data_source *src, struct fs_inode *f,
		     const struct erofs_flat_copy *cp)
{
	struct erofs_wstate *e = erofs_of(w);
	uint64_t full = size / e->bs, i;
	uint32_t tail = (uint32_t)(size % e->bs);
	int appends = full > 0 || (tail > 0 && erofs_w_tail_blocked(w, tail, xattr_size));
	int ret;

	/* Blocks go after every cluster still being compressed. */
	if (appends && e->dest != NULL && (ret = erofs_zip_drain(w)) != 0)
		return ret;
	if (appends && e->dd.on && !e->frag.packing)
		return erofs_dedup_flat_stream(w, size, xattr_size, src, f);
	f->u.file.size = size;
	f->u.file.blocks_start = appends ? w->out.pos / e->bs : 0;
	if (f->u.file.blocks_start > UINT32_MAX - full - 1)
		return SQP_ERR_LIMIT;
	i = 0;
	/* a base's blocks, of this image's size (erofs_zcopy.c) */
	if (cp != NULL && cp->blocks > 0 && cp->blocks <= full) {
		if ((ret = erofs_w_copy(w, cp->id, cp->fd, cp->off, cp->blocks * e->bs)) != 0 ||
		    (ret = src->skip(src->user, cp->blocks * e->bs)) != 0)
			return ret;
		w->stats.blocks_written += cp->blocks;
		w->stats.bytes_in += cp->blocks * e->bs;
		i = cp->blocks;
	}
	/* Read straight into the image's buffer, as many blocks at a time
	 * as it holds: one copy of each byte and one read per 256 KiB of a
	 * streamed file, where a block at a time took two and one. */
	while (i < full) {
		size_t room;
		uint8_t *at = imgout_room(&w->out, e->bs, &room);
		uint64_t n = full - i < room / e->bs ? full - i : room / e->bs;

		if (at == NULL)
			return w->err.code;
		if ((ret = read_data(w, src, at, (size_t)n * e->bs)) != 0)
			return ret;
		erofs_w_hash(w, at, (size_t)n * e->bs);
		if ((ret = imgout_commit(&w->out, (size_t)n * e->bs)) != 0)
			return ret;
		w->stats.blocks_written += n;
		i += n;
	}
	if (tail > 0 && (ret = read_data(w, src, e->block, tail)) != 0)
		return ret;
	return erofs_w_put_tail(w, e->block, tail, xattr_size, f);
}

/* EROFS's name index of a store record's prefix id (user, trusted,
 * security: the only ones the store keeps). */
static uint8_t name_index(uint16_t type)
{
	static const uint8_t map[] = {
		[WR_XATTR_USER] = 1, [WR_XATTR_TRUSTED] = 4,
		[WR_XATTR_SECURITY] = 6,
	};
	return map[type & 0xFF];
}

/* The store's records (sqfs form: type, name size, name, value size,
 * value) are walked for size, name filter and encoding: one parser,
 * three uses. *filter: the bits of the names (erofs_format.h); out's
 * 12-byte header is left to the caller. */
static size_t walk_set(const struct xattr_set *set, uint8_t *out, int *bad,
		       uint32_t *filter)
{
	const uint8_t *p = set->blob, *end = set->blob + set->len;
	size_t size = 12;

	*bad = 0;
	*filter = 0;
	while (p < end) {
		struct erofs_xattr_head h;
		uint16_t nlen = sqp_get16(p + 2);
		uint32_t vlen = sqp_get32(p + 4 + nlen);

		if (nlen > 255 || vlen > UINT16_MAX)
			*bad = 1;
		h.name_len = (uint8_t)nlen;
		h.name_index = name_index(sqp_get16(p));
		h.value_size = (uint16_t)vlen;
		if (out != NULL && !*bad) {
			erofs_xattr_head_encode(&h, out + size);
			memcpy(out + size + 4, p + 4, nlen);
			memcpy(out + size + 4 + nlen, p + 8 + nlen, vlen);
			memset(out + size + 4 + nlen + vlen, 0,
			       (4 - (nlen + vlen) % 4) % 4);
		}
		size += (4 + (size_t)nlen + vlen + 3) & ~(size_t)3;
		*filter |= 1u << (XXH32(p + 4, nlen, EROFS_XATTR_FILTER_SEED +
					h.name_index) & 31);
		p += 8 + nlen + vlen;
	}
	return size;
}

int erofs_w_xattr_size(struct sqp_writer *w, uint32_t id, uint32_t *size)
{
	uint32_t filter;
	size_t n;
	int bad;

	*size = 0;
	if (id == WR_NO_XATTR)
		return 0;
	n = walk_set(&w->xattrs.sets[id], NULL, &bad, &filter);
	/* The area must fit one block beside a 64-byte inode. */
	if (bad || n > erofs_of(w)->bs - 64)
		return SQP_ERR_LIMIT;
	/* The superblock says so once some inode's filter has a bit set,
	 * as mkfs.erofs 1.9 does (32 names may hash to every bit). */
	if ((w->desc.flags & SQP_WRITE_EROFS_XATTR_FILTER) && filter != UINT32_MAX)
		erofs_of(w)->xfilter = 1;
	*size = (uint32_t)n;
	return 0;
}

void erofs_w_xattr_encode(const struct sqp_writer *w, uint32_t id, uint8_t *out)
{
	uint32_t filter;
	int bad;

	walk_set(&w->xattrs.sets[id], out, &bad, &filter);
	erofs_xattr_ibody_header_encode((w->desc.flags & SQP_WRITE_EROFS_XATTR_FILTER) ?
					~filter : 0, out);
}

static int check_owners(struct sqp_writer *w, const char *path, uint32_t uid, uint32_t gid)
{
	(void)w, (void)path, (void)uid, (void)gid;
	return 0; /* an extended inode holds 32-bit owners, as the tree */
}

static int check_entry(struct sqp_writer *w, const struct sqp_entry *e,
		       const struct fs_attr *a)
{
	(void)a;
	if ((S_ISBLK(e->mode) || S_ISCHR(e->mode)) &&
	    (e->dev_major > 0xFFF || e->dev_minor > 0xFFFFF))
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': device %u:%u does not fit "
				   "EROFS's 12-bit major, 20-bit minor", e->path,
				   e->dev_major, e->dev_minor);
	return 0;
}

static int add_file(struct sqp_writer *w, const struct sqp_entry *e, struct fs_irec *ino,
		    const struct sqp_data_source *data, struct fs_inode *file)
{
	uint32_t xsize;

	if (erofs_w_xattr_size(w, ino->xattr_set, &xsize) != 0)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': xattrs do not fit EROFS's "
				   "inline area (names up to 255 bytes, values up to "
				   "65535, %u bytes in all with blocks of %u)", e->path,
				   erofs_of(w)->bs - 64, erofs_of(w)->bs);
	if (erofs_of(w)->tidx)
		return erofs_tidx_add(w, e, file);
	if (erofs_of(w)->nhints > 0)
		erofs_hints_pick(erofs_of(w), e->path);
	return erofs_w_add_file(w, ino, e->size, xsize, data, file);
}

/* A base EROFS image's file (lib/rebuild): erofs_zcopy.c. */
static int add_base(struct sqp_writer *w, const struct sqp_entry *e, struct fs_irec *ino,
		    const struct writer_base *b, struct fs_inode *file)
{
	uint32_t xsize;

	if (erofs_w_xattr_size(w, ino->xattr_set, &xsize) != 0)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': xattrs do not fit EROFS's "
				   "inline area", e->path);
	return erofs_zcopy_add(w, ino, e->size, xsize, b, file);
}

/* The build time: desc.mod_time, else the newest entry's; a compact
 * inode has it. */
static int finish(struct sqp_writer *w)
{
	int ret = erofs_chunk_flush(w);

	if (ret == 0)
		ret = erofs_w_finish(w, w->desc.mod_time >= 0 ? w->desc.mod_time
					: w->newest_mtime);

#ifdef WITH_OPENSSL
	/* --verity: block 0 was written last; the tree covers its final
	 * bytes, read back from the file. */
	if (ret == 0)
		ret = writer_verity_seal(w);
#endif
	return ret;
}

const struct writer_format writer_erofs = {
	.name = "EROFS",
	.check = check,
	.init = init,
	.cleanup = cleanup,
	.check_entry = check_entry,
	.check_owners = check_owners,
	.add_file = add_file,
	.finish = finish,
	.base_fits = erofs_zcopy_fits,
	.add_base = add_base,
};
