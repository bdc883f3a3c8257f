/* SPDX-License-Identifier: MIT */
/*
 * endian.h - little-endian loads and stores on unaligned byte buffers.
 *
 * SquashFS is little-endian and byte-packed; going through these helpers
 * keeps every on-disk access alignment-safe and endian-correct on any host,
 * and compiles to plain moves on x86.
 */
#ifndef SQP_UTIL_ENDIAN_H
#define SQP_UTIL_ENDIAN_H

#include <stdint.h>

static inline uint16_t sqp_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t sqp_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
	       ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t sqp_get64(const uint8_t *p)
{
	return (uint64_t)sqp_get32(p) | ((uint64_t)sqp_get32(p + 4) << 32);
}

static inline void sqp_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void sqp_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline void sqp_put64(uint8_t *p, uint64_t v)
{
	sqp_put32(p, (uint32_t)v);
	sqp_put32(p + 4, (uint32_t)(v >> 32));
}

#endif
