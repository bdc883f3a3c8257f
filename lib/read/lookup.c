/* SPDX-License-Identifier: MIT */
/*
 * lookup.c - finding things by name or number: one name in a directory
 * (from where the back end's index says it would be, when it has one),
 * a path from the root, and an inode by its number.
 *
 * Listings are sorted by byte value (strcmp), so a scan stops at the
 * first larger name.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "read/rd_image.h"
#include "sqpack/error.h"
#include "util/endian.h"

int rd_name_cmp(const char *ename, const char *name, size_t len)
{
	size_t elen = strlen(ename);
	int c = memcmp(ename, name, elen < len ? elen : len);

	if (c != 0)
		return c;
	return elen < len ? -1 : elen > len;
}

int rd_dir_find(struct sqp_image *img, const struct rd_inode *dir,
		const char *name, size_t len, struct rd_dirent *e)
{
	struct rd_dir it;
	int ret;

	if ((ret = rd_dir_open(img, dir, &it)) != 0)
		return ret;
	if (img->fmt->dir_seek != NULL &&
	    (ret = img->fmt->dir_seek(img, dir, name, len, &it)) != 0)
		return ret;
	while ((ret = rd_dir_next(img, &it, e)) == 1) {
		int c = rd_name_cmp(e->name, name, len);

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
	uint64_t at = img->root;
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
		if (n > RD_NAME_MAX)
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
	return img->fmt->inode_ref(img, n, ref);
}
