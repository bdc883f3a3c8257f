/* SPDX-License-Identifier: MIT */
/*
 * reader.h - open SquashFS 4.0 images (written by anyone) and turn them
 * into tar streams.
 *
 * Everything read from an image is checked before it is used: a corrupt
 * or hostile image gives an error with a message, never a crash, a loop
 * or an allocation the image's size does not justify.
 */
#ifndef SQPACK_READER_H
#define SQPACK_READER_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"
#include "sqpack/tar_writer.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_image;

struct sqp_image_desc {
	int fd;              /* the image; borrowed, read with pread only */
	const char *name;    /* for messages; borrowed */
	sqp_warn_fn warn;    /* optional: skipped sockets, odd xattrs */
	void *warn_user;
};

/* Open an image: validate the superblock and load the id table. Returns
 * 0, or a negative error; *out is then NULL, and when msg is not NULL a
 * message is written there (msg_size bytes). */
SQP_API int sqp_image_create(const struct sqp_image_desc *desc,
			     struct sqp_image **out, char *msg,
			     size_t msg_size);
SQP_API void sqp_image_destroy(struct sqp_image *img);

/* The last error's message with context. Never NULL; "" when none. */
SQP_API const char *sqp_image_error(const struct sqp_image *img);

struct sqp_image_info {
	int codec;           /* enum sqp_codec_id */
	uint32_t block_size;
	uint32_t inode_count;
	uint32_t mod_time;
	uint64_t bytes_used;
};
SQP_API void sqp_image_get_info(const struct sqp_image *img,
				struct sqp_image_info *info);

#define SQP_IMG2TAR_SPARSE 0x0001    /* holes as GNU sparse 1.0 */
#define SQP_IMG2TAR_NO_XATTRS 0x0002

struct sqp_img2tar_desc {
	unsigned jobs;               /* decompression threads; 0 = CPUs */
	unsigned flags;              /* SQP_IMG2TAR_* */
	const char *const *paths;    /* subtrees to write; NULL = all */
	size_t path_count;
};

/*
 * Write the image (or the subtrees) as tar entries into tw: parents
 * before children, directory order, hard links as links to the first
 * path written. Does not finish the tar writer. Returns 0 or an error
 * (message in sqp_image_error(), or in the tar writer's for write
 * errors, which then also latch here).
 */
SQP_API int sqp_image_to_tar(struct sqp_image *img, struct sqp_tar_writer *tw,
			     const struct sqp_img2tar_desc *desc);

#ifdef __cplusplus
}
#endif
#endif
