/* SPDX-License-Identifier: MIT */
/*
 * proof.h - the proof ring: dedup proofs on worker threads of their own.
 *
 * While a file's blocks keep matching blocks stored earlier, the
 * orchestrator decides on the hashes and goes on with the file. Each
 * decision's proofs (read the candidate back from the image, decompress
 * it, compare) run on a pool of their own, and the decision keeps its
 * block's bytes (the caller's job, an opaque pointer here) until they are
 * back.
 *
 * Decisions are settled in order, and every one is settled before the
 * writer does anything it cannot take back: storing or copying a block,
 * placing the file's tail, starting the next file. If a proof failed, the
 * file's decisions from that block on are made again with synchronous
 * proofs (filedata.c), from the state saved with that decision. So the
 * image is the one that synchronous proofs give, for any -j and any
 * timing: only when a proof's answer is known changes.
 *
 * The ring knows the image file, the codec settings and the block size,
 * latches its errors in the caller's errbuf and gives a passed
 * decision's job back through a callback; nothing of the data path.
 * Its pool is separate from the compressors' because that one is
 * ordered: waiting there for a proof would mean waiting for every block
 * queued before it.
 */
#ifndef SQP_WRITE_PROOF_H
#define SQP_WRITE_PROOF_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/codec.h"
#include "sqpack/writer.h"
#include "util/errbuf.h"
#include "write/imgout.h"

enum proof_kind {
	PROOF_BLOCK,       /* stored block a holds the bytes raw[0, len) */
	PROOF_SAME,        /* stored blocks a and b hold the same bytes */
};

/* What the caller needs to make a decision again (filedata.c): copied in
 * at proof_begin and handed back with the failed decision; the ring
 * never reads it. */
struct proof_undo {
	int matching;      /* the file's run (filedata.c): still matching */
	uint32_t cand;     /* its first stored block */
	uint32_t matched;  /* blocks of the file matched so far */
	uint64_t rerouted; /* stats->dedup_rerouted before the decision */
	uint64_t hashed;   /* stats->hashed before it */
};

struct proof_ring_desc {
	unsigned workers;              /* 0: no ring (proofs stay synchronous) */
	size_t max_decisions;          /* decisions holding a job at once */
	const struct sqp_codec_config *codec;
	struct imgout *out;            /* borrowed; its writer thread started */
	struct sqp_errbuf *err;        /* borrowed */
	struct sqp_writer_stats *stats; /* borrowed: proofs_on_workers */
	/* A passed decision's job, no longer needed. */
	void (*release)(void *user, void *job);
	void *user;
};

struct proof_ring;

/* *out is NULL when the ring is off (workers or max_decisions 0), and
 * set on every other path; destroy it either way. */
int proof_ring_create(const struct proof_ring_desc *desc, struct proof_ring **out);
/* Stops the workers; call before the image writer thread stops. Jobs of
 * decisions still in the ring are the caller's. */
void proof_ring_destroy(struct proof_ring *r);

/* Open a decision for block; the ring must not be full. */
void proof_begin(struct proof_ring *r, uint32_t block, void *job,
		 const struct proof_undo *undo);
/* Close it. held: the caller keeps using the job after the next settle. */
void proof_end(struct proof_ring *r, int held);
/* A decision is open: proofs go here (proof_submit). */
int proof_deciding(const struct proof_ring *r);
int proof_full(const struct proof_ring *r);

/* A proof for the open decision; its answer is taken as yes for now.
 * The candidates must be retired (their offsets final): the worker waits
 * only for the image writer thread. */
int proof_submit(struct proof_ring *r, int kind, uint64_t off_a, uint32_t size_a,
		 uint64_t off_b, const uint8_t *raw, uint32_t len);

/* Decompress a stored (retired) fragment block into dst (block_size
 * bytes) on a worker; one at a time. proof_fetch_busy: one is out and
 * not back yet; proof_fetch_wait: wait for it and give its length. */
int proof_fetch(struct proof_ring *r, uint64_t off, uint32_t size_word, uint8_t *dst);
int proof_fetch_busy(const struct proof_ring *r);
int proof_fetch_wait(struct proof_ring *r, uint32_t *len);

/* Settle the oldest decision (all: every one), in order, giving passed
 * decisions' jobs back; stops at a failed one, which stays the oldest.
 * 0 or an error (a proof that could not run: the image writer's error if
 * it failed, else the read's). */
int proof_settle(struct proof_ring *r, int all);
/* The oldest decision failed (after a settle): 1 with its block and what
 * was saved with it, else 0. */
int proof_failed(const struct proof_ring *r, uint32_t *block, struct proof_undo *undo);

/* After a failure: wait for every proof still out, then hand the
 * decisions back oldest first: 1 with the block and its job, 0 when none
 * is left. */
int proof_drain(struct proof_ring *r);
int proof_pop(struct proof_ring *r, uint32_t *block, void **job);

#endif
