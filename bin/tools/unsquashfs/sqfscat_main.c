/* SPDX-License-Identifier: MIT */
/*
 * sqfscat_main.c - sqfscat: files of a SquashFS image to stdout (bin/unsq_*.c, as -cat).
 * A main of its own rather than a look at argv[0], which libtool's
 * wrapper and distributions' renames change.
 */
#include "config.h"

#include "unsq.h"

int main(int argc, char **argv)
{
	return unsq_main(argc, argv, 1);
}
