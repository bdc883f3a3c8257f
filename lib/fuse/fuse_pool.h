/* SPDX-License-Identifier: MIT */
/*
 * fuse_pool.h - the images sqpack-fuse's threads read through.
 *
 * Why a pool: an sqp_image is used by one thread at a time (its
 * metadata cache and decompressor are its own; reader.h says so), and
 * the library stays free of locks its other tools would pay for. So the
 * file system opens the image file once and keeps several sqp_images on
 * it, one lent to each request in flight, up to a maximum (the loop's
 * threads). Each keeps the file it read last open, so a file read in
 * order through one image decodes each extent once. An image whose call
 * failed for a reason other than "not found" or "wrong type" has latched
 * the error (a corrupt block): it is dropped, and a fresh one opened
 * when needed, so one broken file does not fail the others.
 */
#ifndef SQP_BIN_FUSE_POOL_H
#define SQP_BIN_FUSE_POOL_H

#include <pthread.h>
#include <stdint.h>

#include "sqpack/sqpack.h"

struct pool_img {
	struct sqp_image *img;
	struct sqp_file *file;      /* the file read last, or NULL */
	uint64_t file_ref;
	struct pool_img *next;      /* in the free list */
};

struct fuse_pool {
	pthread_mutex_t lock;
	pthread_cond_t freed;
	struct pool_img *free;
	unsigned count, max;
	struct sqp_image_desc desc;
};

/* Open the first image on desc (borrowed: its fd and name must outlive
 * the pool): 0, or a negative sqp error with *msg set to the reason
 * (static or from the image; the caller prints it before destroying). */
int pool_init(struct fuse_pool *p, const struct sqp_image_desc *desc,
	      unsigned max, char *msg, size_t msg_size);
/* The same, no image opened until one is asked for (desc checked
 * already by another pool). */
void pool_init_empty(struct fuse_pool *p, const struct sqp_image_desc *desc,
		     unsigned max);
void pool_destroy(struct fuse_pool *p);

/* An image for this thread alone, until pool_put: 0 or -errno. */
int pool_get(struct fuse_pool *p, struct pool_img **out);
/* Give it back; ret is the last sqp call's result on it. */
void pool_put(struct fuse_pool *p, struct pool_img *pi, int ret);

/* Regular file ref open on pi (kept there: the file read last): 0, or
 * an sqp error (SQP_ERR_ARG: not a regular file). */
int pool_file(struct pool_img *pi, uint64_t ref);

/* errno for an sqp error. */
int pool_errno(int sqp_err);

#endif
