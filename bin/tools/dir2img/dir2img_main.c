/* SPDX-License-Identifier: MIT */
/*
 * dir2img_main.c - the dir2img program: the packer runs in dir2img.c so
 * that sqpack-mksquashfs can call it in-process too.
 */
#include "config.h"

#include "../common/tool_mains.h"

int main(int argc, char **argv)
{
	tool_set_progname("dir2img");
	return dir2img_main(argc, argv);
}
