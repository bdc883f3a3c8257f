/* SPDX-License-Identifier: MIT */
/*
 * treecmp_text.c - treecmp's text: allocation that exits 2 on failure, a
 * growing string, and Python's repr() of names and bytes values (the
 * suite's scripts print and match these as its Python version did).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "treecmp.h"

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("treecmp");
		exit(2);
	}
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		perror("treecmp");
		exit(2);
	}
	va_end(ap);
	return s;
}

void put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

/* Length of a valid UTF-8 sequence at s (code point in *cp), 0 if not. */
static size_t utf8(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len, i;
	unsigned c = s[0];

	if (c < 0xc2 || c > 0xf4)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	c &= 0x3f >> (len - 1);
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c < 0xe000))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	*cp = c;
	return len;
}

/* Python's repr() of a str (names decoded with surrogateescape) or, with
 * bytes set, of a bytes object: tests see these in the xattrs and
 * hardlinks values, so the text follows Python's where it matters. */
void repr(struct buf *b, const char *s, size_t n, int bytes)
{
	const unsigned char *u = (const unsigned char *)s;
	char q = memchr(s, '\'', n) && !memchr(s, '"', n) ? '"' : '\'';
	char esc[16];
	size_t i, len;
	unsigned cp;

	if (bytes)
		put(b, "b", 1);
	put(b, &q, 1);
	for (i = 0; i < n; i++) {
		unsigned c = u[i];

		if (c == '\\' || c == (unsigned char)q) {
			put(b, "\\", 1);
			put(b, s + i, 1);
		} else if (c == '\t') {
			puts_(b, "\\t");
		} else if (c == '\n') {
			puts_(b, "\\n");
		} else if (c == '\r') {
			puts_(b, "\\r");
		} else if (c >= 0x20 && c < 0x7f) {
			put(b, s + i, 1);
		} else if (bytes || c < 0x80) {
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			puts_(b, esc);
		} else if ((len = utf8(u + i, n - i, &cp)) == 0) {
			snprintf(esc, sizeof(esc), "\\udc%02x", c);
			puts_(b, esc);
		} else if (cp < 0xa0) {
			snprintf(esc, sizeof(esc), "\\x%02x", cp);
			puts_(b, esc);
			i += len - 1;
		} else {
			put(b, s + i, len);
			i += len - 1;
		}
	}
	put(b, &q, 1);
}

