/* SPDX-License-Identifier: MIT */
/*
 * datapipe.h - the data path of the image writer: file contents in, data
 * blocks and fragment blocks out, in a fixed order, deduplicated.
 *
 * The orchestrator (the caller's thread) reads each file, cuts it into
 * blocks, hashes every block and tail, decides what can be shared, packs
 * tails into fragment blocks, and submits what must be stored to a pool of
 * workers that compress. Results come back in submission order and are
 * appended to the image by the orchestrator alone, so the bytes do not
 * depend on the number of workers or on timing.
 *
 * Sharing is decided by content: a hash nominates a candidate stored
 * earlier, and the candidate's bytes are read back from the image and
 * compared (decompressed where needed) before anything is shared; with
 * workers, the read-backs of a file's run go to proof workers and are
 * settled before anything else is stored (proof.h). Blocks of
 * one file must be contiguous on disk, so a file shares either all of its
 * stored blocks (a run equal to a run stored before) or none; a run that
 * stops matching midway is re-emitted by copying the already-compressed
 * bytes of the matched part, never by compressing again.
 *
 * Until finish, a file inode's block list holds physical block numbers + 1
 * (0 = hole) and u.file.blocks_start the number of its first block;
 * datapipe_resolve() turns them into on-disk size words and offsets.
 */
#ifndef SQP_WRITE_DATAPIPE_H
#define SQP_WRITE_DATAPIPE_H

#include <stdint.h>
#include <xxhash.h>

#include "codec/codec_worker.h"
#include "sqpack/codec.h"
#include "sqpack/entry.h"
#include "sqpack/writer.h"
#include "util/errbuf.h"
#include "util/hchain.h"
#include "util/pipeline.h"
#include "util/pool.h"
#include "write/fstree.h"
#include "write/imgout.h"
#include "write/proof.h"

#define PHYS_NONE UINT32_MAX

enum blk_job_kind {
	JOB_BLOCK,      /* compress raw[] into out[] */
	JOB_FRAGMENT,   /* same, for a fragment block */
	JOB_COPY,       /* read copy_len stored bytes at copy_from into out[] */
};

struct blk_job {
	struct sqp_pool_job base;
	int kind;
	uint8_t *raw;          /* block_size bytes */
	uint8_t *out;          /* block_size bytes */
	uint32_t raw_len;
	uint32_t size_word;    /* on-disk size word, set by the worker */
	int probed_raw;        /* stored raw because the probe said so */
	uint32_t index;        /* physical block or fragment number */
	uint64_t copy_from;
	struct blk_job *next_free;
};

/* One data block as stored, in image order. */
struct phys_block {
	XXH128_hash_t hash;    /* of the uncompressed bytes */
	uint64_t offset;       /* valid once retired */
	uint32_t size_word;    /* valid once retired */
	uint32_t raw_len;
	uint8_t retired;
};

/* One file tail stored in a fragment block. Its hash is not kept: the
 * index (tail_index) holds 64 bits of it, enough to nominate a candidate,
 * and the bytes decide. 12 bytes, one per stored tail. */
struct tail_rec {
	uint32_t frag_index;
	uint32_t offset;
	uint32_t len;
};

struct frag_rec {
	uint64_t start;        /* valid once retired */
	uint32_t size_word;
	uint8_t retired;
};

/* A decompressed fragment block kept for tail read-back. */
struct frag_cache_slot {
	uint32_t index;        /* PHYS_NONE when empty */
	uint32_t len;
	uint64_t last_use;
	uint8_t *data;
	int loading;           /* a proof worker is filling it (proof.h) */
};
#define FRAG_CACHE_SLOTS 4

/* The compressors (datapipe.c): a fixed set of jobs, the ordered pool
 * that runs them, and the settings its workers read. */
struct compress_stage {
	/* First: the pool's ctx is this stage, and the shared worker_init
	 * of util/pipeline reads it as its workers' description (codec, and
	 * a probe_scratch each). */
	struct sqp_codec_worker_desc wdesc;
	int probe;                     /* skip the codec on incompressible blocks */
	int raw_data;                  /* store data blocks uncompressed */
	int raw_frags;                 /* store fragment blocks uncompressed */
	uint64_t fail_job;             /* test hook: this job fails (1-based) */
	int fd;                        /* the image, for JOB_COPY */
	uint64_t base;                 /* file offset of image position 0 */

	struct sqp_pool *pool;
	struct blk_job *jobs;          /* all jobs, one allocation */
	size_t job_count;
	struct blk_job *free_jobs;
};

/* What is stored, as dedup sees it (dedup.c): records in image order,
 * their hash indexes, and the synchronous read-back's buffers. */
struct dedup_store {
	unsigned hash_bits;            /* 0 = full hash */

	struct phys_block *phys;
	size_t phys_count;
	size_t phys_cap;
	struct hchain phys_index;

	struct tail_rec *tails;
	size_t tail_count;
	size_t tail_cap;
	struct hchain tail_index;

	struct frag_cache_slot cache[FRAG_CACHE_SLOTS];
	uint64_t cache_clock;
	uint8_t *verify_disk;          /* block_size: stored bytes read back */
	uint8_t *verify_raw;           /* block_size: decompressed */
};

/* Tails packed into fragment blocks (filedata.c). */
struct frag_packer {
	struct frag_rec *frags;
	size_t frag_count;
	size_t frag_cap;
	struct blk_job *open_frag;     /* fragment block being filled */
	uint32_t open_fill;
	uint8_t *tail_buf;             /* block_size: the tail being placed */
};

/*
 * The stages of the data path, each with its own state: a file becomes
 * blocks and a tail (filedata.c), blocks get a dedup decision against the
 * store (dedup.c), proven on the proof workers (proof.c) or at once;
 * what must be stored goes through the compressors (compress), and one
 * ordered writer appends it to the image (imgout, imgwriter.c).
 */
struct datapipe {
	uint32_t block_size;
	int fragment_mode;
	int dedup;
	uint8_t *zeros;                /* block_size zero bytes */

	struct imgout *out;            /* borrowed */
	struct sqp_errbuf *err;        /* borrowed */
	struct sqp_compressor *codec;  /* orchestrator's: read-back, tables */

	struct compress_stage comp;
	struct dedup_store store;
	struct frag_packer pack;
	struct proof_stage proofs;     /* read-backs on workers (proof.c) */

	struct sqp_writer_stats *stats; /* borrowed */
	struct sqp_spill *spill;       /* borrowed: the records' memory */
};

struct datapipe_desc {
	const struct sqp_codec_config *codec;
	unsigned jobs;                 /* workers; 0 or 1 = serial */
	int fragment_mode;
	int dedup;
	int probe;
	int raw_data;
	int raw_frags;
	unsigned hash_bits;
	uint64_t fail_job;
	int fd;
	struct imgout *out;
	struct sqp_errbuf *err;
	struct sqp_writer_stats *stats;
	struct sqp_spill *spill;       /* where records live; NULL = heap */
};

int datapipe_init(struct datapipe *p, const struct datapipe_desc *desc);
void datapipe_cleanup(struct datapipe *p);

/* Store a regular file's contents (size bytes from src) for inode ino. */
int datapipe_add_file(struct datapipe *p, struct fs_inode *ino, uint64_t size,
		      const struct sqp_data_source *src);

/* Submit the last fragment block and write everything still in flight. */
int datapipe_flush(struct datapipe *p);

/* After flush and every datapipe_resolve(): free what only the data
 * phase needs (workers, job buffers, the dedup indexes and records), so
 * the tables are built without it. What stays: the fragment table and
 * the orchestrator's codec (for the lookup tables). */
void datapipe_release(struct datapipe *p);

/* After flush: turn the block numbers in a file inode into size words and
 * its start into an offset (see the top of this header). */
void datapipe_resolve(const struct datapipe *p, struct fs_inode *ino,
		      uint64_t data_start);

/* --- shared between datapipe.c, dedup.c, filedata.c and proof.c --- */

struct blk_job *datapipe_get_job(struct datapipe *p);
void datapipe_put_job(struct datapipe *p, struct blk_job *job);
int datapipe_submit(struct datapipe *p, struct blk_job *job);
int datapipe_retire_one(struct datapipe *p);

XXH128_hash_t dedup_hash(const struct datapipe *p, const void *data, size_t len);
int dedup_hash_eq(XXH128_hash_t a, XXH128_hash_t b);
int dedup_wait_block(struct datapipe *p, uint32_t phys);
/* Stored block phys holds raw[0, len); stored blocks a and b hold the
 * same bytes. Both retire the blocks first. While a decision is open
 * (proofs.active) the read-back goes to the proof workers and *equal is
 * 1 until the decision is settled (proof.h). */
int dedup_verify_block(struct datapipe *p, uint32_t phys, const uint8_t *raw,
		       uint32_t len, int *equal);
int dedup_same_stored(struct datapipe *p, uint32_t a, uint32_t b, int *equal);
int dedup_find_tail(struct datapipe *p, XXH128_hash_t hash, const uint8_t *buf,
		    uint32_t len, const struct tail_rec **found);
int dedup_new_phys(struct datapipe *p, XXH128_hash_t hash, uint32_t raw_len,
		   uint32_t *index);
int dedup_new_tail(struct datapipe *p, XXH128_hash_t hash, uint32_t frag_index,
		   uint32_t offset, uint32_t len);

#endif
