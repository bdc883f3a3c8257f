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

/* sqp_outfile_create's flags. FORCE is 1, so a caller's old force
 * argument (0 or 1) means what it meant. */
#define SQP_OUTFILE_FORCE  1    /* replace an existing file */
#define SQP_OUTFILE_STREAM 2    /* a character device or FIFO may take it */

/*
 * Create the temporary file for path. Unless SQP_OUTFILE_FORCE is set,
 * fails with SQP_ERR_EXISTS when path already exists (checked again at
 * commit). The file is opened read-write; its permissions follow the
 * umask like any new file.
 * A device is never replaced: a block device, with SQP_OUTFILE_FORCE, is
 * opened read-write (exclusively: a mounted one is refused) and written
 * in place, with no temporary file (sqp_outfile_temp_path gives NULL);
 * a character device or a FIFO is opened for writing with
 * SQP_OUTFILE_STREAM (a tar's output) and refused without it.
 */
SQP_API int sqp_outfile_create(const char *path, int flags,
			       struct sqp_outfile **out);

/* The descriptor to write to (owned by the outfile). */
SQP_API int sqp_outfile_fd(const struct sqp_outfile *o);

/* The temporary file's path (owned by the outfile, stable until destroy;
 * NULL for a device written in place). */
SQP_API const char *sqp_outfile_temp_path(const struct sqp_outfile *o);

/* Flush, close and rename into place (a block device: fsync and close).
 * After success the outfile only needs destroy. */
SQP_API int sqp_outfile_commit(struct sqp_outfile *o);

/* Close and, unless committed, remove the temporary file. NULL is fine. */
SQP_API void sqp_outfile_destroy(struct sqp_outfile *o);

SQP_API const char *sqp_outfile_error(const struct sqp_outfile *o);

#ifdef __cplusplus
}
#endif
#endif
