/* SPDX-License-Identifier: MIT */
/*
 * idtable.h - the uid/gid lookup table: every distinct 32-bit id once, in
 * order of first use; inodes store a 16-bit index into it.
 */
#ifndef SQP_WRITE_IDTABLE_H
#define SQP_WRITE_IDTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "util/errbuf.h"

struct idtable {
	uint32_t *ids;          /* index -> id */
	size_t count;
	uint32_t *slots;        /* open addressing: index + 1, 0 = empty */
	size_t slot_count;      /* power of two, > 2 * count */
};

int idtable_init(struct idtable *t);
void idtable_cleanup(struct idtable *t);

/* The index of id, added if new. SQP_ERR_LIMIT past 65535 ids. */
int idtable_index(struct idtable *t, uint32_t id, uint16_t *index);

#endif
