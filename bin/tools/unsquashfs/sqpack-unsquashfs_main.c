/* SPDX-License-Identifier: MIT */
/*
 * sqpack-unsquashfs_main.c - sqpack-unsquashfs: unsquashfs's command line and output (bin/unsq_*.c).
 * A main of its own rather than a look at argv[0], which libtool's
 * wrapper and distributions' renames change.
 */
#include "config.h"

#include "unsq.h"

int main(int argc, char **argv)
{
	return unsq_main(argc, argv, 0);
}
