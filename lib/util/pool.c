/* SPDX-License-Identifier: MIT */
/*
 * pool.c - ordered, bounded worker pool (see pool.h for the contract).
 *
 * Jobs in the pool live in a ring indexed by sequence number; pending jobs
 * (submitted, not yet started) additionally sit on a FIFO that workers
 * take from. The orchestrator only ever takes ring[oldest], so results come
 * back in submission order no matter which worker finishes first.
 * Background jobs are not in the ring: a FIFO of their own that workers
 * take from when the ordered one is empty, and a list of the finished
 * ones for the orchestrator.
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
	uint64_t wake_seq;          /* the job whose end wakes the orchestrator */

	struct sqp_pool_job *pending_head;
	struct sqp_pool_job *pending_tail;
	size_t pending;             /* ordered jobs on that FIFO */
	unsigned idle;              /* workers waiting for work_ready */
	struct sqp_pool_job *bg_head, *bg_tail; /* background, pending */
	struct sqp_pool_job *bg_done;           /* background, finished */
	uint64_t submitted;         /* every job, for sqp_pool_job.nth */
	size_t bg_out;              /* background jobs not yet reaped */
	int bg_waiting;             /* the orchestrator waits for one */
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

/* With the lock held: the first job of a FIFO (head, tail), taken off. */
static struct sqp_pool_job *fifo_pop(struct sqp_pool_job **head, struct sqp_pool_job **tail)
{
	struct sqp_pool_job *job = *head;

	*head = job->next;
	if (*head == NULL)
		*tail = NULL;
	return job;
}

/* With the lock held: the next job for a worker, ordered ones first. */
static struct sqp_pool_job *take_pending(struct sqp_pool *pool)
{
	if (pool->pending_head == NULL)
		return fifo_pop(&pool->bg_head, &pool->bg_tail);
	pool->pending--;
	return fifo_pop(&pool->pending_head, &pool->pending_tail);
}

/* With the lock held, before the orchestrator blocks: every idle worker
 * up while ordered jobs a batched submit did not wake one for wait. */
static void wake_pending(struct sqp_pool *pool)
{
	if (pool->pending > 0 && pool->idle > 0)
		pthread_cond_broadcast(&pool->work_ready);
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
		while (pool->pending_head == NULL && pool->bg_head == NULL && !pool->stopping) {
			pool->idle++;
			pthread_cond_wait(&pool->work_ready, &pool->lock);
			pool->idle--;
		}
		if (pool->stopping)
			break;
		job = take_pending(pool);
		pthread_mutex_unlock(&pool->lock);

		ret = pool->desc.run(pool->desc.ctx, state, job);

		pthread_mutex_lock(&pool->lock);
		job->status = ret;
		job->done = 1;
		/* Only the orchestrator waits on job_done, and only for the
		 * one job it named (or any background one, when it said so);
		 * waking it for any other would be wasted. */
		if (job->background) {
			job->next = pool->bg_done;
			pool->bg_done = job;
			wake = pool->bg_waiting;
		} else {
			wake = job->seq == pool->wake_seq;
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

/* A job submitted: numbered, and run at once in serial mode (1), else
 * appended to the FIFO (head, tail) for a worker (0). */
static int enqueue(struct sqp_pool *pool, struct sqp_pool_job *job, int background,
		   struct sqp_pool_job **head, struct sqp_pool_job **tail)
{
	int wake;

	job->nth = pool->submitted++;
	job->next = NULL;
	job->status = 0;
	job->done = 0;
	job->background = background;
	if (pool->desc.workers == 0) {
		job->status = pool->desc.run(pool->desc.ctx, pool->serial_state, job);
		job->done = 1;
		return 1;
	}
	pthread_mutex_lock(&pool->lock);
	if (*tail == NULL)
		*head = job;
	else
		(*tail)->next = job;
	*tail = job;
	if (!background)
		pool->pending++;
	/* A batch is for every idle worker; a single job for one. */
	wake = background || pool->desc.wake_batch <= 1 ? 1 :
	       pool->pending >= pool->desc.wake_batch ? 2 : 0;
	pthread_mutex_unlock(&pool->lock);
	if (wake == 1)
		pthread_cond_signal(&pool->work_ready);
	else if (wake == 2)
		pthread_cond_broadcast(&pool->work_ready);
	return 0;
}

void sqp_pool_submit(struct sqp_pool *pool, struct sqp_pool_job *job)
{
	job->seq = pool->next_seq++;
	/* In the ring before a worker can finish it (the orchestrator
	 * alone reads the ring outside the lock). */
	pool->ring[job->seq % pool->desc.capacity] = job;
	enqueue(pool, job, 0, &pool->pending_head, &pool->pending_tail);
}

void sqp_pool_submit_background(struct sqp_pool *pool, struct sqp_pool_job *job)
{
	pool->bg_out++;
	if (enqueue(pool, job, 1, &pool->bg_head, &pool->bg_tail)) {
		job->next = pool->bg_done;
		pool->bg_done = job;
	}
}

struct sqp_pool_job *sqp_pool_reap_background(struct sqp_pool *pool, int block)
{
	struct sqp_pool_job *job;

	if (pool->bg_out == 0)
		return NULL;
	if (pool->desc.workers != 0)
		pthread_mutex_lock(&pool->lock);
	pool->bg_waiting = block;
	if (block && pool->bg_done == NULL)
		wake_pending(pool);
	while (block && pool->bg_done == NULL)
		pthread_cond_wait(&pool->job_done, &pool->lock);
	pool->bg_waiting = 0;
	job = pool->bg_done;
	if (job != NULL) {
		pool->bg_done = job->next;
		pool->bg_out--;
	}
	if (pool->desc.workers != 0)
		pthread_mutex_unlock(&pool->lock);
	return job;
}

static struct sqp_pool_job *take_oldest(struct sqp_pool *pool, int block)
{
	struct sqp_pool_job *job;

	if (pool->oldest == pool->next_seq)
		return NULL;

	if (pool->desc.workers != 0) {
		pthread_mutex_lock(&pool->lock);
		job = pool->ring[pool->oldest % pool->desc.capacity];
		pool->wake_seq = pool->oldest;
		if (!job->done && block)
			wake_pending(pool);
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

void sqp_pool_wait_ahead(struct sqp_pool *pool, size_t n)
{
	uint64_t in = pool->next_seq - pool->oldest;
	struct sqp_pool_job *job;

	if (pool->desc.workers == 0 || in == 0)
		return;
	pthread_mutex_lock(&pool->lock);
	pool->wake_seq = pool->oldest + (in > n ? n : in - 1);
	job = pool->ring[pool->wake_seq % pool->desc.capacity];
	if (!job->done)
		wake_pending(pool);
	while (!job->done)
		pthread_cond_wait(&pool->job_done, &pool->lock);
	pthread_mutex_unlock(&pool->lock);
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
