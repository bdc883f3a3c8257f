/* SPDX-License-Identifier: MIT */
/*
 * shard.c - one shard of the scanned trees (sqp_dirscan_shard): the
 * scan's nodes as shard items (their image paths, sizes, and the first
 * path of each hard-link group as the others' target), the selection of
 * lib/shard, and the feed order and the readers' file list cut down to
 * it. The nodes themselves stay: links name their targets by node.
 */
#include "config.h"

#include <stdlib.h>

#include "dir/dir_impl.h"
#include "sqpack/shard.h"

int sqp_dirscan_shard(struct sqp_dirscan *s, unsigned index, unsigned count,
		      struct sqp_shard_span *spans)
{
	struct sqp_shard_item *items;
	unsigned char *keep;
	size_t i, k = 0;
	int ret;

	if (s->err.code != 0)
		return s->err.code;
	if (s->order_count != s->node_count)
		return dir_fail(s, SQP_ERR_SEQUENCE, "the scan was already cut to a shard");
	items = malloc((s->node_count + 1) * sizeof(*items));
	keep = malloc(s->node_count + 1);
	if (items == NULL || keep == NULL) {
		free(items);
		free(keep);
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	}
	for (i = 0; i < s->node_count; i++) {
		const struct dnode *n = &s->nodes[i];
		int data = S_ISREG(n->mode) && n->link == DNODE_NONE;

		items[i] = (struct sqp_shard_item){
			.path = dnode_path(s, n),
			.link = n->link != DNODE_NONE ? dnode_path(s, &s->nodes[n->link]) : NULL,
			.size = data ? n->size : 0,
			.is_dir = S_ISDIR(n->mode),
		};
	}
	ret = sqp_shard_select(items, s->node_count, index, count, keep, spans);
	free(items);
	if (ret != 0) {
		free(keep);
		if (ret == SQP_ERR_ARG)
			return dir_fail(s, ret, "shard %u of %u: no such shard", index + 1, count);
		return dir_fail(s, ret, "out of memory");
	}
	/* The feed order and the files to read, in the same order, less
	 * what other shards hold. */
	s->file_count = 0;
	s->total_bytes = 0;
	for (i = 0; i < s->order_count; i++) {
		uint32_t node = s->order[i];
		const struct dnode *n = &s->nodes[node];

		if (!keep[node])
			continue;
		s->order[k++] = node;
		if (S_ISREG(n->mode) && n->link == DNODE_NONE) {
			s->files[s->file_count++] = node;
			s->total_bytes += n->size;
		}
	}
	s->order_count = k;
	free(keep);
	return 0;
}
