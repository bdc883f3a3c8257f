/* SPDX-License-Identifier: MIT */
/*
 * scan.c - the walk: every directory's names sorted bytewise, each entry
 * lstat'ed once, excluded paths left out without descending into them.
 *
 * A directory's children are recorded together, then its subdirectories
 * are walked in name order, one open directory at a time (opened again
 * from the root by path), so depth never costs file descriptors. The
 * order of the records is therefore a function of the names alone.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dir/dir_impl.h"
#include "util/array.h"

int dir_grow(struct sqp_dirscan *s, void **arr, size_t *cap, size_t need, size_t elem)
{
	void *n = sqp_array_grow(*arr, cap, need, elem, 64);

	if (n == NULL)
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	*arr = n;
	return 0;
}

/* dir_impl.h */
int dir_add_node(struct sqp_dirscan *s, uint16_t root, uint16_t skip, const char *parent,
		    const char *name, const struct stat *st, uint32_t *index)
{
	size_t plen = strlen(parent), nlen = strlen(name);
	size_t need = plen + (plen ? 1 : 0) + nlen + 1;
	struct dnode *n;

	if (s->node_count >= DNODE_NONE - 1)
		return dir_fail(s, SQP_ERR_LIMIT, "more than 4 billion entries");
	if (dir_grow(s, (void **)&s->arena, &s->arena_cap, s->arena_len + need, 1) ||
	    dir_grow(s, (void **)&s->nodes, &s->node_cap, s->node_count + 1, sizeof(*n)))
		return s->err.code;
	n = &s->nodes[s->node_count];
	n->path = s->arena_len;
	memcpy(s->arena + s->arena_len, parent, plen);
	if (plen)
		s->arena[s->arena_len + plen] = '/';
	memcpy(s->arena + s->arena_len + plen + (plen ? 1 : 0), name, nlen + 1);
	s->arena_len += need;
	n->mode = st->st_mode;
	n->size = S_ISREG(st->st_mode) ? (uint64_t)st->st_size : 0;
	n->link = DNODE_NONE;
	n->prio = 0;
	n->root = root;
	n->skip = skip;
	if (S_ISREG(st->st_mode))
		s->total_bytes += n->size;
	if (!S_ISDIR(st->st_mode) && st->st_nlink > 1 &&
	    !(s->desc.flags & SQP_DIRSCAN_NO_HARDLINKS)) {
		if (dir_grow(s, (void **)&s->links, &s->link_cap, s->link_count + 1, sizeof(*s->links)))
			return s->err.code;
		s->links[s->link_count++] = (struct dlink){ st->st_dev, st->st_ino,
							     (uint32_t)s->node_count, 0 };
	}
	*index = (uint32_t)s->node_count++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An entry that cannot be read: fatal, or a warning with --skip-unreadable. */
static int unreadable(struct sqp_dirscan *s, const char *path, int errnum)
{
	if (s->desc.flags & SQP_DIRSCAN_SKIP_UNREADABLE) {
		dir_warn(s, "'%s': %s; left out", path, strerror(errnum));
		return 0;
	}
	return dir_fail(s, sqp_errno_code(errnum), "'%s': %s", path, strerror(errnum));
}

/* The sorted names of one directory (without . and ..). */
static int list_dir(struct sqp_dirscan *s, int fd, const char *path, char ***names,
		    size_t *count)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*count = 0;
	if (d == NULL) {
		close(fd);
		return unreadable(s, path, errno);
	}
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (dir_grow(s, (void **)names, &cap, *count + 1, sizeof(char *)) != 0)
			break;
		(*names)[*count] = strdup(de->d_name);
		if ((*names)[*count] == NULL) {
			dir_fail(s, SQP_ERR_NOMEM, "out of memory");
			break;
		}
		(*count)++;
	}
	if (de == NULL && errno != 0)
		dir_fail(s, sqp_errno_code(errno), "'%s': reading the directory: %s", path,
			 strerror(errno));
	closedir(d);
	if (*count > 1)
		qsort(*names, *count, sizeof(char *), cmp_names);
	return s->err.code;
}

static void free_names(char **names, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		free(names[i]);
	free(names);
}

static int walk(struct sqp_dirscan *s, uint32_t dir);

/* dir_impl.h */
int dir_walk_children(struct sqp_dirscan *s, uint32_t dir, int fd)
{
	struct dnode d = s->nodes[dir];
	char *path = strdup(dnode_path(s, &d));
	char **names = NULL;
	uint32_t *subdirs = NULL, idx;
	size_t count = 0, nsub = 0, i;
	struct stat st;
	int ret;

	if (path == NULL) {
		close(fd);
		return dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	}
	ret = list_dir(s, dup(fd), path, &names, &count);
	if (ret == 0 && count > 0 && (subdirs = malloc(count * sizeof(*subdirs))) == NULL)
		ret = dir_fail(s, SQP_ERR_NOMEM, "out of memory");
	for (i = 0; ret == 0 && i < count; i++) {
		char full[PATH_MAX];

		snprintf(full, sizeof(full), "%s%s%s", path, *path ? "/" : "", names[i]);
		if (s->desc.policy && sqp_policy_excluded(s->desc.policy, full))
			continue;
		if (fstatat(fd, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
			ret = errno == ENOENT ? 0 : unreadable(s, full, errno);
			continue;
		}
		ret = dir_add_node(s, d.root, d.skip, path, names[i], &st, &idx);
		if (ret == 0 && S_ISDIR(st.st_mode) &&
		    !((s->desc.flags & SQP_DIRSCAN_ONE_FS) && st.st_dev != s->roots[d.root].dev))
			subdirs[nsub++] = idx;
	}
	close(fd);
	free_names(names, count);
	free(path);
	for (i = 0; ret == 0 && i < nsub; i++)
		ret = walk(s, subdirs[i]);
	free(subdirs);
	return ret;
}

static int walk(struct sqp_dirscan *s, uint32_t dir)
{
	const struct dnode *d = &s->nodes[dir];
	int fd = openat(s->roots[d->root].fd, dnode_disk_path(s, d),
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : unreadable(s, dnode_path(s, d), errno);
	return dir_walk_children(s, dir, fd);
}

/* The last component of a DIR argument: the top-level name it packs to. */
static const char *top_name(const char *dir, char *buf, size_t len)
{
	size_t n = strlen(dir);
	const char *b;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	snprintf(buf, len, "%.*s", (int)n, dir);
	b = strrchr(buf, '/');
	return b ? b + 1 : buf;
}

/* A tree is packed under its name when there are several, with
 * KEEP_DIR, and when it is a leaf (a file alone is not a root). A leaf's
 * name is its name on disk in the directory its root fd holds, so its
 * image path is also its path from there (skip 0). */
int dir_scan(struct sqp_dirscan *s)
{
	int top = s->desc.dir_count > 1 || (s->desc.flags & SQP_DIRSCAN_KEEP_DIR);
	char buf[PATH_MAX];
	struct stat st;
	uint32_t idx;
	size_t i;
	int ret = 0;

	if (s->desc.flags & SQP_DIRSCAN_KEEP_PATH)
		return dir_keep_scan(s);
	for (i = 0; ret == 0 && i < s->root_count; i++) {
		int leaf = s->roots[i].leaf;
		const char *name = top || leaf ? top_name(s->desc.dirs[i], buf, sizeof(buf)) : "";

		if ((leaf ? fstatat(s->roots[i].fd, name, &st, AT_SYMLINK_NOFOLLOW) :
		     fstat(s->roots[i].fd, &st)) != 0)
			return dir_fail(s, sqp_errno_code(errno), "'%s': %s", s->desc.dirs[i],
					strerror(errno));
		if (strlen(name) > UINT16_MAX || strcmp(name, "..") == 0 || strcmp(name, ".") == 0 ||
		    ((top || leaf) && name[0] == '\0'))
			return dir_fail(s, SQP_ERR_ARG, "'%s': no name to pack it under",
					s->desc.dirs[i]);
		ret = dir_add_node(s, (uint16_t)i, leaf ? 0 : (uint16_t)strlen(name), "", name,
			       &st, &idx);
		if (ret == 0 && !leaf)
			ret = dir_walk_children(s, idx, dup(s->roots[i].fd));
	}
	return ret;
}
