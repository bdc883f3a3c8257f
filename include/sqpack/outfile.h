/* SPDX-License-Identifier: MIT */
/*
 * outfile.h - an output file that appears complete or not at all.
 *
 * Data is written to a temporary file next to the destination (same
 * directory, so the final rename is atomic). sqp_outfile_commit() renames it
 * into place; destroying an outfile that was not committed removes the
 * temporary file. A tool that wants to survive SIGINT/SIGTERM takes the
 * temporary path once, after create, and unlinks it from its signal handler
 * (unlink is async-signal-safe).
 */
#ifndef SQPACK_OUTFILE_H
#define SQPACK_OUTFILE_H

/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/outfile.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_outfile;

/*
 * Create the temporary file for path. Unless force is set, fails with
 * SQP_ERR_EXISTS when path already exists (checked again at commit).
 * The file is opened read-write; its permissions follow the umask like
 * any new file.
 */
SQP_API int sqp_outfile_create(const char *path, int force,
			       struct sqp_outfile **out);

/* The descriptor to write to (owned by the outfile). */
SQP_API int sqp_outfile_fd(const struct sqp_outfile *o);

/* The temporary file's path (owned by the outfile, stable until destroy). */
SQP_API const char *sqp_outfile_temp_path(const struct sqp_outfile *o);

/* Flush, close and rename into place. After success the outfile only
 * needs destroy. */
SQP_API int sqp_outfile_commit(struct sqp_outfile *o);

/* Close and, unless committed, remove the temporary file. NULL is fine. */
SQP_API void sqp_outfile_destroy(struct sqp_outfile *o);

SQP_API const char *sqp_outfile_error(const struct sqp_outfile *o);

#ifdef __cplusplus
}
#endif
#endif
