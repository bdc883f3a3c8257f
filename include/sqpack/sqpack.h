/* SPDX-License-Identifier: MIT */
/*
 * sqpack.h - the stable API in one include; the unstable headers too
 * with SQPACK_UNSTABLE_API defined (doc/contributing.md).
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
#include "sqpack/reader.h"
#include "sqpack/img2tar.h"
#include "sqpack/img2dir.h"
#include "sqpack/version.h"
#ifdef SQPACK_UNSTABLE_API
#include "sqpack/outfile.h"
#include "sqpack/policy.h"
#include "sqpack/dirscan.h"
#include "sqpack/image_info.h"
#include "sqpack/codec_fixed.h"
#include "sqpack/check.h"
#include "sqpack/inspect.h"
#endif

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
