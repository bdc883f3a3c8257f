/* SPDX-License-Identifier: MIT */
/*
 * fstree.h - the in-memory tree of the image being written.
 *
 * Only metadata lives here (names, attributes, block lists); file contents
 * go straight to the image. A node is a directory entry, an inode what it
 * points to: hard links are several nodes sharing one inode. Directories
 * own their children; a directory inode is never shared.
 *
 * Paths are looked up through one hash table of full paths, so entries may
 * arrive in any order and missing parents are implied.
 */
#ifndef SQP_WRITE_FSTREE_H
#define SQP_WRITE_FSTREE_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/entry.h"
#include "util/errbuf.h"

struct fs_node;

struct fs_inode {
	uint32_t mode;          /* full st_mode */
	uint32_t uid;
	uint32_t gid;
	uint32_t mtime;
	uint32_t xattr_set;     /* xattr set index, or SQFS_NO_XATTR */
	uint32_t nlink;         /* counted before serialisation */
	uint32_t inode_number;  /* assigned before serialisation */
	uint64_t ref;           /* inode table reference once written */
	uint8_t implied;        /* directory made up for a missing parent */
	uint8_t written;

	union {
		struct {
			struct fs_node **children;
			size_t count;
			size_t cap;
		} dir;
		struct {
			uint64_t size;
			uint64_t blocks_start;
			uint64_t sparse;       /* bytes in holes */
			uint32_t *block_sizes; /* on-disk size words */
			uint32_t block_count;
			uint32_t frag_index;
			uint32_t frag_offset;
		} file;
		struct {
			char *target;
		} symlink;
		struct {
			uint32_t rdev;
		} dev;
	} u;
};

struct fs_node {
	char *path;             /* full path, "" for the root */
	const char *name;       /* last component, inside path */
	uint64_t hash;
	struct fs_node *parent;
	struct fs_inode *inode;
	int dead;               /* removed with a replaced directory */
};

/* Attributes of a new entry, already converted to SquashFS ranges. */
struct fs_attr {
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint32_t mtime;
	uint32_t xattr_set;
};

struct fstree {
	struct fs_node *root;

	struct fs_node **map;   /* open addressing, power-of-two size */
	size_t map_size;
	size_t map_used;

	/* Every node and inode ever made, for cleanup and traversal. */
	struct fs_node **nodes;
	size_t node_count;
	size_t node_cap;
	struct fs_inode **inodes;
	size_t inode_count;
	size_t inode_cap;

	struct sqp_errbuf *err;
	sqp_warn_fn warn;
	void *warn_user;
};

int fstree_init(struct fstree *t, struct sqp_errbuf *err,
		sqp_warn_fn warn, void *warn_user);
void fstree_cleanup(struct fstree *t);

/*
 * Create the entry at path (normalised, "" = root) or replace the one
 * there (with a warning; a directory over a directory only takes the new
 * attributes). Returns 0 and the inode to fill in, or an error.
 */
int fstree_add(struct fstree *t, const char *path, const struct fs_attr *attr,
	       struct fs_inode **out);

/* Make path a hard link to the inode at target, which must exist and not
 * be a directory. */
int fstree_link(struct fstree *t, const char *path, const char *target);

/* The inode at path (normalised), or NULL. */
struct fs_inode *fstree_find(const struct fstree *t, const char *path);

/* Sort every directory's children by name (byte order), count links and
 * stamp implied directories with mtime. */
void fstree_finalize(struct fstree *t, uint32_t implied_mtime);

#endif
