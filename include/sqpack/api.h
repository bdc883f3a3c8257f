/* SPDX-License-Identifier: MIT */
/*
 * api.h - symbol visibility for libsqpack.
 *
 * The library is compiled with -fvisibility=hidden; only functions marked
 * SQP_API are exported from the shared object. Everything else is internal
 * and may change without notice.
 */
#ifndef SQPACK_API_H
#define SQPACK_API_H

#if defined(__GNUC__) || defined(__clang__)
#define SQP_API __attribute__((visibility("default")))
#else
#define SQP_API
#endif

#endif
