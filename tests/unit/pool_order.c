/* SPDX-License-Identifier: MIT */
/*
 * pool_order.c - the pool hands jobs back in submission order even when
 * workers finish them in reverse, respects its capacity, keeps each job's
 * status, and behaves the same in serial mode; sqp_pool_wait_ahead()
 * returns only once the job it names has run.
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

int main(void)
{
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
