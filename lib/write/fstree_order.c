/* SPDX-License-Identifier: MIT */
/*
 * fstree_order.c - the last pass over the tree before it is written:
 * children in byte order of their names, link counts, times of implied
 * directories.
 *
 * Child lists are linked through the nodes, so they are sorted in place
 * by a merge sort on the list itself: no array of a directory's children
 * is ever built, however large the directory. Tar archives usually list a
 * directory already sorted; one pass finds that and skips the sort. Names
 * in a live list are distinct, so the order, and the image, do not depend
 * on how the sort breaks ties.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/spill.h"
#include "write/fstree.h"

static int before(const struct fstree *t, uint32_t a, uint32_t b)
{
	sqp_spill_tick(t->spill); /* reads two nodes and names anywhere */
	return strcmp(fstree_name(t, fstree_node(t, a)),
		      fstree_name(t, fstree_node(t, b))) < 0;
}

static int is_sorted(const struct fstree *t, uint32_t i)
{
	uint32_t next;

	for (; (next = fstree_node(t, i)->next) != FS_NONE; i = next) {
		if (!before(t, i, next))
			return 0;
	}
	return 1;
}

/* Append e to the list being built. */
static void append(const struct fstree *t, uint32_t *head, uint32_t *tail, uint32_t e)
{
	if (*tail == FS_NONE)
		*head = e;
	else
		fstree_node(t, *tail)->next = e;
	*tail = e;
}

/* Merge the run of up to len nodes at *p with the run of up to len nodes
 * that follows it; *p moves past both. */
static void merge_runs(const struct fstree *t, uint32_t *p, size_t len,
		       uint32_t *head, uint32_t *tail)
{
	uint32_t a = *p, b = *p;
	size_t na = 0, nb = len, k;

	for (k = 0; k < len && b != FS_NONE; ++k, ++na)
		b = fstree_node(t, b)->next;
	while (na > 0 || (nb > 0 && b != FS_NONE)) {
		uint32_t e;

		if (na > 0 && (nb == 0 || b == FS_NONE || !before(t, b, a))) {
			e = a;
			a = fstree_node(t, a)->next;
			na--;
		} else {
			e = b;
			b = fstree_node(t, b)->next;
			nb--;
		}
		append(t, head, tail, e);
	}
	*p = b;
}

/* Bottom-up merge sort of dir's child list, runs doubling each pass. */
static void sort_children(const struct fstree *t, struct fs_irec *dir)
{
	size_t len;

	if (dir->u.dir.first == FS_NONE || is_sorted(t, dir->u.dir.first))
		return;
	for (len = 1;; len *= 2) {
		uint32_t p = dir->u.dir.first, head = FS_NONE, tail = FS_NONE;
		size_t merges = 0;

		while (p != FS_NONE) {
			merge_runs(t, &p, len, &head, &tail);
			merges++;
		}
		fstree_node(t, tail)->next = FS_NONE;
		dir->u.dir.first = head;
		dir->u.dir.last = tail;
		if (merges <= 1)
			return;
	}
}

void fstree_finalize(struct fstree *t, int64_t implied_mtime)
{
	uint32_t i;

	fstree_drop_lookups(t);

	for (i = 0; i < t->inodes.count; ++i) {
		struct fs_irec *ino = fstree_inode(t, i);

		ino->nlink = 0;
		if (ino->implied) {
			ino->mtime = implied_mtime;
			ino->mtime_nsec = 0;
		}
		sqp_spill_tick(t->spill);
	}
	/* Only live directories are sorted: the stale list of a replaced
	 * directory's inode may run into live lists (see fstree.c). Links:
	 * every live node counts for its inode; a directory also gets "."
	 * and one ".." from each subdirectory. */
	for (i = 0; i < t->nodes.count; ++i) {
		struct fs_node *n = fstree_node(t, i);
		struct fs_irec *ino;

		sqp_spill_tick(t->spill);
		if (n->inode >= FS_DEAD) /* dead, or never given an inode */
			continue;
		ino = fstree_inode(t, n->inode);
		ino->nlink++;
		if (S_ISDIR(ino->mode)) {
			sort_children(t, ino);
			ino->nlink++;
			if (n->parent != FS_NONE)
				fstree_inode(t, fstree_node(t, n->parent)->inode)->nlink++;
		}
	}
}
