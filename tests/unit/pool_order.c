/* SPDX-License-Identifier: MIT */
/*
 * pool_order.c - the pool hands jobs back in submission order even when
 * workers finish them in reverse, respects its capacity, keeps each job's
 * status, and behaves the same in serial mode; sqp_pool_wait_ahead()
 * returns only once the job it names has run. Background jobs come back
 * once each, in any order, outside the capacity and the ordered count,
 * numbered (nth) with the ordered ones; a worker takes an ordered job
 * before a background one queued earlier. With a wake batch, idle
 * workers wait for a batch or for the orchestrator to block.
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "util/pool.h"
#include "check.h"

#define NJOBS 64

struct test_job {
	struct sqp_pool_job base;
	int id;
	int delay_us;
	int result;
};

static void sleep_us(int us)
{
	struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

static int run_job(void *ctx, void *state, struct sqp_pool_job *base)
{
	struct test_job *job = (struct test_job *)base;
	int *wstate = state;

	(void)ctx;
	sleep_us(job->delay_us);
	job->result = job->id * 3;
	(*wstate)++;
	return job->id % 7 == 3 ? -1 : 0;
}

static int worker_init(void *ctx, void **state)
{
	(void)ctx;
	*state = calloc(1, sizeof(int));
	return *state == NULL ? -10 : 0;
}

static void worker_fini(void *ctx, void *state)
{
	int *total = ctx;

	__atomic_add_fetch(total, *(int *)state, __ATOMIC_SEQ_CST);
	free(state);
}

static void run_case(unsigned workers, unsigned capacity)
{
	struct test_job jobs[NJOBS];
	struct sqp_pool_desc desc = {
		.workers = workers, .capacity = capacity, .run = run_job,
		.worker_init = worker_init, .worker_fini = worker_fini,
	};
	struct sqp_pool *pool;
	struct sqp_pool_job *done;
	int total = 0, next_expected = 0, submitted = 0;

	desc.ctx = &total;
	CHECK(sqp_pool_create(&desc, &pool) == 0, "create workers=%u", workers);
	if (pool == NULL)
		return;

	while (submitted < NJOBS || sqp_pool_in_flight(pool) > 0) {
		if (submitted < NJOBS && !sqp_pool_full(pool)) {
			struct test_job *j = &jobs[submitted];

			j->id = submitted;
			/* within each window, later jobs finish first */
			j->delay_us = (int)(capacity - (submitted % capacity)) * 300;
			sqp_pool_submit(pool, &j->base);
			submitted++;
			CHECK(sqp_pool_in_flight(pool) <= capacity, "capacity %u", capacity);
			continue;
		}
		done = sqp_pool_wait(pool);
		CHECK(done != NULL, "wait returned a job");
		if (done == NULL)
			break;
		CHECK(((struct test_job *)done)->id == next_expected,
		      "order: got %d want %d", ((struct test_job *)done)->id, next_expected);
		CHECK(((struct test_job *)done)->result == next_expected * 3, "result");
		CHECK(done->status == (next_expected % 7 == 3 ? -1 : 0), "status kept");
		next_expected++;
	}
	CHECK(next_expected == NJOBS, "all jobs returned (%d)", next_expected);
	CHECK(sqp_pool_wait(pool) == NULL, "empty pool returns NULL");
	sqp_pool_destroy(pool);
	CHECK(total == NJOBS, "every job ran exactly once (%d)", total);
}

/* wait_ahead(n) sleeps until the job n places after the oldest has run
 * (or the newest, when fewer are in the pool), and takes nothing back. */
static void ahead_case(unsigned workers, unsigned capacity, size_t n)
{
	struct test_job jobs[NJOBS];
	struct sqp_pool_desc desc = {
		.workers = workers, .capacity = capacity, .run = run_job,
		.worker_init = worker_init, .worker_fini = worker_fini,
	};
	struct sqp_pool *pool;
	size_t want = n < capacity ? n : capacity - 1;
	int total = 0;

	desc.ctx = &total;
	CHECK(sqp_pool_create(&desc, &pool) == 0, "create workers=%u", workers);
	if (pool == NULL)
		return;
	for (unsigned i = 0; i < capacity; i++) {
		jobs[i] = (struct test_job){ .id = (int)i, .delay_us = 2000,
					     .result = -1 };
		sqp_pool_submit(pool, &jobs[i].base);
	}
	sqp_pool_wait_ahead(pool, n);
	CHECK(jobs[want].result == (int)want * 3, "workers=%u: job %zu has run "
	      "after wait_ahead(%zu)", workers, want, n);
	CHECK(sqp_pool_in_flight(pool) == capacity, "wait_ahead takes nothing back");
	for (unsigned i = 0; i < capacity; i++)
		CHECK(sqp_pool_wait(pool) == &jobs[i].base, "then in order");
	sqp_pool_destroy(pool);
}

/* Ordered jobs 0.. with a background job after every third, taken back
 * as they come. */
static void background_case(unsigned workers, unsigned capacity)
{
	struct test_job jobs[NJOBS], bg[NJOBS];
	struct sqp_pool_desc desc = {
		.workers = workers, .capacity = capacity, .run = run_job,
		.worker_init = worker_init, .worker_fini = worker_fini,
	};
	struct sqp_pool *pool;
	struct sqp_pool_job *done;
	int total = 0, next = 0, submitted = 0, nbg = 0, reaped = 0, seen[NJOBS] = { 0 };
	uint64_t nth = 0;

	desc.ctx = &total;
	CHECK(sqp_pool_create(&desc, &pool) == 0, "create workers=%u", workers);
	if (pool == NULL)
		return;
	CHECK(sqp_pool_reap_background(pool, 1) == NULL, "nothing to reap at first");
	while (submitted < NJOBS || sqp_pool_in_flight(pool) > 0) {
		while ((done = sqp_pool_reap_background(pool, 0)) != NULL) {
			struct test_job *b = (struct test_job *)done;

			seen[b->id]++;
			reaped++;
			CHECK(b->result == b->id * 3 && done->status == (b->id % 7 == 3 ? -1 : 0),
			      "background job %d: result and status kept", b->id);
		}
		if (submitted < NJOBS && !sqp_pool_full(pool)) {
			jobs[submitted] = (struct test_job){ .id = submitted, .delay_us = 200 };
			sqp_pool_submit(pool, &jobs[submitted].base);
			CHECK(jobs[submitted].base.nth == nth++, "ordered job %d numbered", submitted);
			if (submitted++ % 3 == 0) {
				bg[nbg] = (struct test_job){ .id = nbg, .delay_us = 300 };
				sqp_pool_submit_background(pool, &bg[nbg].base);
				CHECK(bg[nbg].base.nth == nth++, "background job %d numbered", nbg);
				nbg++;
			}
			CHECK(sqp_pool_in_flight(pool) <= capacity, "background outside capacity");
			continue;
		}
		done = sqp_pool_wait(pool);
		CHECK(done != NULL && ((struct test_job *)done)->id == next,
		      "ordered jobs in order among background ones (%d)", next);
		next++;
	}
	while ((done = sqp_pool_reap_background(pool, 1)) != NULL) {
		seen[((struct test_job *)done)->id]++;
		reaped++;
	}
	CHECK(reaped == nbg, "workers=%u: every background job back (%d of %d)", workers, reaped, nbg);
	for (int i = 0; i < nbg; i++)
		CHECK(seen[i] == 1, "background job %d back once (%d)", i, seen[i]);
	sqp_pool_destroy(pool);
	CHECK(total == NJOBS + nbg, "every job ran exactly once (%d)", total);
}

static int started;

static int run_noted(void *ctx, void *state, struct sqp_pool_job *base)
{
	struct test_job *job = (struct test_job *)base;

	(void)ctx;
	(void)state;
	job->result = __atomic_add_fetch(&started, 1, __ATOMIC_SEQ_CST);
	sleep_us(job->delay_us);
	return 0;
}

/* One worker busy with a: b (background) then c (ordered) are queued;
 * c runs before b. */
static void priority_case(void)
{
	struct sqp_pool_desc desc = { .workers = 1, .capacity = 4, .run = run_noted };
	struct test_job a = { .delay_us = 20000 }, b = { 0 }, c = { 0 };
	struct sqp_pool *pool;

	CHECK(sqp_pool_create(&desc, &pool) == 0, "create one worker");
	if (pool == NULL)
		return;
	sqp_pool_submit(pool, &a.base);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) == 0)
		sleep_us(100);
	sqp_pool_submit_background(pool, &b.base);
	sqp_pool_submit(pool, &c.base);
	CHECK(sqp_pool_wait(pool) == &a.base && sqp_pool_wait(pool) == &c.base, "ordered back");
	CHECK(sqp_pool_reap_background(pool, 1) == &b.base, "then the background job");
	CHECK(c.result == 2 && b.result == 3, "the ordered job ran first (c %d, b %d)",
	      c.result, b.result);
	sqp_pool_destroy(pool);
}

/* With wake_batch 4, two jobs wait for the orchestrator to block; the
 * fourth pending one wakes the workers without it. */
static void batch_case(void)
{
	struct sqp_pool_desc desc = { .workers = 2, .capacity = 8, .run = run_noted,
				      .wake_batch = 4 };
	struct test_job j[6] = { { .delay_us = 0 } };
	struct sqp_pool *pool;
	int waited = 0;

	__atomic_store_n(&started, 0, __ATOMIC_SEQ_CST);
	CHECK(sqp_pool_create(&desc, &pool) == 0, "create two workers");
	if (pool == NULL)
		return;
	/* A worker not yet asleep takes what is pending without a wake:
	 * let both reach their wait first. */
	sleep_us(50000);
	sqp_pool_submit(pool, &j[0].base);
	sqp_pool_submit(pool, &j[1].base);
	sleep_us(20000);
	CHECK(__atomic_load_n(&started, __ATOMIC_SEQ_CST) == 0,
	      "fewer jobs than the batch are not started by submitting");
	CHECK(sqp_pool_wait(pool) == &j[0].base, "blocking starts them");
	for (int i = 2; i < 6; i++)
		sqp_pool_submit(pool, &j[i].base);
	while (__atomic_load_n(&started, __ATOMIC_SEQ_CST) < 6 && waited++ < 5000)
		sleep_us(1000);
	CHECK(__atomic_load_n(&started, __ATOMIC_SEQ_CST) == 6,
	      "a full batch starts without a wait (%d started)",
	      __atomic_load_n(&started, __ATOMIC_SEQ_CST));
	for (int i = 1; i < 6; i++)
		CHECK(sqp_pool_wait(pool) == &j[i].base, "batched jobs in order");
	sqp_pool_destroy(pool);
}

int main(void)
{
	priority_case();
	batch_case();
	background_case(0, 4);
	background_case(1, 4);
	background_case(2, 8);
	background_case(4, 5);
	ahead_case(0, 8, 3);
	ahead_case(2, 16, 5);
	ahead_case(2, 8, 100);
	run_case(0, 4);
	run_case(1, 4);
	run_case(2, 8);
	run_case(4, 16);
	run_case(8, 5);
	return check_done();
}
