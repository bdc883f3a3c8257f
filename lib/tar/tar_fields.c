/* SPDX-License-Identifier: MIT */
/*
 * tar_fields.c - the small parsers of the tar reader: header numbers
 * (octal, GNU base-256, or led by NULs), the header checksum, strict pax
 * decimals, and the path rules every entry name and hard-link target goes
 * through.
 * Everything here is bounded by the field it reads; a malformed field is
 * reported, never guessed at.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "tar/tar_impl.h"
#include "util/array.h"

int tbuf_reserve(struct tbuf *b, size_t n)
{
	char *p = sqp_array_grow(b->data, &b->cap, n, 1, 256);

	if (p == NULL)
		return SQP_ERR_NOMEM;
	b->data = p;
	return 0;
}

void tbuf_free(struct tbuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* Base-256: byte 0 is 0x80 (positive) or 0xff (negative), the rest is a
 * big-endian two's complement number. */
static int base256(const uint8_t *f, size_t len, int64_t *out)
{
	int negative = f[0] == 0xff;
	uint64_t v = negative ? ~(uint64_t)0 : 0;

	if (f[0] != 0x80 && f[0] != 0xff)
		return -1;
	for (size_t i = 1; i < len; i++) {
		if ((v >> 56) != (negative ? 0xffu : 0u))
			return -1;
		v = v << 8 | f[i];
	}
	if (negative != ((v >> 63) != 0))
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* Octal digits, optionally led by spaces and ended by a space or NUL;
 * nothing but spaces and NULs may follow. An empty field is 0. */
static int octal(const uint8_t *f, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i = 0;

	while (i < len && f[i] == ' ')
		i++;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v >> 61)
			return -1;
		v = v << 3 | (uint64_t)(f[i] - '0');
	}
	for (; i < len; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	*out = v;
	return 0;
}

/*
 * A field that begins with NUL: some old writers let the previous field's
 * terminator run into it. GNU tar and bsdtar both read such a field as 0
 * (bsdtar stops at the first NUL; GNU tar skips one NUL and then reads
 * digits, so past two NULs it finds none). What follows the NULs must
 * still look like an octal field. One NUL before a non-zero number is
 * refused: GNU tar reads the number, bsdtar 0, so the two disagree on the
 * entry (for the size field, on where the next header is).
 */
static int nul_led(const uint8_t *f, size_t len, uint64_t *out)
{
	size_t i = 0;
	uint64_t v;

	while (i < len && f[i] == '\0')
		i++;
	if (octal(f + i, len - i, &v) != 0 || (i == 1 && v != 0))
		return -1;
	*out = 0;
	return 0;
}

int tar_field_u64(const uint8_t *f, size_t len, uint64_t *out)
{
	int64_t v;

	if (f[0] == '\0')
		return nul_led(f, len, out);
	if (f[0] & 0x80) {
		if (base256(f, len, &v) != 0 || v < 0)
			return -1;
		*out = (uint64_t)v;
		return 0;
	}
	return octal(f, len, out);
}

int tar_field_i64(const uint8_t *f, size_t len, int64_t *out)
{
	uint64_t v;

	if (f[0] & 0x80)
		return base256(f, len, out);
	if (f[0] == '\0') {
		if (nul_led(f, len, &v) != 0)
			return -1;
		*out = 0;
		return 0;
	}
	if (octal(f, len, &v) != 0 || v > INT64_MAX)
		return -1;
	*out = (int64_t)v;
	return 0;
}

/* The checksum is the sum of the header bytes with the checksum field
 * read as spaces; some old writers summed signed chars, accepted too.
 * Every header of an archive of many small files passes through here, so
 * the loops are plain sums the compiler turns into vector code: the
 * signed sum is the unsigned one less 256 for each byte >= 0x80. */
int tar_checksum_ok(const uint8_t *h)
{
	uint64_t want;
	uint32_t sum = 8 * ' ', high = 0;

	if (octal(h + TH_CHKSUM, 8, &want) != 0)
		return 0;
	for (int i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	for (int i = TH_CHKSUM; i < TH_CHKSUM + 8; i++)
		sum -= h[i];
	if (want == sum)
		return 1;
	for (int i = 0; i < TAR_BLOCK; i++)
		high += h[i] >> 7;
	for (int i = TH_CHKSUM; i < TH_CHKSUM + 8; i++)
		high -= h[i] >> 7;
	return (int64_t)want == (int64_t)sum - 256 * (int64_t)high;
}

int tar_block_is_zero(const uint8_t *h)
{
	for (int i = 0; i < TAR_BLOCK; i++)
		if (h[i] != 0)
			return 0;
	return 1;
}

int tar_normalize_path(char *p)
{
	char *src = p, *dst = p;

	/* Refuse first, so a refused path is left intact for the message. */
	for (const char *c = p; (c = strstr(c, "..")) != NULL; c += 2)
		if ((c == p || c[-1] == '/') && (c[2] == '/' || c[2] == '\0'))
			return -1;

	while (*src != '\0') {
		char *end = strchr(src, '/');
		size_t n = end != NULL ? (size_t)(end - src) : strlen(src);

		if (n > 0 && !(n == 1 && src[0] == '.')) {
			if (dst != p)
				*dst++ = '/';
			memmove(dst, src, n);
			dst += n;
		}
		src += n;
		while (*src == '/')
			src++;
	}
	*dst = '\0';
	return 0;
}

int tar_decimal_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len == 0)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int tar_err(struct sqp_tar_reader *r, int code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sqp_verr(&r->err, code, fmt, ap);
	va_end(ap);
	return ret;
}

void tar_warn(struct sqp_tar_reader *r, const char *fmt, ...)
{
	char msg[SQP_ERRMSG_MAX];
	va_list ap;

	if (r->warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	r->warn(r->warn_user, msg);
}
