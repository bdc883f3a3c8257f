/* SPDX-License-Identifier: MIT */
/*
 * tar2img_main.c - the tar2img program: the packer runs in tar2img.c so
 * that sqpack-mksquashfs can call it in-process too.
 */
#include "config.h"

#include "../common/tool_mains.h"

int main(int argc, char **argv)
{
	tool_set_progname("tar2img");
	return tar2img_main(argc, argv);
}
