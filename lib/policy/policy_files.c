/* SPDX-License-Identifier: MIT */
/*
 * policy_files.c - reading the line-oriented files the policy takes: the
 * exclude list (--exclude-from) and mksquashfs's sort file (--sort).
 *
 * A bad line fails with the file name and line number: a build system's
 * typo must not silently change what goes into the image.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_impl.h"

int policy_each_line(struct sqp_policy *p, const char *file,
		     int (*fn)(struct sqp_policy *, const char *, const char *, unsigned),
		     const char *what)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned lineno = 0;
	int ret = 0;

	if (p->err.code != 0)
		return p->err.code;
	if (f == NULL)
		return sqp_err(&p->err, sqp_errno_code(errno), "%s '%s': %s", what, file,
			       strerror(errno));
	while (ret == 0 && (n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		ret = fn(p, line, file, lineno);
	}
	if (ret == 0 && ferror(f))
		ret = sqp_err(&p->err, SQP_ERR_IO, "%s '%s': read error", what, file);
	free(line);
	fclose(f);
	return ret;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static int exclude_line(struct sqp_policy *p, const char *line, const char *file,
			unsigned lineno)
{
	const char *s = skip_space(line);
	size_t len = strlen(s);
	char *copy;
	int ret;

	(void)file;
	(void)lineno;
	while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
		len--;
	if (len == 0 || s[0] == '#')
		return 0;
	copy = strndup(s, len);
	if (copy == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	ret = sqp_policy_add_exclude(p, copy);
	free(copy);
	return ret;
}

int sqp_policy_load_excludes(struct sqp_policy *p, const char *file)
{
	return policy_each_line(p, file, exclude_line, "exclude file");
}

/* "PATH PRIORITY": the path may contain spaces, so the priority is the last
 * word of the line. */
static int sort_line(struct sqp_policy *p, const char *line, const char *file,
		     unsigned lineno)
{
	const char *s = skip_space(line), *end, *num;
	char *raw, *stop, where[600];
	long prio;

	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end == s || s[0] == '#')
		return 0;
	num = end;
	while (num > s && num[-1] != ' ' && num[-1] != '\t')
		num--;
	errno = 0;
	prio = strtol(num, &stop, 10);
	if (num == s || stop != end || errno != 0 || prio < -32768 || prio > 32767)
		return sqp_err(&p->err, SQP_ERR_ARG, "sort file '%s' line %u: expected "
			       "'PATH PRIORITY' (priority -32768..32767)", file, lineno);
	while (num > s && (num[-1] == ' ' || num[-1] == '\t'))
		num--;
	if (policy_grow(p, (void **)&p->sorts, &p->sort_cap, p->sort_count, sizeof(*p->sorts)))
		return p->err.code;
	raw = strndup(s, (size_t)(num - s));
	if (raw == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	snprintf(where, sizeof(where), "sort file '%s' line %u", file, lineno);
	p->sorts[p->sort_count].path = policy_norm_path(p, raw, where);
	free(raw);
	if (p->sorts[p->sort_count].path == NULL)
		return p->err.code;
	p->sorts[p->sort_count].priority = (int)prio;
	p->sorts[p->sort_count].order = p->sort_count;
	p->sort_count++;
	p->sorts_sorted = 0;
	return 0;
}

int sqp_policy_load_sort(struct sqp_policy *p, const char *file)
{
	return policy_each_line(p, file, sort_line, "sort file");
}
