/* SPDX-License-Identifier: MIT */
/*
 * fuse_pool.c - the pool of images of fuse_pool.h: a free list under a
 * mutex; a request that finds it empty opens one more image (unlocked:
 * opening reads the image's tables) unless max are out, then waits.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuse_pool.h"

static int open_one(struct fuse_pool *p, struct pool_img **out)
{
	struct pool_img *pi = calloc(1, sizeof(*pi));
	int ret;

	*out = NULL;
	if (pi == NULL)
		return SQP_ERR_NOMEM;
	ret = sqp_image_create(&p->desc, &pi->img);
	if (ret != 0) {
		*out = pi;      /* the caller reads the image's message */
		return ret;
	}
	*out = pi;
	return 0;
}

static void close_one(struct pool_img *pi)
{
	if (pi == NULL)
		return;
	sqp_file_close(pi->file);
	sqp_image_destroy(pi->img);
	free(pi);
}

int pool_init(struct fuse_pool *p, const struct sqp_image_desc *desc,
	      unsigned max, char *msg, size_t msg_size)
{
	struct pool_img *pi;
	int ret;

	p->desc = *desc;
	p->free = NULL;
	p->count = 1;
	p->max = max > 0 ? max : 1;
	ret = open_one(p, &pi);
	if (ret != 0) {
		snprintf(msg, msg_size, "%s", pi != NULL && pi->img != NULL ?
			 sqp_image_error(pi->img) : sqp_strerror(ret));
		close_one(pi);
		return ret;
	}
	p->free = pi;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	return 0;
}

void pool_init_empty(struct fuse_pool *p, const struct sqp_image_desc *desc,
		     unsigned max)
{
	p->desc = *desc;
	p->free = NULL;
	p->count = 0;
	p->max = max > 0 ? max : 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
}

void pool_destroy(struct fuse_pool *p)
{
	while (p->free != NULL) {
		struct pool_img *pi = p->free;

		p->free = pi->next;
		close_one(pi);
	}
	pthread_cond_destroy(&p->freed);
	pthread_mutex_destroy(&p->lock);
}

int pool_get(struct fuse_pool *p, struct pool_img **out)
{
	struct pool_img *pi;
	int ret;

	pthread_mutex_lock(&p->lock);
	while (p->free == NULL && p->count >= p->max)
		pthread_cond_wait(&p->freed, &p->lock);
	if ((pi = p->free) != NULL) {
		p->free = pi->next;
		pthread_mutex_unlock(&p->lock);
		*out = pi;
		return 0;
	}
	p->count++;
	pthread_mutex_unlock(&p->lock);
	if ((ret = open_one(p, out)) == 0)
		return 0;
	close_one(*out);
	*out = NULL;
	pthread_mutex_lock(&p->lock);
	p->count--;
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
	return -pool_errno(ret);
}

void pool_put(struct fuse_pool *p, struct pool_img *pi, int ret)
{
	int broken = ret < 0 && ret != SQP_ERR_NOT_FOUND && ret != SQP_ERR_ARG;

	if (broken)
		close_one(pi);
	pthread_mutex_lock(&p->lock);
	if (broken) {
		p->count--;
	} else {
		pi->next = p->free;
		p->free = pi;
	}
	pthread_cond_signal(&p->freed);
	pthread_mutex_unlock(&p->lock);
}

int pool_file(struct pool_img *pi, uint64_t ref)
{
	int ret;

	if (pi->file != NULL && pi->file_ref == ref)
		return 0;
	sqp_file_close(pi->file);
	pi->file = NULL;
	if ((ret = sqp_file_open(pi->img, ref, &pi->file)) != 0)
		return ret;
	pi->file_ref = ref;
	return 0;
}

int pool_errno(int sqp_err)
{
	switch (sqp_err) {
	case 0: return 0;
	case SQP_ERR_NOT_FOUND: return ENOENT;
	case SQP_ERR_NOMEM: return ENOMEM;
	default: return EIO;
	}
}
