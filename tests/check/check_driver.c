/* SPDX-License-Identifier: MIT */
/*
 * check_driver.c - "check_driver IMAGE..." runs imginfo_check_main() as
 * "imginfo check" would, until the imginfo dispatcher calls it.
 */
#include "config.h"

#include "imginfo_check.h"

int main(int argc, char **argv)
{
	return imginfo_check_main(argc, argv);
}
