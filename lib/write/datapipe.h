/* SPDX-License-Identifier: MIT */
/*
 * datapipe.h - the data path of the image writer: file contents in, data
 * blocks and fragment blocks out, in a fixed order, deduplicated.
 *
 * The orchestrator (datapipe.c, filedata.c; the caller's thread) reads
 * each file, cuts it into blocks, hashes every block and tail, decides
 * what can be shared, and drives the stages, each of which owns its
 * state behind its own header:
 *   compress.h   jobs, the compressor workers and the in-order writer;
 *   dedupstore.h what is stored, its indexes, find / add / verify;
 *   fragpack.h   tails packed into fragment blocks, the fragment table;
 *   proof.h      the proof ring: read-backs on workers of their own.
 * Results come back in submission order and are appended to the image by
 * the orchestrator alone, so the bytes do not depend on the number of
 * workers or on timing.
 *
 * Blocks of one file must be contiguous on disk, so a file shares either
 * all of its stored blocks (a run equal to a run stored before) or none;
 * a run that stops matching midway is re-emitted by copying the
 * already-compressed bytes of the matched part, never by compressing
 * again.
 *
 * Until finish, a file inode's block list holds physical block numbers + 1
 * (0 = hole) and u.file.blocks_start the number of its first block;
 * datapipe_resolve() turns them into on-disk size words and offsets.
 */
#ifndef SQP_WRITE_DATAPIPE_H
#define SQP_WRITE_DATAPIPE_H

#include <stdint.h>

#include "codec/codec_worker.h"
#include "sqpack/codec.h"
#include "sqpack/entry.h"
#include "sqpack/writer.h"
#include "util/errbuf.h"
#include "util/spill.h"
#include "write/compress.h"
#include "write/dedupstore.h"
#include "write/fragpack.h"
#include "write/fstree.h"
#include "write/imgout.h"
#include "write/proof.h"

struct base_src;

struct datapipe {
	uint32_t block_size;
	int fragment_mode;
	int dedup;
	uint8_t *zeros;                /* block_size zero bytes */
	uint8_t *tail_buf;             /* block_size: the tail being placed */

	struct imgout *out;            /* borrowed */
	struct sqp_errbuf *err;        /* borrowed */
	struct sqp_compressor *codec;  /* orchestrator's: read-back, tables */
	struct sqp_writer_stats *stats; /* borrowed */

	struct compress_stage *comp;
	struct dedup_store *store;
	struct fragpack *pack;
	struct proof_ring *ring;       /* NULL: proofs stay synchronous */
	/* Every base image's descriptor and codec as its jobs read them
	 * (basecopy.c): owned, freed by datapipe_cleanup. */
	struct base_src *bases;
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

/* Compressor threads (for the tables, which reuse the count). */
unsigned datapipe_workers(const struct datapipe *p);

/* After flush and every datapipe_resolve(): free what only the data
 * phase needs (workers, job buffers, the dedup store), so the tables are
 * built without it. What stays: the fragment table and the
 * orchestrator's codec (for the lookup tables). */
void datapipe_release(struct datapipe *p);

/* Put a tail of len bytes, in p->tail_buf, into a fragment block, or
 * share an equal one (*shared set); ino's fragment fields say where. */
int datapipe_place_tail(struct datapipe *p, struct fs_inode *ino, uint32_t len,
			int *shared);

/* After flush: turn the block numbers in a file inode into size words and
 * its start into an offset (see the top of this header). */
void datapipe_resolve(const struct datapipe *p, struct fs_inode *ino,
		      uint64_t data_start);

/* After flush: the fragment table's entries. */
size_t datapipe_fragment_count(const struct datapipe *p);
void datapipe_fragment(const struct datapipe *p, size_t i, uint64_t *start,
		       uint32_t *size_word);

#endif
