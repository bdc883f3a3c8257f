/* SPDX-License-Identifier: MIT */
/*
 * verity_writer.c - the writer's side of --verity: start the hasher with
 * the image, and after the superblock write the tree where it was asked
 * for (after the image, or in a file of its own). The same for both
 * formats: the hasher takes bytes, and each back end hands it, at its
 * finish, the final bytes of the start it rewrote last.
 *
 * The hasher is fed by imgout (every appended or queued byte, in image
 * order); the default salt is derived from the writer's description, so
 * that the same input and options give the same root hash on every run
 * and at every -j (jobs is left out of it on purpose).
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/abi.h"
#include "util/endian.h"
#include "util/fileio.h"
#include "verity/verity.h"
#include "write/writer_impl.h"

/* What the back ends rewrite after it was fed, all within the image's
 * first 4 KiB: SquashFS its 96-byte superblock at 0, EROFS its block 0
 * (superblock at 1024, compression configurations after it, and the
 * inodes that meta_blkaddr 0 puts there). The hasher keeps that much
 * aside and hashes it only at finish. */
#define VERITY_HEAD 4096

/* imgout's tap: the hasher sees every byte of the image, on the
 * orchestrator; the data blocks' whole verity blocks are hashed where
 * the spans go (the data path's pool workers). */
static int feed(void *ctx, const void *data, size_t len)
{
	return verity_feed(ctx, data, len);
}

static int place(void *ctx, const void *data, size_t len, void *span)
{
	return verity_place(ctx, data, len, span);
}

static int hash(void *span)
{
	return verity_span_hash(span);
}

int writer_verity_start(struct sqp_writer *w)
{
	const struct sqp_writer_desc *d = &w->desc;
	struct sqp_verity_desc vd;
	uint8_t derive[44];
	size_t derive_len = 40;
	int ret;

	if (d->verity == NULL)
		return 0;
	ret = sqp_abi_in(&w->err, "sqp_verity_desc", &vd, sizeof(vd),
			 SQP_SIZE_TO(struct sqp_verity_desc, salt), d->verity);
	w->desc.verity = NULL; /* borrowed only until now */
	if (ret != 0)
		return ret;
	/* What decides the image's layout, so two different images built
	 * from one input never share a salt by accident. */
	sqp_put64(derive, (uint64_t)d->mod_time);
	sqp_put32(derive + 8, (uint32_t)d->codec.id);
	sqp_put32(derive + 12, d->codec.block_size);
	sqp_put32(derive + 16, (uint32_t)d->codec.level);
	sqp_put32(derive + 20, d->flags);
	sqp_put32(derive + 24, (uint32_t)d->fragment_mode);
	sqp_put32(derive + 28, vd.block_size | (uint32_t)!!vd.no_superblock << 31);
	sqp_put64(derive + 32, d->offset);
	/* The format too, but SquashFS's salt (and so its root hashes) as
	 * before EROFS had verity. */
	if (d->format != SQP_FORMAT_SQUASHFS) {
		sqp_put32(derive + 40, (uint32_t)d->format);
		derive_len = 44;
	}
	w->verity_separate = vd.separate;
	w->verity_hash_fd = vd.hash_fd;
	ret = verity_create(&vd, derive, derive_len, VERITY_HEAD, w->spill, &w->err,
			    &w->verity);
	if (ret == 0) {
		w->out.tap = (struct imgout_tap){
			.feed = feed, .place = place, .hash = hash,
			.span_size = verity_span_size(w->verity), .ctx = w->verity,
		};
	}
	return ret;
}

/* --verity covers whole blocks, even with NO_PAD. */
int writer_verity_pad(struct sqp_writer *w)
{
	uint32_t bs = w->verity != NULL ? verity_block_size(w->verity) : 1;

	return w->out.pos % bs != 0 ? imgout_append_zeros(&w->out, bs - w->out.pos % bs) : 0;
}


/* verity_put_fn for a tree in a file of its own: written in order from
 * its start. */
static int put_separate(void *ctx, const void *data, size_t len)
{
	struct sqp_writer *w = ctx;
	int r = sqp_pwrite_full(w->verity_hash_fd, w->verity_hash_pos, data, len);

	if (r != 0)
		return writer_fail(w, r, "writing the verity hash tree: %s", strerror(errno));
	w->verity_hash_pos += len;
	return 0;
}

/* verity_put_fn for a tree after the image. */
static int put_appended(void *ctx, const void *data, size_t len)
{
	struct sqp_writer *w = ctx;

	return imgout_append(&w->out, data, len);
}

int writer_verity_finish(struct sqp_writer *w, const uint8_t *super, size_t super_len)
{
	int ret;

	if (w->verity == NULL)
		return 0;
	/* the tree is not part of what it covers */
	w->out.tap = (struct imgout_tap){ .feed = NULL };
	ret = verity_finish(w->verity, super, super_len);
	if (ret != 0)
		return ret;
	w->verity_hash_offset = w->verity_separate ? 0 : w->desc.offset + w->out.pos;
	if (w->verity_separate)
		return verity_write_tree(w->verity, put_separate, w);
	ret = verity_write_tree(w->verity, put_appended, w);
	return ret != 0 ? ret : imgout_flush(&w->out);
}

int writer_verity_seal(struct sqp_writer *w)
{
	uint8_t head[VERITY_HEAD];
	size_t n;
	int ret;

	if (w->verity == NULL)
		return 0;
	if ((ret = writer_verity_pad(w)) != 0 || (ret = imgout_flush(&w->out)) != 0)
		return ret;
	w->stats.image_bytes = w->out.pos;
	/* Read back, not rebuilt: what the kernel will read is what the
	 * tree must cover, whatever the back end patched there. */
	n = w->out.pos < VERITY_HEAD ? (size_t)w->out.pos : VERITY_HEAD;
	if ((ret = imgout_pread(&w->out, 0, head, n)) != 0)
		return writer_fail(w, ret, "reading back the image's start for dm-verity: %s",
				   sqp_strerror(ret));
	return writer_verity_finish(w, head, n);
}

int sqp_writer_get_verity(const struct sqp_writer *w, struct sqp_verity_result *r)
{
	struct sqp_verity_result all;

	if (w->verity == NULL || !w->finished || w->err.code != 0)
		return SQP_ERR_SEQUENCE;
	verity_get_result(w->verity, &all);
	all.hash_offset = w->verity_hash_offset;
	return sqp_abi_out(NULL, "sqp_verity_result", r, &all, sizeof(all),
			   SQP_SIZE_TO(struct sqp_verity_result, has_superblock));
}

void writer_verity_destroy(struct sqp_writer *w)
{
	verity_destroy(w->verity);
	w->verity = NULL;
}
