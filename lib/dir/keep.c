/* SPDX-License-Identifier: MIT */
/*
 * keep.c - SQP_DIRSCAN_KEEP_PATH (mksquashfs -no-strip): each tree packed
 * at its own path, "/usr/share/doc" as usr/share/doc.
 *
 * A tree's root (struct droot) is the directory its path starts in: "/"
 * for "/usr/share/doc", "." for "a/b", "../.." for "../../x", opened
 * without read permission (O_PATH), as only names below it are looked up.
 * The image path of every entry is then its path from there, so nodes
 * need no skip. The scan descends only along the named components:
 * each directory on the way is recorded alone (lstat'ed, never listed),
 * and the last component is recorded and walked whole as any tree.
 *
 * The trees are taken in the bytewise order of their paths, one inside
 * another's last component (or named twice) left out, so the records
 * are a function of the names alone, as in scan.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dir/dir_impl.h"

/* A '.' or '..' inside the path, from p on: 1 when there is one. */
static int dots(const char *p)
{
	for (const char *end; *p != '\0'; p = *end ? end + 1 : end) {
		size_t n;

		end = strchr(p, '/');
		if (end == NULL)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 1;
	}
	return 0;
}

/*
 * Split a tree's path into the directory it starts in (its leading '/',
 * "./" and "../", "." when none) and the rest, "//" collapsed and a
 * trailing '/' dropped. 0, or SQP_ERR_UNSUPPORTED (after dir_fail) when
 * there is no rest. A '.' or '..' inside the rest is checked later
 * (dir_keep_scan). rel may be NULL.
 */
static int split(struct sqp_dirscan *s, const char *dir, char **start, char **rel)
{
	const char *p = dir;
	char *o;

	for (;;) {
		if (p[0] == '/')
			p++;
		else if (p[0] == '.' && (p[1] == '/' || p[1] == '\0'))
			p += 1;
		else if (p[0] == '.' && p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			p += 2;
		else
			break;
	}
	if (*p == '\0')
		return dir_fail(s, SQP_ERR_UNSUPPORTED, "'%s': nothing is left of it once its "
				"leading '/', '.' and '..' are dropped", dir);
	*start = p == dir ? strdup(".") : strndup(dir, (size_t)(p - dir));
	if (*start == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	if (rel == NULL)
		return 0;
	if ((*rel = o = malloc(strlen(p) + 1)) == NULL) {
		free(*start);
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	}
	for (; *p != '\0'; p++)
		if (*p != '/' || (o != *rel && o[-1] != '/'))
			*o++ = *p;
	if (o != *rel && o[-1] == '/')
		o--;
	*o = '\0';
	return 0;
}

int dir_keep_open(struct sqp_dirscan *s)
{
	struct stat st;
	char *start;

	for (size_t i = 0; i < s->desc.dir_count; i++) {
		const char *dir = s->desc.dirs[i];

		s->roots[i].fd = -1;
		s->root_count++;
		/* it must be there, wherever it lies (mksquashfs: lstat) */
		if (lstat(dir, &st) != 0)
			return dir_fail(s, errno == ENOENT ? SQP_ERR_NOT_FOUND :
					sqp_errno_code(errno), "'%s': %s", dir, strerror(errno));
		if (split(s, dir, &start, NULL) != 0)
			return s->err.code;
		s->roots[i].fd = open(start, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (s->roots[i].fd < 0 || fstat(s->roots[i].fd, &st) != 0) {
			free(start);
			return dir_fail(s, errno == ENOENT ? SQP_ERR_NOT_FOUND :
					sqp_errno_code(errno), "'%s': %s", dir, strerror(errno));
		}
		s->roots[i].dev = st.st_dev;
		s->roots[i].abs = realpath(start, NULL);
		if (s->roots[i].abs == NULL) {
			free(start);
			return dir_fail(s, sqp_errno_code(errno), "'%s': %s", dir, strerror(errno));
		}
		free(start);
	}
	return 0;
}

struct kept {
	char **rel;           /* each tree's path in the image */
	size_t *order;        /* the trees packed, by path */
	size_t count;
	uint32_t *lead;       /* the nodes of the directories on the way */
	size_t nlead, lead_cap;
};

struct tree_key {
	const char *rel;
	size_t i;
};

static int by_path(const void *a, const void *b)
{
	const struct tree_key *x = a, *y = b;
	int c = strcmp(x->rel, y->rel);

	return c != 0 ? c : (x->i > y->i) - (x->i < y->i);
}

/* Path a is path b or inside it. */
static int within(const char *a, const char *b)
{
	size_t n = strlen(b);

	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

/* The trees to pack: by path, none within another (the first given of
 * two equal ones stays). */
static int choose(struct sqp_dirscan *s, struct kept *k)
{
	size_t n = s->root_count;
	struct tree_key *all = malloc(n * sizeof(*all));

	if (all == NULL || (k->order = malloc(n * sizeof(*k->order))) == NULL) {
		free(all);
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++)
		all[i] = (struct tree_key){ k->rel[i], i };
	qsort(all, n, sizeof(*all), by_path);
	for (size_t i = 0; i < n; i++) {
		size_t t = all[i].i;
		int inside = 0;

		for (size_t j = 0; j < n && !inside; j++)
			inside = j != t && within(k->rel[t], k->rel[j]) &&
				 (strcmp(k->rel[t], k->rel[j]) != 0 || j < t);
		if (!inside)
			k->order[k->count++] = t;
	}
	free(all);
	return 0;
}

/* The directories on the way to tree i, each recorded once, from its
 * root; a component that is not one fails, as there is no way on. */
static int leading(struct sqp_dirscan *s, struct kept *k, size_t i)
{
	char *path = strdup(k->rel[i]), *slash;
	struct stat st;
	uint32_t idx;
	int ret = path == NULL ? dir_fail(s, SQP_ERR_NOMEM, "out of memory") : 0;

	for (slash = path; ret == 0 && (slash = strchr(slash, '/')) != NULL; *slash++ = '/') {
		size_t j;

		*slash = '\0';
		for (j = 0; j < k->nlead; j++)
			if (strcmp(dnode_path(s, &s->nodes[k->lead[j]]), path) == 0)
				break;
		if (j < k->nlead)
			continue;
		if (fstatat(s->roots[i].fd, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
			ret = dir_fail(s, errno == ENOENT ? SQP_ERR_NOT_FOUND :
				       sqp_errno_code(errno), "'%s': %s: %s",
				       s->desc.dirs[i], path, strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			ret = dir_fail(s, sqp_errno_code(ENOTDIR), "'%s': %s: %s",
				       s->desc.dirs[i], path, strerror(ENOTDIR));
		else if ((ret = dir_add_node(s, (uint16_t)i, 0, "", path, &st, &idx)) == 0 &&
			 (ret = dir_grow(s, (void **)&k->lead, &k->lead_cap, k->nlead + 1,
					 sizeof(*k->lead))) == 0)
			k->lead[k->nlead++] = idx;
	}
	free(path);
	return ret;
}

/* Tree i's last component: recorded, and walked when a directory. */
static int last(struct sqp_dirscan *s, const struct kept *k, size_t i)
{
	struct stat st;
	uint32_t idx;
	int fd, ret;

	if (fstatat(s->roots[i].fd, k->rel[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
		return dir_fail(s, errno == ENOENT ? SQP_ERR_NOT_FOUND : sqp_errno_code(errno),
				"'%s': %s", s->desc.dirs[i], strerror(errno));
	ret = dir_add_node(s, (uint16_t)i, 0, "", k->rel[i], &st, &idx);
	if (ret != 0 || !S_ISDIR(st.st_mode))
		return ret;
	s->roots[i].dev = st.st_dev;  /* what ONE_FS keeps to */
	fd = openat(s->roots[i].fd, k->rel[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return dir_fail(s, sqp_errno_code(errno), "'%s': %s", s->desc.dirs[i],
				strerror(errno));
	return dir_walk_children(s, idx, fd);
}

/* The root: the directory every tree starts in, when it is one (trees
 * left out by choose count too: the root does not depend on them). */
static int root(struct sqp_dirscan *s, const struct kept *k)
{
	struct stat first, st;
	uint32_t idx;

	for (size_t i = 0; i < s->root_count; i++) {
		if (fstat(s->roots[i].fd, i == 0 ? &first : &st) != 0)
			return dir_fail(s, sqp_errno_code(errno), "'%s': %s",
					s->desc.dirs[i], strerror(errno));
		if (i > 0 && (st.st_dev != first.st_dev || st.st_ino != first.st_ino))
			return 0;  /* the writer's own root */
	}
	return dir_add_node(s, (uint16_t)k->order[0], 0, "", "", &first, &idx);
}

int dir_keep_scan(struct sqp_dirscan *s)
{
	struct kept k = { 0 };
	char *start;
	int ret = 0;

	k.rel = calloc(s->root_count, sizeof(*k.rel));
	if (k.rel == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	for (size_t i = 0; ret == 0 && i < s->root_count; i++) {
		ret = split(s, s->desc.dirs[i], &start, &k.rel[i]);
		if (ret == 0)
			free(start);
	}
	/* a '.' or '..' cannot be kept: fatal, unless the path lies in a
	 * tree given before it, which is taken whole (as mksquashfs, which
	 * looks no further there) */
	for (size_t i = 0; ret == 0 && i < s->root_count; i++) {
		size_t j = 0;

		while (j < i && !within(k.rel[i], k.rel[j]))
			j++;
		if (j == i && dots(k.rel[i]))
			ret = dir_fail(s, SQP_ERR_UNSUPPORTED, "'%s': a '.' or '..' inside "
				       "the path cannot be kept", s->desc.dirs[i]);
	}
	if (ret == 0)
		ret = choose(s, &k);
	if (ret == 0)
		ret = root(s, &k);
	for (size_t j = 0; ret == 0 && j < k.count; j++) {
		ret = leading(s, &k, k.order[j]);
		if (ret == 0)
			ret = last(s, &k, k.order[j]);
	}
	for (size_t i = 0; i < s->root_count; i++)
		free(k.rel[i]);
	free(k.rel);
	free(k.order);
	free(k.lead);
	return ret;
}
