/* SPDX-License-Identifier: MIT */
/*
 * lookup.c - finding things by name or number: one name in a directory
 * (through the directory index of an extended directory inode, so a
 * lookup in a directory of 100,000 entries reads one or two metadata
 * blocks of its listing, not all of them), a path from the root, and an
 * inode number through the export table.
 *
 * The index is only a shortcut: each index entry names the first entry
 * of a header run and where that run starts. We take the last index
 * entry whose name sorts at or before the wanted name and scan the
 * listing from there; listings are sorted by byte value (strcmp), so the
 * scan stops at the first larger name. Index entries are checked to lie
 * inside the listing and to increase, so a corrupt index can give a
 * wrong "not found" but never a read outside the listing's bounds.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* name (len bytes) against a NUL-terminated entry name, as strcmp. */
static int name_cmp(const char *ename, const char *name, size_t len)
{
	size_t elen = strlen(ename);
	int c = memcmp(ename, name, elen < len ? elen : len);

	if (c != 0)
		return c;
	return elen < len ? -1 : elen > len;
}

/* Move it to the header run the index says holds name, if any. */
static int index_seek(struct sqp_image *img, const struct rd_inode *dir,
		      const char *name, size_t len, struct rd_dir *it)
{
	uint32_t listing = dir->raw.u.dir.size - SQFS_DIR_SIZE_BIAS, prev = 0;
	struct meta_pos p = dir->blocks;
	char iname[SQFS_NAME_MAX + 1];
	uint8_t raw[SQFS_DIR_INDEX_SIZE];
	struct sqfs_dir_index x;
	int ret;

	for (uint32_t i = 0; i < dir->raw.u.dir.index_count; i++) {
		if ((ret = meta_read(img, &p, raw, sizeof(raw))) != 0)
			return ret;
		sqfs_dir_index_decode(&x, raw);
		if (x.name_size == 0 || x.name_size > SQFS_NAME_MAX ||
		    x.index < prev || x.index >= listing)
			return rd_err(img, SQP_ERR_CORRUPT, "%s: inode %u: bad "
				      "directory index entry %u", img->name,
				      dir->raw.inode_number, i);
		if ((ret = meta_read(img, &p, iname, x.name_size)) != 0)
			return ret;
		iname[x.name_size] = '\0';
		/* iname > name: the wanted run started before this one. */
		if (name_cmp(iname, name, len) > 0)
			break;
		prev = x.index;
		it->pos = (struct meta_pos){ img->sb.dir_table, x.start_block,
			(uint32_t)((dir->raw.u.dir.offset + x.index) % SQFS_META_SIZE) };
		it->left = listing - x.index;
		it->run_left = 0;
		it->prev[0] = '\0';
	}
	return 0;
}

int rd_dir_find(struct sqp_image *img, const struct rd_inode *dir,
		const char *name, size_t len, struct rd_dirent *e)
{
	int indexed, ret;
	struct rd_dir it;

	if ((ret = rd_dir_open(img, dir, &it)) != 0)
		return ret;
	indexed = dir->raw.type == SQFS_LDIR && dir->raw.u.dir.index_count > 0;
	if (indexed && (ret = index_seek(img, dir, name, len, &it)) != 0)
		return ret;
	while ((ret = rd_dir_next(img, &it, e)) == 1) {
		int c = name_cmp(e->name, name, len);

		if (c == 0)
			return 1;
		/* rd_dir_next refuses unsorted listings: nothing further
		 * can match. */
		if (c > 0)
			return 0;
	}
	return ret;
}

int rd_path_lookup(struct sqp_image *img, const char *path, uint64_t *ref)
{
	const char *s = path;
	uint64_t at = img->sb.root_inode;
	int ret;

	while (*s != '\0') {
		size_t n = strcspn(s, "/");
		struct rd_inode dir;
		struct rd_dirent de;

		if (n == 0 || (n == 1 && s[0] == '.')) {
			s += n + (s[n] == '/');
			continue;
		}
		if (n == 2 && s[0] == '.' && s[1] == '.')
			return SQP_ERR_ARG;
		if (n > SQFS_NAME_MAX)
			return SQP_ERR_NOT_FOUND;
		if ((ret = rd_inode_read(img, at, &dir)) != 0)
			return ret;
		ret = S_ISDIR(dir.mode) ? rd_dir_find(img, &dir, s, n, &de) : 0;
		rd_inode_free(&dir);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return SQP_ERR_NOT_FOUND;
		at = de.inode_ref;
		s += n + (s[n] == '/');
	}
	*ref = at;
	return 0;
}

int rd_export_ref(struct sqp_image *img, uint32_t n, uint64_t *ref)
{
	uint8_t raw[SQFS_EXPORT_ENTRY_SIZE];
	uint64_t r;
	int ret;

	if (img->ero != NULL && n > 0 && n <= img->sb.inode_count) {
		*ref = n - 1; /* an EROFS inode's number is its nid + 1 */
		return 0;
	}
	if (img->export_locs == NULL)
		return SQP_ERR_UNSUPPORTED;
	if (n == 0 || n > img->sb.inode_count)
		return SQP_ERR_NOT_FOUND;
	ret = rd_table_entry(img, img->export_locs, img->export_loc_count,
			     n - 1, SQFS_EXPORT_ENTRY_SIZE, raw, "export");
	if (ret != 0)
		return ret;
	r = sqp_get64(raw);
	if (sqfs_ref_block(r) >= img->sb.dir_table - img->sb.inode_table)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: export table entry %u "
			      "points outside the inode table", img->name, n);
	*ref = r;
	return 0;
}
