/* SPDX-License-Identifier: MIT */
/*
 * filedata.c - one file's contents through the data path.
 *
 * Full blocks are read, checked for zeros (stored as holes), hashed, and
 * either shared with an earlier run of stored blocks or submitted for
 * compression. The tail goes into the open fragment block unless an equal
 * tail was stored before. Sharing a run is speculative while the file's
 * blocks keep matching: nothing is compressed for them, and if the match
 * breaks the matched prefix is re-emitted from the image's own bytes.
 * With workers, the read-backs that prove a match run on the proof
 * workers while the file goes on (proof.h); the file is settled before
 * anything is stored, and replayed from a failed proof.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "write/datapipe.h"
#include "write/words.h"

/* Earlier runs tried when a run breaks (see dedupstore.c). */
#define MAX_START_CANDIDATES 16

/* A file's run of matching blocks. */
struct dedup_run {
	int matching;      /* still hoping to share an earlier run */
	int async;         /* decisions go on before their proofs are back */
	uint32_t cand;     /* first physical block of that run */
	uint32_t matched;  /* blocks of this file matched so far */
};

static int is_zero(const struct datapipe *p, const uint8_t *buf, uint32_t len)
{
	/* Most blocks differ from zero in their first bytes. */
	if (len >= 8 && (buf[0] | buf[1] | buf[2] | buf[3] | buf[7]) != 0)
		return 0;
	return memcmp(buf, p->zeros, len) == 0;
}

static int store_block(struct datapipe *p, struct blk_job *job, XXH128_hash_t hash,
		       uint32_t *phys)
{
	int ret = dedup_store_add(p->store, hash, job->raw_len, phys);

	if (ret != 0) {
		compress_put_job(p->comp, job);
		return ret;
	}
	job->kind = JOB_BLOCK;
	job->index = *phys;
	return compress_submit(p->comp, job);
}

/*
 * The first blocks [0, upto) of ino were matched against an earlier run
 * that the next block breaks: emit the matched ones as new blocks of this
 * file, by copying their stored (already compressed) bytes.
 */
static int copy_matched(struct datapipe *p, struct fs_inode *ino, uint32_t upto)
{
	uint32_t i, n, first = PHYS_NONE;
	struct blk_job *job;
	int ret;

	for (i = 0; i < upto; ++i) {
		uint32_t src = ino->u.file.block_sizes[i];
		struct dedup_where from;

		if (src == 0)
			continue;
		job = compress_get_job(p->comp);
		if (job == NULL)
			return p->err->code;
		ret = dedup_store_copy(p->store, src - 1, &n, &from);
		if (ret != 0) {
			compress_put_job(p->comp, job);
			return ret;
		}
		job->kind = JOB_COPY;
		job->index = n;
		job->copy_from = from.offset;
		job->size_word = from.size_word;
		ret = compress_submit(p->comp, job);
		if (ret != 0)
			return ret;
		ino->u.file.block_sizes[i] = n + 1;
		if (first == PHYS_NONE)
			first = n;
	}
	ino->u.file.blocks_start = first;
	return 0;
}

/* Earlier run start c can stand in for run->cand: its first run->matched
 * blocks hold the same bytes, lie back to back, and the block after them
 * is this file's next one (raw, hash). Cheap hash checks first. */
static int run_fits(struct datapipe *p, const struct dedup_run *run, uint32_t c,
		    XXH128_hash_t hash, const uint8_t *raw, uint32_t len, int *fits)
{
	uint32_t k, n = run->matched;
	int ret;

	*fits = 0;
	if (c == run->cand || (uint64_t)c + n >= dedup_store_count(p->store) ||
	    !dedup_store_hash_is(p->store, c + n, hash))
		return 0;
	for (k = 0; k < n; ++k) {
		if (!dedup_store_hash_is(p->store, c + k,
					 dedup_store_hash_of(p->store, run->cand + k)))
			return 0;
	}
	for (k = 0; k < n; ++k) {
		ret = dedup_store_same(p->store, c + k, run->cand + k, fits);
		if (ret == 0 && *fits && k > 0)
			ret = dedup_store_follows(p->store, c + k, fits);
		if (ret != 0 || !*fits)
			return ret;
	}
	ret = dedup_store_verify(p->store, c + n, raw, len, fits);
	if (ret == 0 && *fits)
		ret = dedup_store_follows(p->store, c + n, fits);
	return ret;
}

/*
 * The run from run->cand broke at block i of ino: look for another earlier
 * copy of the matched blocks that goes on with block i (files A=[X,Y],
 * B=[X,Z], C=[X,Z]: C's run from A breaks at Z, B's copy of X goes on).
 * On success the file's block numbers move to the new run.
 */
static int reroute(struct datapipe *p, struct fs_inode *ino, struct dedup_run *run,
		   XXH128_hash_t hash, const struct blk_job *job, uint32_t i, int *ok)
{
	XXH128_hash_t first = dedup_store_hash_of(p->store, run->cand);
	uint32_t c = PHYS_NONE, k;
	unsigned tries = 0;
	int ret;

	*ok = 0;
	while (tries < MAX_START_CANDIDATES &&
	       (c = dedup_store_next(p->store, first, c)) != PHYS_NONE) {
		if (c == run->cand)
			continue;
		tries++;
		ret = run_fits(p, run, c, hash, job->raw, job->raw_len, ok);
		if (ret != 0)
			return ret;
		if (*ok)
			break;
	}
	if (!*ok)
		return 0;
	for (k = 0; k < i; ++k) {
		if (ino->u.file.block_sizes[k] != 0)
			ino->u.file.block_sizes[k] += c - run->cand;
	}
	ino->u.file.blocks_start = c;
	run->cand = c;
	p->stats->dedup_rerouted++;
	return 0;
}

/* The next block of the run being matched, or PHYS_NONE if it breaks. */
static int run_next(struct datapipe *p, struct fs_inode *ino, struct dedup_run *run,
		    XXH128_hash_t hash, const struct blk_job *job, uint32_t i,
		    uint32_t *phys)
{
	uint32_t next = run->cand + run->matched;
	int equal = 0, ret;

	*phys = PHYS_NONE;
	if (run->matched == 0) {
		ret = dedup_store_find(p->store, hash, job->raw, job->raw_len, phys);
		run->cand = *phys;
		return ret;
	}
	if (dedup_store_hash_is(p->store, next, hash)) {
		ret = dedup_store_verify(p->store, next, job->raw, job->raw_len, &equal);
		if (ret == 0 && equal)
			ret = dedup_store_follows(p->store, next, &equal);
		if (ret != 0)
			return ret;
	}
	if (!equal) {
		ret = reroute(p, ino, run, hash, job, i, &equal);
		if (ret != 0 || !equal)
			return ret;
		next = run->cand + run->matched;
	}
	*phys = next;
	return 0;
}

static int place_block(struct datapipe *p, struct fs_inode *ino, struct dedup_run *run,
		       struct blk_job *job, uint32_t i);

/*
 * A proof failed: wait for the rest, put the run back as it was before
 * the failed decision, and make that decision and the ones after it
 * again, with synchronous proofs. The blocks the file matched before it
 * are renumbered for the run's start as it was then (a reroute moves
 * them all), holes stay holes.
 */
static int replay(struct datapipe *p, struct fs_inode *ino, struct dedup_run *run)
{
	struct proof_undo undo;
	void *job;
	uint32_t k, block, failed, rank = 0;
	int ret;

	if (!proof_failed(p->ring, &failed, &undo))
		return sqp_err(p->err, SQP_ERR_INTERNAL, "replay without a failed proof");
	ret = proof_drain(p->ring);
	if (ret != 0)
		return ret;
	*run = (struct dedup_run){
		.matching = undo.matching, .cand = undo.cand, .matched = undo.matched,
	};
	p->stats->dedup_rerouted = undo.rerouted;
	p->stats->hashed = undo.hashed;
	p->stats->proofs_replayed++;
	for (k = 0; k < failed; ++k) {
		if (ino->u.file.block_sizes[k] != 0)
			ino->u.file.block_sizes[k] = run->cand + rank++ + 1;
	}
	ino->u.file.blocks_start = run->matched > 0 ? run->cand : PHYS_NONE;
	while (proof_pop(p->ring, &block, &job)) {
		ret = place_block(p, ino, run, job, block);
		if (ret != 0)
			break;
	}
	while (proof_pop(p->ring, &block, &job))
		compress_put_job(p->comp, job);
	return ret;
}

/* Settle the file's decisions (all, or the oldest); replays from a failed
 * one, which ends the file's async decisions. */
static int settle(struct datapipe *p, struct fs_inode *ino, struct dedup_run *run,
		  int all)
{
	struct proof_undo undo;
	uint32_t block;
	int ret = proof_settle(p->ring, all);

	if (ret != 0)
		return ret;
	return proof_failed(p->ring, &block, &undo) ? replay(p, ino, run) : 0;
}

/* Block i of ino, read into job: share it or store it. With async
 * decisions the job stays with the decision until it is settled. */
static int place_block(struct datapipe *p, struct fs_inode *ino, struct dedup_run *run,
		       struct blk_job *job, uint32_t i)
{
	XXH128_hash_t hash = { 0, 0 };
	uint32_t phys = PHYS_NONE;
	int async = run->async, ret;

	if (run->matching && async) {
		struct proof_undo undo = { /* before the stats move */
			.matching = run->matching, .cand = run->cand,
			.matched = run->matched,
			.rerouted = p->stats->dedup_rerouted, .hashed = p->stats->hashed,
		};

		proof_begin(p->ring, i, job, &undo);
	}
	if (p->dedup)
		hash = dedup_store_hash(p->store, job->raw, job->raw_len);
	if (run->matching) {
		ret = run_next(p, ino, run, hash, job, i, &phys);
		if (async)
			proof_end(p->ring, phys == PHYS_NONE);
		if (ret != 0) {
			if (!async) /* else the decision holds it */
				compress_put_job(p->comp, job);
			return ret;
		}
		if (phys != PHYS_NONE) {
			if (run->matched++ == 0)
				ino->u.file.blocks_start = phys;
			ino->u.file.block_sizes[i] = phys + 1;
			if (!async)
				compress_put_job(p->comp, job);
			return 0;
		}
		/* The run broke here. Storing cannot be taken back: settle
		 * first; a replay, if one is needed, places this block too. */
		if (async) {
			ret = settle(p, ino, run, 1);
			if (ret != 0 || !run->async)
				return ret;
		}
		run->matching = 0;
		if (run->matched > 0) {
			ret = copy_matched(p, ino, i);
			if (ret != 0) {
				compress_put_job(p->comp, job);
				return ret;
			}
		}
	}
	ret = store_block(p, job, hash, &phys);
	if (ret != 0)
		return ret;
	if ((uint32_t)ino->u.file.blocks_start == PHYS_NONE)
		ino->u.file.blocks_start = phys;
	ino->u.file.block_sizes[i] = phys + 1;
	return 0;
}

/* datapipe.h */
int datapipe_place_tail(struct datapipe *p, struct fs_inode *ino, uint32_t len,
			int *shared)
{
	XXH128_hash_t hash = { 0, 0 };
	int ret;

	*shared = 0;
	if (p->dedup) {
		hash = dedup_store_hash(p->store, p->tail_buf, len);
		ret = dedup_store_find_tail(p->store, p->pack, hash, p->tail_buf, len,
					    &ino->u.file.frag_index,
					    &ino->u.file.frag_offset);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			p->stats->tails_deduped++;
			*shared = 1;
			return 0;
		}
	}
	ret = fragpack_add(p->pack, p->tail_buf, len, &ino->u.file.frag_index,
			   &ino->u.file.frag_offset);
	if (ret == 0 && p->dedup)
		ret = dedup_store_add_tail(p->store, hash, ino->u.file.frag_index,
					   ino->u.file.frag_offset, len);
	return ret;
}

/* Read len bytes of the file, or skip them if the source knows they are a
 * hole. Returns 1 for a hole, 0 for data read into buf, < 0 for an error
 * of the source (not latched: the caller knows the file's name). */
static int read_or_skip(const struct sqp_data_source *src, uint8_t *buf, uint32_t len)
{
	if (src->hole != NULL && src->skip != NULL && src->hole(src->user) >= len) {
		int ret = src->skip(src->user, len);

		return ret < 0 ? ret : 1;
	}
	return src->read(src->user, buf, len);
}

/* Store or share the blocks of ino; on return run says whether every
 * stored block was shared (matching) and how many (matched). */
static int file_blocks(struct datapipe *p, struct fs_inode *ino,
		       const struct sqp_data_source *src, uint64_t full, uint32_t last,
		       struct dedup_run *run)
{
	uint32_t i, len;
	struct blk_job *job;
	int ret;

	for (i = 0; i < ino->u.file.block_count; ++i) {
		len = i < full ? p->block_size : last;
		if (run->async && proof_full(p->ring)) {
			ret = settle(p, ino, run, 0);
			if (ret != 0)
				return ret;
		}
		job = compress_get_job(p->comp);
		if (job == NULL)
			return p->err->code;
		ret = read_or_skip(src, job->raw, len);
		if (ret == 0 && is_zero(p, job->raw, len))
			ret = 1;
		if (ret != 0) {
			compress_put_job(p->comp, job);
			if (ret < 0)
				return ret;
			ino->u.file.block_sizes[i] = 0;
			ino->u.file.sparse += len;
			p->stats->blocks_sparse++;
			continue;
		}
		job->raw_len = len;
		ret = place_block(p, ino, run, job, i);
		if (ret != 0)
			return ret;
	}
	if (run->async) {
		ret = settle(p, ino, run, 1);
		if (ret != 0)
			return ret;
	}
	if (run->matching)
		p->stats->blocks_deduped += run->matched;
	return 0;
}

int datapipe_add_file(struct datapipe *p, struct fs_inode *ino, uint64_t size,
		      const struct sqp_data_source *src)
{
	uint64_t full = size / p->block_size;
	uint32_t tail = (uint32_t)(size % p->block_size);
	int tail_frag = tail > 0 && (p->fragment_mode == SQP_FRAGMENTS_ALL ||
				     (p->fragment_mode == SQP_FRAGMENTS_SMALL && full == 0));
	uint64_t count = full + (tail > 0 && !tail_frag);
	struct dedup_run run = {
		.matching = p->dedup, .async = p->ring != NULL,
		.cand = PHYS_NONE,
	};
	int shared_tail = 0, ret;

	ino->u.file.size = size;
	ino->u.file.blocks_start = PHYS_NONE;
	ino->u.file.frag_index = WR_NO_FRAGMENT;
	if (count > UINT32_MAX / 4)
		return sqp_err(p->err, SQP_ERR_LIMIT, "file too large for SquashFS");
	if (count > 0) {
		ino->u.file.block_sizes = calloc(count, sizeof(uint32_t));
		if (ino->u.file.block_sizes == NULL)
			return sqp_err(p->err, SQP_ERR_NOMEM, "out of memory");
	}
	ino->u.file.block_count = (uint32_t)count;

	ret = file_blocks(p, ino, src, full, tail, &run);
	if (ret != 0)
		return ret;
	if (tail_frag) {
		ret = src->read(src->user, p->tail_buf, tail);
		if (ret < 0)
			return ret;
		ret = datapipe_place_tail(p, ino, tail, &shared_tail);
		if (ret != 0)
			return ret;
	}
	/* Whole-file duplicate: it has data, and none of it was stored anew. */
	if (run.matching && (shared_tail || !tail_frag) && (run.matched > 0 || shared_tail))
		p->stats->files_deduped++;
	p->stats->bytes_in += size;
	return 0;
}
