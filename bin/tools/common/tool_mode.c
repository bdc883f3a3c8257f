/* SPDX-License-Identifier: MIT */
/*
 * tool_mode.c - a mode as ls -l writes it ("drwxr-xr-x", "-rwsr-S--T"),
 * one way for imginfo's listings and stat and sqpack-unsquashfs's
 * listings, which must match unsquashfs's byte for byte.
 */
#include <sys/stat.h>

#include "tool_mode.h"

void tool_mode_string(uint32_t mode, char out[11])
{
	static const char rwx[] = "rwxrwxrwx";
	char t;

	switch (mode & S_IFMT) {
	case S_IFDIR: t = 'd'; break;
	case S_IFLNK: t = 'l'; break;
	case S_IFBLK: t = 'b'; break;
	case S_IFCHR: t = 'c'; break;
	case S_IFIFO: t = 'p'; break;
	case S_IFSOCK: t = 's'; break;
	default: t = '-'; break;
	}
	out[0] = t;
	for (int i = 0; i < 9; i++)
		out[1 + i] = (mode & (0400u >> i)) ? rwx[i] : '-';
	if (mode & S_ISUID)
		out[3] = (mode & S_IXUSR) ? 's' : 'S';
	if (mode & S_ISGID)
		out[6] = (mode & S_IXGRP) ? 's' : 'S';
	if (mode & S_ISVTX)
		out[9] = (mode & S_IXOTH) ? 't' : 'T';
	out[10] = '\0';
}
