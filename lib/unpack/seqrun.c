/* SPDX-License-Identifier: MIT */
/*
 * seqrun.c - the ordered runner (seqrun.h): a ring of queued items, one
 * thread taking them from its head.
 *
 * Invariant: ring[head .. head+count) (modulo max_items) are the items
 * pushed and not yet finished, the oldest first; the one at head may be
 * running, and stays counted (with its weight in bytes) until it is
 * done, so flush() returns only when nothing is left. err is written
 * under the lock only; the thread runs with a private errbuf, so the
 * pusher never reads a message being written.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>

#include "sqpack/error.h"
#include "unpack/seqrun.h"

/* The thread, once idle, is woken when this many items are queued (or
 * on a flush, or when the pusher must wait): one wake-up per run of
 * small items instead of one per item. */
#define WAKE_ITEMS 32

struct unp_seqrun {
	struct unp_seqrun_desc d;
	void **ring;
	size_t *weight;
	size_t head, count, bytes;
	int stopping, started;
	struct sqp_errbuf err;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t queued, done;
};

/* Copy the latched error, under the lock, to the caller's errbuf. */
static int report(struct unp_seqrun *s, struct sqp_errbuf *err)
{
	return s->err.code == 0 ? 0 :
	       sqp_err(err, s->err.code, "%s", s->err.msg);
}

static void *runner(void *arg)
{
	struct unp_seqrun *s = arg;
	struct sqp_errbuf mine = { 0, "" };

	pthread_mutex_lock(&s->lock);
	for (;;) {
		void *item;
		int r = 0;

		while (s->count == 0 && !s->stopping)
			pthread_cond_wait(&s->queued, &s->lock);
		if (s->stopping)
			break;
		item = s->ring[s->head];
		pthread_mutex_unlock(&s->lock);
		if (mine.code == 0)
			r = s->d.run(s->d.user, item, &mine);
		else
			s->d.drop(s->d.user, item);
		pthread_mutex_lock(&s->lock);
		if (r != 0 && s->err.code == 0)
			s->err = mine;
		s->bytes -= s->weight[s->head];
		s->head = (s->head + 1) % s->d.max_items;
		s->count--;
		/* A full queue's pusher waits for half of it: woken once per
		 * run of items, not for each. */
		if (s->count <= s->d.max_items / 2 &&
		    s->bytes <= s->d.max_bytes / 2) {
			pthread_mutex_unlock(&s->lock);
			pthread_cond_signal(&s->done);
			pthread_mutex_lock(&s->lock);
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int unp_seqrun_create(const struct unp_seqrun_desc *desc,
		      struct unp_seqrun **out)
{
	struct unp_seqrun *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->d = *desc;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->queued, NULL);
	pthread_cond_init(&s->done, NULL);
	s->ring = calloc(desc->max_items, sizeof(*s->ring));
	s->weight = calloc(desc->max_items, sizeof(*s->weight));
	if (s->ring == NULL || s->weight == NULL || desc->max_items == 0) {
		unp_seqrun_destroy(s);
		return desc->max_items == 0 ? SQP_ERR_ARG : SQP_ERR_NOMEM;
	}
	if (desc->threaded) {
		if (pthread_create(&s->thread, NULL, runner, s) != 0) {
			unp_seqrun_destroy(s);
			return SQP_ERR_NOMEM;
		}
		s->started = 1;
	}
	*out = s;
	return 0;
}

void unp_seqrun_destroy(struct unp_seqrun *s)
{
	if (s == NULL)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->stopping = 1;
		pthread_mutex_unlock(&s->lock);
		pthread_cond_signal(&s->queued);
		pthread_join(s->thread, NULL);
	}
	for (; s->count > 0; s->count--) {
		s->d.drop(s->d.user, s->ring[s->head]);
		s->head = (s->head + 1) % s->d.max_items;
	}
	pthread_cond_destroy(&s->done);
	pthread_cond_destroy(&s->queued);
	pthread_mutex_destroy(&s->lock);
	free(s->weight);
	free(s->ring);
	free(s);
}

int unp_seqrun_push(struct unp_seqrun *s, void *item, size_t bytes,
		    struct sqp_errbuf *err)
{
	size_t slot;
	int r;

	if (!s->d.threaded) {
		if (s->err.code != 0) {
			s->d.drop(s->d.user, item);
			return report(s, err);
		}
		if (s->d.run(s->d.user, item, &s->err) != 0)
			return report(s, err);
		return 0;
	}
	pthread_mutex_lock(&s->lock);
	/* A single item heavier than max_bytes still goes, alone. */
	if (s->count == s->d.max_items ||
	    (s->count > 0 && s->bytes + bytes > s->d.max_bytes)) {
		while (s->err.code == 0 && s->count > 0 &&
		       (s->count > s->d.max_items / 2 ||
			s->bytes > s->d.max_bytes / 2)) {
			pthread_cond_signal(&s->queued);
			pthread_cond_wait(&s->done, &s->lock);
		}
	}
	if ((r = report(s, err)) != 0) {
		pthread_mutex_unlock(&s->lock);
		s->d.drop(s->d.user, item);
		return r;
	}
	slot = (s->head + s->count) % s->d.max_items;
	s->ring[slot] = item;
	s->weight[slot] = bytes;
	s->bytes += bytes;
	s->count++;
	slot = s->count;
	pthread_mutex_unlock(&s->lock);
	if (slot >= WAKE_ITEMS || slot == s->d.max_items)
		pthread_cond_signal(&s->queued);
	return 0;
}

int unp_seqrun_flush(struct unp_seqrun *s, struct sqp_errbuf *err)
{
	int r;

	if (!s->d.threaded)
		return report(s, err);
	pthread_mutex_lock(&s->lock);
	while (s->count > 0) {
		pthread_cond_signal(&s->queued);
		pthread_cond_wait(&s->done, &s->lock);
	}
	r = report(s, err);
	pthread_mutex_unlock(&s->lock);
	return r;
}
