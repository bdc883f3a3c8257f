/* SPDX-License-Identifier: MIT */
/*
 * many-tar.c - write a ustar stream of N small files to stdout: the input
 * of the huge-tree benchmarks (tar2img --mem).
 *
 * Files come 1000 to a directory (d000000/f0000.txt, ...), each directory
 * entry before its files, as tar would list a tree. Every file holds a
 * distinct 20-300 byte text ("file I of N" repeated 1-20 times), so no
 * tail can be shared and every entry costs the packer its full per-entry
 * price. The stream is the same on every run: the repeat counts come from
 * a fixed linear congruential sequence, not from the C library's rand().
 *
 * Written in C because a script needs minutes for 20,000,000 entries;
 * this writes them faster than tar2img can read them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PER_DIR 1000
#define MTIME 1700000000

static unsigned char out_buf[1 << 20];
static size_t out_len;

static int flush_out(void)
{
	if (out_len > 0 && fwrite(out_buf, 1, out_len, stdout) != out_len)
		return -1;
	out_len = 0;
	return 0;
}

/* Room for n more bytes in the output buffer (n <= its size). */
static unsigned char *out_room(size_t n)
{
	if (out_len + n > sizeof(out_buf) && flush_out() != 0)
		return NULL;
	out_len += n;
	return out_buf + out_len - n;
}

/* VALUE as width - 1 octal digits and a NUL; -1 when it needs more
 * digits (written by hand: snprintf would cut it short silently). */
static int octal(unsigned char *field, size_t width, uint64_t value)
{
	size_t i = width - 1;

	field[i] = '\0';
	while (i-- > 0) {
		field[i] = (unsigned char)('0' + (value & 7));
		value >>= 3;
	}
	return value == 0 ? 0 : -1;
}

static int header(const char *name, uint64_t size, char type, unsigned mode)
{
	unsigned char *h = out_room(512);
	unsigned sum = 0;
	int i;

	if (h == NULL)
		return -1;
	memset(h, 0, 512);
	memcpy(h, name, strlen(name));
	if (octal(h + 100, 8, mode) != 0 || octal(h + 108, 8, 0) != 0 ||
	    octal(h + 116, 8, 0) != 0 || octal(h + 124, 12, size) != 0 ||
	    octal(h + 136, 12, MTIME) != 0)
		return -1;
	h[156] = (unsigned char)type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; ++i)
		sum += h[i];
	return octal(h + 148, 7, sum); /* six digits, NUL, the space left */
}

static int file_entry(uint64_t dir, unsigned f, uint64_t index, uint64_t total,
		      uint32_t *lcg)
{
	char name[64], line[64];
	unsigned char *body;
	size_t line_len, size, padded;
	unsigned reps, r;

	*lcg = *lcg * 1664525u + 1013904223u;
	reps = 1 + (*lcg >> 16) % 20;
	line_len = (size_t)snprintf(line, sizeof(line), "file %llu of %llu\n",
				    (unsigned long long)index, (unsigned long long)total);
	size = line_len * reps;
	padded = (size + 511) & ~(size_t)511;
	snprintf(name, sizeof(name), "d%06llu/f%04u.txt", (unsigned long long)dir, f);
	if (header(name, size, '0', 0644) != 0 || (body = out_room(padded)) == NULL)
		return -1;
	memset(body, 0, padded);
	for (r = 0; r < reps; ++r)
		memcpy(body + r * line_len, line, line_len);
	return 0;
}

int main(int argc, char **argv)
{
	uint64_t total, dir, done = 0;
	uint32_t lcg = 42;
	char *end, name[32];

	if (argc != 2 || (errno = 0, total = strtoull(argv[1], &end, 10), errno != 0) ||
	    *end != '\0' || end == argv[1]) {
		fprintf(stderr, "usage: many-tar N > out.tar (N files, %d per directory)\n",
			PER_DIR);
		return 2;
	}
	for (dir = 0; done < total; ++dir) {
		unsigned f;

		snprintf(name, sizeof(name), "d%06llu/", (unsigned long long)dir);
		if (header(name, 0, '5', 0755) != 0)
			goto fail;
		for (f = 0; f < PER_DIR && done < total; ++f, ++done) {
			if (file_entry(dir, f, done, total, &lcg) != 0)
				goto fail;
		}
	}
	if (out_room(1024) == NULL)
		goto fail;
	memset(out_buf + out_len - 1024, 0, 1024);
	if (flush_out() != 0 || fflush(stdout) != 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "many-tar: writing the stream: %s\n", strerror(errno));
	return 1;
}
