/* SPDX-License-Identifier: MIT */
/*
 * fstree_file.c - a file's data placement, packed into its inode record.
 *
 * Most files of a large tree are small: a size, a fragment index and an
 * offset say all there is, and every such file shares the same
 * blocks_start (the data pipe's "no block" value before resolution, the
 * start of the data area after). So the inode record keeps those three
 * numbers and the tree keeps the shared blocks_start once (bare_start);
 * a file with blocks, holes, a size of 4 GiB or more, or a blocks_start
 * of its own gets a side record in t->blocks. Packing then unpacking
 * gives back exactly what was packed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "util/spill.h"
#include "write/fstree.h"

void fstree_file_get(const struct fstree *t, const struct fs_irec *r,
		     struct fs_inode *out)
{
	const struct fs_blocks *b;

	memset(out, 0, sizeof(*out));
	out->u.file.size = r->u.file.size_lo;
	/* the tail's two words, whichever back end's names they bear */
	out->u.file.frag_index = r->u.file.frag_index;
	out->u.file.frag_offset = r->u.file.frag_offset;
	out->u.file.blocks_start = t->bare_start;
	if (r->u.file.blocks == FS_NONE)
		return;
	b = chunkarr_at(&t->blocks, r->u.file.blocks);
	out->u.file.size |= (uint64_t)b->size_hi << 32;
	out->u.file.blocks_start = b->blocks_start;
	out->u.file.sparse = b->sparse;
	out->u.file.block_sizes = b->block_sizes;
	out->u.file.block_count = b->block_count;
}

/* Pack in into r; a file without a side record must have *bare as its
 * blocks_start (which the first such file sets). */
static int pack(struct fstree *t, struct fs_irec *r, struct fs_inode *in, uint64_t *bare)
{
	const uint64_t size = in->u.file.size;
	struct fs_blocks *b;
	int side = r->u.file.blocks != FS_NONE || in->u.file.block_count > 0 ||
		   in->u.file.block_sizes != NULL || in->u.file.sparse != 0 ||
		   size > UINT32_MAX;

	if (!side) {
		if (*bare == FS_BARE_UNSET)
			*bare = in->u.file.blocks_start;
		side = in->u.file.blocks_start != *bare;
	}
	r->u.file.size_lo = (uint32_t)size;
	r->u.file.frag_index = in->u.file.frag_index;
	r->u.file.frag_offset = in->u.file.frag_offset;
	if (!side)
		return 0;
	if (r->u.file.blocks == FS_NONE &&
	    chunkarr_add(&t->blocks, 1, &r->u.file.blocks) != 0) {
		free(in->u.file.block_sizes);
		return sqp_err(t->err, SQP_ERR_NOMEM, "out of memory");
	}
	b = chunkarr_at(&t->blocks, r->u.file.blocks);
	b->blocks_start = in->u.file.blocks_start;
	b->sparse = in->u.file.sparse;
	b->block_sizes = in->u.file.block_sizes;
	b->block_count = in->u.file.block_count;
	b->size_hi = (uint32_t)(size >> 32);
	return 0;
}

int fstree_file_set(struct fstree *t, struct fs_irec *r, struct fs_inode *in)
{
	return pack(t, r, in, &t->bare_start);
}

int fstree_each_file(struct fstree *t, void (*fn)(void *user, struct fs_inode *ino),
		     void *user)
{
	uint64_t bare = FS_BARE_UNSET;
	struct fs_inode tmp;
	uint32_t i;
	int ret;

	for (i = 0; i < t->inodes.count; ++i) {
		struct fs_irec *r = fstree_inode(t, i);

		sqp_spill_tick(t->spill);
		if (!S_ISREG(r->mode))
			continue;
		fstree_file_get(t, r, &tmp);
		fn(user, &tmp);
		ret = pack(t, r, &tmp, &bare);
		if (ret != 0)
			return ret;
	}
	/* Every file without a side record went from the old shared value
	 * to this one. */
	t->bare_start = bare;
	return 0;
}

int fstree_set_target(struct fstree *t, struct fs_irec *r, const char *target)
{
	size_t len = strlen(target);
	int ret = len < UINT32_MAX ? chunkarr_add(&t->names, (uint32_t)len + 1,
						   &r->u.symlink.target) : SQP_ERR_LIMIT;

	if (ret == SQP_ERR_LIMIT)
		return sqp_err(t->err, ret, "symlink target of %zu bytes is too long", len);
	if (ret != 0)
		return sqp_err(t->err, ret, "out of memory");
	memcpy(chunkarr_at(&t->names, r->u.symlink.target), target, len);
	return 0;
}
