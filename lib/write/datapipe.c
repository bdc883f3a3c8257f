/* SPDX-License-Identifier: MIT */
/*
 * datapipe.c - the orchestrator's frame: it starts the stages of the
 * data path, wires them to each other through callbacks, and takes them
 * down (datapipe.h); filedata.c drives them per file and per block.
 *
 * The stages know each other only where one calls another (fragpack
 * and the store call the compressors, the store calls the ring); what
 * goes the other way goes through callbacks wired here: the compressors
 * say where a retired job went, and this hands it to the stage the job
 * belongs to (a data block to the dedup store, a fragment block to the
 * packer); the store retires jobs, and the ring gives a passed
 * decision's job back, through functions of this file. So the includes
 * and calls among the stages have no cycle.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/fileio.h"
#include "write/basecopy.h"
#include "write/datapipe.h"

static void job_written(void *user, const struct blk_job *job, uint64_t pos)
{
	struct datapipe *p = user;

	if (job->kind == JOB_FRAGMENT || job->kind == JOB_BASE_FRAGMENT)
		fragpack_written(p->pack, job->index, pos, job->size_word);
	else
		dedup_store_written(p->store, job->index, pos, job->size_word);
}

static int retire_one(void *user)
{
	struct datapipe *p = user;

	return compress_retire_one(p->comp);
}

static void release_job(void *user, void *job)
{
	struct datapipe *p = user;

	compress_put_job(p->comp, job);
}

static int start_stages(struct datapipe *p, const struct datapipe_desc *desc)
{
	struct compress_desc cd = {
		.codec = desc->codec, .jobs = desc->jobs, .probe = desc->probe,
		.raw_data = desc->raw_data, .raw_frags = desc->raw_frags,
		.fail_job = desc->fail_job, .out = desc->out, .err = desc->err,
		.stats = desc->stats, .written = job_written, .user = p,
	};
	struct proof_ring_desc rd = {
		.codec = desc->codec, .out = desc->out, .err = desc->err,
		.stats = desc->stats, .release = release_job, .user = p,
	};
	struct dedup_store_desc sd = {
		.block_size = p->block_size, .hash_bits = desc->hash_bits,
		.index_blocks = desc->dedup, .out = desc->out, .err = desc->err,
		.stats = desc->stats, .spill = desc->spill,
		.retire_one = retire_one, .user = p,
	};
	int ret = compress_create(&cd, &p->comp);

	/* Up to half the jobs may wait for their proofs: the rest keep the
	 * compressors and the writer going (and serve copy_matched). No
	 * proofs without dedup. */
	if (ret == 0 && desc->dedup) {
		rd.workers = compress_workers(p->comp);
		rd.max_decisions = compress_job_count(p->comp) / 2;
		ret = proof_ring_create(&rd, &p->ring);
	}
	sd.codec = p->codec;
	sd.ring = p->ring;
	if (ret == 0)
		ret = dedup_store_create(&sd, &p->store);
	if (ret == 0)
		ret = fragpack_create(p->comp, p->block_size, p->err, &p->pack);
	return ret;
}

int datapipe_init(struct datapipe *p, const struct datapipe_desc *desc)
{
	int ret;

	memset(p, 0, sizeof(*p));
	p->block_size = desc->codec->block_size;
	p->fragment_mode = desc->fragment_mode;
	p->dedup = desc->dedup;
	p->out = desc->out;
	p->err = desc->err;
	p->stats = desc->stats;
	ret = sqp_compressor_create(desc->codec, &p->codec);
	if (ret == 0) {
		p->zeros = calloc(1, p->block_size);
		p->tail_buf = sqp_iobuf_alloc(p->block_size);
		if (p->zeros == NULL || p->tail_buf == NULL)
			ret = SQP_ERR_NOMEM;
	}
	if (ret == 0)
		ret = start_stages(p, desc);
	if (ret != 0)
		return sqp_err(p->err, ret, "starting the compressors: %s",
			       sqp_strerror(ret));
	return 0;
}

void datapipe_release(struct datapipe *p)
{
	/* Proof workers may wait for the image writer thread, so they stop
	 * before the compressors take it down; no job buffer is in use
	 * after that. */
	proof_ring_destroy(p->ring);
	p->ring = NULL;
	compress_destroy(p->comp);
	p->comp = NULL;
	dedup_store_destroy(p->store);
	p->store = NULL;
	free(p->zeros);
	free(p->tail_buf);
	p->zeros = p->tail_buf = NULL;
}

void datapipe_cleanup(struct datapipe *p)
{
	datapipe_release(p);
	basecopy_sources_free(p);
	fragpack_destroy(p->pack);
	sqp_compressor_destroy(p->codec);
	memset(p, 0, sizeof(*p));
}

int datapipe_flush(struct datapipe *p)
{
	int ret = fragpack_flush(p->pack);

	if (ret == 0)
		ret = compress_flush(p->comp);
	if (ret == 0 && !dedup_store_all_written(p->store))
		ret = sqp_err(p->err, SQP_ERR_INTERNAL, "a data block was never written");
	return ret;
}

unsigned datapipe_workers(const struct datapipe *p)
{
	return compress_workers(p->comp);
}

/* After flush every block is retired (datapipe_flush checks), so the
 * store's answers cannot fail here; one that did would latch its error. */
void datapipe_resolve(const struct datapipe *p, struct fs_inode *ino,
		      uint64_t data_start)
{
	uint32_t i, first = (uint32_t)ino->u.file.blocks_start;
	struct dedup_where w = { data_start, 0 };

	if (first != PHYS_NONE)
		dedup_store_where(p->store, first, &w);
	ino->u.file.blocks_start = w.offset;
	for (i = 0; i < ino->u.file.block_count; ++i) {
		uint32_t v = ino->u.file.block_sizes[i];

		w.size_word = 0;
		if (v != 0)
			dedup_store_where(p->store, v - 1, &w);
		ino->u.file.block_sizes[i] = w.size_word;
	}
}

size_t datapipe_fragment_count(const struct datapipe *p)
{
	return fragpack_count(p->pack);
}

void datapipe_fragment(const struct datapipe *p, size_t i, uint64_t *start,
		       uint32_t *size_word)
{
	*start = 0;
	*size_word = 0;
	fragpack_placed(p->pack, (uint32_t)i, start, size_word);
}
