/* SPDX-License-Identifier: MIT */
/*
 * sqfs_meta.c - the SquashFS back end's metadata: the metadata-block
 * reader with its cache, and entries of the lookup tables (id,
 * fragment, xattr, export).
 *
 * Every offset taken from the image is checked against the file size
 * before it is read, and every count against the bytes that would have
 * to hold it, so a hostile superblock cannot make us allocate or read
 * more than the file justifies. Metadata blocks are decompressed into a
 * two-way set-associative cache: inodes and directory entries of one
 * directory usually share a few blocks, which are then decompressed once.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "util/endian.h"
#include "util/fileio.h"

/* The metadata block at absolute position pos, from the cache: two
 * ways per set, the one not used last replaced. Direct-mapped, two hot
 * blocks that shared a slot (the fragment table's and an inode block's,
 * read in turn for every small file) were decompressed 222 times each
 * in one extraction of a Debian root. */
static int meta_block(struct sqp_image *img, uint64_t pos,
		      struct meta_slot **out)
{
	struct meta_slot *set = &sq(img)->cache[(pos >> 1) % (META_SLOTS / 2) * 2];
	struct meta_slot *s = set;
	uint8_t head[2];
	uint32_t size;
	int ret, n;

	if (!(set[0].valid && set[0].pos == pos) &&
	    ((set[1].valid && set[1].pos == pos) || set[0].recent))
		s = &set[1];
	set[0].recent = s == &set[0];
	set[1].recent = s == &set[1];
	*out = s;
	if (s->valid && s->pos == pos)
		return 0;
	s->valid = 0;
	if ((ret = rd_read_at(img, pos, head, 2, "a metadata block header")) != 0)
		return ret;
	size = sqp_get16(head) & SQFS_META_SIZE_MASK;
	if (size == 0 || size > SQFS_META_SIZE)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: metadata block at %llu "
			      "claims %u bytes", img->name,
			      (unsigned long long)pos, size);
	if (sqp_get16(head) & SQFS_META_UNCOMPRESSED) {
		if ((ret = rd_read_at(img, pos + 2, s->data, size, "metadata")) != 0)
			return ret;
		n = (int)size;
	} else {
		if ((ret = rd_read_at(img, pos + 2, sq(img)->cbuf, size, "metadata")) != 0)
			return ret;
		n = sqp_decompress(sq(img)->codec, sq(img)->cbuf, size, s->data,
				   SQFS_META_SIZE);
		if (n <= 0)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: metadata block "
				      "at %llu does not decompress",
				      img->name, (unsigned long long)pos);
	}
	s->pos = pos;
	s->next = pos + 2 + size;
	s->len = (uint32_t)n;
	s->valid = 1;
	return 0;
}

int meta_read(struct sqp_image *img, struct meta_pos *p, void *dst, size_t n)
{
	uint8_t *d = dst;
	int ret;

	while (n > 0) {
		struct meta_slot *s;
		size_t take;

		if (p->table + p->block < p->table)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: metadata "
				      "reference out of range", img->name);
		if ((ret = meta_block(img, p->table + p->block, &s)) != 0)
			return ret;
		if (p->offset >= s->len) {
			/* Past this block: the position continues in the next. */
			p->offset -= s->len;
			p->block = s->next - p->table;
			continue;
		}
		take = s->len - p->offset;
		if (take > n)
			take = n;
		memcpy(d, s->data + p->offset, take);
		d += take;
		n -= take;
		p->offset += (uint32_t)take;
	}
	return 0;
}

/* A lookup table: count entries of size bytes in metadata blocks whose
 * positions are listed (u64 each) at loc_pos. */
int rd_read_locations(struct sqp_image *img, uint64_t loc_pos,
			  uint64_t count, unsigned size, uint64_t **out,
			  size_t *out_count, const char *what)
{
	uint64_t blocks = sqfs_table_blocks(count, size);
	uint64_t *locs;
	int ret;

	if (blocks > img->file_size / 8 + 1)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: the %s table claims "
			      "%llu entries", img->name, what,
			      (unsigned long long)count);
	locs = calloc(blocks ? blocks : 1, sizeof(*locs));
	if (locs == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	ret = rd_read_at(img, loc_pos, locs, blocks * 8, what);
	for (uint64_t i = 0; ret == 0 && i < blocks; i++) {
		locs[i] = sqp_get64((const uint8_t *)&locs[i]);
		if (locs[i] >= img->file_size)
			ret = rd_err(img, SQP_ERR_CORRUPT, "%s: the %s table "
				     "points past the end of the image",
				     img->name, what);
	}
	if (ret != 0) {
		free(locs);
		return ret;
	}
	*out = locs;
	*out_count = (size_t)blocks;
	return 0;
}

int rd_table_entry(struct sqp_image *img, const uint64_t *locs,
		   size_t loc_count, uint64_t idx, unsigned size, void *dst,
		   const char *what)
{
	uint64_t byte = idx * size;
	struct meta_pos p;

	if (byte / SQFS_META_SIZE >= loc_count)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: %s index %llu out of "
			      "range", img->name, what, (unsigned long long)idx);
	p.table = locs[byte / SQFS_META_SIZE];
	p.block = 0;
	p.offset = (uint32_t)(byte % SQFS_META_SIZE);
	return meta_read(img, &p, dst, size);
}

int rd_fragment(struct sqp_image *img, uint32_t index, struct sqfs_frag_entry *f)
{
	uint8_t raw[SQFS_FRAG_ENTRY_SIZE];
	int ret;

	if (index >= sq(img)->sb.frag_count)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: fragment %u of %u",
			      img->name, index, sq(img)->sb.frag_count);
	ret = rd_table_entry(img, sq(img)->frag_locs, sq(img)->frag_loc_count, index,
			  SQFS_FRAG_ENTRY_SIZE, raw, "fragment");
	if (ret != 0)
		return ret;
	sqfs_frag_entry_decode(f, raw);
	return 0;
}

int rd_xattr_id(struct sqp_image *img, uint32_t idx, struct sqfs_xattr_id *x)
{
	uint8_t raw[SQFS_XATTR_ID_SIZE];
	int ret;

	if (sq(img)->xattr_locs == NULL || idx >= sq(img)->xattr_hdr.count)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: xattr index %u out of "
			      "range", img->name, idx);
	ret = rd_table_entry(img, sq(img)->xattr_locs, sq(img)->xattr_loc_count, idx,
			  SQFS_XATTR_ID_SIZE, raw, "xattr");
	if (ret != 0)
		return ret;
	sqfs_xattr_id_decode(x, raw);
	return 0;
}
