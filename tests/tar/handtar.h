/* SPDX-License-Identifier: MIT */
/*
 * handtar.h - archives for the tar reader's C tests, written by hand:
 * ustar headers, pax records and data into temporary files.
 */
#ifndef SQP_TESTS_HANDTAR_H
#define SQP_TESTS_HANDTAR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 512

static inline void octal(uint8_t *f, size_t len, uint64_t v)
{
	snprintf((char *)f, len, "%0*llo", (int)len - 1, (unsigned long long)v);
}

/* One member: header, then size bytes of `fill` (pax data when given). */
static inline int member(FILE *f, const char *name, char type, uint64_t size,
			 const char *pax, int fill)
{
	uint8_t h[BLOCK] = { 0 }, buf[BLOCK];
	unsigned sum = 0;
	uint64_t left;
	size_t i;

	snprintf((char *)h, 100, "%s", name);
	octal(h + 100, 8, 0644);
	octal(h + 108, 8, 5);
	octal(h + 116, 8, 5);
	octal(h + 124, 12, size);
	octal(h + 136, 12, 1700000000);
	h[156] = (uint8_t)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	if (fwrite(h, BLOCK, 1, f) != 1)
		return -1;
	for (left = size; left > 0; left -= i) {
		i = left < BLOCK ? (size_t)left : BLOCK;
		memset(buf, 0, BLOCK);
		if (pax != NULL)
			memcpy(buf, pax + (size - left), i);
		else
			memset(buf, fill, i);
		if (fwrite(buf, BLOCK, 1, f) != 1)
			return -1;
	}
	return 0;
}

static inline int end_archive(FILE *f)
{
	static const uint8_t zero[2 * BLOCK];

	return fwrite(zero, sizeof(zero), 1, f) == 1 ? 0 : -1;
}

/* A temporary file holding what write() puts there, open for reading
 * at `at` bytes in (the reader counts from where the descriptor stands). */
static inline int archive(const char *dir, const char *tag, long at,
			  int (*write)(FILE *))
{
	char path[4096];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/handtar-%s-XXXXXX", dir, tag);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	f = fdopen(dup(fd), "w");
	if (f == NULL || fseek(f, at, SEEK_SET) != 0 || write(f) != 0 || fclose(f) != 0 ||
	    lseek(fd, at, SEEK_SET) != at) {
		close(fd);
		return -1;
	}
	return fd;
}

#endif
