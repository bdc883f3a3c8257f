/* SPDX-License-Identifier: MIT */
/*
 * img2tar.h - an image (or some of its subtrees) as a tar stream.
 */
#ifndef SQPACK_IMG2TAR_H
#define SQPACK_IMG2TAR_H

#include <stddef.h>
#include "sqpack/api.h"
#include "sqpack/reader.h"
#include "sqpack/tar_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SQP_IMG2TAR_SPARSE 0x0001    /* holes as GNU sparse 1.0 */
#define SQP_IMG2TAR_NO_XATTRS 0x0002

struct sqp_img2tar_desc {
	size_t struct_size;  /* sizeof(struct sqp_img2tar_desc): see sqpack/api.h */
	unsigned jobs;               /* decompression threads; 0 = CPUs */
	unsigned flags;              /* SQP_IMG2TAR_* */
	const char *const *paths;    /* subtrees to write; NULL = all */
	size_t path_count;
};

/*
 * Write the image (or the subtrees) as tar entries into tw: parents
 * before children, directory order, hard links as links to the first
 * path written. Does not finish the tar writer. Returns 0 or an error,
 * message in sqp_image_error(), the tar writer's included (a write error
 * latches in both).
 */
SQP_API int sqp_image_to_tar(struct sqp_image *img, struct sqp_tar_writer *tw,
			     const struct sqp_img2tar_desc *desc);

#ifdef __cplusplus
}
#endif
#endif
