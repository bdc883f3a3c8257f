/* SPDX-License-Identifier: MIT */
/*
 * rebuild.h - lib/rebuild's internals: one walk of a base image into a
 * writer (add_image.c) and how each file's data gets there (data.c).
 */
#ifndef SQP_REBUILD_REBUILD_H
#define SQP_REBUILD_REBUILD_H

#include <stddef.h>

#include "read/rd_walk.h"
#include "sqpack/entry.h"
#include "sqpack/writer.h"

struct rebuild {
	struct sqp_writer *w;    /* borrowed */
	struct sqp_image *img;   /* the base; borrowed */
	const char *under;       /* prefix of every path ("": none) */
	int disjoint;            /* SQP_ADD_IMAGE_DISJOINT */
	char *path;              /* the writer's path of the current entry */
	size_t path_cap;
	/* Copying stored blocks (data.c): NULL when the data is decoded. */
	struct basecopy *copy;
	/* Or the writer's back end copies what it can of each file
	 * (writer_format.base_fits said so). */
	int by_backend;
	struct rd_stored st;     /* the current file as the base stores it */
};

int rebuild_init(struct rebuild *rb);
/* After the base's last entry: what the copy still holds is queued
 * (basecopy_end). 0 or the writer's latched error. */
int rebuild_end(struct rebuild *rb);
void rebuild_cleanup(struct rebuild *rb);

/* Add entry e (n: the walk's node, NULL for a hard link) to the writer,
 * a regular file's data taken from the base. Returns what
 * sqp_writer_add returns, or a negative error of the base (not latched:
 * the caller names the entry). */
int rebuild_add(struct rebuild *rb, const struct sqp_entry *e,
		const struct rd_walk_node *n);

#endif
