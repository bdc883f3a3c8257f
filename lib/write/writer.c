/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the public image writer: entries in, SquashFS image out
 * (or EROFS: the same entries and tree, erofs_*.c's data path and finish).
 *
 * Image layout, in file order: superblock (written last, at offset 0),
 * compressor options, data and fragment blocks, inode table, directory
 * table, fragment table, export table, id table, xattr table. The kernel
 * insists on the order of the tables after the data, and checks that each
 * table's location list ends before the next table starts.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/erofs_format.h"
#include "squashfs/sqfs_format.h"
#include "sqpack/error.h"
#include "sqpack/writer.h"
#include "util/abi.h"
#include "util/endian.h"
#include "util/pool.h"
#include "util/spill.h"
#include "write/writer_impl.h"
#include "write/writer_test.h"

/* The probe saves time only where the codec is slower than the probe:
 * LZ4 gives up on random bytes faster than the probe can look at them
 * (measured on big.tar: probe 20%, LZ4 32% of the workers' time). */
static int probe_pays(int codec)
{
	return codec != SQP_CODEC_LZ4;
}

static int check_erofs(const struct sqp_writer_desc *d, struct sqp_errbuf *err)
{
	if (d->codec.block_size != EROFS_W_BLOCK)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: block size %u is not 4096",
			       d->codec.block_size);
	if (d->verity != NULL)
		return sqp_err(err, SQP_ERR_UNSUPPORTED, "EROFS: no dm-verity tree");
	if (d->erofs_pcluster_size % EROFS_W_BLOCK != 0 ||
	    d->erofs_pcluster_size > EROFS_Z_PCLUSTER_MAX)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: pcluster size %u is not a "
			       "multiple of 4096 up to 1 MiB", d->erofs_pcluster_size);
	if (d->volume_label != NULL && strlen(d->volume_label) > 16)
		return sqp_err(err, SQP_ERR_ARG, "EROFS: volume label '%s' is longer "
			       "than 16 bytes", d->volume_label);
	return 0;
}

static int check_squashfs(const struct sqp_writer_desc *d, struct sqp_errbuf *err)
{
	uint32_t bs = d->codec.block_size;

	if (bs < SQFS_BLOCK_SIZE_MIN || bs > SQFS_BLOCK_SIZE_MAX || (bs & (bs - 1)) != 0)
		return sqp_err(err, SQP_ERR_ARG, "block size %u is not a power of two "
			       "between 4 KiB and 1 MiB", bs);
	return 0;
}

/* What does not depend on the format first, for every format alike; then
 * the format's own limits. */
static int check_desc(const struct sqp_writer_desc *d, struct sqp_errbuf *err)
{
	if (d->format != SQP_FORMAT_SQUASHFS && d->format != SQP_FORMAT_EROFS)
		return sqp_err(err, SQP_ERR_ARG, "unknown image format %d", d->format);
	if (d->fd < 0)
		return sqp_err(err, SQP_ERR_ARG, "no output file");
	if (d->fragment_mode < SQP_FRAGMENTS_ALL || d->fragment_mode > SQP_FRAGMENTS_NONE)
		return sqp_err(err, SQP_ERR_ARG, "unknown fragment mode %d", d->fragment_mode);
	if (d->prefix != NULL && !writer_path_ok(d->prefix))
		return sqp_err(err, SQP_ERR_ARG, "prefix '%s' is not a normalised relative "
			       "path", d->prefix);
#ifndef WITH_OPENSSL
	if (d->verity != NULL)
		return sqp_err(err, SQP_ERR_UNSUPPORTED,
			       "dm-verity is not built in (configure found no libcrypto)");
#endif
	if (d->format == SQP_FORMAT_EROFS)
		return check_erofs(d, err);
	return check_squashfs(d, err);
}

/* Placeholder for the superblock, then the options block. */
static int write_head(struct sqp_writer *w)
{
	uint8_t head[SQFS_SUPER_SIZE + 2 + SQP_CODEC_OPTIONS_MAX] = { 0 };
	size_t len = 0;
	int ret = sqp_codec_options_encode(&w->desc.codec, head + SQFS_SUPER_SIZE + 2, &len);

	if (ret != 0)
		return sqp_err(&w->err, ret, "compressor options: %s", sqp_strerror(ret));
	w->opts_len = len;
	if (len > 0)
		sqp_put16(head + SQFS_SUPER_SIZE, (uint16_t)(len | SQFS_META_UNCOMPRESSED));
	return imgout_append(&w->out, head, SQFS_SUPER_SIZE + (len ? len + 2 : 0));
}

static int open_spill(struct sqp_writer *w)
{
	struct sqp_spill_desc sd = {
		.budget = w->desc.mem_limit, .dir = w->desc.tmp_dir, .err = &w->err,
	};
	int ret = sqp_spill_create(&sd, &w->spill);

	w->desc.tmp_dir = NULL; /* borrowed only until now */
	if (ret != 0)
		return sqp_err(&w->err, ret, "out of memory");
	return 0;
}

int sqp_writer_create(const struct sqp_writer_desc *desc, struct sqp_writer **out)
{
	return writer_create_hooked(desc, NULL, out);
}

int writer_create_hooked(const struct sqp_writer_desc *desc,
			 const struct writer_test_hooks *hooks,
			 struct sqp_writer **out)
{
	static const struct writer_test_hooks no_hooks;
	struct sqp_writer *w = calloc(1, sizeof(*w));
	struct datapipe_desc pd;
	const char *prefix;
	int ret;

	*out = NULL;
	if (w == NULL)
		return SQP_ERR_NOMEM;
	*out = w;
	if (hooks == NULL)
		hooks = &no_hooks;
	ret = sqp_abi_in(&w->err, "sqp_writer_desc", &w->desc, sizeof(w->desc),
			 SQP_SIZE_TO(struct sqp_writer_desc, verity), desc);
	desc = &w->desc; /* the caller's struct only up to its size */
	if (w->desc.jobs == 0)
		w->desc.jobs = sqp_cpu_count();
	if (ret == 0)
		ret = check_desc(desc, &w->err);
	prefix = w->desc.prefix; /* the caller's: copied, owned from here */
	w->desc.prefix = NULL;
	if (ret == 0 && prefix != NULL && prefix[0] != '\0' &&
	    (w->desc.prefix = strdup(prefix)) == NULL)
		ret = sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0)
		ret = imgout_init(&w->out, desc->fd, 0, &w->err);
	w->out.base = desc->offset;
	if (ret == 0)
		ret = open_spill(w);
#ifdef WITH_OPENSSL
	if (ret == 0)
		ret = writer_verity_start(w); /* its digests are the arena's */
#endif
	if (ret == 0)
		ret = fstree_init(&w->tree, &w->err, desc->warn, desc->warn_user, w->spill);
	if (ret == 0 && idtable_init(&w->ids) != 0)
		ret = sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0)
		ret = xattr_store_init(&w->xattrs, &w->err, desc->warn, desc->warn_user);
	if (ret == 0 && desc->format == SQP_FORMAT_EROFS)
		return erofs_w_init(w, hooks->hash_bits);
	if (ret == 0)
		ret = write_head(w);
	if (ret != 0)
		return ret;
	w->data_start = w->out.pos;
	w->fail_meta_job = hooks->fail_meta_job;

	pd = (struct datapipe_desc){
		.codec = &w->desc.codec, .jobs = w->desc.jobs,
		.fragment_mode = desc->fragment_mode,
		.dedup = !(desc->flags & SQP_WRITE_NO_DEDUP),
		.probe = !(desc->flags & SQP_WRITE_NO_PROBE) &&
			 probe_pays(desc->codec.id),
		.raw_data = !!(desc->flags & SQP_WRITE_RAW_DATA),
		.raw_frags = !!(desc->flags & SQP_WRITE_RAW_FRAGMENTS),
		.hash_bits = hooks->hash_bits, .fd = desc->fd,
		.fail_job = hooks->fail_job,
		.out = &w->out, .err = &w->err, .stats = &w->stats,
		.spill = w->spill,
	};
	/* Even a failed init leaves the pipe fit for cleanup. */
	ret = datapipe_init(&w->pipe, &pd);
	w->pipe_ready = 1;
	return ret;
}

void sqp_writer_destroy(struct sqp_writer *w)
{
	if (w == NULL)
		return;
	if (w->pipe_ready)
		datapipe_cleanup(&w->pipe);
	erofs_w_cleanup(w);
	xattr_store_cleanup(&w->xattrs);
	idtable_cleanup(&w->ids);
	fstree_cleanup(&w->tree);
	imgout_cleanup(&w->out);
#ifdef WITH_OPENSSL
	writer_verity_destroy(w);
#endif
	sqp_spill_destroy(w->spill);
	free(w->lpath);
	free(w->ppath);
	free(w->ptarget);
	writer_rename_free(w);
	free((char *)w->desc.prefix);
	writer_links_free(w);
	hchain_cleanup(&w->layer_sizes);
	free(w);
}

const char *sqp_writer_error(const struct sqp_writer *w)
{
	return sqp_errmsg(&w->err);
}

int sqp_writer_get_stats(const struct sqp_writer *w, struct sqp_writer_stats *st)
{
	struct sqp_writer_stats all = w->stats;
	struct sqp_spill_stats ss;

	sqp_spill_get_stats(w->spill, &ss);
	all.spilled_bytes = ss.file_bytes;
	return sqp_abi_out(NULL, "sqp_writer_stats", st, &all, sizeof(all),
			   SQP_SIZE_TO(struct sqp_writer_stats, proofs_replayed));
}

int writer_fail(struct sqp_writer *w, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sqp_verr(&w->err, code, fmt, ap);
	va_end(ap);
	return w->err.code;
}
