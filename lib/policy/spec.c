/* SPDX-License-Identifier: MIT */
/*
 * spec.c - mksquashfs pseudo definitions (--spec, --spec-line): the way a
 * rootless build gets device nodes, root-owned files and directories that
 * are not on disk.
 *
 * Only the forms distro builders use are taken (d m s c b i l and their
 * timed upper-case variants); dynamic files ("f", running a command) are
 * refused by name rather than ignored, so an image never silently lacks a
 * file the build asked for. Every value is range-checked here, before the
 * writer sees it, so errors carry the file and line.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/policy_impl.h"

#define SPEC_WORDS 8

struct spec_line {
	char *words[SPEC_WORDS];   /* point into buf */
	unsigned count;
	char buf[4096];
	const char *where;         /* "spec file 'x' line N" or "spec line" */
};

static int bad(struct sqp_policy *p, const struct spec_line *l, const char *why)
{
	return sqp_err(&p->err, SQP_ERR_ARG, "%s: %s", l->where, why);
}

/* Split into words: "" quotes and \ escapes keep spaces inside a word. */
static int split(struct sqp_policy *p, const char *s, struct spec_line *l)
{
	size_t n = 0;
	int quoted;

	l->count = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return 0;
		if (l->count == SPEC_WORDS)
			return bad(p, l, "too many fields");
		l->words[l->count++] = l->buf + n;
		for (quoted = 0; *s != '\0' && (quoted || (*s != ' ' && *s != '\t')); s++) {
			if (*s == '"') {
				quoted = !quoted;
				continue;
			}
			if (*s == '\\' && s[1] != '\0')
				s++;
			if (n + 2 >= sizeof(l->buf))
				return bad(p, l, "line too long");
			l->buf[n++] = *s;
		}
		if (quoted)
			return bad(p, l, "unterminated quote");
		l->buf[n++] = '\0';
	}
}

static int number(const char *s, unsigned long long max, unsigned long long *out, int base)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	*out = strtoull(s, &end, base);
	return (errno != 0 || *end != '\0' || *out > max) ? -1 : 0;
}

static int owner(const char *s, uint32_t *out)
{
	unsigned long long v;

	if (strcmp(s, "root") == 0) {
		*out = 0;
		return 0;
	}
	if (number(s, UINT32_MAX, &v, 10) != 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* Fields common to every form but "l": [TIME] MODE UID GID. */
static int attrs(struct sqp_policy *p, struct spec_line *l, int timed, unsigned *next,
		 struct sqp_entry *e)
{
	unsigned i = 2;
	unsigned long long v;
	uint32_t uid, gid;

	if (l->count < i + 3 + (timed ? 1 : 0))
		return bad(p, l, "expected PATH TYPE [TIME] MODE UID GID");
	if (timed) {
		if (number(l->words[i], UINT32_MAX, &v, 10) != 0)
			return bad(p, l, "time is not a number of seconds (0..2^32-1)");
		e->mtime = (int64_t)v;
		i++;
	}
	if (number(l->words[i], 07777, &v, 8) != 0)
		return bad(p, l, "mode is not an octal number up to 7777");
	e->mode = (uint32_t)v;
	if (owner(l->words[i + 1], &uid) != 0 || owner(l->words[i + 2], &gid) != 0)
		return bad(p, l, "uid and gid must be numbers (or 'root')");
	e->uid = uid;
	e->gid = gid;
	*next = i + 3;
	return 0;
}

static int add_mod(struct sqp_policy *p, struct sqp_entry *e, int timed)
{
	if (policy_grow(p, (void **)&p->mods, &p->mod_cap, p->mod_count, sizeof(*p->mods))) {
		free((char *)e->path);
		return p->err.code;
	}
	if (!timed)
		e->mtime = SQP_POLICY_IMAGE_TIME;
	p->mods[p->mod_count++] = *e;
	return 0;
}

/* The type-specific tail of a line, for the forms that create entries. */
static int typed(struct sqp_policy *p, struct spec_line *l, char type, unsigned i,
		 struct sqp_entry *e)
{
	unsigned long long maj, min;
	unsigned want = type == 'd' ? 0 : (type == 'c' || type == 'b') ? 2 : 1;

	if (l->count != i + want)
		return bad(p, l, "wrong number of fields for this type");
	switch (type) {
	case 'd': e->mode |= S_IFDIR; return 0;
	case 's':
		e->mode = S_IFLNK | 0777;
		e->link_target = strdup(l->words[i]);
		return e->link_target ? 0 : sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	case 'i':
		if (strcmp(l->words[i], "f") != 0 && strcmp(l->words[i], "s") != 0)
			return bad(p, l, "type i takes 'f' (fifo) or 's' (socket)");
		e->mode |= l->words[i][0] == 'f' ? S_IFIFO : S_IFSOCK;
		return 0;
	default:
		if (number(l->words[i], 0xFFF, &maj, 10) != 0 ||
		    number(l->words[i + 1], 0xFFFFF, &min, 10) != 0)
			return bad(p, l, "device numbers out of range (major 0..4095, minor 0..1048575)");
		e->mode |= type == 'c' ? S_IFCHR : S_IFBLK;
		e->dev_major = (uint32_t)maj;
		e->dev_minor = (uint32_t)min;
		return 0;
	}
}

static int add_extra(struct sqp_policy *p, struct sqp_entry *e)
{
	if (policy_grow(p, (void **)&p->extras, &p->extra_cap, p->extra_count,
			sizeof(*p->extras))) {
		free((char *)e->path);
		free((char *)e->link_target);
		return p->err.code;
	}
	p->extras[p->extra_count++] = *e;
	return 0;
}

static int spec_words(struct sqp_policy *p, struct spec_line *l)
{
	struct sqp_entry e = { .struct_size = sizeof(e) };
	char type;
	int timed;
	unsigned next = 0;
	char *path;

	if (l->count < 2 || l->words[1][1] != '\0')
		return bad(p, l, "expected PATH TYPE ...");
	type = (char)tolower((unsigned char)l->words[1][0]);
	timed = isupper((unsigned char)l->words[1][0]);
	if (strchr("dmscbil", type) == NULL)
		return bad(p, l, type == 'f' ? "dynamic files (type f) are not supported"
			   : "unknown type (want d, m, s, c, b, i or l)");
	path = policy_norm_path(p, l->words[0], l->where);
	if (path == NULL)
		return p->err.code;
	e.path = path;
	if (type == 'l') {
		e.is_hardlink = 1;
		e.link_target = l->count == 3 ? policy_norm_path(p, l->words[2], l->where) : NULL;
		if (e.link_target == NULL) {
			free(path);
			return l->count == 3 ? p->err.code : bad(p, l, "expected PATH l TARGET");
		}
		return add_extra(p, &e);
	}
	if (attrs(p, l, timed, &next, &e) != 0 ||
	    (type != 'm' && typed(p, l, type, next, &e) != 0)) {
		free(path);
		free((char *)e.link_target);
		return p->err.code;
	}
	if (type == 'm')
		return l->count == next ? add_mod(p, &e, timed)
			: (free(path), bad(p, l, "type m takes PATH m [TIME] MODE UID GID"));
	if (!timed)
		e.mtime = SQP_POLICY_IMAGE_TIME;
	return add_extra(p, &e);
}

static int spec_text(struct sqp_policy *p, const char *text, const char *where)
{
	struct spec_line *l = malloc(sizeof(*l));
	const char *s = text;
	int ret;

	if (l == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	l->where = where;
	l->count = 0;     /* comment and empty lines have no words */
	while (*s == ' ' || *s == '\t')
		s++;
	ret = (*s == '\0' || *s == '#') ? 0 : split(p, s, l);
	if (ret == 0 && l->count > 0)
		ret = spec_words(p, l);
	free(l);
	return ret;
}

int sqp_policy_add_spec_line(struct sqp_policy *p, const char *line)
{
	char where[600];

	if (p->err.code != 0)
		return p->err.code;
	snprintf(where, sizeof(where), "spec line '%s'", line);
	return spec_text(p, line, where);
}

static int spec_file_line(struct sqp_policy *p, const char *line, const char *file,
			  unsigned lineno)
{
	char where[600];

	snprintf(where, sizeof(where), "spec file '%s' line %u", file, lineno);
	return spec_text(p, line, where);
}

int sqp_policy_load_spec(struct sqp_policy *p, const char *file)
{
	return policy_each_line(p, file, spec_file_line, "spec file");
}
