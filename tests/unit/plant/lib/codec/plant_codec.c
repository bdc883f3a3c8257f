/* SPDX-License-Identifier: MIT */
/*
 * plant_codec.c - a codec object calling util, which the rule allows: the
 * check must not report this use, only the cycle it closes with
 * plant_util.c.
 */
#include "../../plant.h"

int plant_codec(int depth)
{
	return plant_util(depth);
}
