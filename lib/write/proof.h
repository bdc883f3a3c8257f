/* SPDX-License-Identifier: MIT */
/*
 * proof.h - dedup proofs on worker threads of their own.
 *
 * While a file's blocks keep matching blocks stored earlier, the
 * orchestrator decides on the hashes and goes on with the file. Each
 * decision's proofs (read the candidate back from the image, decompress
 * it, compare) run on a pool of their own, and the decision keeps its
 * block's bytes (a job buffer) until they are back.
 *
 * Decisions are settled in order, and every one is settled before the
 * writer does anything it cannot take back: storing or copying a block,
 * placing the file's tail, starting the next file. If a proof failed, the
 * file's decisions from that block on are made again with synchronous
 * proofs (filedata.c), from the run as it stood before that block. So the
 * image is the one that synchronous proofs give, for any -j and any
 * timing: only when a proof's answer is known changes.
 *
 * The proof pool is separate from the compressors' because that one is
 * ordered: waiting there for a proof would mean waiting for every block
 * queued before it.
 */
#ifndef SQP_WRITE_PROOF_H
#define SQP_WRITE_PROOF_H

#include <stdint.h>

#include "codec/codec_worker.h"
#include "sqpack/codec.h"
#include "util/pool.h"

struct blk_job;
struct datapipe;
struct frag_cache_slot;
struct imgout_async;

/* A file's run of matching blocks (filedata.c). */
struct dedup_run {
	int matching;      /* still hoping to share an earlier run */
	int async;         /* decisions go on before their proofs are back */
	uint32_t cand;     /* first physical block of that run */
	uint32_t matched;  /* blocks of this file matched so far */
};

enum proof_kind {
	PROOF_BLOCK,       /* stored block a holds the bytes raw[0, len) */
	PROOF_SAME,        /* stored blocks a and b hold the same bytes */
	PROOF_FRAGMENT,    /* no proof: decompress fragment block a into dst */
};

struct proof_job {
	struct sqp_pool_job base;
	int kind;
	int equal;             /* the answer, set by the worker */
	uint64_t decision;     /* the decision it belongs to */
	uint64_t off_a, off_b; /* image offsets */
	uint32_t size_a;       /* on-disk size words (PROOF_SAME: equal) */
	uint32_t len;          /* PROOF_BLOCK: bytes at raw; FRAGMENT: out */
	const uint8_t *raw;
	uint8_t *dst;          /* PROOF_FRAGMENT: block_size bytes */
	struct frag_cache_slot *slot; /* PROOF_FRAGMENT: the orchestrator's */
};

/* One block's decision, made before its proofs were back. */
struct proof_decision {
	uint32_t block;        /* block number in the file */
	uint32_t open;         /* proofs not back yet */
	int failed;            /* a proof came back unequal */
	int held;              /* the caller keeps job (the run broke here) */
	struct blk_job *job;   /* the block's bytes */
	struct dedup_run run;  /* the run before the decision */
	uint64_t rerouted;     /* stats->dedup_rerouted before it */
	uint64_t hashed;       /* stats->hashed before it (a replay hashes
	                          the block again) */
};

struct proof_stage {
	/* First: the pool's ctx, read by sqp_codec_worker_init. */
	struct sqp_codec_worker_desc wdesc;
	struct imgout_async *async;   /* the image writer thread */
	int fd;
	uint64_t base;                /* file offset of image position 0 */
	uint32_t block_size;

	struct sqp_pool *pool;        /* NULL: proofs run synchronously */
	struct proof_job *jobs;
	size_t job_cap;
	uint64_t submitted, returned;

	struct proof_decision *dec;   /* ring, oldest first */
	size_t dec_cap;
	uint64_t dec_first, dec_end;
	int active;                   /* a decision is being made */
};

/* With workers == 0 or without dedup the stage is off (proofs, if any,
 * stay synchronous). At most max_decisions decisions hold a job buffer
 * at once. */
int proof_stage_init(struct datapipe *p, unsigned workers, size_t max_decisions);
/* Stops the workers; call before the image writer thread stops. */
void proof_stage_cleanup(struct proof_stage *s);

/* Open block's decision; the ring must not be full (proof_full). */
void proof_begin(struct datapipe *p, uint32_t block, struct blk_job *job,
		 const struct dedup_run *run);
/* Close it. held: the caller keeps using the job after the next settle. */
void proof_end(struct datapipe *p, int held);
int proof_full(const struct datapipe *p);

/* A proof for the open decision; its answer is taken as yes for now. */
int proof_submit(struct datapipe *p, int kind, uint64_t off_a, uint32_t size_a,
		 uint64_t off_b, const uint8_t *raw, uint32_t len);

/* Decompress a stored fragment block into a cache slot on a proof
 * worker, ahead of the tail proofs that will read it (dedup.c); the slot
 * is marked loading until proof_wait_fragment or any other wait takes
 * the job back. */
int proof_fetch_fragment(struct datapipe *p, uint64_t off, uint32_t size_word,
			 struct frag_cache_slot *slot);
int proof_wait_fragment(struct datapipe *p, const struct frag_cache_slot *slot);

/* Settle the oldest decision (all: every one), in order, giving passed
 * decisions' jobs back; stops at a failed one, which stays the oldest.
 * 0 or an error (a proof that could not run). */
int proof_settle(struct datapipe *p, int all);

/* After a failure: wait for every proof still out, then hand the
 * decisions back oldest first: 1 with the block and its job, 0 when none
 * is left. */
int proof_drain(struct datapipe *p);
int proof_pop(struct datapipe *p, uint32_t *block, struct blk_job **job);
/* The oldest decision (the failed one after a settle), or NULL. */
const struct proof_decision *proof_oldest(const struct datapipe *p);

#endif
