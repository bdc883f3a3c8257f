/* SPDX-License-Identifier: MIT */
/*
 * blockrd_impl.h - the ordered block reader's state (blockrd.c), shared
 * with the back ends, which make the jobs of their files (rd_format.jobs)
 * on the same FIFO of jobs, the same pool, the same retirement in order.
 */
#ifndef SQP_READ_BLOCKRD_IMPL_H
#define SQP_READ_BLOCKRD_IMPL_H

#include "codec/codec_worker.h"
#include "read/blockrd.h"
#include "util/pool.h"

/* Tails of one directory often span many fragment blocks (a tar packed
 * in another order than the sorted listing): a bigger cache saves
 * decompressing a block again, which costs most with xz. */
#define FRAG_SLOTS_MAX 64
#define FRAG_MEMORY (8u << 20)
#define LIGHT_JOBS 4096
#define ENTRIES_MAX 4096
#define JOB_MEMORY (32u << 20)
/* Decoded bytes a run of extents takes at most (blockrd_run.c), and
 * so the unit the pool is sized in for a back end that makes runs. */
#define RUN_OUT (256u << 10)
/* Decoded EROFS extents in flight (one may be 12 MiB). */
#define ZMEMORY (64u << 20)

/* BJ_ZPART: an extent the back end decodes (zdecode) in a run of them
 * (blockrd_run.c), whose pool job is a BJ_RUN outside the FIFO;
 * BJ_FILLED: one it read on this thread (EROFS: a fragment in the
 * packed inode), which owns zbuf.
 * BJ_DATA_SAME: a data block another file's job keeps decompressed
 * (blockrd_share.c). */
enum { BJ_DATA, BJ_HOLE, BJ_FRAG, BJ_FRAG_SAME, BJ_ZPART, BJ_FILLED,
       BJ_DATA_SAME, BJ_RUN };


struct bjob {
	struct sqp_pool_job pj;  /* first: the pool hands this back */
	int kind;
	uint64_t offset;         /* on disk */
	uint32_t disk_size;
	int raw;                 /* stored uncompressed */
	uint32_t out_len;        /* bytes of the file this job gives */
	uint64_t pos;            /* where in the file they go */
	int put_err;             /* put()'s -errno (set by the worker) */
	uint32_t frag_index, frag_off;
	unsigned slot;           /* fragment cache slot it fills or reads */
	int keep;                /* BJ_DATA: fills keep slot kslot */
	unsigned kslot;          /* keep slot filled or read (BJ_DATA_SAME) */
	uint32_t got;            /* bytes decompressed (set by the worker) */
	uint8_t *buf;            /* block_size bytes; NULL for light jobs */
	struct rd_extent zx;     /* BJ_ZPART: the extent */
	struct brun *run;        /* BJ_ZPART, BJ_RUN: the run */
	uint32_t zoff;           /* BJ_ZPART: its bytes' place in the run */
	uint8_t *zin;            /* BJ_ZPART: its stored bytes, read already */
	struct bjob *rnext;      /* BJ_ZPART: the run's next part */
	uint8_t *zbuf;           /* BJ_FILLED: its bytes */
	struct rd_bentry *owner;
	struct bjob *next;       /* free list or FIFO */
};

/* A run of extents read and decoded by one pool job (blockrd_run.c). */
struct brun {
	struct bjob *carrier;       /* its pool job (light, not in the FIFO) */
	struct bjob *first, *last;  /* its parts, through rnext */
	uint64_t pa;                /* where the read starts ... */
	uint64_t plen;              /* ... and its bytes */
	uint64_t out_len;           /* decoded bytes of all parts */
	uint8_t *out;               /* out_len bytes, then plen read ... */
	size_t size;                /* ... in a buffer of size bytes */
	const uint8_t *in;          /* its stored bytes in the image's
				     * mapping; NULL: read after out's */
	unsigned parts, refs;       /* parts; parts not yet retired */
	int submitted, taken;
	int ran;                    /* set by the worker, once done */
	struct brun *prev, *next;   /* the reader's live runs */
};

struct frag_slot {
	uint8_t *buf;
	uint32_t index, len;
	int valid, failed;
};

/* A stored data block several files reference (blockrd_share.c). */
struct share_blk {
	uint64_t offset;
	uint32_t sw;              /* its size word */
	uint32_t left;            /* references whose jobs are not made */
	int slot;                 /* keep slot holding it; -1: none */
};

struct keep_slot {
	uint8_t *buf;
	uint32_t got;             /* bytes it decompressed to; 0: failed */
	int status;               /* why it failed */
	int reserved;             /* by a block with referrers to come */
};

/* The plan of shared blocks: sorted by (offset, sw). */
struct rd_share {
	struct share_blk *blk;
	size_t count;
	struct keep_slot *keep;
	unsigned keep_max;
	uint32_t *frag_left;      /* tails not yet made, per fragment block */
	uint32_t frag_count;      /* 0: not counted */
};

struct rd_blockrd {
	/* First: the pool's ctx is the reader, and the shared worker_init
	 * of util/pipeline reads it as its codec description. */
	struct sqp_codec_worker_desc wdesc;
	struct sqp_image *img;
	const struct rd_blockrd_ops *ops;
	void *user;
	struct sqp_pool *pool;
	unsigned capacity;                 /* the pool's */
	struct bjob *jobs;
	unsigned heavy, job_count;
	struct bjob *free_heavy, *free_light;
	struct bjob *qhead, *qtail;        /* made, not yet retired */
	unsigned frag_slots;
	struct frag_slot frag[FRAG_SLOTS_MAX];
	struct {
		uint32_t index;
		int valid;
		uint64_t used;
	} plan[FRAG_SLOTS_MAX];
	uint64_t plan_clock;
	struct rd_bentry *head, *tail;     /* entries not yet ended */
	size_t entry_count, max_entries;
	int spans;                         /* the desc's */
	uint64_t zbytes;                   /* decoded extents made, not retired */
	struct brun *run_open;             /* taking extents; not submitted */
	struct brun *runs;                 /* not yet freed */
	struct run_buf {                   /* runs' buffers for reuse */
		uint8_t *p;
		size_t size;
	} *run_bufs;
	unsigned run_bufs_count, run_bufs_max;
	size_t run_bufs_bytes;
	/* The image's file mapped (NULL: not), map_len bytes: a run's
	 * stored bytes are decoded from where they lie (blockrd_run.c). */
	const uint8_t *map;
	size_t map_len;
	uint64_t map_read;                 /* its bytes read since dropped */
	struct rd_share sh;
};

/* Deliver the FIFO's head job; wait for it when block is set. Returns
 * 1 when one was retired, 0 when the head is not ready, or an error. */
int rd_blockrd_retire_head(struct rd_blockrd *b, int block);
/* A free job, with a buffer when heavy, owned by e. */
int rd_blockrd_take_job(struct rd_blockrd *b, struct rd_bentry *e, int heavy,
			struct bjob **out);
/* Queue j behind the others (and on the pool when it has work). */
void rd_blockrd_submit(struct rd_blockrd *b, struct bjob *j);

/* blockrd_run.c: extent x of e's file, decoded in a run with the
 * extents around it on disk; pre: its plen stored bytes, read already,
 * in a malloc'ed buffer the reader takes (NULL: at x->pa in the image,
 * which the back end checked). */
int rd_blockrd_zext(struct rd_blockrd *b, struct rd_bentry *e,
		    const struct rd_extent *x, uint8_t *pre);
/* Submit the open run, if any. */
int rd_blockrd_run_close(struct rd_blockrd *b);
/* A worker's part: read and decode run r with worker w's decoders
 * (always 0: each part has its own status). */
int rd_blockrd_run_exec(struct rd_blockrd *b, struct brun *r,
			struct sqp_codec_worker *w);
/* For part j at the FIFO's head: take its run back from the pool
 * (block: submit it and wait) - 1, 0 not ready, or an error. */
int rd_blockrd_run_wait(struct rd_blockrd *b, struct bjob *j, int block);
const uint8_t *rd_blockrd_part_bytes(const struct bjob *j);
/* Part j retired: the run is freed with its last part. */
void rd_blockrd_part_done(struct rd_blockrd *b, struct bjob *j);
/* At destruction, after the pool: every run still held, the kept
 * buffers, the mapping. */
void rd_blockrd_runs_free(struct rd_blockrd *b);
/* Map the image's file for the runs to decode from, where it can be
 * (a regular file); else they read their stored bytes. */
void rd_blockrd_map_image(struct rd_blockrd *b);

/* Whether the tail of fragment block index will be in the cache when
 * its job is retired (and in which slot); updates the plan. */
int rd_blockrd_plan_frag(struct rd_blockrd *b, uint32_t index,
			 unsigned *slot);

/* blockrd_share.c: the plan a back end's share_plan makes before the
 * first entry: references to stored blocks gathered in a list, then the
 * blocks met more than once picked out (the list freed); tail blocks
 * counted (count: how many the image has; over a cap, none are). */
struct rd_share_refs {
	struct share_blk *v;
	size_t count, cap;
};
/* One reference to the stored block (offset, size word sw). 0, or 1
 * when the list is full (the plan stops there). */
int rd_share_ref(struct rd_share_refs *l, uint64_t offset, uint32_t sw);
int rd_share_pick(struct rd_blockrd *b, struct rd_share_refs *l);
int rd_share_tails(struct rd_blockrd *b, uint32_t count);
int rd_share_tail_ref(struct rd_blockrd *b, uint32_t index);
void rd_share_free(struct rd_blockrd *b);
/* Tails of fragment block index whose jobs are not made (1: unknown);
 * one more made. */
uint32_t rd_share_frag_left(const struct rd_blockrd *b, uint32_t index);
void rd_share_frag_ref(struct rd_blockrd *b, uint32_t index);
/* What the job of a file's data block (offset, size word sw) does:
 * decompress it (SHARE_NONE), also keep it in *slot (SHARE_FILL), or
 * take it from *slot (SHARE_TAKE). */
enum { SHARE_NONE, SHARE_FILL, SHARE_TAKE };
int rd_share_block(struct rd_blockrd *b, uint64_t offset, uint32_t sw,
		   unsigned *slot);
/* At retirement, on this thread: a SHARE_FILL job's bytes into its slot
 * (j->buf swapped with the slot's); a BJ_DATA_SAME job's status from
 * the slot, as decompressing the block for it would have set it. */
void rd_share_fill(struct rd_blockrd *b, struct bjob *j);
void rd_share_take(struct rd_blockrd *b, struct bjob *j);

#endif
