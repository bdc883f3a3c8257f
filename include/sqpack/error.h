/* SPDX-License-Identifier: MIT */
/*
 * error.h - the one error enum of libsqpack.
 *
 * Every library function that can fail returns 0 (SQP_OK) or one of the
 * negative codes below. Objects also keep a message with context (for
 * example "tar entry 'usr/bin/x': size field is not octal"); once an object
 * has failed, every later call on it returns the same error. The library
 * never prints and never exits.
 *
 * Objects are made by sqp_X_create(desc, &x) and freed by sqp_X_destroy(x)
 * (NULL is fine). On failure create returns a negative code and sets x to
 * either NULL (bad arguments, or no memory for the object itself) or the
 * object in its failed state, which answers only sqp_X_error() (why, with
 * context) and sqp_X_destroy(). So, for every object that has an error
 * accessor:
 *
 *     ret = sqp_X_create(&desc, &x);
 *     if (ret != 0)
 *             why = x != NULL ? sqp_X_error(x) : sqp_strerror(ret);
 *     ...
 *     sqp_X_destroy(x);
 *
 * The compressor keeps no message: on failure it always leaves NULL.
 */
#ifndef SQPACK_ERROR_H
#define SQPACK_ERROR_H

#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sqp_error {
	SQP_OK = 0,

	/* I/O */
	SQP_ERR_IO = -1,          /* a read or write failed; message has errno text */
	SQP_ERR_NO_SPACE = -2,    /* the output device is full or a size limit was hit */
	SQP_ERR_TRUNCATED = -3,   /* the input ended before the data it announced */

	/* memory */
	SQP_ERR_NOMEM = -10,      /* an allocation failed */

	/* corrupt input */
	SQP_ERR_CORRUPT = -20,    /* the SquashFS image is inconsistent */
	SQP_ERR_BAD_TAR = -21,    /* the tar stream is malformed */
	SQP_ERR_BAD_DATA = -22,   /* a compressed block or stream does not decode */

	/* unsupported */
	SQP_ERR_UNSUPPORTED = -30, /* valid input that this build or format cannot represent */
	SQP_ERR_NO_CODEC = -31,    /* the codec is known but was not built in */

	/* usage */
	SQP_ERR_ARG = -40,        /* an argument or option value is invalid */
	SQP_ERR_EXISTS = -41,     /* the target exists and replacing it was not allowed */
	SQP_ERR_NOT_FOUND = -42,  /* a path or entry does not exist */
	SQP_ERR_SEQUENCE = -43,   /* call made in the wrong state of an object */

	/* limits */
	SQP_ERR_LIMIT = -50,      /* a format limit would be exceeded (ids, names, sizes) */

	/* cancellation */
	SQP_ERR_CANCELED = -60,   /* the job was stopped on request */

	/* failures inside sqpack */
	SQP_ERR_COMPRESSOR = -70, /* a codec failed to compress (not bad input) */
	SQP_ERR_INTERNAL = -71,   /* an internal invariant broke: a bug in sqpack */
};

/* A static string describing a code; never NULL. */
SQP_API const char *sqp_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif
