/* SPDX-License-Identifier: MIT */
/*
 * compress.h - the compressors of the data path and its in-order writer.
 *
 * A fixed set of jobs (a block's bytes in, its stored bytes out), the
 * ordered pool that runs them, and retirement: the oldest finished job's
 * bytes go to the image and its owner is told where (the written
 * callback). Retirement is the only way block data reaches the image, so
 * the on-disk order is the submission order. With --verity a retired
 * job goes back to the pool to hash the verity blocks its bytes cover
 * (where they lie is known only once it is retired), so the hash is
 * spread over the workers.
 */
#ifndef SQP_WRITE_COMPRESS_H
#define SQP_WRITE_COMPRESS_H

#include <stdint.h>

#include "sqpack/codec.h"
#include "sqpack/writer.h"
#include "util/errbuf.h"
#include "util/pool.h"
#include "write/imgout.h"

enum blk_job_kind {
	JOB_BLOCK,      /* compress raw[] into out[] */
	JOB_FRAGMENT,   /* same, for a fragment block */
	JOB_COPY,       /* read copy_len stored bytes at copy_from into out[] */
	/* A base image's stored block (basecopy.h): read size_word's bytes
	 * at file position copy_from of copy_fd into out[], as they are,
	 * or with recode decode them with that codec into raw[] and
	 * compress them as JOB_BLOCK / JOB_FRAGMENT do. */
	JOB_BASE_BLOCK,
	JOB_BASE_FRAGMENT,
};

struct compress_settings;

struct blk_job {
	struct sqp_pool_job base;
	const struct compress_settings *set; /* what the worker reads */
	int kind;
	uint8_t *raw;          /* block_size bytes */
	uint8_t *out;          /* block_size bytes */
	uint32_t raw_len;
	uint32_t size_word;    /* on-disk size word, set by the worker */
	int probed_raw;        /* stored raw because the probe said so */
	uint32_t index;        /* physical block or fragment number */
	uint64_t copy_from;
	int copy_fd;           /* JOB_BASE_*: the base image's file */
	/* JOB_BASE_*: NULL, or the base's codec to decode with; raw_len is
	 * then a block's exact length, a fragment block's largest. */
	const struct sqp_codec_config *recode;
	struct blk_job *next_free;
	/* --verity: what the tap left to hash of out[] or raw[] once
	 * queued (imgout.h), and the job is in the pool again for that;
	 * free when both the writer thread and the hash are done with it
	 * (holds, the orchestrator's); the hash is a background job
	 * (util/pool.h). */
	void *span;
	int hashing;
	int holds;
};

struct compress_desc {
	const struct sqp_codec_config *codec;
	unsigned jobs;                 /* -j: 0 or 1 = serial */
	int probe;                     /* skip the codec on incompressible blocks */
	int raw_data;                  /* store data blocks uncompressed */
	int raw_frags;                 /* store fragment blocks uncompressed */
	uint64_t fail_job;             /* test hook: this job fails (1-based) */
	struct imgout *out;            /* borrowed */
	struct sqp_errbuf *err;        /* borrowed */
	struct sqp_writer_stats *stats; /* borrowed */
	/* A retired job's bytes start at image position pos. */
	void (*written)(void *user, const struct blk_job *job, uint64_t pos);
	void *user;
};

struct compress_stage;

/* Starts the workers and the image writer thread (imgout_start_async).
 * *out is set on every path; destroy it either way. */
int compress_create(const struct compress_desc *desc, struct compress_stage **out);
/* Joins the workers and the writer thread; no job is in use after. */
void compress_destroy(struct compress_stage *c);

unsigned compress_workers(const struct compress_stage *c);
size_t compress_job_count(const struct compress_stage *c);

/* A free job, retiring jobs until one is; NULL on error (latched). */
struct blk_job *compress_get_job(struct compress_stage *c);
void compress_put_job(struct compress_stage *c, struct blk_job *job);
/* Queue a filled job (kind, raw_len, index set); on error it is given
 * back. */
int compress_submit(struct compress_stage *c, struct blk_job *job);
/* Wait for the oldest job in the pool and append its bytes. */
int compress_retire_one(struct compress_stage *c);
/* Retire every job, take every hash back, and wait until the image holds
 * their bytes. */
int compress_flush(struct compress_stage *c);

/* Whether compress_copy may append a base's stored block: not when a
 * tap hashes the image (it sees only bytes that pass through memory). */
int compress_can_copy(const struct compress_stage *c);
/* A base image's stored block (JOB_BASE_BLOCK or JOB_BASE_FRAGMENT
 * number index, size word word, at file position from of fd) appended
 * as it is, after every job in the pool, by the image's kernel copy
 * (imgout_copy): a run of blocks that lie back to back in the base is
 * one copy, and their bytes never pass through this process. Its owner
 * is told where it lies at once. */
int compress_copy(struct compress_stage *c, int kind, uint32_t index, uint32_t word,
		  int fd, uint64_t from);

#endif
