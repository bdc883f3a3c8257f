/* SPDX-License-Identifier: MIT */
/*
 * erofs_dir.c - EROFS directory listings from the tree's sorted children.
 *
 * Why it exists: an EROFS listing is blocks of 12-byte entries followed
 * by their names, with "." and ".." stored like any name, and the
 * kernel's lookup is a binary search over blocks and then inside one, so
 * the whole listing must be strictly sorted by bytes, dots included
 * (names such as "-x" sort before "."). The tree sorts children; here
 * the two dot entries are merged into that order, and each block takes
 * as many entries as fit. The same walk measures a listing (for the
 * layout) and writes it (data blocks, or the inline tail), so the two
 * can never disagree.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "write/writer_impl.h"

struct dir_it {
	int dots;       /* dot entries given so far (0..2) */
	uint32_t child; /* next child node, FS_NONE at the end */
};

struct dir_ent {
	const char *name;
	size_t len;
	uint32_t inode;
};

static uint8_t file_type(uint16_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG: return EROFS_FT_REG;
	case S_IFDIR: return EROFS_FT_DIR;
	case S_IFCHR: return EROFS_FT_CHRDEV;
	case S_IFBLK: return EROFS_FT_BLKDEV;
	case S_IFIFO: return EROFS_FT_FIFO;
	case S_IFSOCK: return EROFS_FT_SOCK;
	default: return EROFS_FT_SYMLINK;
	}
}

/* The next entry in byte order, or 0 at the end. */
static int next_ent(const struct erofs_wlayout *L, uint32_t dir, struct dir_it *it,
		    struct dir_ent *e)
{
	static const char *const dots[] = { ".", ".." };
	const struct fs_node *c = it->child != FS_NONE ? fstree_node(L->t, it->child) : NULL;
	const char *cname = c ? fstree_name(L->t, c) : NULL;

	if (it->dots < 2 && (cname == NULL || strcmp(dots[it->dots], cname) < 0)) {
		e->name = dots[it->dots];
		e->len = strlen(e->name);
		e->inode = it->dots == 0 ? dir : L->up[dir];
		it->dots++;
		return 1;
	}
	if (c == NULL)
		return 0;
	e->name = cname;
	e->len = strlen(cname);
	e->inode = c->inode;
	it->child = c->next;
	return 1;
}

/* Write the n entries from *it into buf (a whole block, zeroed). */
static void fill_block(const struct erofs_wlayout *L, uint32_t dir, struct dir_it *it,
		       uint32_t n, uint8_t *buf)
{
	uint32_t k, nameoff = n * EROFS_DIRENT_SIZE;
	struct dir_ent e;

	memset(buf, 0, erofs_of(L->w)->bs);
	for (k = 0; k < n && next_ent(L, dir, it, &e); k++) {
		struct erofs_dirent d = {
			.nid = L->nid[e.inode], .nameoff = (uint16_t)nameoff,
			.file_type = file_type(fstree_inode(L->t, e.inode)->mode),
		};

		erofs_dirent_encode(&d, buf + k * EROFS_DIRENT_SIZE);
		memcpy(buf + nameoff, e.name, e.len);
		nameoff += (uint32_t)e.len;
	}
}

int erofs_w_dir_pack(const struct erofs_wlayout *L, uint32_t dir, uint8_t *buf,
		     erofs_dirblock_fn fn, void *user, uint64_t *size)
{
	struct dir_it it = { 0, fstree_inode(L->t, dir)->u.dir.first }, start;
	struct dir_ent e;
	uint32_t used, n;
	int more = 1, ret;

	*size = 0;
	while (more) {
		start = it;
		used = 0;
		n = 0;
		for (;;) {
			struct dir_it before = it;

			if (!(more = next_ent(L, dir, &it, &e)))
				break;
			if (used + EROFS_DIRENT_SIZE + e.len > erofs_of(L->w)->bs) {
				it = before;
				break;
			}
			used += EROFS_DIRENT_SIZE + (uint32_t)e.len;
			n++;
		}
		*size += more ? erofs_of(L->w)->bs : used;
		if (fn != NULL) {
			fill_block(L, dir, &start, n, buf);
			if ((ret = fn(user, buf, used, !more)) != 0)
				return ret;
		}
	}
	return 0;
}
