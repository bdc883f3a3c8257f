/* SPDX-License-Identifier: MIT */
/*
 * dirxattr.c - an entry's extended attributes, read from the disk.
 *
 * Regular files are read through their open descriptor (flistxattr), so
 * the attributes belong to the same file as the data; other entries by
 * path without following symlinks (llistxattr). Attributes this user may
 * not read (trusted.* without root) are left out. A list or value that grows
 * between the size query and the read (ERANGE) is asked for again. A file
 * system without xattr support gives an empty set; a value that vanished
 * meanwhile is left out. The writer sorts and filters the names.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "dir/dir_impl.h"

#define XATTR_TRIES 4

static ssize_t list_names(int fd, const char *path, char *buf, size_t len)
{
	return fd >= 0 ? flistxattr(fd, buf, len) : llistxattr(path, buf, len);
}

static ssize_t get_value(int fd, const char *path, const char *name, void *buf, size_t len)
{
	return fd >= 0 ? fgetxattr(fd, name, buf, len) : lgetxattr(path, name, buf, len);
}

static int read_names(int fd, const char *path, struct dxattrs *x, size_t *len)
{
	ssize_t n;
	int tries;

	for (tries = 0; tries < XATTR_TRIES; tries++) {
		n = list_names(fd, path, NULL, 0);
		if (n < 0)
			return (errno == ENOTSUP || errno == ENODATA) ? 0 : errno;
		if (n == 0)
			return 0;
		free(x->names);
		x->names = malloc((size_t)n);
		if (x->names == NULL)
			return ENOMEM;
		n = list_names(fd, path, x->names, (size_t)n);
		if (n >= 0) {
			*len = (size_t)n;
			return 0;
		}
		if (errno != ERANGE)
			return errno;
	}
	return EAGAIN;
}

/* One value appended to x->values (grown as needed). */
static int read_value(int fd, const char *path, const char *name, struct dxattrs *x,
		      size_t *used, size_t *cap, size_t *vlen)
{
	ssize_t n;
	int tries;
	uint8_t *nv;

	for (tries = 0; tries < XATTR_TRIES; tries++) {
		n = get_value(fd, path, name, NULL, 0);
		if (n < 0)
			return errno;
		if (*used + (size_t)n + 1 > *cap) {
			*cap = (*used + (size_t)n + 1) * 2;
			nv = realloc(x->values, *cap);
			if (nv == NULL)
				return ENOMEM;
			x->values = nv;
		}
		n = get_value(fd, path, name, x->values + *used, (size_t)n);
		if (n >= 0) {
			*vlen = (size_t)n;
			return 0;
		}
		if (errno != ERANGE)
			return errno;
	}
	return EAGAIN;
}

int dir_read_xattrs(int fd, const char *path, struct dxattrs *x)
{
	size_t len = 0, used = 0, cap = 0, count = 0, i, vlen = 0;
	size_t *offsets;
	const char *name;
	int err;

	memset(x, 0, sizeof(*x));
	err = read_names(fd, path, x, &len);
	if (err != 0 || len == 0)
		return err;
	for (i = 0; i < len; i++)
		count += x->names[i] == '\0';
	x->list = calloc(count + 1, sizeof(*x->list));
	offsets = calloc(count + 1, sizeof(*offsets));
	if (x->list == NULL || offsets == NULL) {
		free(offsets);
		return ENOMEM;
	}
	for (name = x->names; name < x->names + len; name += strlen(name) + 1) {
		err = read_value(fd, path, name, x, &used, &cap, &vlen);
		if (err == ENODATA || err == EPERM || err == EACCES) {
			err = 0;      /* removed since the list was read, or unreadable */
			continue;
		}
		if (err != 0)
			break;
		x->list[x->count].key = name;
		x->list[x->count].value_len = vlen;
		offsets[x->count++] = used;
		used += vlen;
	}
	/* values were appended to a buffer that may have moved */
	for (i = 0; err == 0 && i < x->count; i++)
		x->list[i].value = x->values + offsets[i];
	free(offsets);
	return err;
}

void dir_free_xattrs(struct dxattrs *x)
{
	free(x->names);
	free(x->values);
	free(x->list);
	memset(x, 0, sizeof(*x));
}
