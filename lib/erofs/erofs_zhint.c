/* SPDX-License-Identifier: MIT */
/*
 * erofs_zhint.c - per-file compression settings for EROFS (mkfs.erofs
 * --compress-hints): the hints text read into rules, and the rule a
 * file's path picks.
 *
 * Why: an image's files need not all take one codec and one pcluster
 * size; Android builds keep executables in lz4 (fast to page in) and
 * the rest in lzma, and a file read whole (a firmware blob) gains from
 * larger pclusters. Each line is "PCLUSTER [INDEX] REGEX", as erofs-utils
 * 1.9 reads them (the index, when given, before the pattern); the first
 * rule that matches wins. Unlike mkfs.erofs, which skips a line with a
 * size that is not a multiple of the block size (with a warning) and
 * reads a non-numeric index as 0, every bad line is refused by number:
 * a rule silently ignored would give an image other than the one asked.
 * The invariant: e->sel is the settings of the file being added (the
 * defaults between files and for the packed inode).
 */
#include "config.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "sqpack/error.h"
#include "write/writer_impl.h"

struct erofs_hint {
	regex_t re;
	uint32_t pcluster;      /* 0: stored as it is */
	unsigned zc;            /* the codec's index */
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* A decimal number of at most 9 digits in [s, end), else -1. */
static long number(const char *s, const char *end)
{
	long v = 0;

	if (s == end || end - s > 9)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

/* One line (len bytes at s, no newline) into h; 0, or a message into
 * why (the line is then refused). */
static int parse_line(const struct erofs_wstate *e, const char *s, size_t len,
		      struct erofs_hint *h, char *why, size_t why_size)
{
	const char *end = s + len, *t, *pat;
	char *re;
	long size, zc = 0;
	int ret;

	for (t = s; t < end && !is_blank(*t); t++)
		;
	size = number(s, t);
	if (size < 0 || size % e->bs != 0 || size > EROFS_Z_PCLUSTER_MAX) {
		snprintf(why, why_size, "pcluster size '%.*s' is not a multiple of "
			 "%u (the block size) up to 1048576", (int)(t - s), s, e->bs);
		return -1;
	}
	for (pat = t; pat < end && is_blank(*pat); pat++)
		;
	for (t = pat; t < end && !is_blank(*t); t++)
		;
	/* Two words and more: the second is the codec's index. */
	if (t < end) {
		zc = number(pat, t);
		if (zc < 0 || (unsigned long)zc >= e->ncodec) {
			snprintf(why, why_size, "codec index '%.*s' is not %s", (int)(t - pat),
				 pat, e->ncodec > 1 ? "0 or 1" : "0 (one codec given)");
			return -1;
		}
		for (pat = t; pat < end && is_blank(*pat); pat++)
			;
	}
	while (end > pat && is_blank(end[-1]))
		end--;
	if (pat == end) {
		snprintf(why, why_size, "%s", "no pattern");
		return -1;
	}
	if ((re = strndup(pat, (size_t)(end - pat))) == NULL) {
		snprintf(why, why_size, "%s", "out of memory");
		return -1;
	}
	ret = regcomp(&h->re, re, REG_EXTENDED | REG_NOSUB);
	if (ret != 0) {
		int n = snprintf(why, why_size, "bad regular expression '%s': ", re);

		/* A pattern longer than why leaves no room for the reason:
		 * the message stays cut where snprintf cut it. */
		if (n >= 0 && (size_t)n < why_size)
			regerror(ret, &h->re, why + n, why_size - (size_t)n);
		regfree(&h->re);
	}
	free(re);
	h->pcluster = (uint32_t)size;
	h->zc = (unsigned)zc;
	return ret != 0 ? -1 : 0;
}

/* A bad line's message, with the file's name when the caller gave it:
 * the tools put the image's name in front of the writer's messages, and
 * the line is the hints file's, not the image's. */
static int bad_line(struct sqp_writer *w, unsigned line, const char *why)
{
	const char *name = w->desc.erofs_hints_name;

	if (name != NULL)
		return writer_fail(w, SQP_ERR_ARG, "EROFS: compress hints file '%s' line "
				   "%u: %s", name, line, why);
	return writer_fail(w, SQP_ERR_ARG, "EROFS: compress hints line %u: %s", line, why);
}

int erofs_hints_load(struct sqp_writer *w, const char *text)
{
	struct erofs_wstate *e = erofs_of(w);
	const char *s = text, *nl;
	char why[320];
	unsigned line = 0;
	size_t len, cap = 0;

	while (*s != '\0') {
		struct erofs_hint *h;
		size_t lead = 0;

		nl = strchr(s, '\n');
		len = nl != NULL ? (size_t)(nl - s) : strlen(s);
		line++;
		/* Blanks before the size, as strtok skips them; a line of
		 * blanks is an empty one. */
		while (lead < len && is_blank(s[lead]))
			lead++;
		if (lead < len && s[0] != '#') {
			if (e->nhints == cap) {
				cap = cap ? 2 * cap : 8;
				if ((h = realloc(e->hints, cap * sizeof(*h))) == NULL)
					return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
				e->hints = h;
			}
			if (parse_line(e, s + lead, len - lead, &e->hints[e->nhints], why,
				       sizeof(why)) != 0)
				return bad_line(w, line, why);
			if (e->hints[e->nhints].pcluster > e->pcluster)
				e->pcluster = e->hints[e->nhints].pcluster;
			e->nhints++;
		}
		s += nl != NULL ? len + 1 : len;
	}
	return 0;
}

void erofs_hints_pick(struct erofs_wstate *e, const char *path)
{
	size_t i;

	e->sel.zc = 0;
	e->sel.cap = e->pcl_def;
	for (i = 0; path != NULL && i < e->nhints; i++) {
		if (regexec(&e->hints[i].re, path, 0, NULL, 0) == 0) {
			e->sel.zc = e->hints[i].zc;
			/* A pcluster of one block is BS, as the default's 0. */
			e->sel.cap = e->hints[i].pcluster;
			return;
		}
	}
}

void erofs_hints_cleanup(struct erofs_wstate *e)
{
	size_t i;

	for (i = 0; i < e->nhints; i++)
		regfree(&e->hints[i].re);
	free(e->hints);
	e->hints = NULL;
	e->nhints = 0;
}
