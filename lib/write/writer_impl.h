/* SPDX-License-Identifier: MIT */
/*
 * writer_impl.h - the image writer's state, shared by writer.c (life
 * cycle), writer_add.c (entries), writer_finish.c (tables) and tar2img.c.
 */
#ifndef SQP_WRITE_WRITER_IMPL_H
#define SQP_WRITE_WRITER_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sqpack/writer.h"
#include "util/errbuf.h"
#include "write/datapipe.h"
#include "write/erofs_writer.h"
#include "write/fstree.h"
#include "write/idtable.h"
#include "write/imgout.h"
#include "write/xattrs.h"

struct sqp_writer {
	struct sqp_writer_desc desc;  /* copy; jobs resolved */
	struct sqp_errbuf err;
	struct sqp_spill *spill;      /* the tree's and tables' memory (NULL = heap) */
	struct imgout out;
	struct fstree tree;
	struct datapipe pipe;
	int pipe_ready;
	struct idtable ids;
	struct xattr_store xattrs;
	struct sqp_writer_stats stats;

	size_t opts_len;              /* compressor options payload, 0 = none */
	uint64_t data_start;          /* first byte after superblock + options */
	uint32_t newest_mtime;
	int finished;
	int adding_extras;            /* the policy's spec entries: not transformed */
	uint64_t entries_added;       /* for the progress callback */
	uint64_t bytes_read;
	uint64_t fail_meta_job;       /* test hook, see writer_test.h */
	struct verity *verity;        /* --verity's hasher, or NULL */
	int verity_separate, verity_hash_fd;
	uint64_t verity_hash_offset;  /* where the tree went */
	struct erofs_wstate *erofs;   /* the EROFS back end, NULL for SquashFS */
};

/* verity_writer.c (verity_none.c without libcrypto): start the hasher
 * (nothing unless desc.verity), the padding the image needs for it (1:
 * none), and after the superblock the tree. */
int writer_verity_start(struct sqp_writer *w);
uint32_t writer_verity_pad(const struct sqp_writer *w);
int writer_verity_finish(struct sqp_writer *w, const uint8_t *super, size_t super_len);
void writer_verity_destroy(struct sqp_writer *w);

/* Add the policy's spec entries (finish calls this first). */
int writer_add_extras(struct sqp_writer *w);

/* Latch an error on the writer (first one wins); returns the latched code. */
int writer_fail(struct sqp_writer *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
