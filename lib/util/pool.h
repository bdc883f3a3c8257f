/* SPDX-License-Identifier: MIT */
/*
 * pool.h - a bounded pool of worker threads that hands results back in
 * submission order.
 *
 * One thread (the orchestrator) submits jobs and takes them back with
 * sqp_pool_wait(), which always returns the oldest job still in the pool,
 * once it is done, whatever order the workers finished in. The number of
 * jobs in the pool is bounded by the capacity: the orchestrator must take a
 * job back before submitting past it, so memory never grows with the input.
 *
 * Jobs are intrusive: the caller embeds struct sqp_pool_job in its own job
 * struct and owns its memory throughout. A job's run function returns 0 or
 * a negative error; the error is stored in the job for the orchestrator to
 * see when it takes the job back. The pool itself never stops on a job
 * error; the orchestrator decides (usually: stop submitting, drain, fail).
 *
 * Background jobs (sqp_pool_submit_background) are outside that order and
 * outside the capacity: a worker takes one only when no ordered job is
 * pending, so they fill the gaps the ordered work leaves without delaying
 * it, and the orchestrator takes them back as they finish, in any order
 * (sqp_pool_reap_background). The caller bounds how many it submits.
 *
 * With workers == 0 the pool is serial: submit runs the job at once in the
 * caller's thread. Same API, same results, handy for -j 1 and debugging.
 *
 * Thread contract: submit, wait, wait_ahead, in_flight, the background
 * calls and destroy are called from the orchestrator thread only. run,
 * worker_init and worker_fini run on worker threads (or on the
 * orchestrator, in serial mode).
 */
#ifndef SQP_UTIL_POOL_H
#define SQP_UTIL_POOL_H

#include <stddef.h>
#include <stdint.h>

struct sqp_pool;

struct sqp_pool_job {
	struct sqp_pool_job *next;  /* pool-private: pending queue link */
	uint64_t seq;               /* set by submit: 0, 1, 2, ... */
	uint64_t nth;               /* submissions before it, background
	                             * ones included (test hooks count it) */
	int status;                 /* set after run: its return value */
	int done;                   /* pool-private */
	int background;             /* pool-private */
};

struct sqp_pool_desc {
	unsigned workers;           /* threads; 0 = serial */
	unsigned capacity;          /* jobs in the pool at most (>= 1) */

	/* Run one job with this worker's state. */
	int (*run)(void *ctx, void *worker_state, struct sqp_pool_job *job);

	/* Optional: make and free one worker's private state (a codec
	 * context, scratch buffers). A failing init fails pool creation. */
	int (*worker_init)(void *ctx, void **worker_state);
	void (*worker_fini)(void *ctx, void *worker_state);

	void *ctx;                  /* passed to all three */

	/* Optional: wake an idle worker only once this many ordered jobs
	 * are pending (0 or 1: at every submit), or when the orchestrator
	 * is about to block on the pool. For an orchestrator that is the
	 * slower side (a reader writing out blocks a fast codec decoded),
	 * whose workers sleep between its submits: a worker then wakes for
	 * a batch, not a thread switch per job. Never for one that needs a
	 * job started at once while it does other work. */
	unsigned wake_batch;
};

/* Start the workers. Returns 0 or a negative sqp_error. */
int sqp_pool_create(const struct sqp_pool_desc *desc, struct sqp_pool **out);

/*
 * Stop the workers and free the pool. Jobs still queued are not run, jobs
 * being run are finished first. The caller frees its jobs afterwards.
 * NULL is fine.
 */
void sqp_pool_destroy(struct sqp_pool *pool);

/* Queue a job. The pool must not be full (see sqp_pool_full). */
void sqp_pool_submit(struct sqp_pool *pool, struct sqp_pool_job *job);

/* Queue a background job (see above); it does not count in_flight. */
void sqp_pool_submit_background(struct sqp_pool *pool, struct sqp_pool_job *job);

/* A finished background job, any one; NULL when none is (with block: when
 * none is left in the pool). */
struct sqp_pool_job *sqp_pool_reap_background(struct sqp_pool *pool, int block);

/* Block until the oldest job in the pool is done and return it; NULL when
 * the pool is empty. */
struct sqp_pool_job *sqp_pool_wait(struct sqp_pool *pool);

/* The oldest job if it is already done, NULL otherwise (never blocks). */
struct sqp_pool_job *sqp_pool_poll(struct sqp_pool *pool);

/* Block until the job n places after the oldest (the newest, when the
 * pool holds fewer) is done; takes nothing back. Workers start jobs in
 * order, so the older ones are done too, but for those still running:
 * the orchestrator then takes back a run of jobs with sqp_pool_wait()
 * having slept once, where waiting for each would wake it per job. */
void sqp_pool_wait_ahead(struct sqp_pool *pool, size_t n);

size_t sqp_pool_in_flight(const struct sqp_pool *pool);
int sqp_pool_full(const struct sqp_pool *pool);
unsigned sqp_pool_workers(const struct sqp_pool *pool);

/* The number of online CPUs (at least 1). */
unsigned sqp_cpu_count(void);

#endif
