/* SPDX-License-Identifier: MIT */
/*
 * serialize.c - the inode table and the directory table.
 *
 * A directory listing holds its children's inode references, and a
 * directory inode holds its listing's position, so the tree is written
 * bottom-up. A directory's children's inodes, subdirectories included,
 * are written side by side, then its listing; its own inode waits (a
 * struct dir_rec) until its parent writes the inodes of all its children.
 * The root comes last. Side by side matters: a listing needs a new header
 * wherever its children's inodes change metadata block, and 12 bytes per
 * header add up over a distribution's thousands of directories.
 *
 * Inode numbers are given out beforehand by the same walk, in the order
 * the inodes are written: all children of a directory have neighbouring
 * numbers, and numbers grow with the position in the inode table, so
 * their bytes repeat from block to block of the table and compress better
 * than breadth-first numbers did (doc/architecture.md). The walk uses an
 * explicit stack: tar paths can nest far deeper than a C stack should.
 *
 * Metadata blocks are compressed on a pool while the walk goes on
 * (metapool.c), so every reference made here is logical: (block index in
 * its table << 16 | offset). Which block an inode lies in is all the
 * header rule above needs, so it compares logical refs. The three fields
 * that hold a block of the other table (a listing header's inode block, a
 * directory inode's listing block, its index entries' blocks) are written
 * with the logical block and announced as placeholders; the root ref and
 * the export table become physical once both tables are complete.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "squashfs/serialize.h"
#include "squashfs/sqfs_format.h"
#include "squashfs/sqfs_writer.h"
#include "util/array.h"
#include "util/endian.h"
#include "util/spill.h"

/* Where a directory inode keeps its listing's block (see sqfs_inode_encode:
 * after the 16-byte common header), and a directory index entry its
 * block and, after it, its name's length less one (see
 * sqfs_dir_index_encode); a listing header likewise its
 * children's inode block (sqfs_dir_header_encode). */
#define DIR_START_AT   16
#define LDIR_START_AT  24
#define INDEX_START_AT 4
#define INDEX_NAME_SIZE_AT 8
#define HEADER_START_AT 4

static struct fs_irec *inode_of(const struct fstree *t, uint32_t node)
{
	return fstree_inode(t, fstree_node(t, node)->inode);
}

/* Number dir's children that have no number yet (a hard link keeps the
 * number of its first directory), in list order: the order
 * write_children writes their inodes. */
static int number_children(struct serializer *s, uint32_t node)
{
	uint32_t c;

	for (c = inode_of(s->tree, node)->u.dir.first; c != FS_NONE;
	     c = fstree_node(s->tree, c)->next) {
		struct fs_irec *ino = inode_of(s->tree, c);

		sqp_spill_tick(s->meta.spill);
		if (ino->inode_number == 0)
			ino->inode_number = ++s->inode_count;
	}
	return 0;
}

static int ids_of(struct serializer *s, const struct fs_irec *ino,
		  struct sqfs_inode *out)
{
	if (idtable_index(s->ids, ino->uid, &out->uid_idx) != 0 ||
	    idtable_index(s->ids, ino->gid, &out->gid_idx) != 0)
		return sqp_err(s->err, SQP_ERR_LIMIT, "more than %d distinct uids and "
			       "gids (SquashFS's id table holds no more)", SQFS_MAX_IDS);
	return 0;
}

/* A directory inode's listing block and its index entries' blocks are
 * blocks of the directory table: placeholders (logical block numbers, see
 * metapool.h) until its blocks are compressed. */
static int dir_fixups(struct serializer *s, const struct sqfs_inode *rec,
		      size_t size, const uint8_t *index, size_t index_len)
{
	size_t o;
	int ret;

	if (rec->type != SQFS_DIR && rec->type != SQFS_LDIR)
		return 0;
	ret = meta_pool_fixup(&s->meta, META_INODES,
			      rec->type == SQFS_DIR ? DIR_START_AT : LDIR_START_AT,
			      rec->u.dir.start_block);
	for (o = 0; o < index_len && ret == 0;
	     o += SQFS_DIR_INDEX_SIZE + sqp_get32(index + o + INDEX_NAME_SIZE_AT) + 1)
		ret = meta_pool_fixup(&s->meta, META_INODES, size + o + INDEX_START_AT,
				      sqp_get32(index + o + INDEX_START_AT));
	return ret;
}

/* Append an encoded inode (plus a directory index) and note its ref. */
static int emit_inode(struct serializer *s, struct fs_irec *ino,
		      struct sqfs_inode *rec, const uint8_t *extra, size_t extra_len)
{
	size_t size = sqfs_inode_encoded_size(rec);
	int ret = dir_fixups(s, rec, size, extra, extra_len);

	if (ret != 0)
		return ret;

	if (size > s->scratch_cap) {
		uint8_t *p = realloc(s->scratch, size);

		if (p == NULL)
			return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
		s->scratch = p;
		s->scratch_cap = size;
	}
	sqfs_inode_encode(rec, s->scratch);
	ino->ref = meta_pool_ref(&s->meta, META_INODES);
	ino->written = 1;
	if (s->export_refs != NULL)
		s->export_refs[ino->inode_number - 1] = ino->ref;
	ret = meta_pool_append(&s->meta, META_INODES, s->scratch, size);
	if (ret == 0 && extra_len > 0)
		ret = meta_pool_append(&s->meta, META_INODES, extra, extra_len);
	return ret;
}

/* Any inode but a directory's. */
static int write_leaf(struct serializer *s, struct fs_irec *ino)
{
	struct sqfs_inode rec = { 0 };
	struct fs_inode f;
	int ext = ino->xattr_set != SQFS_NO_XATTR;
	int ret;

	/* sqp_writer_add refused a mode of no type: never 0 here. */
	rec.type = (uint16_t)sqfs_basic_type(ino->mode);
	rec.mode = (uint16_t)(ino->mode & 07777);
	rec.mtime = sqfs_time(ino->mtime);
	rec.inode_number = ino->inode_number;
	rec.nlink = ino->nlink;
	rec.xattr_idx = ino->xattr_set;
	ret = ids_of(s, ino, &rec);
	if (ret != 0)
		return ret;

	switch (rec.type) {
	case SQFS_FILE:
		fstree_file_get(s->tree, ino, &f);
		/* A file without blocks points nowhere: 0, like the rest of
		 * its neighbours' zero fields, compresses better than the
		 * data position (a table of small files is mostly these). */
		rec.u.file.blocks_start = f.u.file.block_count > 0 ? f.u.file.blocks_start : 0;
		rec.u.file.size = f.u.file.size;
		rec.u.file.sparse = f.u.file.sparse;
		rec.u.file.frag_index = f.u.file.frag_index;
		rec.u.file.frag_offset = f.u.file.frag_offset;
		rec.u.file.block_sizes = f.u.file.block_sizes;
		rec.u.file.block_count = f.u.file.block_count;
		ext = ext || ino->nlink > 1 || f.u.file.size > UINT32_MAX ||
		      f.u.file.blocks_start > UINT32_MAX || f.u.file.sparse > 0;
		break;
	case SQFS_SYMLINK:
		rec.u.symlink.target = fstree_target(s->tree, ino);
		rec.u.symlink.target_size = (uint32_t)strlen(rec.u.symlink.target);
		break;
	case SQFS_BLKDEV:
	case SQFS_CHRDEV:
		rec.u.dev.rdev = sqfs_encode_rdev(ino->u.dev.major, ino->u.dev.minor);
		break;
	default:
		break;
	}
	if (ext)
		rec.type += SQFS_EXT_OFFSET;
	return emit_inode(s, ino, &rec, NULL, 0);
}

static int add_index(struct serializer *s, uint32_t offset, uint32_t block,
		     const char *name)
{
	struct sqfs_dir_index x = {
		.index = offset, .start_block = block,
		.name_size = (uint32_t)strlen(name),
	};
	size_t need = s->index_len + SQFS_DIR_INDEX_SIZE + x.name_size;

	if (s->index_count == UINT16_MAX)
		return 0; /* the index is only a shortcut; a shorter one is fine */
	if (need > s->index_cap) {
		uint8_t *p = sqp_array_grow(s->index, &s->index_cap, need, 1, 1024);

		if (p == NULL)
			return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
		s->index = p;
	}
	sqfs_dir_index_encode(&x, s->index + s->index_len);
	memcpy(s->index + s->index_len + SQFS_DIR_INDEX_SIZE, name, x.name_size);
	s->index_len = need;
	s->index_count++;
	return 0;
}

/* How many children from node i on fit under one header: at most 256,
 * all with inodes in one metadata block and numbers within a signed
 * 16-bit delta of the first. A run may cross a block of the directory
 * table: starting a header there (for an index entry at every block)
 * cost 4-6% of the compressed directory table (zstd, lz4) on a million
 * small files, as the deltas restart at arbitrary places
 * (doc/format-notes.md). */
static size_t run_length(const struct fstree *t, uint32_t i)
{
	const struct fs_irec *first = inode_of(t, i);
	size_t n = 0;
	uint32_t j;

	for (j = i; j != FS_NONE && n < SQFS_DIR_MAX_RUN; j = fstree_node(t, j)->next, ++n) {
		const struct fs_irec *c = inode_of(t, j);
		int64_t delta = (int64_t)c->inode_number - first->inode_number;

		if (sqfs_ref_block(c->ref) != sqfs_ref_block(first->ref) ||
		    delta < INT16_MIN || delta > INT16_MAX)
			break;
	}
	return n;
}

/* Append the n entries from node i on under one header; returns the node
 * after them in *after. */
static int write_run(struct serializer *s, uint32_t i, size_t n, uint32_t *after)
{
	const struct fstree *t = s->tree;
	const struct fs_irec *first = inode_of(t, i);
	struct sqfs_dir_header h = {
		.start_block = (uint32_t)sqfs_ref_block(first->ref),
		.inode_number = first->inode_number,
		.count = (uint32_t)n,
	};
	uint8_t buf[SQFS_DIR_HEADER_SIZE > SQFS_DIR_ENTRY_SIZE ?
		    SQFS_DIR_HEADER_SIZE : SQFS_DIR_ENTRY_SIZE];
	int ret;

	sqfs_dir_header_encode(&h, buf);
	ret = meta_pool_fixup(&s->meta, META_DIRS, HEADER_START_AT, h.start_block);
	if (ret == 0)
		ret = meta_pool_append(&s->meta, META_DIRS, buf, SQFS_DIR_HEADER_SIZE);
	for (; n > 0 && ret == 0; --n, i = fstree_node(t, i)->next) {
		const struct fs_irec *c = inode_of(t, i);
		const char *name = fstree_name(t, fstree_node(t, i));
		struct sqfs_dir_entry e = {
			.offset = (uint16_t)sqfs_ref_offset(c->ref),
			.inode_delta = (int16_t)((int64_t)c->inode_number -
						 first->inode_number),
			.type = (uint16_t)sqfs_basic_type(c->mode),
			.name_size = (uint16_t)strlen(name),
		};

		sqfs_dir_entry_encode(&e, buf);
		ret = meta_pool_append(&s->meta, META_DIRS, buf, SQFS_DIR_ENTRY_SIZE);
		if (ret == 0)
			ret = meta_pool_append(&s->meta, META_DIRS, name, e.name_size);
	}
	*after = i;
	return ret;
}

/* Append dir's listing; fills the listing fields of rec and s->index. */
static int write_listing(struct serializer *s, const struct fs_irec *dir,
			 struct sqfs_inode *rec)
{
	uint64_t ref = meta_pool_ref(&s->meta, META_DIRS);
	uint64_t u0 = s->meta.t[META_DIRS].total_in, u = u0;
	uint64_t indexed_block = u0 / SQFS_META_SIZE;
	uint32_t i = dir->u.dir.first;
	int ret = 0;

	rec->u.dir.start_block = (uint32_t)sqfs_ref_block(ref);
	rec->u.dir.offset = (uint16_t)sqfs_ref_offset(ref);
	s->index_len = 0;
	s->index_count = 0;
	while (i != FS_NONE && ret == 0) {
		size_t n = run_length(s->tree, i);

		if (u / SQFS_META_SIZE != indexed_block) {
			indexed_block = u / SQFS_META_SIZE;
			ret = add_index(s, (uint32_t)(u - u0),
					(uint32_t)sqfs_ref_block(meta_pool_ref(&s->meta, META_DIRS)),
					fstree_name(s->tree, fstree_node(s->tree, i)));
			if (ret != 0)
				return ret;
		}
		ret = write_run(s, i, n, &i);
		u = s->meta.t[META_DIRS].total_in;
	}
	if (u - u0 > UINT32_MAX - SQFS_DIR_SIZE_BIAS)
		return sqp_err(s->err, SQP_ERR_LIMIT, "directory listing too large");
	rec->u.dir.size = (uint32_t)(u - u0) + SQFS_DIR_SIZE_BIAS;
	return ret;
}

/* A directory inode whose listing is written, waiting for its parent. */
struct dir_rec {
	struct sqfs_inode rec;
	uint8_t *index;
	size_t index_len;
};

static void free_dir_rec(struct dir_rec *d)
{
	if (d != NULL)
		free(d->index);
	free(d);
}

/* Keep d, the inode of directory dir, until its parent writes it. */
static int park_pending(struct serializer *s, struct fs_irec *dir, struct dir_rec *d)
{
	if (meta_grow((void **)&s->pending, &s->pending_cap, s->pending_count + 1,
		    sizeof(*s->pending)) != 0) {
		free_dir_rec(d);
		return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	}
	dir->u.dir.pending = (uint32_t)s->pending_count;
	s->pending[s->pending_count++] = d;
	return 0;
}

static struct dir_rec *take_pending(struct serializer *s, struct fs_irec *dir)
{
	struct dir_rec *d = s->pending[dir->u.dir.pending];

	s->pending[dir->u.dir.pending] = NULL;
	dir->u.dir.pending = FS_NONE;
	return d;
}

/* Write the inodes of dir's children side by side (a subdirectory's was
 * kept waiting by write_dir). */
static int write_children(struct serializer *s, const struct fs_irec *dir)
{
	uint32_t i;
	int ret = 0;

	for (i = dir->u.dir.first; i != FS_NONE && ret == 0; i = fstree_node(s->tree, i)->next) {
		struct fs_irec *c = inode_of(s->tree, i);
		struct dir_rec *cd;

		if (!S_ISDIR(c->mode)) {
			if (!c->written)
				ret = write_leaf(s, c);
			continue;
		}
		cd = take_pending(s, c);
		ret = emit_inode(s, c, &cd->rec, cd->index, cd->index_len);
		free_dir_rec(cd);
	}
	return ret;
}

/* Write the children's inodes, then the listing, of the directory at
 * node; keep its own inode record waiting in its fs_inode (the parent
 * writes it with its siblings). */
static int write_dir(struct serializer *s, uint32_t node)
{
	const struct fs_node *n = fstree_node(s->tree, node);
	struct fs_irec *ino = fstree_inode(s->tree, n->inode);
	struct sqfs_inode rec = { .type = SQFS_DIR };
	struct dir_rec *d;
	int ret = write_children(s, ino);

	if (ret == 0)
		ret = write_listing(s, ino, &rec);
	if (ret == 0)
		ret = ids_of(s, ino, &rec);
	if (ret != 0)
		return ret;
	rec.mode = (uint16_t)(ino->mode & 07777);
	rec.mtime = sqfs_time(ino->mtime);
	rec.inode_number = ino->inode_number;
	rec.nlink = ino->nlink;
	rec.xattr_idx = ino->xattr_set;
	rec.u.dir.parent = n->parent != FS_NONE ? inode_of(s->tree, n->parent)->inode_number
						: s->inode_count + 1;
	rec.u.dir.index_count = (uint16_t)s->index_count;
	if (ino->xattr_set != SQFS_NO_XATTR || rec.u.dir.size > UINT16_MAX ||
	    s->index_count > 0)
		rec.type = SQFS_LDIR;

	d = calloc(1, sizeof(*d));
	if (d != NULL && s->index_len > 0 && (d->index = malloc(s->index_len)) == NULL) {
		free(d);
		d = NULL;
	}
	if (d == NULL)
		return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	d->rec = rec;
	if (s->index_len > 0)
		memcpy(d->index, s->index, s->index_len);
	d->index_len = s->index_len;
	return park_pending(s, ino, d);
}

/* Depth first, visit(directory) after its subdirectories' visits; an
 * explicit stack of (directory, next child) frames. Numbering and writing
 * both walk this way, so inode numbers follow the inode table. */
static int walk_tree(struct serializer *s, int (*visit)(struct serializer *, uint32_t))
{
	struct frame { uint32_t dir, next; } *stack = NULL;
	size_t depth = 0, cap = 0;
	int ret = meta_grow((void **)&stack, &cap, 1, sizeof(*stack));

	if (ret != 0)
		return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	stack[depth++] = (struct frame){ 0, inode_of(s->tree, 0)->u.dir.first };
	while (depth > 0 && ret == 0) {
		struct frame *f = &stack[depth - 1];
		uint32_t c = f->next;

		if (c == FS_NONE) {
			ret = visit(s, f->dir);
			depth--;
			continue;
		}
		f->next = fstree_node(s->tree, c)->next;
		sqp_spill_tick(s->meta.spill);
		if (!S_ISDIR(inode_of(s->tree, c)->mode))
			continue;
		if (meta_grow((void **)&stack, &cap, depth + 1, sizeof(*stack)) != 0)
			ret = sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
		else
			stack[depth++] = (struct frame){ c, inode_of(s->tree, c)->u.dir.first };
	}
	free(stack);
	return ret;
}

int serialize_tree(struct serializer *s, struct fstree *t)
{
	struct fs_irec *root = inode_of(t, 0);
	struct dir_rec *d;
	uint32_t i;
	int ret;

	s->tree = t;
	s->inode_count = 0;
	for (i = 0; i < fstree_inode_count(t); ++i) {
		fstree_inode(t, i)->inode_number = 0;
		sqp_spill_tick(s->meta.spill);
	}
	ret = walk_tree(s, number_children);
	if (ret != 0)
		return ret;
	root->inode_number = ++s->inode_count;
	if (s->exportable) {
		s->export_refs = sqp_spill_alloc(s->meta.spill,
						 s->inode_count * sizeof(uint64_t));
		if (s->export_refs == NULL)
			return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	}
	ret = walk_tree(s, write_dir);
	if (ret == 0) {
		d = take_pending(s, root);
		ret = emit_inode(s, root, &d->rec, d->index, d->index_len);
		free_dir_rec(d);
	}
	/* After a failure some directories may still wait. */
	while (s->pending_count > 0)
		free_dir_rec(s->pending[--s->pending_count]);
	free(s->pending);
	s->pending = NULL;
	s->pending_cap = 0;
	if (ret == 0)
		ret = meta_pool_finish(&s->meta);
	if (ret != 0)
		return ret;
	s->root_ref = meta_pool_phys(&s->meta, META_INODES, root->ref);
	for (i = 0; s->export_refs != NULL && i < s->inode_count; ++i) {
		s->export_refs[i] = meta_pool_phys(&s->meta, META_INODES, s->export_refs[i]);
		sqp_spill_tick(s->meta.spill);
	}
	return 0;
}

int serializer_init(struct serializer *s, const struct serializer_desc *desc)
{
	memset(s, 0, sizeof(*s));
	s->ids = desc->ids;
	s->err = desc->err;
	s->exportable = desc->exportable;
	return meta_pool_init(&s->meta, desc->codec, desc->workers, desc->fail_job,
			      desc->err, desc->spill);
}

void serializer_cleanup(struct serializer *s)
{
	/* The spill pointer lives in the pool's struct: before its cleanup. */
	sqp_spill_free(s->meta.spill, s->export_refs, s->inode_count * sizeof(uint64_t));
	meta_pool_cleanup(&s->meta);
	free(s->scratch);
	free(s->index);
	memset(s, 0, sizeof(*s));
}
