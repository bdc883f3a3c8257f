/* SPDX-License-Identifier: MIT */
/*
 * erofs_listing.c - EROFS directory listings, as rd_dir_next gives them for
 * SquashFS.
 *
 * A directory's data is blocks of 12-byte entries followed by their
 * names; the first entry's name offset says how many entries the block
 * has, and each name ends where the next begins (the last one at the
 * block's end or its first NUL). Everything a block says is checked
 * against that block: entries before names, names inside it, 1..255
 * bytes, no '/' or NUL, strictly sorted across the whole listing (which
 * refuses a name twice); "." (the directory itself) and ".." (a
 * directory), once each, are checked and skipped; a nid must lie inside
 * the image. A directory that lists itself or an ancestor is the
 * walk's to refuse (its inode met twice).
 *
 * A compressed listing (mkfs.erofs --zD: mostly wholly a fragment of
 * the packed inode) is decoded a block at a time through erofs_zread.c;
 * its blocks are then checked as a flat listing's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "erofs/rd_erofs.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* SquashFS's directory entry type of each EROFS file type (0: bad). */
static const uint8_t ft_types[EROFS_FT_MAX] = {
	[EROFS_FT_REG] = RD_T_FILE, [EROFS_FT_DIR] = RD_T_DIR,
	[EROFS_FT_CHRDEV] = RD_T_CHRDEV, [EROFS_FT_BLKDEV] = RD_T_BLKDEV,
	[EROFS_FT_FIFO] = RD_T_FIFO, [EROFS_FT_SOCK] = RD_T_SOCKET,
	[EROFS_FT_SYMLINK] = RD_T_SYMLINK,
};

int rd_erofs_dir_open(struct sqp_image *img, const struct rd_inode *dir,
		      struct rd_dir *it)
{
	memset(it, 0, sizeof(*it));
	if (!S_ISDIR(dir->mode))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: not a directory",
			      img->name);
	erd(it)->edir = *eri(dir);
	it->inode_number = dir->inode_number;
	return 0;
}

/* Whether the cache holds the listing's block at phys (a compressed
 * listing's: its offset in the listing) of len bytes. */
static int held(const struct rd_erofs *ero, const struct rd_dir *it, uint64_t phys,
		uint32_t len)
{
	uint64_t dir = rd_erofs_compressed(&erd(it)->edir) ? erd(it)->edir.pos : UINT64_MAX;

	return ero->dblk_len != 0 && ero->dblk_pos == phys && ero->dblk_len == len &&
	       ero->dblk_dir == dir;
}

/* Block lblk of a compressed listing (mkfs.erofs --zD): *phys its
 * offset in the listing, decoded into the cache unless it is there. */
static int zblock(struct sqp_image *img, struct rd_dir *it, uint64_t lblk,
		  uint64_t *phys, uint32_t *len)
{
	struct rd_erofs *ero = rd_ero(img);
	const struct rd_einode *e = &erd(it)->edir;
	uint64_t rest;
	int ret;

	*phys = lblk << ero->bits;
	rest = e->size - *phys;
	*len = rest < ero->bs ? (uint32_t)rest : ero->bs;
	if (held(ero, it, *phys, *len))
		return 0;
	if (ero->zdir == NULL || ero->zdir->e.pos != e->pos) {
		rd_zfile_close(ero->zdir);
		if ((ret = rd_zfile_open(img, e, &ero->zdir)) != 0)
			return ret;
	}
	ero->dblk_len = 0;
	if ((ret = rd_zfile_pread(img, ero->zdir, ero->dblk, *len, *phys)) != 0)
		return ret;
	ero->dblk_pos = *phys;
	ero->dblk_len = *len;
	ero->dblk_dir = e->pos;
	return 0;
}

/* The next block of the listing into the cache, its entry count set. */
static int next_block(struct sqp_image *img, struct rd_dir *it)
{
	struct rd_erofs *ero = rd_ero(img);
	uint64_t phys;
	uint32_t len, first;
	int ret;

	if (ero->dblk == NULL && (ero->dblk = malloc(ero->bs)) == NULL)
		return rd_err(img, SQP_ERR_NOMEM, "out of memory");
	if (rd_erofs_compressed(&erd(it)->edir))
		ret = zblock(img, it, erd(it)->eblk, &phys, &len);
	else
		ret = rd_erofs_map(img, &erd(it)->edir, erd(it)->eblk << ero->bits, &phys,
				   &len);
	if (ret != 0)
		return ret;
	if (phys == UINT64_MAX || len < EROFS_DIRENT_SIZE || len > ero->bs)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "block %llu is a hole or too short", img->name,
			      it->inode_number, (unsigned long long)erd(it)->eblk);
	erd(it)->eblk++;
	erd(it)->ephys = phys;
	erd(it)->elen = len;
	if (!held(ero, it, phys, len)) { /* a flat one: zblock read the other */
		ero->dblk_len = 0;
		/* through the metadata windows: a parent's block is
		 * met again after each subdirectory the walk enters */
		if ((ret = rd_erofs_meta_read(img, phys, ero->dblk, len,
					      "a directory block")) != 0)
			return ret;
		ero->dblk_pos = phys;
		ero->dblk_len = len;
		ero->dblk_dir = UINT64_MAX;
	}
	first = sqp_get16(ero->dblk + 8);
	if (first < EROFS_DIRENT_SIZE || first % EROFS_DIRENT_SIZE != 0 ||
	    first >= len)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "block %llu has a bad first entry", img->name,
			      it->inode_number, (unsigned long long)erd(it)->eblk - 1);
	erd(it)->ecount = first / EROFS_DIRENT_SIZE;
	erd(it)->eidx = 0;
	return 0;
}

/* Entry eidx of the cached block: its name into e, bounded. */
static int entry(struct sqp_image *img, struct rd_dir *it,
		 struct erofs_dirent *d, struct rd_dirent *e)
{
	const uint8_t *b = rd_ero(img)->dblk;
	uint32_t end = erd(it)->elen, len;

	erofs_dirent_decode(d, b + erd(it)->eidx * EROFS_DIRENT_SIZE);
	if (erd(it)->eidx + 1 < erd(it)->ecount)
		end = sqp_get16(b + (erd(it)->eidx + 1) * EROFS_DIRENT_SIZE + 8);
	if (d->nameoff < erd(it)->ecount * EROFS_DIRENT_SIZE || end > erd(it)->elen ||
	    d->nameoff >= end)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "a name outside its block", img->name,
			      it->inode_number);
	len = end - d->nameoff;
	if (erd(it)->eidx + 1 == erd(it)->ecount) /* the last name: up to a NUL */
		len = (uint32_t)strnlen((const char *)b + d->nameoff, len);
	if (len == 0 || len > EROFS_NAME_MAX ||
	    memchr(b + d->nameoff, 0, len) != NULL)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "a name of %u bytes or holding a NUL",
			      img->name, it->inode_number, len);
	memcpy(e->name, b + d->nameoff, len);
	e->name[len] = '\0';
	erd(it)->eidx++;
	return 0;
}

/* 1 when name is "." or ".." and fits (skipped: the walk knows the
 * tree), 0 for any other name, < 0 when a dot entry is not what it
 * must be: "." the directory itself, ".." a directory, each once. */
static int dots(struct sqp_image *img, struct rd_dir *it,
		const struct erofs_dirent *d, const char *name)
{
	unsigned bit = strcmp(name, ".") == 0 ? 1 : strcmp(name, "..") == 0 ? 2 : 0;

	if (bit == 0)
		return 0;
	if ((erd(it)->edots & bit) || d->file_type != EROFS_FT_DIR ||
	    (bit == 1 && rd_erofs_ino(rd_ero(img), d->nid) != it->inode_number))
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "a bad '%s' entry", img->name, it->inode_number,
			      name);
	erd(it)->edots |= bit;
	if (bit == 2)
		erd(it)->eparent = rd_erofs_ino(rd_ero(img), d->nid);
	return 1;
}

int rd_erofs_dir_next(struct sqp_image *img, struct rd_dir *it,
		      struct rd_dirent *e)
{
	struct erofs_dirent d;
	int ret;

	for (;;) {
		if (erd(it)->eidx == erd(it)->ecount) {
			if ((erd(it)->eblk << rd_ero(img)->bits) >= erd(it)->edir.size)
				return 0;
			if ((ret = next_block(img, it)) != 0)
				return ret;
		} else if (!held(rd_ero(img), it, erd(it)->ephys, erd(it)->elen)) {
			/* Another listing used the cache: read ours again. */
			uint32_t idx = erd(it)->eidx;

			erd(it)->eblk--;
			if ((ret = next_block(img, it)) != 0)
				return ret;
			erd(it)->eidx = idx;
		}
		if ((ret = entry(img, it, &d, e)) != 0)
			return ret;
		if ((ret = dots(img, it, &d, e->name)) != 1)
			break;
	}
	if (ret < 0)
		return ret;
	if ((ret = rd_dir_name(img, it, e->name)) != 0)
		return ret;
	if (!rd_erofs_nid_ok(rd_ero(img), d.nid) || d.file_type >= EROFS_FT_MAX ||
	    ft_types[d.file_type] == 0)
		return rd_err(img, SQP_ERR_CORRUPT, "%s: directory inode %u: "
			      "entry '%s' with a bad inode or type", img->name,
			      it->inode_number, e->name);
	e->inode_ref = d.nid;
	e->inode_number = rd_erofs_ino(rd_ero(img), d.nid);
	e->type = ft_types[d.file_type];
	return 1;
}

int rd_erofs_parent(struct sqp_image *img, const struct rd_inode *dir,
		    uint32_t *parent)
{
	struct rd_dirent e;
	struct rd_dir it;
	int ret;

	if ((ret = rd_erofs_dir_open(img, dir, &it)) != 0)
		return ret;
	while (!(erd(&it)->edots & 2) && (ret = rd_erofs_dir_next(img, &it, &e)) == 1)
		;
	if (ret < 0)
		return ret;
	*parent = erd(&it)->eparent;
	return 0;
}
