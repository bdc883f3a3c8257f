/* SPDX-License-Identifier: MIT */
/*
 * dirfs.c - the system calls of img2dir (dirfs.h).
 *
 * Invariant: every path resolved here is one component relative to a
 * directory fd, and every open carries O_NOFOLLOW, so a symlink - one
 * the image made a moment ago or one already in the target - is never
 * followed. "Replace when force" unlinks the entry first and retries
 * once; a directory is never removed.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "unpack/dirfs.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* After an EEXIST: remove name so the caller can try again (force), or
 * keep the error. */
static int replace(int parent, const char *name, int force)
{
	if (!force)
		return -EEXIST;
	if (unlinkat(parent, name, 0) != 0)
		return -errno;
	return 0;
}

int dirfs_mkdir(int parent, const char *name, int force, mode_t perm,
		int *made)
{
	int fd;

	*made = mkdirat(parent, name, perm) == 0;
	if (!*made && errno != EEXIST)
		return -errno;
	if ((fd = openat(parent, name, DIR_FLAGS)) >= 0)
		return fd;
	if (errno != ENOTDIR && errno != ELOOP)
		return -errno;
	/* Something else than a directory has the name. */
	if (!force)
		return -EEXIST;
	if (unlinkat(parent, name, 0) != 0 || mkdirat(parent, name, perm) != 0)
		return -errno;
	*made = 1;
	fd = openat(parent, name, DIR_FLAGS);
	return fd >= 0 ? fd : -errno;
}

/* One component after another from root; make the missing ones. */
static int descend(int root, const char *rel, size_t len, int make)
{
	int fd = dup(root);

	if (fd < 0)
		return -errno;
	while (len > 0) {
		char name[256];
		size_t n = strcspn(rel, "/");
		int next = -1, err = 0;

		if (n > len)
			n = len;
		if (n == 0 || n >= sizeof(name)) {
			err = n == 0 ? EINVAL : ENAMETOOLONG;
		} else {
			memcpy(name, rel, n);
			name[n] = '\0';
			if (make && mkdirat(fd, name, 0755) != 0 && errno != EEXIST)
				err = errno;
			else if ((next = openat(fd, name, DIR_FLAGS)) < 0)
				err = errno;
		}
		close(fd);
		if (err != 0)
			return -err;
		fd = next;
		rel += n;
		len -= n;
		if (len > 0) {
			rel++;
			len--;
		}
	}
	return fd;
}

int dirfs_mkdirs(int root, const char *rel)
{
	return descend(root, rel, strlen(rel), 1);
}

int dirfs_open_dirs(int root, const char *rel, size_t len)
{
	return descend(root, rel, len, 0);
}

int dirfs_create(int parent, const char *name, int force, mode_t perm)
{
	const int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(parent, name, flags, perm), ret;

	if (fd < 0 && errno == EEXIST) {
		if ((ret = replace(parent, name, force)) != 0)
			return ret;
		fd = openat(parent, name, flags, perm);
	}
	return fd >= 0 ? fd : -errno;
}

int dirfs_passes_on(int fd)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || (st.st_mode & S_ISGID))
		return 1;
	if (fgetxattr(fd, "system.posix_acl_default", NULL, 0) >= 0)
		return 1;
	return errno != ENODATA && errno != ENOTSUP;
}

int dirfs_umask(mode_t *out)
{
	char buf[4096];
	const char *at;
	unsigned long v;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	/* "Umask:\t0022", since Linux 4.7. */
	if ((at = strstr(buf, "\nUmask:")) == NULL ||
	    sscanf(at + 7, "%lo", &v) != 1 || v > 0777)
		return -ENOENT;
	*out = (mode_t)v;
	return 0;
}

int dirfs_mknod(int parent, const char *name, mode_t mode, dev_t dev,
		int force)
{
	int ret;

	if (mknodat(parent, name, mode & ~07777u, dev) == 0)
		return 0;
	if (errno != EEXIST || (ret = replace(parent, name, force)) == 0)
		return mknodat(parent, name, mode & ~07777u, dev) == 0 ? 0 : -errno;
	return ret;
}

int dirfs_symlink(int parent, const char *name, const char *target,
		  int force)
{
	int ret;

	if (symlinkat(target, parent, name) == 0)
		return 0;
	if (errno != EEXIST || (ret = replace(parent, name, force)) == 0)
		return symlinkat(target, parent, name) == 0 ? 0 : -errno;
	return ret;
}

int dirfs_link(int from_dir, const char *from_name, int parent,
	       const char *name, int force)
{
	int ret;

	if (linkat(from_dir, from_name, parent, name, 0) == 0)
		return 0;
	if (errno != EEXIST || (ret = replace(parent, name, force)) == 0)
		return linkat(from_dir, from_name, parent, name, 0) == 0 ?
			0 : -errno;
	return ret;
}

int dirfs_owner(int fd, int parent, const char *name, uint32_t uid,
		uint32_t gid)
{
	int r = fd >= 0 ? fchown(fd, uid, gid) :
		fchownat(parent, name, uid, gid, AT_SYMLINK_NOFOLLOW);

	return r == 0 ? 0 : -errno;
}

int dirfs_mode(int fd, int parent, const char *name, uint32_t mode)
{
	/* fchmodat cannot refuse to follow; only non-links come here by
	 * name, and they were just made by this process. */
	int r = fd >= 0 ? fchmod(fd, mode & 07777) :
		fchmodat(parent, name, mode & 07777, 0);

	return r == 0 ? 0 : -errno;
}

int dirfs_mtime(int fd, int parent, const char *name, int64_t mtime,
		uint32_t nsec)
{
	struct timespec ts[2] = { { mtime, nsec }, { mtime, nsec } };
	int r = fd >= 0 ? futimens(fd, ts) :
		utimensat(parent, name, ts, AT_SYMLINK_NOFOLLOW);

	return r == 0 ? 0 : -errno;
}

int dirfs_xattr(int fd, int parent, const char *name,
		const struct sqp_xattr *x)
{
	char path[64 + 256];
	int r;

	if (fd >= 0) {
		r = fsetxattr(fd, x->key, x->value, x->value_len, 0);
	} else {
		/* No fd for a link or a node: its parent's descriptor through
		 * /proc, and the l- call that does not follow the last one. */
		snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", parent, name);
		r = lsetxattr(path, x->key, x->value, x->value_len, 0);
	}
	return r == 0 ? 0 : -errno;
}
