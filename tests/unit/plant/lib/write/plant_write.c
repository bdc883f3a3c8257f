/* SPDX-License-Identifier: MIT */
/*
 * plant_write.c - two write functions for plant_dir.c: plant_api, which
 * the test lists as exported, and plant_hidden, which it does not.
 */
#include "../../plant.h"

int plant_api(int x)
{
	return x + 1;
}

int plant_hidden(int x)
{
	return x - 1;
}
