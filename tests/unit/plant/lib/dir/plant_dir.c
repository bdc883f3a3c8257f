/* SPDX-License-Identifier: MIT */
/*
 * plant_dir.c - dir may use write through its public API only: the call
 * to plant_api (exported) must pass, the one to plant_hidden must be
 * reported.
 */
#include "../../plant.h"

int plant_dir(int x)
{
	return plant_api(x) + plant_hidden(x);
}
