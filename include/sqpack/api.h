/* SPDX-License-Identifier: MIT */
/*
 * api.h - symbol visibility for libsqpack.
 *
 * The library is compiled with -fvisibility=hidden; only functions marked
 * SQP_API are exported from the shared object. Everything else is internal
 * and may change without notice.
 *
 * Structs that grow: every struct a caller fills or receives begins with
 * `size_t struct_size`, which the caller sets to sizeof the struct before the
 * call:
 *
 *     struct sqp_image_desc d = { .struct_size = sizeof d, .fd = fd };
 *
 * Fields are only ever added at the end. The library reads a caller's
 * struct only up to its size (the fields past it take their default, 0)
 * and writes one only up to its size; a size below the first version's is
 * refused (SQP_ERR_ARG), and so is a larger one than the library knows
 * unless the extra bytes are zero (SQP_ERR_UNSUPPORTED). So a program
 * built against older headers keeps working with a newer library, and one
 * built against newer headers with an older library as long as it uses
 * nothing new.
 */
#ifndef SQPACK_API_H
#define SQPACK_API_H

#if defined(__GNUC__) || defined(__clang__)
#define SQP_API __attribute__((visibility("default")))
#else
#define SQP_API
#endif

/* The two image formats: what the writer makes (sqp_writer_desc.format)
 * and what the reader found (sqp_image_info.format). Here because both
 * headers need it and neither may include the other. */
enum sqp_image_format {
	SQP_FORMAT_SQUASHFS = 0,
	SQP_FORMAT_EROFS = 1,
};

#endif
