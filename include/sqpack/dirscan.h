/* SPDX-License-Identifier: MIT */
/*
 * dirscan.h - pack directory trees: scan them, then feed every entry to an
 * image writer, with file contents read by parallel reader threads.
 *
 * create scans the trees (metadata only) and sorts every directory's
 * entries by name, so the image never depends on readdir order; the totals
 * are then known. feed adds the entries to a writer in that order (or, with
 * a policy holding a sort file, file data by descending priority): reader
 * threads open and read files ahead of the writer - small files whole,
 * large ones streamed by the writer's thread - within a memory budget
 * however many files are in flight.
 *
 * Faithful to the disk: hard links (same device and inode) become links,
 * xattrs are read with llistxattr/lgetxattr, sparse files are read with
 * SEEK_DATA/SEEK_HOLE so holes are never read. A file whose size changes
 * while it is read, or that vanishes, fails the feed naming it (or, with
 * SQP_DIRSCAN_CHANGE_WARN, is stored as read with a warning: a shrunk file
 * is padded with zero bytes to the size it had when opened, a grown one cut
 * there; a vanished one is left out).
 *
 * Thread safety: one dirscan belongs to one thread; it starts its own
 * readers during feed.
 */
#ifndef SQPACK_DIRSCAN_H
#define SQPACK_DIRSCAN_H

/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/dirscan.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_dirscan;
struct sqp_writer;
struct sqp_policy;

#define SQP_DIRSCAN_KEEP_DIR        0x0001 /* one DIR becomes a top-level directory */
#define SQP_DIRSCAN_ONE_FS          0x0002 /* do not descend into other file systems */
#define SQP_DIRSCAN_NO_HARDLINKS    0x0004 /* every path its own inode */
#define SQP_DIRSCAN_NO_XATTRS       0x0008 /* do not read xattrs */
#define SQP_DIRSCAN_SKIP_UNREADABLE 0x0010 /* warn and leave out unreadable entries */
#define SQP_DIRSCAN_CHANGE_WARN     0x0020 /* a file changed while read: warn, store as read */
#define SQP_DIRSCAN_KEEP_PATH       0x0040 /* each DIR packed at its own path */

struct sqp_dirscan_desc {
	/* The trees. One (without KEEP_DIR): its contents are the image root
	 * and the root takes its owner, mode and time. Several: each is a
	 * top-level directory named after its last component (the names
	 * must differ). A path that lstat finds is not a directory (a file,
	 * a symlink, which is not followed, a device, a fifo) is one
	 * top-level entry of that name, alone or not, as mksquashfs takes
	 * such a source. Borrowed during create.
	 *
	 * With KEEP_PATH (mksquashfs -no-strip) each DIR is packed at its
	 * path instead, KEEP_DIR or not: a leading '/', "./" and "../" are
	 * dropped, the directories it names on the way become directories
	 * of the image with the attributes those have on disk (only they
	 * are read, none of their other entries), and the last component is
	 * packed whole. A '.' or '..' later in the path, a path that is
	 * nothing but those, or a component on the way that is not a
	 * directory (a symlink is not followed) is an error. Paths may
	 * share leading directories; one inside another's last component
	 * adds nothing. When every DIR starts in the same directory, that
	 * directory is the root. */
	const char *const *dirs;
	size_t dir_count;

	unsigned flags;         /* SQP_DIRSCAN_* */

	/* Optional, borrowed until destroy: excluded paths are not scanned
	 * (nor descended into); its sort priorities order the file data. */
	const struct sqp_policy *policy;

	unsigned readers;       /* reader threads; 0 = online CPUs */
	size_t memory;          /* bytes read ahead at most; 0 = 32 MiB */

	sqp_warn_fn warn;       /* optional */
	void *warn_user;

	/* Optional: called with each path as it is added (--verbose). */
	void (*on_entry)(void *user, const char *path);
	void *on_entry_user;
};

/* Scan the trees. On failure *out is still set when it could be made, so
 * sqp_dirscan_error() can explain. */
SQP_API int sqp_dirscan_create(const struct sqp_dirscan_desc *desc,
			       struct sqp_dirscan **out);

/* What the scan found: entries and bytes of regular file data. */
SQP_API void sqp_dirscan_totals(const struct sqp_dirscan *s, uint64_t *entries,
				uint64_t *bytes);

struct sqp_shard_span;

/* Keep only shard `index` of `count` (shard.h) of what the scan found:
 * the feed and the totals then cover that part alone, and the other
 * files are never opened. spans (count of them, or NULL) gets the plan,
 * its paths valid until destroy. Between create and feed, once. */
SQP_API int sqp_dirscan_shard(struct sqp_dirscan *s, unsigned index, unsigned count,
			      struct sqp_shard_span *spans);

/* Add every entry to w (does not finish it). On failure the message is
 * sqp_dirscan_error(), the writer's own included ("the image: ..."). */
SQP_API int sqp_dirscan_feed(struct sqp_dirscan *s, struct sqp_writer *w);

SQP_API const char *sqp_dirscan_error(const struct sqp_dirscan *s);

SQP_API void sqp_dirscan_destroy(struct sqp_dirscan *s);

#ifdef __cplusplus
}
#endif
#endif
