/* SPDX-License-Identifier: MIT */
/*
 * probe.h - a cheap test for blocks that will not shrink (see probe.c).
 */
#ifndef SQP_WRITE_PROBE_H
#define SQP_WRITE_PROBE_H

#include <stddef.h>
#include <stdint.h>

/* Near table: the last position of each hash, every position inserted. */
#define PROBE_NEAR_BITS 14
/* Far table: sampled positions only, at most 2^PROBE_FAR_SAMPLES_LOG per
 * block, in twice as many slots plus a spare one. */
#define PROBE_FAR_SAMPLES_LOG 14
#define PROBE_FAR_BITS (PROBE_FAR_SAMPLES_LOG + 1)

/* Per-thread scratch space (about 196 KiB; keep it off the stack). */
struct probe_scratch {
	uint32_t hist[4][256];
	uint32_t near[1u << PROBE_NEAR_BITS];
	uint32_t far[(1u << PROBE_FAR_BITS) + 1];
};

/* 1 if no codec will make buf smaller, 0 if it should be tried. */
int probe_incompressible(const uint8_t *buf, size_t len, struct probe_scratch *s);

#endif
