/* SPDX-License-Identifier: MIT */
/*
 * serialize.h - turning the finished tree into the inode and directory
 * tables (both kept in memory, compressed, until the writer appends them
 * in order).
 */
#ifndef SQP_WRITE_SERIALIZE_H
#define SQP_WRITE_SERIALIZE_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/codec.h"
#include "squashfs/idtable.h"
#include "squashfs/metapool.h"
#include "util/errbuf.h"
#include "write/fstree.h"

struct dir_rec;

struct serializer {
	struct meta_pool meta;        /* both tables */
	struct idtable *ids;          /* borrowed */
	struct fstree *tree;          /* borrowed, during serialize_tree */
	struct sqp_errbuf *err;       /* borrowed */
	int exportable;

	/* results */
	uint32_t inode_count;
	uint64_t root_ref;
	uint64_t *export_refs;        /* inode number - 1 -> ref, if exportable */

	/* scratch */
	uint8_t *scratch;
	size_t scratch_cap;
	uint8_t *index;               /* directory index being built */
	size_t index_len;
	size_t index_cap;
	uint32_t index_count;
	struct dir_rec **pending;     /* directory inodes waiting for their parent */
	size_t pending_count;
	size_t pending_cap;
};

struct serializer_desc {
	const struct sqp_codec_config *codec; /* NULL: tables uncompressed */
	unsigned workers;             /* metadata compressors (at most 8); 0 or 1 = serial */
	uint64_t fail_job;            /* test hook: this block job fails */
	struct idtable *ids;
	struct sqp_errbuf *err;
	int exportable;
	struct sqp_spill *spill;      /* the tables' memory; NULL = heap */
};

int serializer_init(struct serializer *s, const struct serializer_desc *desc);
void serializer_cleanup(struct serializer *s);

/* Number the inodes and write both tables (fstree_finalize and the data
 * resolution must have happened). */
int serialize_tree(struct serializer *s, struct fstree *t);

#endif
