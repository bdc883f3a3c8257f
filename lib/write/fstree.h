/* SPDX-License-Identifier: MIT */
/*
 * fstree.h - the in-memory tree of the image being written.
 *
 * Only metadata lives here (names, attributes, block lists); file contents
 * go straight to the image. A node is a directory entry, an inode what it
 * points to: hard links are several nodes sharing one inode. Directories
 * own their children; a directory inode is never shared.
 *
 * A tree can hold hundreds of millions of entries, so its records are
 * small and packed: nodes and inodes live in chunked arrays (stable
 * addresses, no per-record allocation) and refer to each other by 32-bit
 * index; a node stores only its own name, once, in a name arena; children
 * form a singly linked list through their nodes. Paths are looked up one
 * component at a time through a hash table keyed by (parent, name), with
 * the last directory looked up remembered, so entries may arrive in any
 * order and missing parents are implied. A directory's children enter
 * that table only once something is looked up in it out of order: tar
 * lists most directories sorted, and a name after the last one so far
 * needs no lookup, so the files of leaf directories (most entries) never
 * cost a table slot or a random memory access.
 */
#ifndef SQP_WRITE_FSTREE_H
#define SQP_WRITE_FSTREE_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/entry.h"
#include "util/chunkarr.h"
#include "util/errbuf.h"

struct sqp_spill;

/* No node or inode (an end of list, a node not yet given an inode). */
#define FS_NONE UINT32_MAX
/* A node's inode once the node died with a replaced directory. */
#define FS_DEAD (UINT32_MAX - 1)
/* fstree.bare_start before any file has set it. */
#define FS_BARE_UNSET UINT64_MAX

/*
 * A regular file's data placement, as the data pipe fills it in
 * (datapipe_add_file, datapipe_resolve). The tree does not keep it in
 * this form: fstree_file_set packs it into the file's fs_irec (most files
 * need only a size and a fragment position) and fstree_file_get unpacks
 * it; block lists, sparse bytes and sizes past 4 GiB go to a side record.
 */
struct fs_inode {
	union {
		struct {
			uint64_t size;
			uint64_t blocks_start;
			uint64_t sparse;       /* bytes in holes */
			uint32_t *block_sizes; /* on-disk size words (owned) */
			uint32_t block_count;
			/* Where the tail went, in its back end's words (see
			 * fs_irec's: the same two, kept there as they are). */
			union {
				struct { /* the data pipe's, SquashFS's */
					uint32_t frag_index;
					uint32_t frag_offset;
				};
				struct { /* EROFS's */
					uint32_t ero_rec;
					uint32_t ero_zip;
				};
			};
		} file;
	} u;
};

/* The side record of a file with blocks, holes or 4 GiB and more. */
struct fs_blocks {
	uint64_t blocks_start;
	uint64_t sparse;
	uint32_t *block_sizes;
	uint32_t block_count;
	uint32_t size_hi;
};

/*
 * An inode in the tree: 64 bytes, whatever its type. Its attributes are
 * the entry's, in no format's ranges (32-bit owners and device numbers,
 * 64-bit times with nanoseconds): each back end maps them to its own
 * records and refuses, when the entry comes, what its format cannot hold.
 */
struct fs_irec {
	uint16_t mode;          /* st_mode: file type and permission bits */
	uint8_t implied;        /* directory made up for a missing parent */
	uint8_t written;
	uint32_t uid;
	uint32_t gid;
	uint32_t mtime_nsec;
	int64_t mtime;          /* seconds since the epoch */
	uint32_t xattr_set;     /* xattr set index, or WR_NO_XATTR */
	uint32_t nlink;         /* counted before serialisation */
	uint32_t inode_number;  /* assigned before serialisation */
	uint64_t ref;           /* inode table reference once written */

	union {
		struct {
			uint32_t first;        /* first child node, FS_NONE if empty */
			uint32_t last;         /* last child node, for appending */
			uint32_t pending;      /* serialisation: its waiting inode */
			uint32_t indexed;      /* its children are in the path table */
		} dir;
		struct {
			uint32_t size_lo;
			/* Where the tail went: two words, named by the back
			 * end that fills them, so that none means two things.
			 * The tree copies them as they are (fstree_file.c); a
			 * new file has no tail in either's words
			 * (WR_NO_FRAGMENT and FS_NONE are one value). */
			union {
				struct { /* the data pipe's, SquashFS's */
					uint32_t frag_index;  /* fragment block, or
							       * WR_NO_FRAGMENT */
					uint32_t frag_offset; /* the tail's offset in it */
				};
				struct { /* EROFS's (its back end's header) */
					uint32_t ero_rec;     /* tail arena index (FS_NONE:
							       * none), or with ero_zip
							       * the index record */
					uint32_t ero_zip;     /* compressed: its mark, else 0 */
				};
			};
			uint32_t blocks;       /* side record, FS_NONE if none */
		} file;
		struct {
			uint32_t target;       /* in the name arena */
		} symlink;
		struct {
			uint32_t major;
			uint32_t minor;
		} dev;
	} u;
};

struct fs_node {
	uint32_t name;          /* offset of the NUL-terminated name in the arena */
	uint32_t parent;        /* node index; FS_NONE for the root */
	uint32_t inode;         /* inode index; FS_NONE until given one,
				 * FS_DEAD once removed with a replaced directory */
	uint32_t next;          /* next sibling, FS_NONE at the end */
};

/* Attributes of a new entry, in the tree's ranges (see fs_irec). */
struct fs_attr {
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint32_t mtime_nsec;
	int64_t mtime;
	uint32_t xattr_set;
};

/*
 * Per node, once layers are in use (fstree_layers.c): the layer that made
 * the node (0 is the topmost; a node keeps its first layer, so a lower
 * layer never replaces it) and the layer, plus one, of the uppermost
 * opaque marker on a directory (0 = none): the layers below that one see
 * nothing under it.
 */
struct fs_lrec {
	uint16_t layer;
	uint16_t opaque;
};

/* Layers at most (uint16_t records, the opaque one counting from 1). */
#define FS_MAX_LAYERS 65534

struct fstree {
	struct chunkarr nodes;  /* struct fs_node; node 0 is the root */
	struct chunkarr inodes; /* struct fs_irec */
	struct chunkarr names;  /* bytes: names and link targets, NUL-terminated */
	struct chunkarr blocks; /* struct fs_blocks */
	uint64_t bare_start;    /* blocks_start of every file without a side record */
	struct chunkarr lrecs;  /* struct fs_lrec by node, when layered */
	int layered;            /* lrecs kept (a layer or a whiteout came) */
	uint32_t layer;         /* the layer entries now belong to */

	uint32_t *map;          /* node index + 1 by (parent, name); 0 = empty;
				 * freed by fstree_finalize (no lookups after) */
	uint8_t *map_tags;      /* per slot: a byte of the name's hash, 0 = empty */
	size_t map_size;        /* a power of two */
	size_t map_used;

	/* The directory found last (tar entries come a directory at a time). */
	char *last_path;
	size_t last_len;
	size_t last_cap;
	uint32_t last_node;

	struct sqp_spill *spill; /* borrowed; NULL = the heap */
	struct sqp_errbuf *err;
	sqp_warn_fn warn;
	void *warn_user;
};

static inline struct fs_node *fstree_node(const struct fstree *t, uint32_t i)
{
	return chunkarr_at(&t->nodes, i);
}

static inline struct fs_irec *fstree_inode(const struct fstree *t, uint32_t i)
{
	return chunkarr_at(&t->inodes, i);
}

static inline const char *fstree_name(const struct fstree *t, const struct fs_node *n)
{
	return chunkarr_at(&t->names, n->name);
}

static inline uint32_t fstree_inode_count(const struct fstree *t)
{
	return t->inodes.count;
}

static inline const char *fstree_target(const struct fstree *t, const struct fs_irec *r)
{
	return chunkarr_at(&t->names, r->u.symlink.target);
}

/* Unpack file r's data placement into out (block_sizes stays the tree's). */
void fstree_file_get(const struct fstree *t, const struct fs_irec *r,
		     struct fs_inode *out);

/* Pack in into file r, taking over in->u.file.block_sizes (freed on
 * failure too). */
int fstree_file_set(struct fstree *t, struct fs_irec *r, struct fs_inode *in);

/* Unpack every regular file, let fn update it, pack it back. */
int fstree_each_file(struct fstree *t, void (*fn)(void *user, struct fs_inode *ino),
		     void *user);

/* Store a symlink's target with r. */
int fstree_set_target(struct fstree *t, struct fs_irec *r, const char *target);

/* The tree's records, names and path table come from spill (see
 * util/spill.h; NULL = the heap). */
int fstree_init(struct fstree *t, struct sqp_errbuf *err,
		sqp_warn_fn warn, void *warn_user, struct sqp_spill *spill);
void fstree_cleanup(struct fstree *t);

/*
 * Create the entry at path (normalised, "" = root) or replace the one
 * there (with a warning; a directory over a directory only takes the new
 * attributes). Returns 0 and the inode to fill in, or an error. The inode
 * stays at that address for the life of the tree.
 */
int fstree_add(struct fstree *t, const char *path, const struct fs_attr *attr,
	       struct fs_irec **out);

/* Make path a hard link to the inode at target, which must exist and not
 * be a directory. */
int fstree_link(struct fstree *t, const char *path, const char *target);

/* The live node at path, or NULL (always, once finalized). */
struct fs_node *fstree_lookup(struct fstree *t, const char *path);

/* The inode record at path (normalised, "" = root), or NULL; like
 * fstree_lookup, only before fstree_finalize. */
struct fs_irec *fstree_find(struct fstree *t, const char *path);

/* Give r attr's mode, owners, mtime and xattr set. */
void fstree_set_attr(struct fs_irec *r, const struct fs_attr *attr);

/* Building blocks for fstree_layers.c. The node (live or dead) named
 * name[0..len) under directory node parent, or FS_NONE. */
int fstree_child(struct fstree *t, uint32_t parent, const char *name,
		 size_t len, uint32_t *out);
/* The directory node for path[0..len), implied (with its parents) if
 * missing; entry names the entry in messages. */
int fstree_dir(struct fstree *t, const char *path, size_t len,
	       const char *entry, uint32_t *out);
/* A node without an inode for name[0..len) under parent (FS_NONE for
 * the root), or a dead one there revived; the caller found no live node
 * there. link: appended to parent's children; else only in the path
 * table (a whiteout's dead node). */
int fstree_add_node(struct fstree *t, uint32_t parent, const char *name,
		    size_t len, int link, uint32_t *out);

/* Layers (fstree_layers.c). A record for new node i. */
int fstree_layer_node(struct fstree *t, uint32_t i);
/* Entries from now on belong to the next lower layer. */
int fstree_next_layer(struct fstree *t);
/* 1 when an entry at path (is_dir: a directory entry) in the current
 * layer is hidden by an upper layer, 0 when it is to be added, or an
 * error. */
int fstree_shadowed(struct fstree *t, const char *path, int is_dir);
/* path is deleted (opaque: the directory at path is emptied) for the
 * layers below the current one. */
int fstree_whiteout(struct fstree *t, const char *path, int opaque);

/* The node at path when the current layer made it (with an inode, or
 * FS_NONE while it waits for a hard link's target), else NULL. */
struct fs_node *fstree_current(struct fstree *t, const char *path);

/* Implied directories as mkfs.erofs --tar makes them
 * (SQP_WRITE_IMPLIED_FROM_PARENT): the root 0777, any other 0755 with
 * its parent's group- and other-write bits, owner and group. */
void fstree_imply_from_parents(struct fstree *t);

/* Free the path table: no lookups from now on (fstree_finalize). */
void fstree_drop_lookups(struct fstree *t);

/* Sort every directory's children by name (byte order), count links and
 * stamp implied directories with mtime (no nanoseconds). Nothing can be
 * added after it. */
void fstree_finalize(struct fstree *t, int64_t implied_mtime);

#endif
