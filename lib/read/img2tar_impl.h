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
	XJOB_FRAG_SAME,  /* the fragment block of the previous XJOB_FRAG */
};

struct pending;

struct xjob {
	struct sqp_pool_job pj;  /* first: the pool hands this back */
	int kind;
	uint64_t offset;         /* on disk */
	uint32_t disk_size;
	int raw;                 /* stored uncompressed */
	uint32_t out_len;        /* bytes of the file this job gives */
	uint32_t frag_index, frag_off;
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
	uint8_t *frag_buf;       /* the last fragment block written from */
	uint32_t frag_index, frag_len;
	int frag_valid;
	uint32_t last_submitted_frag;
	int any_frag_submitted;
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
/* p has all its jobs: write what is ready. */
int xout_close_entry(struct xout *x, struct pending *p);
/* Write everything still queued. */
int xout_flush(struct xout *x);
void pending_free(struct pending *p);

#endif
