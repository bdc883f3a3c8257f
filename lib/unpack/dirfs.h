/* SPDX-License-Identifier: MIT */
/*
 * dirfs.h - making entries in a directory tree only through descriptors
 * of directories opened without following symlinks (img2dir's system
 * calls). Names passed here are single components the reader already
 * checked (never "", ".", ".." or holding '/').
 */
#ifndef SQP_UNPACK_DIRFS_H
#define SQP_UNPACK_DIRFS_H

#include <stdint.h>
#include <sys/types.h>

#include "sqpack/entry.h"

/* The directory name in parent, made with perm (the umask applies;
 * the caller keeps it writable while it is filled) when missing; an
 * existing directory is reused (*made 0), anything else replaced when
 * force. Returns an fd (O_DIRECTORY, O_NOFOLLOW) or -errno. */
int dirfs_mkdir(int parent, const char *name, int force, mode_t perm,
		int *made);

/* Descend rel ('/'-separated components, may be "") from root, making
 * the directories that are missing (0755); returns an fd or -errno. */
int dirfs_mkdirs(int root, const char *rel);

/* Open rel's directories from root without making or following
 * anything; returns an fd or -errno. */
int dirfs_open_dirs(int root, const char *rel, size_t len);

/* A new regular file name in parent for writing (O_EXCL, O_NOFOLLOW),
 * asked for perm (the umask applies); an existing one replaced when
 * force. Returns an fd or -errno. */
int dirfs_create(int parent, const char *name, int force, mode_t perm);

/* Whether what is made in the directory fd may get another group than
 * the process's (a set-group-ID directory) or another mode than the one
 * asked less the umask (a default ACL): 1, or when that cannot be told;
 * else 0. */
int dirfs_passes_on(int fd);

/* The process's umask, read without changing it (umask(2) would, for a
 * moment, under every thread): 0 or -errno. */
int dirfs_umask(mode_t *out);

/* The node (fifo, socket, device), symlink or hard link name in parent;
 * an existing entry replaced when force. 0 or -errno. */
int dirfs_mknod(int parent, const char *name, mode_t mode, dev_t dev,
		int force);
int dirfs_symlink(int parent, const char *name, const char *target,
		  int force);
int dirfs_link(int from_dir, const char *from_name, int parent,
	       const char *name, int force);

/* Attributes of an entry: by fd when fd >= 0, else name in parent
 * without following it. Each returns 0 or -errno. */
int dirfs_owner(int fd, int parent, const char *name, uint32_t uid,
		uint32_t gid);
int dirfs_mode(int fd, int parent, const char *name, uint32_t mode);
int dirfs_mtime(int fd, int parent, const char *name, int64_t mtime,
		uint32_t nsec);
int dirfs_xattr(int fd, int parent, const char *name,
		const struct sqp_xattr *x);

#endif
