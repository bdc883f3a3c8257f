/* SPDX-License-Identifier: MIT */
/*
 * plant_util.c - a util object that calls into codec: the use the rule
 * forbids (util depends on nothing) and, with plant_codec.c calling back,
 * a cycle between the two folders. layering_symbols.sh must report both.
 */
#include "../../plant.h"

int plant_util(int depth)
{
	return depth > 0 ? plant_codec(depth - 1) : 0;
}
