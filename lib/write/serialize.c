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
 * Inode numbers are given out beforehand in breadth-first order, so all
 * children of a directory have neighbouring numbers too. The walk uses an
 * explicit stack: tar paths can nest far deeper than a C stack should.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/sqfs_format.h"
#include "sqpack/error.h"
#include "write/serialize.h"

static int basic_type(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return SQFS_DIR;
	case S_IFREG: return SQFS_FILE;
	case S_IFLNK: return SQFS_SYMLINK;
	case S_IFBLK: return SQFS_BLKDEV;
	case S_IFCHR: return SQFS_CHRDEV;
	case S_IFIFO: return SQFS_FIFO;
	default: return SQFS_SOCKET;
	}
}

/* Breadth-first inode numbers; each inode once, however many links. */
static int number_inodes(struct serializer *s, struct fstree *t)
{
	struct fs_node **queue = malloc(t->node_count * sizeof(*queue));
	size_t head = 0, tail = 0, i;
	uint32_t next = 1;

	if (queue == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < t->inode_count; ++i)
		t->inodes[i]->inode_number = 0;
	queue[tail++] = t->root;
	t->root->inode->inode_number = next++;
	while (head < tail) {
		struct fs_inode *dir = queue[head++]->inode;

		for (i = 0; i < dir->u.dir.count; ++i) {
			struct fs_node *c = dir->u.dir.children[i];

			if (c->inode->inode_number == 0)
				c->inode->inode_number = next++;
			if (S_ISDIR(c->inode->mode))
				queue[tail++] = c;
		}
	}
	free(queue);
	s->inode_count = next - 1;
	return 0;
}

static int ids_of(struct serializer *s, const struct fs_inode *ino,
		  struct sqfs_inode *out)
{
	if (idtable_index(s->ids, ino->uid, &out->uid_idx) != 0 ||
	    idtable_index(s->ids, ino->gid, &out->gid_idx) != 0)
		return sqp_err(s->err, SQP_ERR_LIMIT,
			       "more than %d distinct uids and gids", SQFS_MAX_IDS);
	return 0;
}

/* Append an encoded inode (plus a directory index) and note its ref. */
static int emit_inode(struct serializer *s, struct fs_inode *ino,
		      struct sqfs_inode *rec, const uint8_t *extra, size_t extra_len)
{
	size_t size = sqfs_inode_encoded_size(rec);
	int ret;

	if (size > s->scratch_cap) {
		uint8_t *p = realloc(s->scratch, size);

		if (p == NULL)
			return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
		s->scratch = p;
		s->scratch_cap = size;
	}
	sqfs_inode_encode(rec, s->scratch);
	ino->ref = meta_ref(&s->inodes);
	ino->written = 1;
	if (s->export_refs != NULL)
		s->export_refs[ino->inode_number - 1] = ino->ref;
	ret = meta_append(&s->inodes, s->scratch, size);
	if (ret == 0 && extra_len > 0)
		ret = meta_append(&s->inodes, extra, extra_len);
	return ret;
}

/* Any inode but a directory's. */
static int write_leaf(struct serializer *s, struct fs_inode *ino)
{
	struct sqfs_inode rec = { 0 };
	int ext = ino->xattr_set != SQFS_NO_XATTR;
	int ret;

	rec.type = (uint16_t)basic_type(ino->mode);
	rec.mode = (uint16_t)(ino->mode & 07777);
	rec.mtime = ino->mtime;
	rec.inode_number = ino->inode_number;
	rec.nlink = ino->nlink;
	rec.xattr_idx = ino->xattr_set;
	ret = ids_of(s, ino, &rec);
	if (ret != 0)
		return ret;

	switch (rec.type) {
	case SQFS_FILE:
		rec.u.file.blocks_start = ino->u.file.blocks_start;
		rec.u.file.size = ino->u.file.size;
		rec.u.file.sparse = ino->u.file.sparse;
		rec.u.file.frag_index = ino->u.file.frag_index;
		rec.u.file.frag_offset = ino->u.file.frag_offset;
		rec.u.file.block_sizes = ino->u.file.block_sizes;
		rec.u.file.block_count = ino->u.file.block_count;
		ext = ext || ino->nlink > 1 || ino->u.file.size > UINT32_MAX ||
		      ino->u.file.blocks_start > UINT32_MAX || ino->u.file.sparse > 0;
		break;
	case SQFS_SYMLINK:
		rec.u.symlink.target = ino->u.symlink.target;
		rec.u.symlink.target_size = (uint32_t)strlen(ino->u.symlink.target);
		break;
	case SQFS_BLKDEV:
	case SQFS_CHRDEV:
		rec.u.dev.rdev = ino->u.dev.rdev;
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
		size_t cap = s->index_cap ? s->index_cap * 2 : 1024;
		uint8_t *p;

		while (cap < need)
			cap *= 2;
		p = realloc(s->index, cap);
		if (p == NULL)
			return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
		s->index = p;
		s->index_cap = cap;
	}
	sqfs_dir_index_encode(&x, s->index + s->index_len);
	memcpy(s->index + s->index_len + SQFS_DIR_INDEX_SIZE, name, x.name_size);
	s->index_len = need;
	s->index_count++;
	return 0;
}

/* How many children from i on fit under one header starting at u. */
static size_t run_length(const struct fs_inode *dir, size_t i, uint64_t u)
{
	const struct fs_inode *first = dir->u.dir.children[i]->inode;
	uint64_t p = u + SQFS_DIR_HEADER_SIZE;
	size_t j;

	for (j = i; j < dir->u.dir.count && j - i < SQFS_DIR_MAX_RUN; ++j) {
		const struct fs_node *c = dir->u.dir.children[j];
		int64_t delta = (int64_t)c->inode->inode_number - first->inode_number;

		if (sqfs_ref_block(c->inode->ref) != sqfs_ref_block(first->ref) ||
		    delta < INT16_MIN || delta > INT16_MAX)
			break;
		/* An entry starting in a later metadata block than its
		 * header gets a header (and index entry) of its own. */
		if (j > i && p / SQFS_META_SIZE != u / SQFS_META_SIZE)
			break;
		p += SQFS_DIR_ENTRY_SIZE + strlen(c->name);
	}
	return j - i;
}

/* Append dir's listing; fills the listing fields of rec and s->index. */
static int write_listing(struct serializer *s, const struct fs_inode *dir,
			 struct sqfs_inode *rec)
{
	uint64_t ref = meta_ref(&s->dirs), u0 = s->dirs.total_in, u = u0;
	uint64_t indexed_block = u0 / SQFS_META_SIZE;
	uint8_t buf[SQFS_DIR_ENTRY_SIZE];
	size_t i = 0, j, n;
	int ret = 0;

	rec->u.dir.start_block = (uint32_t)sqfs_ref_block(ref);
	rec->u.dir.offset = (uint16_t)sqfs_ref_offset(ref);
	s->index_len = 0;
	s->index_count = 0;
	while (i < dir->u.dir.count && ret == 0) {
		const struct fs_inode *first = dir->u.dir.children[i]->inode;
		struct sqfs_dir_header h = {
			.start_block = (uint32_t)sqfs_ref_block(first->ref),
			.inode_number = first->inode_number,
		};
		uint8_t hbuf[SQFS_DIR_HEADER_SIZE];

		n = run_length(dir, i, u);
		h.count = (uint32_t)n;
		if (u / SQFS_META_SIZE != indexed_block) {
			indexed_block = u / SQFS_META_SIZE;
			ret = add_index(s, (uint32_t)(u - u0),
					(uint32_t)sqfs_ref_block(meta_ref(&s->dirs)),
					dir->u.dir.children[i]->name);
			if (ret != 0)
				return ret;
		}
		sqfs_dir_header_encode(&h, hbuf);
		ret = meta_append(&s->dirs, hbuf, sizeof(hbuf));
		for (j = i; j < i + n && ret == 0; ++j) {
			const struct fs_node *c = dir->u.dir.children[j];
			struct sqfs_dir_entry e = {
				.offset = (uint16_t)sqfs_ref_offset(c->inode->ref),
				.inode_delta = (int16_t)((int64_t)c->inode->inode_number -
							 first->inode_number),
				.type = (uint16_t)basic_type(c->inode->mode),
				.name_size = (uint16_t)strlen(c->name),
			};

			sqfs_dir_entry_encode(&e, buf);
			ret = meta_append(&s->dirs, buf, sizeof(buf));
			if (ret == 0)
				ret = meta_append(&s->dirs, c->name, e.name_size);
		}
		u = s->dirs.total_in;
		i += n;
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

/* Write dir's children's inodes side by side, then its listing; keep its
 * own inode record in *out (the caller writes it with its siblings). */
static int write_dir(struct serializer *s, struct fs_node *node,
		     struct dir_rec **pending, struct dir_rec **out)
{
	struct fs_inode *ino = node->inode;
	struct sqfs_inode rec = { .type = SQFS_DIR };
	struct dir_rec *d;
	size_t i;
	int ret = 0;

	for (i = 0; i < ino->u.dir.count && ret == 0; ++i) {
		struct fs_inode *c = ino->u.dir.children[i]->inode;
		struct dir_rec *cd;

		if (!S_ISDIR(c->mode)) {
			if (!c->written)
				ret = write_leaf(s, c);
			continue;
		}
		cd = pending[c->inode_number - 1];
		pending[c->inode_number - 1] = NULL;
		ret = emit_inode(s, c, &cd->rec, cd->index, cd->index_len);
		free(cd->index);
		free(cd);
	}
	if (ret == 0)
		ret = write_listing(s, ino, &rec);
	if (ret == 0)
		ret = ids_of(s, ino, &rec);
	if (ret != 0)
		return ret;
	rec.mode = (uint16_t)(ino->mode & 07777);
	rec.mtime = ino->mtime;
	rec.inode_number = ino->inode_number;
	rec.nlink = ino->nlink;
	rec.xattr_idx = ino->xattr_set;
	rec.u.dir.parent = node->parent ? node->parent->inode->inode_number
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
	*out = d;
	return 0;
}

int serialize_tree(struct serializer *s, struct fstree *t)
{
	struct frame { struct fs_node *dir; size_t next; } *stack;
	struct dir_rec **pending, *d = NULL;
	size_t depth = 0;
	int ret;

	ret = number_inodes(s, t);
	stack = malloc((t->node_count + 1) * sizeof(*stack));
	pending = calloc(s->inode_count, sizeof(*pending));
	if (ret != 0 || stack == NULL || pending == NULL) {
		free(stack);
		free(pending);
		return sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	}
	if (s->exportable) {
		s->export_refs = calloc(s->inode_count, sizeof(uint64_t));
		if (s->export_refs == NULL)
			ret = sqp_err(s->err, SQP_ERR_NOMEM, "out of memory");
	}
	stack[depth++] = (struct frame){ t->root, 0 };
	while (depth > 0 && ret == 0) {
		struct frame *f = &stack[depth - 1];
		struct fs_inode *dir = f->dir->inode;

		if (f->next < dir->u.dir.count) {
			struct fs_node *c = dir->u.dir.children[f->next++];

			if (S_ISDIR(c->inode->mode))
				stack[depth++] = (struct frame){ c, 0 };
			continue;
		}
		ret = write_dir(s, f->dir, pending, &d);
		if (ret == 0)
			pending[dir->inode_number - 1] = d;
		depth--;
	}
	if (ret == 0) {
		d = pending[t->root->inode->inode_number - 1];
		pending[t->root->inode->inode_number - 1] = NULL;
		ret = emit_inode(s, t->root->inode, &d->rec, d->index, d->index_len);
		free(d->index);
		free(d);
	}
	/* After a failure some directories may still wait. */
	for (uint32_t i = 0; i < s->inode_count; ++i) {
		if (pending[i] != NULL) {
			free(pending[i]->index);
			free(pending[i]);
		}
	}
	free(pending);
	free(stack);
	if (ret == 0)
		ret = meta_finish(&s->inodes);
	if (ret == 0)
		ret = meta_finish(&s->dirs);
	s->root_ref = t->root->inode->ref;
	return ret;
}

int serializer_init(struct serializer *s, struct sqp_compressor *codec,
		    struct idtable *ids, struct sqp_errbuf *err, int exportable)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->ids = ids;
	s->err = err;
	s->exportable = exportable;
	ret = meta_init(&s->inodes, codec, err);
	if (ret == 0)
		ret = meta_init(&s->dirs, codec, err);
	return ret;
}

void serializer_cleanup(struct serializer *s)
{
	meta_cleanup(&s->inodes);
	meta_cleanup(&s->dirs);
	free(s->export_refs);
	free(s->scratch);
	free(s->index);
	memset(s, 0, sizeof(*s));
}
