/* SPDX-License-Identifier: MIT */
/*
 * basic_type.c - sqfs_basic_type (lib/format), the one mapping of a
 * file type to SquashFS's basic inode type that the writer's records and
 * the reader's EROFS inodes share: each type gets the number the
 * SquashFS 4.0 format gives it (written out here, not taken from the
 * enum under test), and a mode without a file type gets 0, which the
 * EROFS reader refuses as corrupt.
 */
#include "config.h"

#include <sys/stat.h>

#include "check.h"
#include "squashfs/sqfs_format.h"

int main(void)
{
	static const struct { uint32_t mode; unsigned type; } want[] = {
		{ S_IFDIR | 0755, 1 }, { S_IFREG | 0644, 2 },
		{ S_IFLNK | 0777, 3 }, { S_IFBLK | 0600, 4 },
		{ S_IFCHR | 0600, 5 }, { S_IFIFO | 0600, 6 },
		{ S_IFSOCK | 0600, 7 },
		{ 0644, 0 }, { 0, 0 }, { S_IFMT, 0 }, { 0030000 | 0644, 0 },
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(sqfs_basic_type(want[i].mode) == want[i].type,
		      "mode 0%o: type %u, want %u", (unsigned)want[i].mode,
		      sqfs_basic_type(want[i].mode), want[i].type);
	return check_done();
}
