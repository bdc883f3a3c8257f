/* SPDX-License-Identifier: MIT */
/*
 * reader.h - open and read SquashFS 4.0 images (any writer's).
 */
#ifndef SQPACK_READER_H
#define SQPACK_READER_H

#include "sqpack/api.h"
#include "sqpack/entry.h"

#endif
