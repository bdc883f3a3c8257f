/* SPDX-License-Identifier: MIT */
/*
 * sqfs_finish.c - the SquashFS back end after the last entry: flush the
 * data path,
 * write the tables in the order the kernel expects, pad, and only then the
 * superblock, so an interrupted run never leaves a valid-looking header.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "codec/codec_worker.h"
#include "sqpack/error.h"
#include "squashfs/serialize.h"
#include "squashfs/sqfs_format.h"
#include "squashfs/sqfs_writer.h"
#include "squashfs/tables.h"
#include "util/endian.h"
#include "util/spill.h"

static uint32_t image_time(const struct sqp_writer *w)
{
	return sqfs_time(w->desc.mod_time < 0 ? w->newest_mtime : w->desc.mod_time);
}

/* The lookup tables (fragments, exports, ids) go through codec c: NULL
 * stores them uncompressed. */
static int write_fragment_table(struct sqp_writer *w, struct sqp_compressor *c, uint64_t *pos)
{
	size_t i, count = datapipe_fragment_count(&w->pipe);
	uint8_t *buf = malloc(count * SQFS_FRAG_ENTRY_SIZE + 1);
	int ret;

	if (buf == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; i < count; ++i) {
		struct sqfs_frag_entry f = { 0 };

		datapipe_fragment(&w->pipe, i, &f.start, &f.size);
		sqfs_frag_entry_encode(&f, buf + i * SQFS_FRAG_ENTRY_SIZE);
	}
	ret = table_write(&w->out, c, buf, count * SQFS_FRAG_ENTRY_SIZE,
			  NULL, 0, NULL, pos);
	free(buf);
	return ret;
}

/* The export table, encoded in place: the serializer's refs are not
 * needed after this, and a copy would cost 8 bytes per inode of heap
 * outside the spill budget. */
static int write_export_table(struct sqp_writer *w, struct sqp_compressor *c, uint64_t *refs,
			      size_t n, uint64_t *pos)
{
	size_t i;

	for (i = 0; i < n; ++i) {
		sqp_put64((uint8_t *)&refs[i], refs[i]);
		sqp_spill_tick(w->spill);
	}
	return table_write(&w->out, c, (const uint8_t *)refs, n * 8, NULL, 0,
			   w->spill, pos);
}

static int write_id_table(struct sqp_writer *w, struct sqp_compressor *c, uint64_t *pos)
{
	const struct idtable *ids = &sqfs_of(w)->ids;
	uint8_t *buf = malloc(ids->count * 4 + 1);
	size_t i;
	int ret;

	if (buf == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; i < ids->count; ++i)
		sqp_put32(buf + i * 4, ids->ids[i]);
	ret = table_write(&w->out, c, buf, ids->count * 4, NULL, 0, NULL, pos);
	free(buf);
	return ret;
}

static uint16_t super_flags(const struct sqp_writer *w)
{
	uint16_t flags = 0;

	if (!(w->desc.flags & SQP_WRITE_NO_DEDUP))
		flags |= SQFS_FLAG_DEDUPLICATED;
	if (w->desc.fragment_mode == SQP_FRAGMENTS_NONE)
		flags |= SQFS_FLAG_NO_FRAGMENTS;
	if (w->desc.fragment_mode == SQP_FRAGMENTS_ALL)
		flags |= SQFS_FLAG_ALWAYS_FRAGMENTS;
	if (w->desc.flags & SQP_WRITE_EXPORTABLE)
		flags |= SQFS_FLAG_EXPORTABLE;
	if (w->xattrs.count == 0)
		flags |= SQFS_FLAG_NO_XATTRS;
	if (sqfs_of(w)->opts_len > 0)
		flags |= SQFS_FLAG_COMPRESSOR_OPTIONS;
	if (w->desc.flags & SQP_WRITE_RAW_INODES)
		flags |= SQFS_FLAG_UNCOMPRESSED_INODES | SQFS_FLAG_UNCOMPRESSED_IDS;
	if (w->desc.flags & SQP_WRITE_RAW_DATA)
		flags |= SQFS_FLAG_UNCOMPRESSED_DATA;
	if (w->desc.flags & SQP_WRITE_RAW_FRAGMENTS)
		flags |= SQFS_FLAG_UNCOMPRESSED_FRAGMENTS;
	if (w->desc.flags & SQP_WRITE_RAW_XATTRS)
		flags |= SQFS_FLAG_UNCOMPRESSED_XATTRS;
	return flags;
}

/* A finished metadata table, in pieces: it may live in the spill file,
 * and reading it all at once would map all of it in. */
static int append_table(struct sqp_writer *w, const uint8_t *data, size_t len)
{
	const size_t piece = (size_t)4 << 20;
	int ret = 0;

	while (ret == 0 && len > 0) {
		size_t n = len < piece ? len : piece;

		ret = imgout_append(&w->out, data, n);
		data += n;
		len -= n;
		sqp_spill_check(w->spill);
	}
	return ret;
}

/* Inode and directory tables, then the lookup tables, in kernel order;
 * workers: the data path's, whose codec contexts are gone by now. A
 * merge whose tables are a small part of it (tables_fast) compresses
 * them at the codec's fastest level: it copies its data, and at a high
 * level the tables would cost more than that (see lib/rebuild/expect.c).
 * The lookup tables and xattrs too, through a compressor of their own
 * (lookup): the data's at level 15 spent 2 ms of small.tar's 4-shard
 * merge (68 ms of CPU, `cat` 39) on its 10 KB fragment table. Readers
 * take any level; the options block names the data's. */
static int write_tables(struct sqp_writer *w, struct sqfs_super *sb,
			unsigned workers)
{
	struct sqp_codec_config tables = w->desc.codec;
	struct sqp_compressor *fast = NULL, *lookup, *xattrs;
	struct serializer s;
	struct serializer_desc sd = {
		.codec = w->desc.flags & SQP_WRITE_RAW_INODES ? NULL : &tables,
		.workers = workers, .fail_job = w->fail_meta_job,
		.ids = &sqfs_of(w)->ids, .err = &w->err,
		.exportable = !!(w->desc.flags & SQP_WRITE_EXPORTABLE),
		.spill = w->spill,
	};
	int ret;

	if (w->tables_fast) {
		codec_fastest_level(&tables);
		if ((ret = sqp_compressor_create(&tables, &fast)) != 0)
			return writer_fail(w, ret, "starting the tables' compressor: %s",
					   sqp_strerror(ret));
	}
	lookup = sd.codec == NULL ? NULL : fast != NULL ? fast : w->pipe.codec;
	xattrs = w->desc.flags & SQP_WRITE_RAW_XATTRS ? NULL : fast != NULL ? fast : w->pipe.codec;
	ret = serializer_init(&s, &sd);
	if (ret == 0)
		ret = serialize_tree(&s, &w->tree);
	if (ret != 0)
		goto out;
	sb->inode_count = s.inode_count;
	sb->root_inode = s.root_ref;
	sb->inode_table = w->out.pos;
	ret = append_table(w, s.meta.t[META_INODES].out, s.meta.t[META_INODES].out_len);
	sb->dir_table = w->out.pos;
	if (ret == 0)
		ret = append_table(w, s.meta.t[META_DIRS].out, s.meta.t[META_DIRS].out_len);
	if (ret == 0)
		ret = write_fragment_table(w, lookup, &sb->frag_table);
	sb->export_table = SQFS_NO_TABLE;
	if (ret == 0 && s.export_refs != NULL)
		ret = write_export_table(w, lookup, s.export_refs,
					 s.inode_count, &sb->export_table);
	if (ret == 0)
		ret = write_id_table(w, lookup, &sb->id_table);
	if (ret == 0)
		ret = xattr_store_write(&w->xattrs, xattrs, &w->out, &sb->xattr_table);
out:
	serializer_cleanup(&s);
	sqp_compressor_destroy(fast);
	return ret;
}

/* fstree_each_file callback: block numbers become image positions. */
static void resolve_file(void *user, struct fs_inode *ino)
{
	struct sqp_writer *w = user;

	datapipe_resolve(&w->pipe, ino, sqfs_of(w)->data_start);
}

int sqfs_w_finish(struct sqp_writer *w)
{
	struct sqfs_super sb = { 0 };
	uint8_t raw[SQFS_SUPER_SIZE];
	uint32_t mod_time = image_time(w);
	unsigned workers;
	int ret;

	ret = datapipe_flush(&w->pipe);
	if (ret != 0)
		return ret;
	fstree_finalize(&w->tree, mod_time);
	ret = fstree_each_file(&w->tree, resolve_file, w);
	if (ret == 0) {
		workers = datapipe_workers(&w->pipe);
		datapipe_release(&w->pipe);
		ret = write_tables(w, &sb, workers);
	}
	if (ret != 0)
		return w->err.code ? w->err.code : writer_fail(w, ret, "%s", sqp_strerror(ret));

	sb.magic = SQFS_MAGIC;
	sb.mod_time = mod_time;
	sb.block_size = w->desc.codec.block_size;
	sb.frag_count = (uint32_t)datapipe_fragment_count(&w->pipe);
	sb.compressor = (uint16_t)w->desc.codec.id;
	for (sb.block_log = 0; (1u << sb.block_log) < sb.block_size; sb.block_log++)
		;
	sb.flags = super_flags(w);
	sb.id_count = (uint16_t)sqfs_of(w)->ids.count;
	sb.version_major = SQFS_VERSION_MAJOR;
	sb.version_minor = SQFS_VERSION_MINOR;
	sb.bytes_used = w->out.pos;
	w->stats.inodes = sb.inode_count;

	if (!(w->desc.flags & SQP_WRITE_NO_PAD) && w->out.pos % SQFS_DEVBLK_SIZE != 0)
		ret = imgout_append_zeros(&w->out, SQFS_DEVBLK_SIZE - w->out.pos % SQFS_DEVBLK_SIZE);
#ifdef WITH_OPENSSL
	if (ret == 0)
		ret = writer_verity_pad(w);
#endif
	if (ret == 0)
		ret = imgout_flush(&w->out);
	if (ret != 0)
		return ret;
	sqfs_super_encode(&sb, raw);
	ret = imgout_pwrite(&w->out, 0, raw, sizeof(raw));
	w->stats.image_bytes = w->out.pos;
#ifdef WITH_OPENSSL
	if (ret == 0)
		ret = writer_verity_finish(w, raw, sizeof(raw));
#endif
	return ret;
}
