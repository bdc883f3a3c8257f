/* SPDX-License-Identifier: MIT */
/*
 * sqfs_check.c - the checker's SquashFS part (rd_format.check_*): a
 * file's block list (each block inside the image, no larger than a
 * block, the tail's fragment entry sound) before its data goes to the
 * ordered block reader; a directory's parent as its inode records it;
 * directory index entries (each one, followed as a lookup would, must
 * land on a header whose first name is the one it records); every
 * fragment table entry; every export table entry against where the
 * walk found the inode. Problems go to the checker through k.
 */
#include "config.h"

#include <string.h>

#include "read/rd_image.h"
#include "squashfs/rd_sqfs.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* Problems of one kind beyond this many are counted, not listed. */
#define LIST_MAX 20

/* Whether len bytes at off lie in the image. */
static int inside(const struct sqp_image *img, uint64_t off, uint64_t len)
{
	return off <= img->end && len <= img->end - off;
}

/* The block list and fragment entry; 1 when all of it is sound. */
int rd_sqfs_check_file(struct sqp_image *img, struct rd_checker *k,
		       const char *path, const struct rd_inode *ino)
{
	const struct sqfs_inode *r = &sqi(ino)->raw;
	uint32_t bs = img->block_size, n = r->inode_number;
	uint64_t pos = r->u.file.blocks_start;
	struct meta_pos bl = sqi(ino)->blocks;
	struct sqfs_frag_entry f;
	uint8_t word[4];

	for (uint64_t i = 0; i < ino->block_count; i++) {
		uint32_t disk;

		if (meta_read(img, &bl, word, 4) != 0)
			return k->latched(k->user, "inode", n, path, 0);
		disk = sqp_get32(word) & SQFS_BLOCK_SIZE_MASK;
		if (disk > bs || !inside(img, pos, disk)) {
			rd_check_report(k, "inode", n, path, "block %llu (%u bytes at "
				   "%llu) lies outside the image or exceeds "
				   "the block size", (unsigned long long)i, disk,
				   (unsigned long long)pos);
			return 0;
		}
		pos += disk;
	}
	if (r->u.file.frag_index == SQFS_NO_FRAGMENT)
		return 1;
	if (r->u.file.frag_index >= sq(img)->sb.frag_count) {
		rd_check_report(k, "inode", n, path, "fragment %u of %u",
			   r->u.file.frag_index, sq(img)->sb.frag_count);
		return 0;
	}
	if (rd_fragment(img, r->u.file.frag_index, &f) != 0)
		return k->latched(k->user, "fragment", n, path, 0);
	k->fragments_used++;
	return (f.size & SQFS_BLOCK_SIZE_MASK) != 0 &&
	       (f.size & SQFS_BLOCK_SIZE_MASK) <= bs &&
	       inside(img, f.start, f.size & SQFS_BLOCK_SIZE_MASK);
}

int rd_sqfs_check_dir(struct sqp_image *img, struct rd_checker *k,
		      const char *path, const struct rd_inode *dir,
		      uint32_t parent)
{
	(void)img;
	if (sqi(dir)->raw.u.dir.parent != parent)
		rd_check_report(k, "inode", dir->inode_number, path, "parent is "
				"inode %u, but the directory is in inode %u",
				sqi(dir)->raw.u.dir.parent, parent);
	return 0;
}

/* Follow index entry x of dir as a lookup would; report a mismatch. */
static int index_entry(struct sqp_image *img, struct rd_checker *k,
		       const char *path, const struct rd_inode *dir,
		       const struct sqfs_dir_index *x, const char *iname)
{
	uint32_t n = sqi(dir)->raw.inode_number;
	struct rd_dirent e;
	struct rd_dir it;
	int ret;

	if ((ret = rd_dir_open(img, dir, &it)) != 0)
		return k->latched(k->user, "directory", n, path, 0);
	sqd(&it)->pos = (struct meta_pos){ sq(img)->sb.dir_table, x->start_block,
		(uint32_t)((sqi(dir)->raw.u.dir.offset + x->index) % SQFS_META_SIZE) };
	sqd(&it)->left -= x->index;
	if (rd_dir_next(img, &it, &e) != 1)
		return k->latched(k->user, "directory", n, path, 0);
	if (strcmp(e.name, iname) != 0)
		rd_check_report(k, "directory", n, path, "index entry '%s' leads to "
			   "'%s'", iname, e.name);
	return 0;
}

int rd_sqfs_check_index(struct sqp_image *img, struct rd_checker *k,
			const char *path, const struct rd_inode *dir)
{
	uint32_t listing = sqi(dir)->raw.u.dir.size - SQFS_DIR_SIZE_BIAS, prev = 0;
	uint32_t n = sqi(dir)->raw.inode_number;
	struct meta_pos p = sqi(dir)->blocks;
	char iname[SQFS_NAME_MAX + 1];
	uint8_t raw[SQFS_DIR_INDEX_SIZE];
	struct sqfs_dir_index x;
	int ret;

	if (sqi(dir)->raw.type != SQFS_LDIR)
		return 0;
	for (uint32_t i = 0; i < sqi(dir)->raw.u.dir.index_count; i++) {
		if (meta_read(img, &p, raw, sizeof(raw)) != 0)
			return k->latched(k->user, "directory", n, path, 0);
		sqfs_dir_index_decode(&x, raw);
		if (x.name_size == 0 || x.name_size > SQFS_NAME_MAX ||
		    x.index < prev || x.index >= listing) {
			rd_check_report(k, "directory", n, path, "index entry %u "
				   "(offset %u, %u-byte name) out of order or "
				   "outside the listing", i, x.index, x.name_size);
			return 0;
		}
		if (meta_read(img, &p, iname, x.name_size) != 0)
			return k->latched(k->user, "directory", n, path, 0);
		iname[x.name_size] = '\0';
		prev = x.index;
		if ((ret = index_entry(img, k, path, dir, &x, iname)) != 0)
			return ret;
	}
	return 0;
}

/* Every fragment entry: a size, within a block, inside the image. */
static int fragments(struct sqp_image *img, struct rd_checker *k)
{
	uint32_t bs = img->block_size, bad = 0;
	struct sqfs_frag_entry f;
	int ret;

	for (uint32_t i = 0; i < sq(img)->sb.frag_count; i++) {
		uint32_t disk;

		if (rd_fragment(img, i, &f) != 0) {
			if ((ret = k->latched(k->user, "fragment", 0, NULL, 0)) != 0)
				return ret;
			/* The rest of the table sits behind the same break. */
			return 0;
		}
		disk = f.size & SQFS_BLOCK_SIZE_MASK;
		if ((disk == 0 || disk > bs || !inside(img, f.start, disk)) &&
		    bad++ < LIST_MAX)
			rd_check_report(k, "fragment", 0, NULL, "entry %u: %u bytes "
				   "at %llu", i, disk, (unsigned long long)f.start);
	}
	if (bad > LIST_MAX)
		rd_check_report(k, "fragment", 0, NULL, "%u more bad entries",
			   bad - LIST_MAX);
	return 0;
}

/* Every export entry must give the reference the walk found. */
static int exports(struct sqp_image *img, struct rd_checker *k)
{
	uint32_t bad = 0;
	uint64_t ref;
	int ret;

	if (sq(img)->export_locs == NULL)
		return 0;
	for (uint32_t n = 1; n <= img->inode_count; n++) {
		if (rd_export_ref(img, n, &ref) != 0) {
			ret = k->latched(k->user, "export", n, NULL, 0);
			return ret;
		}
		if (k->refs[n - 1] > 0 && ref != k->where[n - 1] &&
		    bad++ < LIST_MAX)
			rd_check_report(k, "export", n, NULL, "entry points at %llx, "
				   "the inode is at %llx", (unsigned long long)ref,
				   (unsigned long long)k->where[n - 1]);
	}
	if (bad > LIST_MAX)
		rd_check_report(k, "export", 0, NULL, "%u more wrong entries",
			   bad - LIST_MAX);
	return 0;
}

int rd_sqfs_check_tables(struct sqp_image *img, struct rd_checker *k)
{
	int ret = fragments(img, k);

	return ret != 0 ? ret : exports(img, k);
}

