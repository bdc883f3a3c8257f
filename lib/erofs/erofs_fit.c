/* SPDX-License-Identifier: MIT */
/*
 * erofs_fit.c - where each inode record goes in the EROFS metadata area.
 *
 * Why: the kernel reads an inode, its xattrs and its indexes by their
 * own places, across a block boundary if need be; only an inline tail
 * (a directory's, a symlink's or a file's last bytes, or a compressed
 * tail pcluster) must lie in one block. Laying records whole in blocks
 * wasted the rest of a block whenever the next one did not fit: 0.7%
 * of big.tar's index (mkfs.erofs --tar=i), whose 512-byte blocks hold
 * few records, where mkfs.erofs 1.9 lets records grow across blocks.
 *
 * Nids may come in any order, so each record goes to the block with the
 * least room that still holds it whole (best fit); one that no block
 * holds whole starts in the room of the last block of the area, the
 * frontier, and runs on into new blocks when its tail stays in one
 * block there; else it starts a new block. Blocks with room are kept in
 * one stack per free 32-byte slot count; every choice depends only on
 * the records before, so the layout is the same on every run. A record
 * that must lie whole in one block (a compressed file's tail pcluster
 * was fitted after its indexes from a block's start) and is longer than
 * a block starts a run of new blocks of its own. The last block of a
 * run offers its room to later records. Room outside the area (block 0
 * after the superblock) may be offered first, so positions are the
 * image's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"

/* A block's slots and bytes (4096, or 512 for a tar's index), with f
 * the fit in scope. */
#define SLOTS (f->slots)
#define BS ((uint64_t)f->slots * EROFS_SLOT_SIZE)

static int push(struct erofs_fit *f, uint32_t free_slots, uint64_t blk)
{
	struct erofs_fit_stack *s = &f->room[free_slots];

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		uint64_t *b = realloc(s->blk, cap * sizeof(*b));

		if (b == NULL)
			return SQP_ERR_NOMEM;
		s->blk = b;
		s->cap = cap;
	}
	s->blk[s->n++] = blk;
	return 0;
}

/* The frontier's room taken from its stack, for a record of bytes that
 * starts there and crosses into new blocks, its last tail bytes in one
 * block: *at where it starts, *need the slots it still wants. 0 when it
 * cannot start there. */
static int cross(struct erofs_fit *f, uint64_t bytes, uint64_t tail, uint64_t *need,
		 uint64_t *at)
{
	struct erofs_fit_stack *s = &f->room[f->front];
	size_t k = s->n;
	uint64_t start;

	if (f->front == 0 || tail >= bytes)
		return 0;
	start = (f->blocks - 1) * BS + (uint64_t)(SLOTS - f->front) * EROFS_SLOT_SIZE;
	if (tail > 0 && (start + bytes - tail) / BS != (start + bytes - 1) / BS)
		return 0;
	while (k > 0 && s->blk[k - 1] != f->blocks - 1)
		k--;
	if (k == 0)
		return 0;
	memmove(s->blk + k - 1, s->blk + k, (s->n - k) * sizeof(*s->blk));
	s->n--;
	*at = start;
	*need -= f->front;
	return 1;
}

int erofs_fit_place(struct erofs_fit *f, uint64_t bytes, uint64_t tail, uint64_t *at)
{
	uint64_t need = (bytes + EROFS_SLOT_SIZE - 1) / EROFS_SLOT_SIZE, nb, left;
	uint32_t b;

	if (need <= SLOTS) {
		for (b = (uint32_t)need; b < SLOTS; b++) {
			struct erofs_fit_stack *s = &f->room[b];

			if (s->n > 0) {
				uint64_t blk = s->blk[--s->n];

				*at = blk * BS + (uint64_t)(SLOTS - b) * EROFS_SLOT_SIZE;
				if (f->front > 0 && blk == f->blocks - 1)
					f->front = b - (uint32_t)need;
				return b > need ? push(f, b - (uint32_t)need, blk) : 0;
			}
		}
	}
	if (!cross(f, bytes, tail, &need, at))
		*at = f->blocks * BS;
	nb = (need + SLOTS - 1) / SLOTS;
	f->blocks += nb;
	left = nb * SLOTS - need;
	f->front = (uint32_t)left;
	return left > 0 ? push(f, (uint32_t)left, f->blocks - 1) : 0;
}

int erofs_fit_room(struct erofs_fit *f, uint64_t blk, uint32_t free_slots)
{
	return free_slots > 0 && free_slots < SLOTS ? push(f, free_slots, blk) : SQP_ERR_INTERNAL;
}

void erofs_fit_cleanup(struct erofs_fit *f)
{
	uint32_t b;

	for (b = 0; b < EROFS_W_BLOCK / EROFS_SLOT_SIZE; b++)
		free(f->room[b].blk);
	memset(f, 0, sizeof(*f));
}
