/* SPDX-License-Identifier: MIT */
/*
 * sqpack.h - everything libsqpack exports, in one include.
 */
#ifndef SQPACK_SQPACK_H
#define SQPACK_SQPACK_H

#include "sqpack/api.h"
#include "sqpack/error.h"
#include "sqpack/entry.h"
#include "sqpack/codec.h"
#include "sqpack/tar.h"
#include "sqpack/tar_writer.h"
#include "sqpack/verity.h"
#include "sqpack/writer.h"
#include "sqpack/outfile.h"
#include "sqpack/reader.h"
#include "sqpack/img2tar.h"
#include "sqpack/img2dir.h"
#include "sqpack/check.h"
#include "sqpack/policy.h"
#include "sqpack/dirscan.h"
#include "sqpack/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library the program runs with ("0.1.0"), which
 * may be newer than the headers' SQPACK_VERSION_STRING. */
SQP_API const char *sqp_version(void);

#ifdef __cplusplus
}
#endif
#endif
