/* SPDX-License-Identifier: MIT */
/*
 * mksq_exclude.c - mksquashfs's excludes as dir2img --exclude patterns.
 *
 * mksquashfs has two meanings for an exclude. Without -wildcards it is an
 * exact path: relative ones name SOURCE/path for each source, ones that
 * start with '/', './' or '../' name a file from the current directory.
 * With -wildcards it is a glob anchored at the image root, one component
 * per component, and a leading "... " lets it match at any depth.
 *
 * dir2img matches a glob against the path relative to the image root: a
 * pattern with a '/' from the root, one without a '/' against any single
 * component; a leading '/' is ignored and a double star crosses '/'. So an
 * exact "a/b" becomes "a/b" with its glob characters escaped (once per
 * source, under its name, when there are several), "... x*" stays "x*",
 * and "... a/b" gets a leading double star and slash. A top-level name has
 * no '/' to anchor it; see push_rooted.
 * Invariant: an exact path never turns into a pattern that matches more
 * than that path.
 *
 * One source directory appended to an image may have entries renamed
 * (NAME_1...: mksq_rename.c), and with -wildcards mksquashfs matches the
 * new name, where the packer meets the entry under its own. Then a
 * glob's first component is matched here against each entry's new name,
 * and excludes that entry by its own name (see renamed_top).
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mksq_args.h"

/* Collapse "//" and "/./", drop a leading "./" and trailing '/'; a
 * leading '/' stays. */
static char *normalize(const char *p)
{
	char *out = malloc(strlen(p) + 2), *o = out, *start;

	if (out == NULL)
		return NULL;
	if (*p == '/')
		*o++ = '/';
	start = o;
	while (*p != '\0') {
		const char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > 0 && !(n == 1 && p[0] == '.')) {
			if (o != start)
				*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n + (end != NULL);
	}
	*o = '\0';
	return out;
}

/* An exact name as a glob: the characters fnmatch gives meaning escaped. */
static char *escape(const char *p)
{
	char *out = malloc(2 * strlen(p) + 1), *o = out;

	if (out == NULL)
		return NULL;
	for (; *p != '\0'; p++) {
		if (strchr("\\*?[", *p) != NULL)
			*o++ = '\\';
		*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* The first character of a rooted pattern as a bracket expression that
 * also lists '/' (which a bracket never matches): "[/c]". A ']' must come
 * first in a bracket, a '\' is escaped. */
static void rooted_literal(char c, char *out)
{
	if (c == ']')
		strcpy(out, "[]/]");
	else if (c == '\\')
		strcpy(out, "[/\\\\]");
	else
		sprintf(out, "[/%c]", c);
}

/* The end of the bracket expression at p (on its '['), or NULL when it is
 * not terminated and the '[' is an ordinary character. */
static const char *bracket_end(const char *p)
{
	const char *q = p + 1;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	for (; *q != '\0' && *q != ']'; q++) {
		if (*q == '\\' && q[1] != '\0')
			q++;
	}
	return *q == ']' ? q : NULL;
}

/*
 * A pattern anchored at the image root. One with a '/' already is; in one
 * without, the first element is rewritten to contain a '/' that matches
 * nothing: "boot" -> "[/b]oot", "?x" -> "[!/.]x", "[ab]c" -> "[/ab]c". A
 * leading '*' may match no character, so "*rest" gives "[!/.]*rest" and,
 * unless rest starts with '.', rooted "rest" too. The "." in "[!/.]" is
 * mksquashfs's rule that '*' and '?' never match a name's leading dot.
 */
static int push_rooted(struct mksq_argv *out, const char *pat)
{
	char first[8];
	const char *end;
	int r;

	if (strchr(pat, '/') != NULL)
		return mksq_argv_pushf(out, "%s", pat);
	switch (pat[0]) {
	case '\0':
		return 0;
	case '*':
		while (*pat == '*')
			pat++;
		r = mksq_argv_pushf(out, "[!/.]*%s", pat);
		return r == 0 && pat[0] != '.' ? push_rooted(out, pat) : r;
	case '?':
		return mksq_argv_pushf(out, "[!/.]%s", pat + 1);
	case '[':
		end = bracket_end(pat);
		if (end == NULL)
			break;
		/* '/' goes after a leading '!' or '^' and a leading ']' */
		end = pat + 1 + (pat[1] == '!' || pat[1] == '^');
		end += *end == ']';
		return mksq_argv_pushf(out, "%.*s/%s", (int)(end - pat), pat, end);
	case '\\':
		if (pat[1] != '\0')
			pat++;
		break;
	}
	rooted_literal(pat[0], first);
	return mksq_argv_pushf(out, "%s%s", first, pat + 1);
}

/* dir/rel (or rel when dir is empty), anchored at the image root. */
static int push_anchored(struct mksq_argv *out, const char *dir, const char *rel)
{
	char *path;
	int r;

	if (dir == NULL || dir[0] == '\0')
		return push_rooted(out, rel);
	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		return -1;
	r = push_rooted(out, path);
	free(path);
	return r;
}

/* A path from the current directory, made absolute without following a
 * symlink in its last component (mksquashfs looks at it with lstat). */
static char *absolute(const char *path)
{
	char *norm = normalize(path), *slash, *dir, *abs = NULL;

	if (norm == NULL)
		return NULL;
	slash = strrchr(norm, '/');
	if (slash != NULL)
		*slash = '\0';
	dir = realpath(slash == NULL ? "." : (norm[0] ? norm : "/"), NULL);
	if (dir != NULL && asprintf(&abs, "%s/%s", strcmp(dir, "/") ? dir : "",
				    slash ? slash + 1 : norm) < 0)
		abs = NULL;
	free(dir);
	free(norm);
	return abs;
}

/* '/x', './x', '../x': the sources it lies in get it excluded; a path
 * that does not exist or lies in no source excludes nothing, as in
 * mksquashfs. */
static int exclude_from_cwd(struct mksq_argv *out, const struct mksq_sources *src,
			    const char *path)
{
	char *abs = absolute(path);
	int r = 0;

	for (int i = 0; abs != NULL && r == 0 && i < src->n; i++) {
		char *root = realpath(src->path[i], NULL), *esc;
		size_t n = root ? strlen(root) : 0;

		if (root != NULL && strncmp(abs, root, n) == 0 && abs[n] == '/' &&
		    abs[n + 1] != '\0') {
			esc = escape(abs + n + 1);
			r = esc ? push_anchored(out, src->name[i], esc) : -1;
			free(esc);
		}
		free(root);
	}
	free(abs);
	return r;
}

static int exclude_exact(struct mksq_argv *out, const struct mksq_sources *src,
			 const char *path)
{
	char *norm, *esc;
	int r = 0;

	if (src->n > 0 && (path[0] == '/' || strncmp(path, "./", 2) == 0 ||
			   strncmp(path, "../", 3) == 0))
		return exclude_from_cwd(out, src, path);
	norm = normalize(path);
	esc = norm ? escape(norm) : NULL;
	if (esc == NULL)
		r = -1;
	else if (esc[0] == '\0')
		r = 0; /* "." or "": mksquashfs cannot exclude a source itself */
	else if (src->flat)
		r = push_anchored(out, NULL, esc);
	for (int i = 0; esc != NULL && esc[0] && !src->flat && r == 0 && i < src->n; i++)
		r = push_anchored(out, src->name[i], esc);
	free(esc);
	free(norm);
	return r;
}

/*
 * A glob (from the root, or at any depth when sticky) when the entries of
 * the source directory are known with the names they take: its first
 * component, as mksquashfs matches it (fnmatch, FNM_PATHNAME|FNM_PERIOD),
 * against each entry's name in the image, and the rest of it under that
 * entry's own name, which the packer sees; a sticky one also below the
 * top level, where nothing is renamed. 0 or -1 (memory).
 */
static int renamed_top(struct mksq_argv *out, const struct mksq_sources *src,
		       int sticky, const char *pat)
{
	const char *slash = strchr(pat, '/');
	char *first = strndup(pat, slash ? (size_t)(slash - pat) : strlen(pat));
	int r = first != NULL ? 0 : -1;

	for (size_t i = 0; r == 0 && i < src->ntop; i++) {
		char *esc, *path;

		if (fnmatch(first, src->top_as[i], FNM_PATHNAME | FNM_PERIOD) != 0)
			continue;
		if ((esc = escape(src->top[i])) == NULL ||
		    asprintf(&path, "%s%s", esc, slash ? slash : "") < 0) {
			free(esc);
			r = -1;
			break;
		}
		r = push_rooted(out, path);
		free(path);
		free(esc);
	}
	free(first);
	/* below the top level ("*" then any depth: the packer's double
	 * star before a slash also stands for no directory at all) */
	return r == 0 && sticky ? mksq_argv_pushf(out, "*/**/%s", pat) : r;
}

int mksq_exclude_add(struct mksq_argv *out, const struct mksq_sources *src,
		     int wildcards, const char *pattern)
{
	const char *rest;

	if (!wildcards)
		return exclude_exact(out, src, pattern);
	if (strncmp(pattern, "... ", 4) == 0) {
		for (rest = pattern + 4; *rest == ' '; rest++)
			;
		if (src->ntop > 0)
			return renamed_top(out, src, 1, rest);
		if (strchr(rest, '/') == NULL)
			return mksq_argv_pushf(out, "%s", rest);
		return mksq_argv_pushf(out, "**/%s", rest);
	}
	while (pattern[0] == '/' || strncmp(pattern, "./", 2) == 0)
		pattern += pattern[0] == '/' ? 1 : 2;
	if (pattern[0] != '\0' && src->ntop > 0)
		return renamed_top(out, src, 0, pattern);
	return pattern[0] ? push_anchored(out, NULL, pattern) : 0;
}

/* A mountinfo path field in place: "\\ooo" stands for one byte. */
static void unescape_octal(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* Mount point mp (absolute, real) lies strictly under source i and on
 * another device than it: excluded by its path in the source. */
static int exclude_mount(struct mksq_argv *out, const struct mksq_sources *src,
			 int i, const char *root, dev_t dev, const char *mp)
{
	size_t n = strcmp(root, "/") == 0 ? 0 : strlen(root);
	struct stat st;
	char *esc;
	int r;

	if (strncmp(mp, root, n) != 0 || mp[n] != '/' || mp[n + 1] == '\0' ||
	    lstat(mp, &st) != 0 || st.st_dev == dev)
		return 0;
	if ((esc = escape(mp + n + 1)) == NULL)
		return -1;
	r = push_anchored(out, src->name[i], esc);
	free(esc);
	return r;
}

/* The mount points in f against each source directory (root[i], on
 * dev[i]; root[i] NULL for a source that is not one). */
static int each_mount(struct mksq_argv *out, const struct mksq_sources *src,
		      char **root, const dev_t *dev, FILE *f)
{
	char *line = NULL, *mp;
	size_t cap = 0;
	int r = 0;

	while (r == 0 && getline(&line, &cap, f) >= 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... */
		mp = line;
		for (int k = 0; k < 4 && mp != NULL; k++)
			mp = strchr(mp, ' ') ? strchr(mp, ' ') + 1 : NULL;
		if (mp == NULL || strchr(mp, ' ') == NULL)
			continue;
		*strchr(mp, ' ') = '\0';
		unescape_octal(mp);
		for (int i = 0; r == 0 && i < src->n; i++)
			if (root[i] != NULL)
				r = exclude_mount(out, src, i, root[i], dev[i], mp);
	}
	free(line);
	return r;
}

int mksq_exclude_mounts(struct mksq_argv *out, const struct mksq_sources *src)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char **root = calloc((size_t)src->n + 1, sizeof(*root));
	dev_t *dev = calloc((size_t)src->n + 1, sizeof(*dev));
	int r = root != NULL && dev != NULL ? 0 : -1;
	struct stat st;

	/* no mount table: dir2img still stops at mount points */
	for (int i = 0; r == 0 && f != NULL && i < src->n; i++) {
		root[i] = realpath(src->path[i], NULL);
		if (root[i] != NULL && (stat(root[i], &st) != 0 || !S_ISDIR(st.st_mode))) {
			free(root[i]);
			root[i] = NULL;
		}
		dev[i] = root[i] != NULL ? st.st_dev : 0;
	}
	if (r == 0 && f != NULL)
		r = each_mount(out, src, root, dev, f);
	for (int i = 0; root != NULL && i < src->n; i++)
		free(root[i]);
	free(root);
	free(dev);
	if (f != NULL)
		fclose(f);
	return r;
}

/* One exclude per line; blank lines and lines starting with '#' are
 * skipped. As in mksquashfs, white space before a name is dropped and
 * white space after it is part of it. */
int mksq_exclude_file(struct mksq_argv *out, const struct mksq_sources *src,
		      int wildcards, const char *file, char *msg,
		      size_t msg_size)
{
	FILE *f = fopen(file, "r");
	char *line = NULL, *s, *e;
	size_t cap = 0;
	int r = 0;

	if (f == NULL) {
		snprintf(msg, msg_size, "-ef %s: %s", file, strerror(errno));
		return 1;
	}
	while (r == 0 && getline(&line, &cap, f) >= 0) {
		for (s = line; *s == ' ' || *s == '\t'; s++)
			;
		e = s + strlen(s);
		if (e > s && e[-1] == '\n')
			e[-1] = '\0';
		if (s[0] != '\0' && s[0] != '#' &&
		    mksq_exclude_add(out, src, wildcards, s) != 0) {
			snprintf(msg, msg_size, "out of memory");
			r = 1;
		}
	}
	if (r == 0 && ferror(f)) {
		snprintf(msg, msg_size, "-ef %s: %s", file, strerror(errno));
		r = 1;
	}
	free(line);
	fclose(f);
	return r;
}
