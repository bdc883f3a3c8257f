/* SPDX-License-Identifier: MIT */
/*
 * order.c - the order entries are fed in, and which paths are hard links.
 *
 * Without a sort file the feed follows the scan (names sorted per
 * directory). With one, nodes are stably sorted by descending priority:
 * the writer stores file data in the order files arrive, so this is what
 * places high-priority data first; the directory tree itself is sorted by
 * the writer and does not change. Hard links are decided after the order:
 * the first path of an inode in feed order carries the data, the later
 * ones link to it, so a link never arrives before its target.
 */
#include "config.h"

#include <stdlib.h>

#include "dir/dir_impl.h"

struct prio_key {
	int32_t prio;
	uint32_t node;
};

/* qsort is not stable: ties fall back to the scan position. */
static int cmp_prio(const void *a, const void *b)
{
	const struct prio_key *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

static int cmp_link(const void *a, const void *b)
{
	const struct dlink *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int sort_by_priority(struct sqp_dirscan *s)
{
	struct prio_key *keys = malloc((s->node_count + 1) * sizeof(*keys));
	size_t i;

	if (keys == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; i < s->node_count; i++) {
		s->nodes[i].prio = sqp_policy_priority(s->desc.policy, dnode_path(s, &s->nodes[i]));
		keys[i] = (struct prio_key){ s->nodes[i].prio, (uint32_t)i };
	}
	qsort(keys, s->node_count, sizeof(*keys), cmp_prio);
	for (i = 0; i < s->node_count; i++)
		s->order[i] = keys[i].node;
	free(keys);
	return 0;
}

static int mark_links(struct sqp_dirscan *s)
{
	uint32_t *pos = malloc((s->node_count + 1) * sizeof(*pos));
	size_t i, first = 0;

	if (pos == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; i < s->node_count; i++)
		pos[s->order[i]] = (uint32_t)i;
	for (i = 0; i < s->link_count; i++)
		s->links[i].pos = pos[s->links[i].node];
	free(pos);
	if (s->link_count > 1)
		qsort(s->links, s->link_count, sizeof(*s->links), cmp_link);
	for (i = 0; i < s->link_count; i++) {
		const struct dlink *l = &s->links[i];

		if (i == 0 || l->dev != s->links[first].dev || l->ino != s->links[first].ino)
			first = i;
		else
			s->nodes[l->node].link = s->links[first].node;
	}
	return 0;
}

int dir_make_order(struct sqp_dirscan *s)
{
	size_t i;
	int ret = 0;

	s->order = malloc((s->node_count + 1) * sizeof(*s->order));
	s->files = malloc((s->node_count + 1) * sizeof(*s->files));
	if (s->order == NULL || s->files == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; i < s->node_count; i++)
		s->order[i] = (uint32_t)i;
	s->order_count = s->node_count;
	if (s->desc.policy != NULL && sqp_policy_has_sort(s->desc.policy))
		ret = sort_by_priority(s);
	if (ret == 0)
		ret = mark_links(s);
	for (i = 0; ret == 0 && i < s->node_count; i++) {
		const struct dnode *n = &s->nodes[s->order[i]];

		if (S_ISREG(n->mode) && n->link == DNODE_NONE)
			s->files[s->file_count++] = s->order[i];
		else if (S_ISREG(n->mode))
			s->total_bytes -= n->size;   /* a link's data is counted once */
	}
	return ret;
}
