/* SPDX-License-Identifier: MIT */
/*
 * erofs_check.c - the checker's EROFS part (rd_format.check_*): a file's
 * map is walked whole before its data goes to the block reader, and a
 * directory's parent is what its ".." entry names.
 *
 * Why walk the map first: the block reader stops at the first map it
 * cannot follow (a cluster index past the end, an extent that does not
 * hold its bytes, a fragment past the packed inode), which would end the
 * check there. Walked here, that problem is reported against its file
 * and inode and the file's data is left out, so the check goes on to
 * the next file; the block reader then meets only maps that were
 * followed to their end, and reports data that does not decode (through
 * its bad() callback) without stopping.
 */
#include "config.h"

#include <stdlib.h>

#include "erofs/rd_erofs.h"
#include "sqpack/error.h"

/* Every extent of a compressed file, in order, without gaps; a
 * fragment read whole from the packed inode. */
static int zmap_sound(struct sqp_image *img, const struct rd_inode *ino)
{
	struct rd_zwalk w;
	struct rd_extent x;
	uint8_t *buf;
	int ret;

	if ((ret = rd_erofs_zwalk_init(img, eri(ino), &w)) != 0)
		return ret;
	while ((ret = rd_erofs_zwalk_next(img, &w, &x)) > 0) {
		if (x.fmt != RD_Z_FRAGMENT)
			continue;
		if ((buf = malloc(x.llen)) == NULL)
			return rd_err(img, SQP_ERR_NOMEM, "out of memory");
		ret = rd_erofs_packed_read(img, buf, x.llen, x.pa);
		free(buf);
		if (ret != 0)
			return ret;
	}
	return ret;
}

int rd_erofs_check_file(struct sqp_image *img, struct rd_checker *k,
			const char *path, const struct rd_inode *ino)
{
	uint64_t phys;
	uint32_t len;
	int ret = 0;

	if (rd_erofs_compressed(eri(ino)))
		ret = zmap_sound(img, ino);
	for (uint64_t off = 0; !rd_erofs_compressed(eri(ino)) && ret == 0 &&
	     off < eri(ino)->size; off += len)
		ret = rd_erofs_map(img, eri(ino), off, &phys, &len);
	if (ret == 0)
		return 1;
	/* A layout or codec this build does not read is this file's
	 * problem too: the check goes on. */
	if (ret == SQP_ERR_UNSUPPORTED)
		return k->latched(k->user, "inode", ino->inode_number, path, 1);
	ret = k->latched(k->user, "inode", ino->inode_number, path, 0);
	return ret < 0 ? ret : 0;
}

int rd_erofs_check_dir(struct sqp_image *img, struct rd_checker *k,
		       const char *path, const struct rd_inode *dir,
		       uint32_t parent)
{
	uint32_t named = 0;

	if (rd_erofs_parent(img, dir, &named) != 0)
		return k->latched(k->user, "directory", dir->inode_number, path,
				  0);
	if (named != parent)
		rd_check_report(k, "directory", dir->inode_number, path, "'..' "
				"names inode %u, but the directory is in inode "
				"%u", named, parent);
	return 0;
}
