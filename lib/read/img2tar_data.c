/* SPDX-License-Identifier: MIT */
/*
 * img2tar_data.c - a regular file's data as jobs for the ordered writer:
 * one job per block of the block list (a hole when its size word is 0)
 * and one for the fragment tail; and, for --sparse output, the file's
 * data runs, so the tar carries only the bytes that are not holes.
 *
 * Each block's position and size is checked against the image before a
 * job is made for it, so workers only ever read inside the image; what
 * a block decompresses to is checked by the worker (img2tar_out.c).
 */
#include "config.h"

#include <stdlib.h>

#include "read/img2tar_impl.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* Submit the jobs of a regular file's blocks and tail. */
int xfile_jobs(struct xout *x, struct pending *p, struct rd_inode *ino)
{
	struct sqp_image *img = x->img;
	const struct sqfs_inode *r = &ino->raw;
	uint32_t bs = img->sb.block_size;
	uint64_t pos = r->u.file.blocks_start;
	struct meta_pos bl = ino->blocks;
	struct xjob *j;
	uint8_t word[4];
	int ret;

	for (uint64_t i = 0; i < ino->block_count; i++) {
		uint32_t sw, disk;

		if ((ret = meta_read(img, &bl, word, 4)) != 0)
			return ret;
		sw = sqp_get32(word);
		disk = sw & SQFS_BLOCK_SIZE_MASK;
		if (disk > bs || pos > img->sb.bytes_used ||
		    disk > img->sb.bytes_used - pos)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: '%s': block %llu "
				      "lies outside the image", img->name,
				      p->e.path, (unsigned long long)i);
		if ((ret = xout_job(x, p, &j)) != 0)
			return ret;
		j->kind = disk == 0 ? XJOB_HOLE : XJOB_DATA;
		j->offset = pos;
		j->disk_size = disk;
		j->raw = (sw & SQFS_BLOCK_UNCOMPRESSED) != 0;
		j->out_len = i + 1 < ino->block_count ||
			     r->u.file.frag_index != SQFS_NO_FRAGMENT ||
			     r->u.file.size % bs == 0 ?
			     bs : (uint32_t)(r->u.file.size % bs);
		pos += disk;
		xout_submit(x, j);
	}
	if (r->u.file.frag_index != SQFS_NO_FRAGMENT) {
		struct sqfs_frag_entry f;
		uint32_t disk;

		if ((ret = rd_fragment(img, r->u.file.frag_index, &f)) != 0)
			return ret;
		disk = f.size & SQFS_BLOCK_SIZE_MASK;
		if (disk == 0 || disk > bs || f.start > img->sb.bytes_used ||
		    disk > img->sb.bytes_used - f.start)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: fragment %u lies "
				      "outside the image", img->name,
				      r->u.file.frag_index);
		if ((ret = xout_job(x, p, &j)) != 0)
			return ret;
		j->offset = f.start;
		j->disk_size = disk;
		j->raw = (f.size & SQFS_BLOCK_UNCOMPRESSED) != 0;
		j->frag_index = r->u.file.frag_index;
		j->frag_off = r->u.file.frag_offset;
		j->out_len = (uint32_t)(r->u.file.size % bs);
		xout_plan_frag(x, j);
		xout_submit(x, j);
	}
	return 0;
}

/* For sparse output: the data runs of a file with holes (none: 0). */
int xfile_runs(struct sqp_image *img, struct pending *p, struct rd_inode *ino)
{
	uint32_t bs = img->sb.block_size;
	struct meta_pos bl = ino->blocks;
	uint64_t size = ino->raw.u.file.size, holes = 0;
	size_t n = 0;
	uint8_t word[4];
	int ret;

	for (int pass = 0; pass < 2; pass++) {
		bl = ino->blocks;
		for (uint64_t i = 0; i < ino->block_count; i++) {
			uint64_t off = i * bs, len = size - off < bs ? size - off : bs;

			if ((ret = meta_read(img, &bl, word, 4)) != 0)
				return ret;
			if ((sqp_get32(word) & SQFS_BLOCK_SIZE_MASK) == 0) {
				holes++;
				continue;
			}
			if (pass == 1 && n > 0 &&
			    p->runs[n - 1].offset + p->runs[n - 1].length == off)
				p->runs[n - 1].length += len;
			else if (pass == 1)
				p->runs[n++] = (struct sqp_sparse_run){ off, len };
			else
				n++;
		}
		if (holes == 0)
			return 0;
		if (pass == 0) {
			/* + the tail, + an empty run marking the end */
			p->runs = calloc(n + 2, sizeof(*p->runs));
			if (p->runs == NULL)
				return rd_err(img, SQP_ERR_NOMEM, "out of memory");
			n = 0;
			holes = 0;
		}
	}
	if (ino->raw.u.file.frag_index != SQFS_NO_FRAGMENT) {
		uint64_t off = ino->block_count * bs;

		if (n > 0 && p->runs[n - 1].offset + p->runs[n - 1].length == off)
			p->runs[n - 1].length += size - off;
		else
			p->runs[n++] = (struct sqp_sparse_run){ off, size - off };
	}
	if (n == 0 || p->runs[n - 1].offset + p->runs[n - 1].length < size)
		p->runs[n++] = (struct sqp_sparse_run){ size, 0 };
	p->e.sparse = p->runs;
	p->e.sparse_count = n;
	return 0;
}
