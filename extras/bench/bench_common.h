/* SPDX-License-Identifier: MIT */
/*
 * bench_common.h - what the two codec baselines (codec-baseline.c for
 * SquashFS blocks, erofs-baseline.c for EROFS clusters) share: a clock,
 * a pass of worker threads, and the command line -c CODEC -X OPTS
 * -j N [TAR] beside each one's own size option.
 */
#ifndef SQP_BENCH_COMMON_H
#define SQP_BENCH_COMMON_H

#include <stddef.h>
#include <time.h>

#include "sqpack/sqpack.h"

struct bench_args {
	const char *codec;      /* -c, the caller's default until given */
	const char *xopts;      /* -X, or NULL */
	const char *size;       /* the caller's size option, or NULL */
	const char *input;      /* TAR, "-" for stdin */
	unsigned jobs;          /* -j, 1 to 1024 */
};

double bench_now(clockid_t clk);

/* fn(base + k * stride) for k < n, each on a thread of its own, all
 * joined before it returns: the number of threads that started (0 when
 * none could). */
unsigned bench_run_threads(void *(*fn)(void *), void *base, size_t stride, unsigned n);

/* The command line: -c, -X, -j and -SIZE_OPT (its text left in
 * a->size), then at most one TAR. 0, or usage(why)'s value. */
int bench_parse_args(int argc, char **argv, char size_opt, struct bench_args *a,
		     int (*usage)(const char *why));

/* cfg for a's codec (named by sqp_codec_by_name) at block_size, with
 * a's -X applied: 0, or usage(why)'s value. */
int bench_codec_config(const struct bench_args *a, const char *codec, uint32_t block_size,
		       struct sqp_codec_config *cfg, int (*usage)(const char *why));

#endif
