/* SPDX-License-Identifier: MIT */
/*
 * sqfs_writer.h - the SquashFS back end of the image writer: its state
 * and the parts its files share (sqfs_writer.c: set-up and entries;
 * sqfs_finish.c: tables and superblock; sqfs_xattrw.c: the xattr table).
 *
 * SquashFS's limits, met when an entry comes: 65535 distinct uids and
 * gids (a 16-bit id table), unsigned 32-bit seconds (times outside
 * 1970..2106 are clamped with a warning, no nanoseconds), a 12-bit major
 * and 20-bit minor device number.
 */
#ifndef SQP_WRITE_SQFS_WRITER_H
#define SQP_WRITE_SQFS_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "squashfs/idtable.h"
#include "write/writer_impl.h"

struct sqfs_wstate {
	struct idtable seen;    /* every owner an entry brought: the limit */
	struct idtable ids;     /* the image's id table, in the serializer's order */
	size_t opts_len;        /* compressor options payload, 0 = none */
	uint64_t data_start;    /* first byte after superblock + options */
};

static inline struct sqfs_wstate *sqfs_of(const struct sqp_writer *w)
{
	return w->fmt_state;
}

/* A time as SquashFS stores it: clamped to 0..2^32-1. */
static inline uint32_t sqfs_time(int64_t t)
{
	return t < 0 ? 0 : t > (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

/* sqfs_writer.c: the back end's table, for lib/formats to pick. */
extern const struct writer_format writer_squashfs;

/* sqfs_finish.c: everything after the last entry. */
int sqfs_w_finish(struct sqp_writer *w);

/* sqfs_xattrw.c: the store's key/value blocks, the id table and its
 * header; *pos is the superblock's xattr_table field. Nothing is written
 * without sets (*pos becomes SQFS_NO_TABLE). */
int xattr_store_write(struct xattr_store *s, struct sqp_compressor *codec,
		      struct imgout *out, uint64_t *pos);

#endif
