/* SPDX-License-Identifier: MIT */
/*
 * dirscan.c - the public life cycle of a directory packer: open the trees,
 * scan them, decide the feed order; then feed (feed.c) and destroy.
 *
 * Several trees must have distinct top-level names: two trees packed
 * under one name would silently merge, so create refuses that.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dir/dir_impl.h"

int dir_fail(struct sqp_dirscan *s, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sqp_verr(&s->err, code, fmt, ap);
	va_end(ap);
	return s->err.code;
}

void dir_warn(struct sqp_dirscan *s, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	if (s->desc.warn == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	s->desc.warn(s->desc.warn_user, msg);
}

/* The directory holding a tree that is not a directory: "." for "f",
 * "/" for "/f", "a/b" for "a/b/f" (malloc'd, NULL when out of memory). */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/*
 * A tree is what lstat finds at its path, as mksquashfs takes a source: a
 * directory is opened and walked; anything else (a file, a symlink, which
 * is not followed, a device, a fifo) is a leaf, reached by its name in
 * the directory that holds it, which is what the root's fd and abs are.
 */
static int open_roots(struct sqp_dirscan *s)
{
	struct stat st;
	size_t i;
	char *at;

	s->roots = calloc(s->desc.dir_count, sizeof(*s->roots));
	if (s->roots == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	if (s->desc.flags & SQP_DIRSCAN_KEEP_PATH)
		return dir_keep_open(s);
	for (i = 0; i < s->desc.dir_count; i++) {
		const char *dir = s->desc.dirs[i];

		s->roots[i].fd = -1;
		s->root_count++;
		if (lstat(dir, &st) != 0)
			return dir_fail(s, errno == ENOENT ? SQP_ERR_NOT_FOUND :
					sqp_errno_code(errno), "'%s': %s", dir, strerror(errno));
		s->roots[i].leaf = !S_ISDIR(st.st_mode);
		at = s->roots[i].leaf ? parent_of(dir) : strdup(dir);
		if (at == NULL)
			return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
		/* a leaf's directory is only searched, never listed: O_PATH
		 * needs no read permission on it, as mksquashfs needs none */
		s->roots[i].fd = open(at, (s->roots[i].leaf ? O_PATH : O_RDONLY) |
				      O_DIRECTORY | O_CLOEXEC);
		if (s->roots[i].fd < 0 || fstat(s->roots[i].fd, &st) != 0) {
			free(at);
			return dir_fail(s, errno == ENOENT ? SQP_ERR_NOT_FOUND :
					sqp_errno_code(errno), "'%s': %s", dir, strerror(errno));
		}
		s->roots[i].dev = st.st_dev;
		s->roots[i].abs = realpath(at, NULL);
		free(at);
		if (s->roots[i].abs == NULL)
			return dir_fail(s, sqp_errno_code(errno), "'%s': %s", dir, strerror(errno));
	}
	return 0;
}

/* Several trees: their top-level names (the scan's first nodes) differ. */
static int check_top_names(struct sqp_dirscan *s)
{
	size_t i, j, found = 0, tops = s->root_count;
	uint32_t *top = calloc(tops + 1, sizeof(*top));
	int ret = 0;

	if (top == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	/* each tree's first node is its top-level directory */
	for (i = 0; i < s->node_count && found < tops; i++) {
		if (s->nodes[i].root == found)
			top[found++] = (uint32_t)i;
	}
	for (i = 0; ret == 0 && i < found; i++) {
		for (j = i + 1; ret == 0 && j < found; j++) {
			if (strcmp(dnode_path(s, &s->nodes[top[i]]),
				   dnode_path(s, &s->nodes[top[j]])) == 0)
				ret = dir_fail(s, SQP_ERR_ARG, "'%s' and '%s' would both be "
					       "packed as '%s'", s->desc.dirs[i], s->desc.dirs[j],
					       dnode_path(s, &s->nodes[top[i]]));
		}
	}
	free(top);
	return ret;
}

int sqp_dirscan_create(const struct sqp_dirscan_desc *desc, struct sqp_dirscan **out)
{
	struct sqp_dirscan *s = calloc(1, sizeof(*s));
	int ret;

	*out = s;
	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->desc = *desc;
	s->desc.dirs = NULL;  /* borrowed only during create */
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake_readers, NULL);
	pthread_cond_init(&s->wake_feeder, NULL);
	if (desc->dir_count == 0 || desc->dir_count > UINT16_MAX)
		return dir_fail(s, SQP_ERR_ARG, "between 1 and 65535 directories");
	s->desc.dirs = desc->dirs;
	ret = open_roots(s);
	if (ret == 0)
		ret = dir_scan(s);
	/* at their paths, trees share leading directories */
	if (ret == 0 && s->root_count > 1 && !(s->desc.flags & SQP_DIRSCAN_KEEP_PATH))
		ret = check_top_names(s);
	if (ret == 0)
		ret = dir_make_order(s);
	s->desc.dirs = NULL;
	return ret;
}

void sqp_dirscan_totals(const struct sqp_dirscan *s, uint64_t *entries, uint64_t *bytes)
{
	*entries = s->order_count;
	*bytes = s->total_bytes;
}

const char *sqp_dirscan_error(const struct sqp_dirscan *s)
{
	return sqp_errmsg(&s->err);
}

void sqp_dirscan_destroy(struct sqp_dirscan *s)
{
	size_t i;

	if (s == NULL)
		return;
	readers_stop(s);
	for (i = 0; i < s->root_count; i++) {
		if (s->roots[i].fd >= 0)
			close(s->roots[i].fd);
		free(s->roots[i].abs);
	}
	free(s->roots);
	free(s->arena);
	free(s->nodes);
	free(s->left_out);
	free(s->links);
	free(s->order);
	free(s->files);
	free(s->slots);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake_readers);
	pthread_cond_destroy(&s->wake_feeder);
	free(s);
}
