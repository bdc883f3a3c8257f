/* SPDX-License-Identifier: MIT */
/*
 * erofs_head.c - the EROFS image's head, written last by erofs_finish.c:
 * the superblock at 1024, the compression records after it (or the
 * device table of a tar's index, erofs_tidx.c), and where the room
 * after them starts for the first inode records.
 */
#include "config.h"

#include <string.h>

#include "codec/codec_dest.h"
#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "write/writer_impl.h"

/* The block size, with the layout L in scope. */
#define BS (erofs_of(L->w)->bs)

/* The algorithms of the writer's codecs, a bit each (compr_algs). */
static unsigned compr_algs(const struct erofs_wstate *e)
{
	unsigned i, algs = 0;

	for (i = 0; i < e->ncodec; i++)
		algs |= 1u << e->zdest[i]->erofs_alg;
	return algs;
}

/* The compression records that follow the superblock, into cfgs (one
 * per algorithm of compr_algs, in the order of their numbers, as the
 * kernel reads them; one-block lz4 alone needs none and leaves the
 * image as mkfs.erofs 1.5 writes it; big pclusters need lz4's, as the
 * kernel sizes its buffers by the largest pcluster, and the other
 * algorithms name themselves and their history, the largest that any
 * codec of theirs needs); returns their bytes. */
static size_t compr_cfgs(const struct erofs_wlayout *L, uint8_t *cfgs)
{
	const struct erofs_wstate *e = erofs_of(L->w);
	unsigned alg, i, algs;
	uint32_t history;
	size_t n = 0;

	if (!e->compressed)
		return 0;
	algs = compr_algs(e);
	if (algs == 1u << EROFS_ALG_LZ4 && !erofs_w_big_pclusters(L->w))
		return 0;
	for (alg = 0; alg <= EROFS_ALG_ZSTD; alg++) {
		if (!(algs & 1u << alg))
			continue;
		history = 0;
		for (i = 0; i < e->ncodec; i++)
			if (e->zdest[i]->erofs_alg == (int)alg && e->zdest[i]->history != NULL &&
			    e->zdest[i]->history(&e->zcfg[i], e->pcluster) > history)
				history = e->zdest[i]->history(&e->zcfg[i], e->pcluster);
		n += erofs_compr_cfg_encode(alg, history, (uint16_t)(e->pcluster / e->bs),
					    cfgs + n);
	}
	return n;
}

/* Whether the image has an extra device (a tar's index: the tar;
 * chunks in a blob: the blob), with its slot where a codec's records
 * would be (neither takes a codec). */
static int has_device(const struct erofs_wstate *e)
{
	return e->tidx == EROFS_TIDX_INDEX || e->chunks.blob;
}

/* The table's place into the encoded superblock raw, and the device's
 * slot: no tag (the device is the one the mount names, or the rest of
 * the image), its blocks (32 bits) and where it starts when appended
 * (mapped_blkaddr, the image's own blocks: mkfs.erofs's uniaddr). */
static void device_slot(const struct erofs_wlayout *L, uint32_t image_blocks,
			uint8_t *raw, uint8_t *slot)
{
	const struct erofs_wstate *e = erofs_of(L->w);

	sqp_put16(raw + 88, (uint16_t)(EROFS_TIDX_SLOT_AT / 128));
	memset(slot, 0, 128);
	sqp_put32(slot + 64, (uint32_t)(e->tidx ? erofs_tidx_blocks(L->w) :
					erofs_chunk_blob_blocks(L->w)));
	sqp_put32(slot + 68, image_blocks);
}

/* Where the compression records start: after the superblock and, with
 * a metabox, its extension slot (the metabox's nid). */
static uint32_t cfgs_at(const struct erofs_wstate *e)
{
	return EROFS_COMPR_CFGS_OFFSET + (e->frag.mbox ? EROFS_SUPER_EXTSLOT : 0);
}

uint32_t erofs_w_head_from(const struct erofs_wlayout *L)
{
	uint8_t cfgs[EROFS_W_CODECS * EROFS_COMPR_CFG_MAX];
	size_t end = has_device(erofs_of(L->w)) ? EROFS_TIDX_HEAD_END :
		     cfgs_at(erofs_of(L->w)) + compr_cfgs(L, cfgs);

	return (uint32_t)((end + EROFS_SLOT_SIZE - 1) / EROFS_SLOT_SIZE * EROFS_SLOT_SIZE);
}

int64_t erofs_w_epoch(const struct sqp_writer *w, int64_t bt)
{
	if (!(w->desc.flags & SQP_WRITE_EROFS_48BIT) || bt < 0)
		return bt;
	return bt > (int64_t)UINT32_MAX ? bt - (int64_t)UINT32_MAX : 0;
}

int erofs_w_write_super(struct erofs_wlayout *L, int64_t bt, uint64_t meta_blkaddr,
			uint64_t inos)
{
	const struct sqp_writer_desc *desc = &L->w->desc;
	struct erofs_super sb = {
		.magic = EROFS_MAGIC,
		.feature_incompat = (erofs_of(L->w)->compressed ? EROFS_IN_ZERO_PADDING : 0) |
				    (erofs_of(L->w)->ztail ? EROFS_IN_ZTAILPACKING : 0) |
				    (erofs_of(L->w)->frag.present ? EROFS_IN_FRAGMENTS : 0),
		.root_nid = L->nid[L->root], .inos = inos,
		.build_time = (uint64_t)erofs_w_epoch(L->w, bt),
		.build_delta = (uint32_t)(bt - erofs_w_epoch(L->w, bt)),
		.meta_blkaddr = (uint32_t)meta_blkaddr,
	};
	const struct erofs_wstate *e = erofs_of(L->w);
	struct erofs_super_extra x = { 0 };
	uint8_t raw[EROFS_SUPER_SIZE + EROFS_SUPER_EXTSLOT];
	uint8_t cfgs[EROFS_W_CODECS * EROFS_COMPR_CFG_MAX], slot[128];
	size_t ncfgs;
	XXH128_canonical_t h;
	int ret;

	if (L->w->out.pos / BS > UINT32_MAX)
		return SQP_ERR_LIMIT;
	while ((1u << sb.blkszbits) < BS)
		sb.blkszbits++;
	sb.blocks = (uint32_t)(L->w->out.pos / BS);
	/* init (erofs_data.c) hashes the image's bytes unless it is given */
	if (erofs_of(L->w)->hash == NULL) {
		memcpy(x.uuid, desc->uuid, 16);
	} else {
		/* Derived from every byte after block 0: the same input and
		 * options give the same UUID, a different image another. A
		 * version 4 (random) UUID's marks, as the hash is as good. */
		XXH128_canonicalFromHash(&h, XXH3_128bits_digest(erofs_of(L->w)->hash));
		memcpy(x.uuid, h.digest, 16);
		x.uuid[6] = (uint8_t)((x.uuid[6] & 0x0F) | 0x40);
		x.uuid[8] = (uint8_t)((x.uuid[8] & 0x3F) | 0x80);
	}
	if (desc->volume_label != NULL)
		memcpy(x.volume_name, desc->volume_label, strlen(desc->volume_label));
	if ((ncfgs = compr_cfgs(L, cfgs)) > 0) {
		sb.feature_incompat |= EROFS_IN_COMPR_CFGS;
		sb.compr_algs = (uint16_t)compr_algs(e);
	}
	if (e->frag.present)
		sb.packed_nid = L->nid[L->count];
	if (e->frag.mbox) {
		sb.feature_incompat |= EROFS_IN_METABOX;
		sb.sb_extslots = 1;
	}
	if (e->tidx)
		erofs_tidx_super(L->w, &sb);
	if (e->chunks.bits)
		sb.feature_incompat |= EROFS_IN_CHUNKED_FILE;
	if (e->xfilter)
		sb.feature_compat |= EROFS_COMPAT_XATTR_FILTER;
	if (e->chunks.blob && erofs_chunk_blob_blocks(L->w) > UINT32_MAX)
		return SQP_ERR_LIMIT;
	if (desc->flags & SQP_WRITE_EROFS_48BIT)
		sb.feature_incompat |= EROFS_IN_48BIT;
	if (has_device(e)) {
		sb.feature_incompat |= EROFS_IN_DEVICE_TABLE;
		sb.extra_devices = 1;
	}
	erofs_super_encode(&sb, &x, raw);
	memset(raw + EROFS_SUPER_SIZE, 0, EROFS_SUPER_EXTSLOT);
	sqp_put64(raw + EROFS_SUPER_MBOX_NID, e->frag.mbox ? L->nid[L->count + 1] : 0);
	if (has_device(e))
		device_slot(L, sb.blocks, raw, slot);
	if ((ret = imgout_flush(&L->w->out)) != 0 ||
	    (ret = imgout_pwrite(&L->w->out, EROFS_SUPER_OFFSET, raw, EROFS_SUPER_SIZE +
				 sb.sb_extslots * EROFS_SUPER_EXTSLOT)) != 0)
		return ret;
	if (has_device(e))
		return imgout_pwrite(&L->w->out, EROFS_TIDX_SLOT_AT, slot, sizeof(slot));
	return ncfgs > 0 ? imgout_pwrite(&L->w->out, cfgs_at(e), cfgs, ncfgs) : 0;
}
