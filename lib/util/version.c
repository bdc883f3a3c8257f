/* SPDX-License-Identifier: MIT */
/*
 * version.c - the library's version, from configure.
 */
#include "config.h"

#include "sqpack/sqpack.h"

const char *sqp_version(void)
{
	return PACKAGE_VERSION;
}
