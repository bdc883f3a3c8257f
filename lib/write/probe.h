/* SPDX-License-Identifier: MIT */
/*
 * probe.h - a cheap test for blocks that will not shrink (see probe.c).
 */
#ifndef SQP_WRITE_PROBE_H
#define SQP_WRITE_PROBE_H

#include <stddef.h>
#include <stdint.h>

#define PROBE_HASH_BITS 14

/* Per-thread scratch space (about 68 KiB; keep it off the stack). */
struct probe_scratch {
	uint32_t hist[4][256];
	uint32_t last[1u << PROBE_HASH_BITS];
};

/* 1 if no codec will make buf smaller, 0 if it should be tried. */
int probe_incompressible(const uint8_t *buf, size_t len, struct probe_scratch *s);

#endif
