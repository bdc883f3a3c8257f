/* SPDX-License-Identifier: MIT */
/*
 * pool.c - ordered, bounded worker pool (see pool.h for the contract).
 *
 * Jobs in the pool live in a ring indexed by sequence number; pending jobs
 * (submitted, not yet started) additionally sit on a FIFO that workers
 * take from. The orchestrator only ever takes ring[oldest], so results come
 * back in submission order no matter which worker finishes first. Side
 * jobs are outside the ring: a queue that workers empty first, and a
 * list of finished ones the orchestrator reaps in any order.
 *
 * Invariant: oldest <= every seq in the ring < next_seq, and
 * next_seq - oldest <= capacity.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/pool.h"

struct sqp_pool {
	struct sqp_pool_desc desc;

	/* lock protects everything below it, including the done flag and
	 * next link of every job in the pool. */
	pthread_mutex_t lock;
	pthread_cond_t work_ready;  /* pending queue non-empty, or stopping */
	pthread_cond_t job_done;    /* some job finished */

	struct sqp_pool_job **ring; /* capacity slots, indexed seq % capacity */
	uint64_t next_seq;          /* seq of the next submitted job */
	uint64_t oldest;            /* seq of the oldest job not taken back */

	struct sqp_pool_job *pending_head;
	struct sqp_pool_job *pending_tail;
	struct sqp_pool_job *side_head, *side_tail;  /* posted, not started */
	struct sqp_pool_job *side_done;  /* finished, not reaped */
	unsigned side_out;               /* posted, not reaped */
	int side_waiting;                /* the orchestrator waits in reap */
	int stopping;

	pthread_t *threads;
	unsigned threads_started;
	void *serial_state;         /* worker state in serial mode */

	/* Worker start-up: each worker reports its init result here. */
	unsigned init_reported;
	int init_error;
};

unsigned sqp_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : (unsigned)n;
}

/* The next job to run: side jobs first. Called with the lock held. */
static struct sqp_pool_job *take_pending(struct sqp_pool *pool)
{
	struct sqp_pool_job **head = pool->side_head != NULL ?
		&pool->side_head : &pool->pending_head;
	struct sqp_pool_job *job = *head;

	*head = job->next;
	if (*head == NULL)
		*(head == &pool->side_head ? &pool->side_tail :
		  &pool->pending_tail) = NULL;
	return job;
}

static void *worker_main(void *arg)
{
	struct sqp_pool *pool = arg;
	struct sqp_pool_job *job;
	void *state = NULL;
	int ret = 0;

	if (pool->desc.worker_init != NULL)
		ret = pool->desc.worker_init(pool->desc.ctx, &state);

	pthread_mutex_lock(&pool->lock);
	pool->init_reported++;
	if (ret != 0 && pool->init_error == 0)
		pool->init_error = ret;
	pthread_cond_broadcast(&pool->job_done);
	pthread_mutex_unlock(&pool->lock);
	if (ret != 0)
		return NULL;

	for (;;) {
		int wake;

		pthread_mutex_lock(&pool->lock);
		while (pool->pending_head == NULL && pool->side_head == NULL &&
		       !pool->stopping)
			pthread_cond_wait(&pool->work_ready, &pool->lock);
		if (pool->stopping)
			break;
		job = take_pending(pool);
		pthread_mutex_unlock(&pool->lock);

		ret = pool->desc.run(pool->desc.ctx, state, job);

		pthread_mutex_lock(&pool->lock);
		job->status = ret;
		job->done = 1;
		/* Only the orchestrator waits on job_done, and only for the
		 * oldest job or (in reap) a side job; waking it for any other
		 * job would be wasted. */
		if (job->side) {
			job->next = pool->side_done;
			pool->side_done = job;
			wake = pool->side_waiting;
		} else {
			wake = job->seq == pool->oldest;
		}
		pthread_mutex_unlock(&pool->lock);
		/* Woken after the unlock: a woken thread often runs at once,
		 * and would otherwise only block again on the lock. */
		if (wake)
			pthread_cond_signal(&pool->job_done);
	}
	pthread_mutex_unlock(&pool->lock);

	if (pool->desc.worker_fini != NULL)
		pool->desc.worker_fini(pool->desc.ctx, state);
	return NULL;
}

static int start_workers(struct sqp_pool *pool)
{
	unsigned i;

	pool->threads = calloc(pool->desc.workers, sizeof(pool->threads[0]));
	if (pool->threads == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < pool->desc.workers; ++i) {
		if (pthread_create(&pool->threads[i], NULL, worker_main, pool) != 0)
			return SQP_ERR_NOMEM;
		pool->threads_started++;
	}

	pthread_mutex_lock(&pool->lock);
	while (pool->init_reported < pool->threads_started)
		pthread_cond_wait(&pool->job_done, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
	return pool->init_error;
}

int sqp_pool_create(const struct sqp_pool_desc *desc, struct sqp_pool **out)
{
	struct sqp_pool *pool;
	int ret;

	*out = NULL;
	if (desc->capacity == 0 || desc->run == NULL)
		return SQP_ERR_ARG;

	pool = calloc(1, sizeof(*pool));
	if (pool == NULL)
		return SQP_ERR_NOMEM;
	pool->desc = *desc;
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work_ready, NULL);
	pthread_cond_init(&pool->job_done, NULL);

	pool->ring = calloc(desc->capacity, sizeof(pool->ring[0]));
	if (pool->ring == NULL) {
		ret = SQP_ERR_NOMEM;
		goto fail;
	}

	if (desc->workers == 0) {
		ret = 0;
		if (desc->worker_init != NULL)
			ret = desc->worker_init(desc->ctx, &pool->serial_state);
	} else {
		ret = start_workers(pool);
	}
	if (ret != 0)
		goto fail;

	*out = pool;
	return 0;
fail:
	sqp_pool_destroy(pool);
	return ret;
}

void sqp_pool_destroy(struct sqp_pool *pool)
{
	unsigned i;

	if (pool == NULL)
		return;

	pthread_mutex_lock(&pool->lock);
	pool->stopping = 1;
	pthread_cond_broadcast(&pool->work_ready);
	pthread_mutex_unlock(&pool->lock);

	for (i = 0; i < pool->threads_started; ++i)
		pthread_join(pool->threads[i], NULL);

	if (pool->desc.workers == 0 && pool->desc.worker_fini != NULL &&
	    pool->serial_state != NULL)
		pool->desc.worker_fini(pool->desc.ctx, pool->serial_state);

	pthread_cond_destroy(&pool->job_done);
	pthread_cond_destroy(&pool->work_ready);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
	free(pool->ring);
	free(pool);
}

/* Queue job for the workers (a side job on the side queue), or run it
 * now in serial mode. */
static void enqueue(struct sqp_pool *pool, struct sqp_pool_job *job, int side)
{
	struct sqp_pool_job **head = side ? &pool->side_head : &pool->pending_head;
	struct sqp_pool_job **tail = side ? &pool->side_tail : &pool->pending_tail;

	job->next = NULL;
	job->status = 0;
	job->done = 0;
	job->side = side;
	if (pool->desc.workers == 0) {
		job->status = pool->desc.run(pool->desc.ctx, pool->serial_state, job);
		job->done = 1;
		return;
	}
	pthread_mutex_lock(&pool->lock);
	if (*tail == NULL)
		*head = job;
	else
		(*tail)->next = job;
	*tail = job;
	pthread_mutex_unlock(&pool->lock);
	pthread_cond_signal(&pool->work_ready);
}

void sqp_pool_submit(struct sqp_pool *pool, struct sqp_pool_job *job)
{
	job->seq = pool->next_seq++;
	/* Only this thread reads the ring. */
	pool->ring[job->seq % pool->desc.capacity] = job;
	enqueue(pool, job, 0);
}

static struct sqp_pool_job *take_oldest(struct sqp_pool *pool, int block)
{
	struct sqp_pool_job *job;

	if (pool->oldest == pool->next_seq)
		return NULL;

	if (pool->desc.workers != 0) {
		pthread_mutex_lock(&pool->lock);
		job = pool->ring[pool->oldest % pool->desc.capacity];
		while (!job->done && block)
			pthread_cond_wait(&pool->job_done, &pool->lock);
		if (!job->done)
			job = NULL;
		else
			pool->oldest++;
		pthread_mutex_unlock(&pool->lock);
		return job;
	}

	job = pool->ring[pool->oldest % pool->desc.capacity];
	pool->oldest++;
	return job;
}

struct sqp_pool_job *sqp_pool_wait(struct sqp_pool *pool)
{
	return take_oldest(pool, 1);
}

struct sqp_pool_job *sqp_pool_poll(struct sqp_pool *pool)
{
	return take_oldest(pool, 0);
}

void sqp_pool_post(struct sqp_pool *pool, struct sqp_pool_job *job)
{
	pool->side_out++;
	enqueue(pool, job, 1);
	if (pool->desc.workers == 0) {
		job->next = pool->side_done;
		pool->side_done = job;
	}
}

struct sqp_pool_job *sqp_pool_reap(struct sqp_pool *pool, int block)
{
	struct sqp_pool_job *job;

	if (pool->side_out == 0)
		return NULL;
	pthread_mutex_lock(&pool->lock);
	pool->side_waiting = 1;
	while (pool->side_done == NULL && block)
		pthread_cond_wait(&pool->job_done, &pool->lock);
	pool->side_waiting = 0;
	job = pool->side_done;
	if (job != NULL) {
		pool->side_done = job->next;
		pool->side_out--;
	}
	pthread_mutex_unlock(&pool->lock);
	return job;
}

size_t sqp_pool_in_flight(const struct sqp_pool *pool)
{
	return (size_t)(pool->next_seq - pool->oldest);
}

int sqp_pool_full(const struct sqp_pool *pool)
{
	return pool->next_seq - pool->oldest >= pool->desc.capacity;
}

unsigned sqp_pool_workers(const struct sqp_pool *pool)
{
	return pool->desc.workers;
}
