/* SPDX-License-Identifier: MIT */
/*
 * img2img_main.c - the img2img program; the tool itself is img2img.c,
 * in the tools' library beside the other packers.
 */
#include "config.h"

#include "../common/tool_mains.h"

int main(int argc, char **argv)
{
	tool_set_progname("img2img");
	return img2img_main(argc, argv);
}
