/* SPDX-License-Identifier: MIT */
/*
 * dir_impl.h - the directory packer's state, shared by scan.c (the walk),
 * readers.c (the reader threads), feed.c (entries into the writer) and
 * dirxattr.c.
 *
 * The scan keeps only what the feed needs to find each entry again: its
 * image path, the length of the part of that path that is not on disk
 * (the top-level name when several trees are packed), its type and size,
 * and its sort priority. Attributes are read again when the entry is fed,
 * so they are as current as the data.
 */
#ifndef SQP_DIR_DIR_IMPL_H
#define SQP_DIR_DIR_IMPL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "sqpack/dirscan.h"
#include "sqpack/policy.h"
#include "util/errbuf.h"

#define DNODE_NONE UINT32_MAX

struct dnode {
	uint64_t path;        /* offset of the image path in the arena */
	uint64_t size;        /* regular files: size at scan */
	uint32_t mode;        /* type bits at scan */
	uint32_t link;        /* hard link: the node it links to, else DNODE_NONE */
	int32_t prio;         /* --sort priority */
	uint16_t root;        /* index into the roots */
	uint16_t skip;        /* leading bytes of the image path not on disk */
};

struct droot {
	int fd;               /* the tree's directory (a leaf's: the one holding it) */
	char *abs;            /* its absolute path (for l*xattr on non-files) */
	dev_t dev;
	int leaf;             /* not a directory: one top-level entry */
};

/* A hard-link candidate found by the scan (nlink > 1). */
struct dlink {
	dev_t dev;
	ino_t ino;
	uint32_t node;
	uint32_t pos;         /* the node's place in the feed order */
};

/* Extended attributes of one entry, read into one buffer. */
struct dxattrs {
	char *names;          /* listxattr's NUL-separated list */
	uint8_t *values;      /* all values, back to back */
	struct sqp_xattr *list;
	size_t count;
};

/* One file being read ahead (readers.c). */
enum { SLOT_FREE, SLOT_BUSY, SLOT_READY };
struct rslot {
	int state;
	uint32_t node;
	int fd;               /* streamed files: open, else -1 */
	uint8_t *buf;         /* small files: the whole contents */
	uint64_t size;        /* the size to store (fstat at open) */
	uint64_t charged;     /* bytes held against the budget */
	struct stat st;       /* attributes at open */
	struct dxattrs xa;
	int err;              /* errno of a failed open/read, 0 */
	int changed;          /* size or time moved while read */
	int sparse;           /* may have holes: use SEEK_DATA */
	int streamed;         /* claimed as a large file (counts in open_streams) */
};

struct sqp_dirscan {
	struct sqp_dirscan_desc desc;
	struct sqp_errbuf err;

	struct droot *roots;
	size_t root_count;

	char *arena;          /* image paths, NUL-terminated */
	size_t arena_len, arena_cap;
	struct dnode *nodes;
	size_t node_count, node_cap;
	struct dlink *links;
	size_t link_count, link_cap;
	uint64_t total_bytes;

	uint32_t *order;      /* feed order: node numbers */
	size_t order_count;   /* the nodes fed (all, or a shard's: shard.c) */
	uint32_t *files;      /* regular non-link nodes in feed order */
	size_t file_count;
	uint32_t *left_out;   /* nodes left out with a warning (feed.c) */
	size_t left_out_count, left_out_cap;

	/* reader threads (readers.c); lock protects everything below */
	pthread_mutex_t lock;
	pthread_cond_t wake_readers, wake_feeder;
	pthread_t *threads;
	unsigned thread_count;
	struct rslot *slots;  /* ring of slot_count, indexed by file number */
	size_t slot_count;
	size_t next_claim;    /* next file number a reader takes */
	size_t consumed;      /* files the feeder has taken */
	uint64_t inflight;    /* bytes charged by slots not yet freed */
	unsigned open_streams;
	unsigned readers_idle; /* readers waiting on wake_readers */
	int stop;
};

static inline const char *dnode_path(const struct sqp_dirscan *s, const struct dnode *n)
{
	return s->arena + n->path;
}

/* The path relative to the node's root directory ("." for the root). */
static inline const char *dnode_disk_path(const struct sqp_dirscan *s, const struct dnode *n)
{
	const char *p = dnode_path(s, n) + n->skip;

	if (*p == '/')    /* below a top-level name: "name/x" -> "x" */
		p++;
	return *p ? p : ".";
}

int dir_scan(struct sqp_dirscan *s);
/* Record one entry; its image path is parent/name (or name at the top),
 * its index in *index (scan.c). */
int dir_add_node(struct sqp_dirscan *s, uint16_t root, uint16_t skip, const char *parent,
		 const char *name, const struct stat *st, uint32_t *index);
/* The children of directory node dir, open as fd (closed here), then its
 * subdirectories, walked (scan.c). */
int dir_walk_children(struct sqp_dirscan *s, uint32_t dir, int fd);
/* KEEP_PATH (keep.c): open each tree's starting directory, then scan the
 * trees at their paths. */
int dir_keep_open(struct sqp_dirscan *s);
int dir_keep_scan(struct sqp_dirscan *s);
/* Feed order, hard links and the file list (order.c). */
int dir_make_order(struct sqp_dirscan *s);

int readers_start(struct sqp_dirscan *s);
void readers_stop(struct sqp_dirscan *s);
/* Wait for file number i (in feed order) to be read ahead. */
struct rslot *readers_take(struct sqp_dirscan *s, size_t i);
/* Give the slot back (closes, frees, uncharges); every slot taken must be
 * released, in order. */
void readers_release(struct sqp_dirscan *s, struct rslot *slot);

/* fd >= 0: the open file; else path (absolute, not followed). Returns 0 or
 * an errno value; unsupported file systems give an empty set. */
int dir_read_xattrs(int fd, const char *path, struct dxattrs *out);
void dir_free_xattrs(struct dxattrs *x);

/* Room for need elements of size elem in *arr (capacity *cap, doubled
 * from 64): 0, or the latched out-of-memory error (scan.c). */
int dir_grow(struct sqp_dirscan *s, void **arr, size_t *cap, size_t need, size_t elem);

int dir_fail(struct sqp_dirscan *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void dir_warn(struct sqp_dirscan *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
