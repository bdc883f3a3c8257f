/* SPDX-License-Identifier: MIT */
/*
 * sqfs_writer.c - the SquashFS back end's set-up and entries (see
 * sqfs_writer.h): the options it reads, the image's head, its limits on
 * an entry's attributes, and a file's data through the data pipe.
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
#include <sys/stat.h>

#include "sqpack/error.h"
#include "squashfs/sqfs_format.h"
#include "squashfs/sqfs_writer.h"
#include "util/endian.h"
#include "write/words.h"
#include "write/writer_test.h"

/* The core's words (write/words.h, write/xattrs.h) are written into the
 * image as they are: they must stay SquashFS's. */
_Static_assert(WR_BLOCK_RAW == SQFS_BLOCK_UNCOMPRESSED &&
	       WR_BLOCK_SIZE_MASK == SQFS_BLOCK_SIZE_MASK &&
	       WR_NO_FRAGMENT == SQFS_NO_FRAGMENT && WR_NO_XATTR == SQFS_NO_XATTR &&
	       WR_NAME_MAX == SQFS_NAME_MAX,
	       "the writer's words are no longer SquashFS's");
_Static_assert(WR_XATTR_USER == SQFS_XATTR_USER &&
	       WR_XATTR_TRUSTED == SQFS_XATTR_TRUSTED &&
	       WR_XATTR_SECURITY == SQFS_XATTR_SECURITY,
	       "the xattr store's prefix ids are no longer SquashFS's");

/* The probe saves time only where the codec is slower than the probe:
 * LZ4 gives up on random bytes faster than the probe can look at them
 * (measured on big.tar: probe 20%, LZ4 32% of the workers' time). */
static int probe_pays(int codec)
{
	return codec != SQP_CODEC_LZ4;
}

static int check(const struct sqp_writer_desc *d, struct sqp_errbuf *err)
{
	uint32_t bs = d->codec.block_size;

	if (bs < SQFS_BLOCK_SIZE_MIN || bs > SQFS_BLOCK_SIZE_MAX || (bs & (bs - 1)) != 0)
		return sqp_err(err, SQP_ERR_ARG, "block size %u is not a power of two "
			       "between 4 KiB and 1 MiB", bs);
	if (d->erofs_chunk_size != 0 || (d->flags & SQP_WRITE_EROFS_BLOB))
		return sqp_err(err, SQP_ERR_ARG, "chunk-based files and a blob device "
			       "are EROFS only; SquashFS cannot hold them");
	if (d->erofs_codec2.id != 0 || d->erofs_hints != NULL)
		return sqp_err(err, SQP_ERR_ARG, "a second codec and compress hints "
			       "are EROFS only; SquashFS has one codec per image");
	return 0;
}

/* Placeholder for the superblock, then the options block. */
static int write_head(struct sqp_writer *w, struct sqfs_wstate *s)
{
	uint8_t head[SQFS_SUPER_SIZE + 2 + SQP_CODEC_OPTIONS_MAX] = { 0 };
	size_t len = 0;
	int ret = sqp_codec_options_encode(&w->desc.codec, head + SQFS_SUPER_SIZE + 2, &len);

	if (ret != 0)
		return sqp_err(&w->err, ret, "compressor options: %s", sqp_strerror(ret));
	s->opts_len = len;
	if (len > 0)
		sqp_put16(head + SQFS_SUPER_SIZE, (uint16_t)(len | SQFS_META_UNCOMPRESSED));
	return imgout_append(&w->out, head, SQFS_SUPER_SIZE + (len ? len + 2 : 0));
}

static int init(struct sqp_writer *w, const struct writer_test_hooks *hooks)
{
	const struct sqp_writer_desc *desc = &w->desc;
	struct sqfs_wstate *s = calloc(1, sizeof(*s));
	struct datapipe_desc pd;
	uint16_t root_id;
	int ret;

	w->fmt_state = s;
	if (s == NULL || idtable_init(&s->seen) != 0 || idtable_init(&s->ids) != 0)
		return sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	/* The root is 0:0 until an entry says otherwise. */
	idtable_index(&s->seen, 0, &root_id);
	ret = write_head(w, s);
	if (ret != 0)
		return ret;
	s->data_start = w->out.pos;

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

static void cleanup(struct sqp_writer *w)
{
	struct sqfs_wstate *s = sqfs_of(w);

	if (w->pipe_ready)
		datapipe_cleanup(&w->pipe);
	w->pipe_ready = 0;
	if (s == NULL)
		return;
	idtable_cleanup(&s->seen);
	idtable_cleanup(&s->ids);
	free(s);
	w->fmt_state = NULL;
}

static int check_owners(struct sqp_writer *w, const char *path, uint32_t uid, uint32_t gid)
{
	struct sqfs_wstate *s = sqfs_of(w);
	uint16_t idx;

	if (idtable_index(&s->seen, uid, &idx) != 0 ||
	    idtable_index(&s->seen, gid, &idx) != 0)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': more than %d distinct uids and "
				   "gids (SquashFS's id table holds no more)", path,
				   SQFS_MAX_IDS);
	return 0;
}

static int check_entry(struct sqp_writer *w, const struct sqp_entry *e,
		       const struct fs_attr *a)
{
	char msg[600];

	/* Clamped, not refused: the rest of the entry is worth keeping. */
	if (a->mtime != sqfs_time(a->mtime) && w->desc.warn != NULL) {
		snprintf(msg, sizeof(msg), "'%s': modification time outside 1970..2106, "
			 "clamped", e->path);
		w->desc.warn(w->desc.warn_user, msg);
	}
	if ((S_ISBLK(e->mode) || S_ISCHR(e->mode)) &&
	    (e->dev_major > 0xFFF || e->dev_minor > 0xFFFFF))
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': device %u:%u does not fit "
				   "SquashFS's 12-bit major, 20-bit minor", e->path,
				   e->dev_major, e->dev_minor);
	return check_owners(w, e->path, a->uid, a->gid);
}

static int add_file(struct sqp_writer *w, const struct sqp_entry *e, struct fs_irec *ino,
		    const struct sqp_data_source *data, struct fs_inode *file)
{
	(void)ino;
	return datapipe_add_file(&w->pipe, file, e->size, data);
}

const struct writer_format writer_squashfs = {
	.name = "SquashFS",
	.check = check,
	.init = init,
	.cleanup = cleanup,
	.check_entry = check_entry,
	.check_owners = check_owners,
	.add_file = add_file,
	.finish = sqfs_w_finish,
};
