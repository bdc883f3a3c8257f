/* SPDX-License-Identifier: MIT */
/*
 * idtable.c - uid/gid interning (see idtable.h).
 *
 * SquashFS caps the table at 65535 entries; the table never holds more, so
 * its hash part is sized once for the worst case (2^17 slots, 512 KiB)
 * and never rehashed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "squashfs/idtable.h"
#include "squashfs/sqfs_format.h"

int idtable_init(struct idtable *t)
{
	memset(t, 0, sizeof(*t));
	t->slot_count = 1u << 17; /* a power of two above 2 * SQFS_MAX_IDS */
	t->slots = calloc(t->slot_count, sizeof(t->slots[0]));
	t->ids = malloc(SQFS_MAX_IDS * sizeof(t->ids[0]));
	if (t->slots == NULL || t->ids == NULL) {
		idtable_cleanup(t);
		return SQP_ERR_NOMEM;
	}
	return 0;
}

void idtable_cleanup(struct idtable *t)
{
	free(t->slots);
	free(t->ids);
	memset(t, 0, sizeof(*t));
}

int idtable_index(struct idtable *t, uint32_t id, uint16_t *index)
{
	size_t mask = t->slot_count - 1;
	size_t i = (id * UINT32_C(2654435761)) & mask;

	while (t->slots[i] != 0) {
		if (t->ids[t->slots[i] - 1] == id) {
			*index = (uint16_t)(t->slots[i] - 1);
			return 0;
		}
		i = (i + 1) & mask;
	}
	if (t->count == SQFS_MAX_IDS)
		return SQP_ERR_LIMIT;
	t->ids[t->count] = id;
	t->slots[i] = (uint32_t)++t->count;
	*index = (uint16_t)(t->count - 1);
	return 0;
}
