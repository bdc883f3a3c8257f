/* SPDX-License-Identifier: MIT */
/*
 * bench_common.c - the clock, threads and command line of the codec
 * baselines (bench_common.h).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_common.h"

double bench_now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

unsigned bench_run_threads(void *(*fn)(void *), void *base, size_t stride, unsigned n)
{
	pthread_t *t = calloc(n, sizeof(*t));
	unsigned k, started = 0;

	if (t == NULL)
		return 0;
	for (k = 0; k < n; k++) {
		if (pthread_create(&t[k], NULL, fn, (char *)base + k * stride) != 0)
			break;
		started++;
	}
	for (k = 0; k < started; k++)
		pthread_join(t[k], NULL);
	free(t);
	return started;
}

int bench_parse_args(int argc, char **argv, char size_opt, struct bench_args *a,
		     int (*usage)(const char *why))
{
	char opts[] = "c:X:j:?:", *end;
	unsigned long j;
	int opt;

	opts[6] = size_opt;
	a->jobs = 1;
	while ((opt = getopt(argc, argv, opts)) != -1) {
		if (opt == 'c') {
			a->codec = optarg;
		} else if (opt == 'X') {
			a->xopts = optarg;
		} else if (opt == 'j') {
			j = strtoul(optarg, &end, 10);
			if (*end != '\0' || j < 1 || j > 1024)
				return usage("jobs must be 1..1024");
			a->jobs = (unsigned)j;
		} else if (opt == size_opt) {
			a->size = optarg;
		} else {
			return usage("unknown option");
		}
	}
	if (argc - optind > 1)
		return usage("too many arguments");
	a->input = optind < argc ? argv[optind] : "-";
	return 0;
}

int bench_codec_config(const struct bench_args *a, const char *codec, uint32_t block_size,
		       struct sqp_codec_config *cfg, int (*usage)(const char *why))
{
	char msg[256];
	int id = sqp_codec_by_name(codec);

	if (id < 0)
		return usage("unknown codec");
	if (sqp_codec_config_init(cfg, id, block_size) != 0)
		return usage("codec not built, or not at this block size");
	if (a->xopts != NULL && sqp_codec_config_parse(cfg, a->xopts, msg, sizeof(msg)) != 0)
		return usage(msg);
	return 0;
}
