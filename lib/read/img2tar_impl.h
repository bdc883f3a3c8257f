/* SPDX-License-Identifier: MIT */
/*
 * img2tar_impl.h - the image-to-tar conversion, split in two files:
 * img2tar.c walks the tree and describes entries; img2tar_out.c runs the
 * decompression pool and writes entries to the tar strictly in order.
 */
#ifndef SQP_READ_IMG2TAR_IMPL_H
#define SQP_READ_IMG2TAR_IMPL_H

#include "read/rd_image.h"
#include "sqpack/tar_writer.h"
#include "util/pool.h"

enum xjob_kind {
	XJOB_DATA,       /* read and decompress a data block */
	XJOB_HOLE,       /* a sparse block: zeros, nothing to read */
	XJOB_FRAG,       /* read and decompress a fragment block */
	XJOB_FRAG_SAME,  /* a fragment block already in the cache */
};

struct pending;

#define FRAG_SLOTS 8

struct xjob {
	struct sqp_pool_job pj;  /* first: the pool hands this back */
	int kind;
	uint64_t offset;         /* on disk */
	uint32_t disk_size;
	int raw;                 /* stored uncompressed */
	uint32_t out_len;        /* bytes of the file this job gives */
	uint32_t frag_index, frag_off;
	unsigned slot;           /* fragment cache slot it fills or reads */
	uint32_t got;            /* bytes decompressed (set by the worker) */
	uint8_t *buf;            /* block_size bytes */
	struct pending *owner;
	struct xjob *next_free;
};

/* An entry waiting for its turn in the tar. */
struct pending {
	struct sqp_entry e;
	char *path;              /* owned; e.path points here */
	char *link;              /* owned */
	struct rd_xattrs xattrs; /* owned; e.xattrs points into it */
	struct sqp_sparse_run *runs; /* owned (sparse output only) */
	uint64_t jobs_total, jobs_done;
	int all_submitted, header_done;
	struct pending *next;
};

struct xout {
	struct sqp_image *img;
	struct sqp_tar_writer *tw;
	struct sqp_pool *pool;
	struct xjob *jobs;
	unsigned job_count;
	struct xjob *free_jobs;
	/* Decompressed fragment blocks, least recently used evicted. The
	 * plan is the cache as it will be when the job being submitted is
	 * retired: decided at submit time, applied at retire time, in the
	 * same order, so a tail always finds the block it was promised. */
	struct {
		uint8_t *buf;
		uint32_t index, len;
		int valid;
	} frag[FRAG_SLOTS];
	struct {
		uint32_t index;
		int valid;
		uint64_t used;
	} plan[FRAG_SLOTS];
	uint64_t plan_clock;
	unsigned sparse_out;     /* write holes as sparse runs */
	struct pending *head, *tail;
	size_t pending_count;
};

int xout_init(struct xout *x, struct sqp_image *img,
	      struct sqp_tar_writer *tw, unsigned jobs, int sparse_out);
/* Tear down; waits for jobs still in flight. */
void xout_fini(struct xout *x);
/* Queue an entry; file data jobs follow with xout_job()/xout_submit(). */
int xout_push(struct xout *x, struct pending *p);
/* A free job (retiring the oldest if all are busy), owned by p. */
int xout_job(struct xout *x, struct pending *p, struct xjob **out);
void xout_submit(struct xout *x, struct xjob *j);
/* Set j->kind (XJOB_FRAG or XJOB_FRAG_SAME) and j->slot for a tail of
 * fragment block j->frag_index. */
void xout_plan_frag(struct xout *x, struct xjob *j);
/* p has all its jobs: write what is ready. */
int xout_close_entry(struct xout *x, struct pending *p);
/* Write everything still queued. */
int xout_flush(struct xout *x);
void pending_free(struct pending *p);

/* img2tar_data.c: submit the jobs of a regular file's blocks and tail;
 * and for sparse output, set p->e.sparse to the file's data runs (left
 * empty for a file without holes). */
int xfile_jobs(struct xout *x, struct pending *p, struct rd_inode *ino);
int xfile_runs(struct sqp_image *img, struct pending *p, struct rd_inode *ino);

#endif
