/* SPDX-License-Identifier: MIT */
/*
 * check.h - the assertion helper of the C unit tests.
 *
 * CHECK() records a failure with its location and keeps going, so one run
 * shows every broken assertion; check_done() prints the totals and gives
 * the exit status automake expects (0 pass, 1 fail).
 */
#ifndef SQP_TESTS_CHECK_H
#define SQP_TESTS_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond, ...) do { \
	if (cond) { \
		check_passed++; \
	} else { \
		check_failed++; \
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

static inline int check_done(void)
{
	printf("%d passed, %d failed, 0 skipped\n", check_passed, check_failed);
	return check_failed == 0 ? 0 : 1;
}

#endif
