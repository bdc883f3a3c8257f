/* SPDX-License-Identifier: MIT */
/*
 * metapool.h - the inode and directory tables, their metadata blocks
 * compressed on a pool of workers while the tree is still being
 * serialized.
 *
 * A reference handed out while writing is *logical*: (index of the block
 * in its table << 16 | offset), because the compressed start of a block is
 * only known once every block before it is compressed. Bytes that must
 * hold a physical reference of the other table (a listing header's inode
 * block, a directory inode's listing block, its index entries' blocks) are
 * written as placeholders and announced with meta_pool_fixup(); a full
 * block goes to the pool once every placeholder in it can be resolved, and
 * waits (bounded by the window of blocks, META_POOL_WINDOW) until then.
 * Blocks come back in submission order and are appended to their table,
 * so the tables are the same bytes whatever the number of workers.
 *
 * Only the orchestrator (the caller's thread) calls these; the workers see
 * a job's bytes only.
 */
#ifndef SQP_WRITE_METAPOOL_H
#define SQP_WRITE_METAPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "codec/codec_worker.h"
#include "squashfs/sqfs_format.h"
#include "sqpack/codec.h"
#include "util/errbuf.h"
#include "util/pool.h"

enum { META_INODES, META_DIRS, META_TABLES };

struct meta_job;

/* A placeholder at byte pos of its table's stream, for the start of block
 * target of the other table. */
struct meta_fixup {
	uint64_t pos;
	uint32_t target;
};

struct meta_table {
	uint8_t block[SQFS_META_SIZE]; /* the block being filled */
	size_t fill;
	uint64_t total_in;       /* bytes appended, as one uncompressed stream */
	uint32_t cut;            /* blocks handed off (index of the open block) */
	uint32_t done;           /* blocks compressed and appended to out */
	uint64_t *starts;        /* starts[i], i <= done: compressed start of block i */
	size_t starts_cap;
	uint8_t *out;            /* finished blocks, headers included */
	size_t out_len;
	size_t out_cap;
	struct meta_fixup *fix;  /* placeholders not yet resolved, by pos */
	size_t fix_head, fix_count, fix_cap;
	struct meta_job *wait_head, *wait_tail; /* cut, not yet submitted */
};

struct meta_pool {
	/* First: the pool's ctx is the meta_pool, and the shared worker_init
	 * of util/pipeline reads it as its workers' description. */
	struct sqp_codec_worker_desc wdesc; /* no_codec: stored uncompressed */
	struct meta_table t[META_TABLES];
	struct sqp_pool *pool;
	struct meta_job *jobs;   /* the window, one allocation */
	size_t jobs_used;        /* jobs[0..jobs_used) handed out once */
	struct meta_job *free_jobs; /* of those, the ones back */
	uint64_t fail_job;       /* test hook: this block job fails (1-based) */
	struct sqp_errbuf *err;  /* borrowed */
	struct sqp_spill *spill; /* borrowed: where the tables' out[] lives */
};

/* codec NULL stores every block uncompressed; workers as for -j (0 or 1 =
 * serial); the finished tables grow in spill (util/spill.h, NULL = heap). */
int meta_pool_init(struct meta_pool *m, const struct sqp_codec_config *codec,
		   unsigned workers, uint64_t fail_job, struct sqp_errbuf *err,
		   struct sqp_spill *spill);
void meta_pool_cleanup(struct meta_pool *m);

/* Logical reference of the next byte of table t. */
static inline uint64_t meta_pool_ref(const struct meta_pool *m, int t)
{
	return sqfs_ref(m->t[t].cut, (uint32_t)m->t[t].fill);
}

/* Append len bytes to table t. */
int meta_pool_append(struct meta_pool *m, int t, const void *data, size_t len);

/* The 4 bytes at offset off from the next byte of table t (not appended
 * yet) are to hold the start of block target of the other table. Announce
 * placeholders in the order of their positions. */
int meta_pool_fixup(struct meta_pool *m, int t, size_t off, uint32_t target);

/* Close both tables' last blocks and wait for every block. */
int meta_pool_finish(struct meta_pool *m);

/* After finish: the physical reference for a logical one of table t. */
static inline uint64_t meta_pool_phys(const struct meta_pool *m, int t, uint64_t ref)
{
	return sqfs_ref(m->t[t].starts[sqfs_ref_block(ref)], sqfs_ref_offset(ref));
}

/* Room for need entries of elem bytes in the array *arr of *cap entries
 * (doubling); 0 or SQP_ERR_NOMEM. Shared with serialize.c. */
int meta_grow(void **arr, size_t *cap, size_t need, size_t elem);

#endif
