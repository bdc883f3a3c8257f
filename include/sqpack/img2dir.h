/* SPDX-License-Identifier: MIT */
/*
 * img2dir.h - extract an image (or some of its subtrees) into a
 * directory.
 */
#ifndef SQPACK_IMG2DIR_H
#define SQPACK_IMG2DIR_H

#include <stddef.h>
#include "sqpack/api.h"
#include "sqpack/reader.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SQP_IMG2DIR_FORCE 0x0001     /* replace existing non-directories */
#define SQP_IMG2DIR_NO_OWNER 0x0002  /* leave owners as they come (and
					drop set-id bits, which would
					name whoever extracts) */
#define SQP_IMG2DIR_NO_XATTRS 0x0004
#define SQP_IMG2DIR_USER_XATTRS 0x0008  /* only the user.* xattrs (a
					   rootless runtime's choice) */
#define SQP_IMG2DIR_STRICT 0x0010    /* what is otherwise only warned
					about (below) is an error */
#define SQP_IMG2DIR_IGNORE_WRITES 0x0020  /* a regular file that cannot
					     be created or written (then
					     removed), a directory or
					     hard link that cannot be
					     made (a directory's entries
					     then skipped) or an xattr
					     that cannot be set is
					     warned about, not an error */
#define SQP_IMG2DIR_LENIENT 0x0040   /* as unsquashfs 4.5.1: a symlink,
					device, fifo or socket that
					cannot be made, an owner, mode
					or time that cannot be set, is
					warned about, not an error (a
					fifo or socket even with STRICT),
					and a symlink or node whose
					attributes were refused is
					reported through skipped(). Its
					xattrs: with NO_OWNER only
					user.* is tried (the first other
					one is warned about); a file
					system without xattrs is warned
					about once, then none is tried;
					any other refusal is an error
					unless IGNORE_WRITES. Without
					FORCE, an existing directory is
					an error, an existing regular
					file replaced (other entries in
					the way stay errors). */

struct sqp_img2dir_desc {
	size_t struct_size;  /* sizeof(struct sqp_img2dir_desc): see sqpack/api.h */
	unsigned jobs;               /* decompression threads; 0 = CPUs */
	unsigned flags;              /* SQP_IMG2DIR_* */
	const char *const *paths;    /* subtrees to extract; NULL = all */
	size_t path_count;
	/* Optional: whether to set the xattr named key (full name,
	 * "user.x"); NULL keeps every one (SQP_IMG2DIR_USER_XATTRS and
	 * NO_XATTRS still apply first). Called on the thread that called
	 * sqp_image_to_dir(). */
	int (*xattr_keep)(void *user, const char *key);
	void *xattr_user;
	/* Optional: called on the thread that called sqp_image_to_dir()
	 * as each entry is about to be made, parents first, in walk order
	 * (before a file's data is written), with its image path ("" for
	 * the root) and attributes: a tool prints the entries as they are
	 * extracted. A non-zero return stops the extraction and is
	 * returned. */
	int (*entered)(void *user, const char *path,
		       const struct sqp_inode_info *info);
	/* Optional, on the same thread: an entry that was warned about and
	 * not made (a device node without privilege; with IGNORE_WRITES or
	 * LENIENT what they let pass), or one below a directory not made
	 * (not warned about), or with LENIENT a symlink or node made whose
	 * attributes were refused (unsquashfs does not count it), so a
	 * tool counts what it made. mode is the entry's, or 0 for a hard
	 * link (a second name of an inode). */
	void (*skipped)(void *user, const char *path, uint32_t mode);
	void *cb_user;                /* for entered() and skipped() */
	/* Fields are only ever added after this one. */
};

/*
 * Extract into the directory open as dirfd (borrowed): each entry at its
 * image path below it, parents before children, a directory's mode,
 * owner and times set after its children are written; hard links as
 * links, holes as holes (the file is extended, not written). Every entry
 * is made relative to a descriptor of its parent directory, which was
 * opened without following symlinks, so nothing is created or followed
 * outside dirfd, whatever the image holds. Existing directories are
 * merged; other existing entries are an error unless FORCE.
 *
 * Entries the system refuses without being fatal (a device node or an
 * owner without privilege, an xattr the file system rejects) are
 * reported through the image's warn function and skipped (and so is
 * what IGNORE_WRITES and LENIENT let pass); with
 * SQP_IMG2DIR_STRICT the first of them ends the extraction, as an
 * error. Returns 0 or
 * an error (message in sqp_image_error()); the tree is then incomplete.
 */
SQP_API int sqp_image_to_dir(struct sqp_image *img, int dirfd,
			     const struct sqp_img2dir_desc *desc);

#ifdef __cplusplus
}
#endif
#endif
