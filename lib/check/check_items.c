/* SPDX-License-Identifier: MIT */
/*
 * check_items.c - the checker's checks beyond the walk: a file's block
 * list (each block inside the image, no larger than a block, the tail's
 * fragment entry sound) before its data goes to the ordered block reader
 * (every block decompressed on the pool, its size checked); directory
 * index entries (each one, followed as a lookup would, must land on a
 * header whose first name is the one it records); every fragment table
 * entry; every export table entry against where the walk found the
 * inode; and link counts against references.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_impl.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* Problems of one kind beyond this many are counted, not listed. */
#define LIST_MAX 20

struct chk_file {
	struct rd_bentry be;    /* first: the reader hands this back */
	char *path;
	uint32_t inode;
};

static int on_start(void *user, struct rd_bentry *be)
{
	(void)user;
	(void)be;
	return 0;
}

static int on_data(void *user, struct rd_bentry *be, uint64_t pos,
		   const uint8_t *data, uint32_t len)
{
	struct chk *c = user;

	(void)be;
	(void)pos;
	(void)len;
	if (data != NULL)
		c->st.blocks++;
	return 0;
}

static void on_drop(void *user, struct rd_bentry *be)
{
	(void)user;
	free(((struct chk_file *)be)->path);
	free(be);
}

static int on_end(void *user, struct rd_bentry *be)
{
	on_drop(user, be);
	return 0;
}

static int on_bad(void *user, struct rd_bentry *be, const char *msg)
{
	struct chk *c = user;

	chk_report(c, "data", ((struct chk_file *)be)->inode, be->name, "%s",
		   chk_unnamed(msg, c->img->name));
	return 0;
}

static const struct rd_blockrd_ops check_ops = {
	on_start, on_data, on_end, on_drop, on_bad, NULL,
};

int chk_data_start(struct chk *c)
{
	struct rd_blockrd_desc bd = { c->img, c->d->jobs, &check_ops, c, 0 };

	return rd_blockrd_create(&bd, &c->br);
}

/* Whether len bytes at off lie in the image. */
static int inside(struct chk *c, uint64_t off, uint64_t len)
{
	return off <= c->img->sb.bytes_used && len <= c->img->sb.bytes_used - off;
}

/* The block list and fragment entry; 1 when all of it is sound. */
static int file_layout(struct chk *c, const char *path,
		       const struct rd_inode *ino)
{
	const struct sqfs_inode *r = &ino->raw;
	uint32_t bs = c->img->sb.block_size, n = r->inode_number;
	uint64_t pos = r->u.file.blocks_start;
	struct meta_pos bl = ino->blocks;
	struct sqfs_frag_entry f;
	uint8_t word[4];

	for (uint64_t i = 0; i < ino->block_count; i++) {
		uint32_t disk;

		if (meta_read(c->img, &bl, word, 4) != 0)
			return chk_latched(c, "inode", n, path);
		disk = sqp_get32(word) & SQFS_BLOCK_SIZE_MASK;
		if (disk > bs || !inside(c, pos, disk)) {
			chk_report(c, "inode", n, path, "block %llu (%u bytes at "
				   "%llu) lies outside the image or exceeds "
				   "the block size", (unsigned long long)i, disk,
				   (unsigned long long)pos);
			return 0;
		}
		pos += disk;
	}
	if (r->u.file.frag_index == SQFS_NO_FRAGMENT)
		return 1;
	if (r->u.file.frag_index >= c->img->sb.frag_count) {
		chk_report(c, "inode", n, path, "fragment %u of %u",
			   r->u.file.frag_index, c->img->sb.frag_count);
		return 0;
	}
	if (rd_fragment(c->img, r->u.file.frag_index, &f) != 0)
		return chk_latched(c, "fragment", n, path);
	c->st.fragments_used++;
	return (f.size & SQFS_BLOCK_SIZE_MASK) != 0 &&
	       (f.size & SQFS_BLOCK_SIZE_MASK) <= bs &&
	       inside(c, f.start, f.size & SQFS_BLOCK_SIZE_MASK);
}

int chk_file(struct chk *c, const char *path, const struct rd_inode *ino)
{
	struct chk_file *e;
	int ret = c->img->ero != NULL ? chk_erofs_file(c, path, ino) :
		  file_layout(c, path, ino);

	c->st.files++;
	if (ret != 1)
		return ret;
	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (e->path = strdup(path)) == NULL) {
		free(e);
		return SQP_ERR_NOMEM;
	}
	e->be.name = e->path;
	e->inode = ino->raw.inode_number;
	return rd_blockrd_add(c->br, &e->be, ino);
}

/* Follow index entry x of dir as a lookup would; report a mismatch. */
static int index_entry(struct chk *c, const char *path,
		       const struct rd_inode *dir, const struct sqfs_dir_index *x,
		       const char *iname)
{
	uint32_t n = dir->raw.inode_number;
	struct rd_dirent e;
	struct rd_dir it;
	int ret;

	if ((ret = rd_dir_open(c->img, dir, &it)) != 0)
		return chk_latched(c, "directory", n, path);
	it.pos = (struct meta_pos){ c->img->sb.dir_table, x->start_block,
		(uint32_t)((dir->raw.u.dir.offset + x->index) % SQFS_META_SIZE) };
	it.left -= x->index;
	if (rd_dir_next(c->img, &it, &e) != 1)
		return chk_latched(c, "directory", n, path);
	if (strcmp(e.name, iname) != 0)
		chk_report(c, "directory", n, path, "index entry '%s' leads to "
			   "'%s'", iname, e.name);
	return 0;
}

int chk_dir_index(struct chk *c, const char *path, const struct rd_inode *dir)
{
	uint32_t listing = dir->raw.u.dir.size - SQFS_DIR_SIZE_BIAS, prev = 0;
	uint32_t n = dir->raw.inode_number;
	struct meta_pos p = dir->blocks;
	char iname[SQFS_NAME_MAX + 1];
	uint8_t raw[SQFS_DIR_INDEX_SIZE];
	struct sqfs_dir_index x;
	int ret;

	if (dir->raw.type != SQFS_LDIR)
		return 0;
	for (uint32_t i = 0; i < dir->raw.u.dir.index_count; i++) {
		if (meta_read(c->img, &p, raw, sizeof(raw)) != 0)
			return chk_latched(c, "directory", n, path);
		sqfs_dir_index_decode(&x, raw);
		if (x.name_size == 0 || x.name_size > SQFS_NAME_MAX ||
		    x.index < prev || x.index >= listing) {
			chk_report(c, "directory", n, path, "index entry %u "
				   "(offset %u, %u-byte name) out of order or "
				   "outside the listing", i, x.index, x.name_size);
			return 0;
		}
		if (meta_read(c->img, &p, iname, x.name_size) != 0)
			return chk_latched(c, "directory", n, path);
		iname[x.name_size] = '\0';
		prev = x.index;
		if ((ret = index_entry(c, path, dir, &x, iname)) != 0)
			return ret;
	}
	return 0;
}

/* Every fragment entry: a size, within a block, inside the image. */
static int fragments(struct chk *c)
{
	uint32_t bs = c->img->sb.block_size, bad = 0;
	struct sqfs_frag_entry f;
	int ret;

	for (uint32_t i = 0; i < c->img->sb.frag_count; i++) {
		uint32_t disk;

		if (rd_fragment(c->img, i, &f) != 0) {
			if ((ret = chk_latched(c, "fragment", 0, NULL)) != 0)
				return ret;
			/* The rest of the table sits behind the same break. */
			return 0;
		}
		disk = f.size & SQFS_BLOCK_SIZE_MASK;
		if ((disk == 0 || disk > bs || !inside(c, f.start, disk)) &&
		    bad++ < LIST_MAX)
			chk_report(c, "fragment", 0, NULL, "entry %u: %u bytes "
				   "at %llu", i, disk, (unsigned long long)f.start);
	}
	if (bad > LIST_MAX)
		chk_report(c, "fragment", 0, NULL, "%u more bad entries",
			   bad - LIST_MAX);
	return 0;
}

/* Every export entry must give the reference the walk found. */
static int exports(struct chk *c)
{
	uint32_t bad = 0;
	uint64_t ref;
	int ret;

	if (c->img->export_locs == NULL)
		return 0;
	for (uint32_t n = 1; n <= c->img->sb.inode_count; n++) {
		if (rd_export_ref(c->img, n, &ref) != 0) {
			ret = chk_latched(c, "export", n, NULL);
			return ret;
		}
		if (c->refs[n - 1] > 0 && ref != c->where[n - 1] &&
		    bad++ < LIST_MAX)
			chk_report(c, "export", n, NULL, "entry points at %llx, "
				   "the inode is at %llx", (unsigned long long)ref,
				   (unsigned long long)c->where[n - 1]);
	}
	if (bad > LIST_MAX)
		chk_report(c, "export", 0, NULL, "%u more wrong entries",
			   bad - LIST_MAX);
	return 0;
}

int chk_tables(struct chk *c)
{
	int ret = fragments(c);

	return ret != 0 ? ret : exports(c);
}

int chk_links(struct chk *c)
{
	uint32_t unreached = 0, wrong = 0;

	for (uint32_t n = 1; n <= c->img->sb.inode_count; n++) {
		uint32_t refs = c->refs[n - 1];

		/* EROFS numbers are nid slots, most of them no inode. */
		if (refs == 0 && c->img->ero == NULL && unreached++ < LIST_MAX)
			chk_report(c, "inode", n, NULL, "not reachable from "
				   "the root");
		/* Directories: their count was checked when left. */
		else if (refs > 0 && c->nlink[n - 1] != CHK_DIR_NLINK &&
			 c->nlink[n - 1] != refs && wrong++ < LIST_MAX)
			chk_report(c, "links", n, NULL, "link count %u, %u "
				   "references", c->nlink[n - 1], refs);
	}
	if (unreached > LIST_MAX)
		chk_report(c, "inode", 0, NULL, "%u more inodes not reachable",
			   unreached - LIST_MAX);
	if (wrong > LIST_MAX)
		chk_report(c, "links", 0, NULL, "%u more wrong link counts",
			   wrong - LIST_MAX);
	return 0;
}
