/* SPDX-License-Identifier: MIT */
/*
 * merge.h - images merged into one writer that share files: the shards
 * of one build (img2img --shards), where a file repeated in two shards
 * must be stored once, as one pass over the whole input stores it.
 *
 * sqp_writer_add_image copies a file's stored blocks as they are, which
 * keeps them out of deduplication (the writer never sees their bytes).
 * Told beforehand which images come, the writer keys the files whose
 * size occurs in more than one of them (the only ones that can be equal
 * across them) by a hash of their stored blocks, and shares a copy whose
 * stored bytes equal an earlier one's: nothing is decompressed or
 * compressed again. Their tails, inside compressed fragment blocks, are
 * decoded to be compared, and the fragment blocks holding equal tails
 * are packed anew, unless what they would save is within a thousandth
 * of the images' bytes: then every fragment block is copied as it is.
 * The inode and directory tables, which must be compressed again, go at
 * the codec's fastest level when the images' own are at most a 400th of
 * their bytes (so the merge stays within a quarter of a percent of one
 * pass even were they twice as large).
 */
#ifndef SQPACK_MERGE_H
#define SQPACK_MERGE_H
/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/merge.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stddef.h>
#include "sqpack/api.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_writer;
struct sqp_image;

/*
 * Walk the metadata of img[0..n) (open, as for sqp_writer_add_image) and
 * mark the sizes that regular files of two or more of the images share,
 * so that sqp_writer_add_image with SQP_ADD_IMAGE_DISJOINT shares such
 * files across them as above (equal files within one image share their
 * blocks there already, and stay shared when copied), and choose the
 * tables' level as above; without deduplication, only the level. Before
 * the images are added. On failure sqp_writer_error() explains.
 */
SQP_API int sqp_writer_expect_images(struct sqp_writer *w, struct sqp_image *const *img,
				     size_t n);

#ifdef __cplusplus
}
#endif
#endif
