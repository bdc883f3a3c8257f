/* SPDX-License-Identifier: MIT */
/*
 * policy.h - what happens to entries on their way into an image: owners,
 * times, exclusions, placement priority and spec definitions.
 *
 * Both tar2img and dir2img take the same options (--all-root, --uid-offset,
 * --mtime, --clamp-mtime, --exclude, --sort, --spec...); they are
 * implemented once here. A writer given a policy (writer.h: desc.policy)
 * applies it to every entry added, and adds the spec's own entries
 * (directories, symlinks, device nodes...) when it finishes.
 *
 * Order of the transforms for one entry: excluded entries are dropped;
 * then the fs_config line's owners and mode (below); then owners
 * (--all-root, or the offsets and then --uid/--gid); then the
 * time (--mtime, else --clamp-mtime). The spec's "m" lines are applied by
 * the writer last, to the inode the path names once the tree is complete
 * (so an explicit line wins over the global options, and a line for one
 * name of a hard-linked file changes the file whichever name came first).
 *
 * Spec syntax (mksquashfs pseudo definitions), one per line:
 *   PATH d MODE UID GID                directory
 *   PATH m MODE UID GID                modify an existing entry
 *   PATH s MODE UID GID TARGET         symlink
 *   PATH c|b MODE UID GID MAJOR MINOR  character or block device
 *   PATH i MODE UID GID f|s            fifo or socket
 *   PATH l TARGET-PATH                 hard link to an existing entry
 * The upper-case letters D M S C B I take a time (seconds since the epoch)
 * before MODE. MODE is octal; UID and GID are numbers (or "root"). PATH may
 * be quoted with "" or use \ escapes; '#' starts a comment line.
 *
 * Thread safety: once set up, the policy is only read; any thread may use
 * it.
 */
#ifndef SQPACK_POLICY_H
#define SQPACK_POLICY_H

/* Unstable (doc/contributing.md): the tools' own helpers, exported under
 * the version node SQPACK_UNSTABLE, outside the ABI promise; they may
 * change in any release. */
#ifndef SQPACK_UNSTABLE_API
#error "sqpack/policy.h is unstable API: define SQPACK_UNSTABLE_API to use it"
#endif

#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_policy;

#define SQP_POLICY_ALL_ROOT    0x0001 /* every entry owned by 0:0 */
#define SQP_POLICY_SET_UID     0x0002 /* every entry owned by desc.uid */
#define SQP_POLICY_SET_GID     0x0004 /* every entry's group desc.gid */
#define SQP_POLICY_SET_MTIME   0x0008 /* every mtime is desc.mtime */
#define SQP_POLICY_CLAMP_MTIME 0x0010 /* mtimes newer than desc.mtime clamped */

struct sqp_policy_desc {
	unsigned flags;        /* SQP_POLICY_* */
	uint32_t uid, gid;     /* SET_UID / SET_GID */
	int64_t uid_offset;    /* added to every uid (before SET_UID) */
	int64_t gid_offset;
	int64_t mtime;         /* SET_MTIME / CLAMP_MTIME */
	sqp_warn_fn warn;      /* optional */
	void *warn_user;
};

SQP_API int sqp_policy_create(const struct sqp_policy_desc *desc,
			      struct sqp_policy **out);
SQP_API void sqp_policy_destroy(struct sqp_policy *p);
SQP_API const char *sqp_policy_error(const struct sqp_policy *p);

/*
 * Exclusion patterns: shell globs (*, ?, [...]) on the path relative to
 * the image root. "**" also crosses '/'. A pattern without '/' matches any
 * single component; one with '/' the whole path from the root (a leading
 * "/" or "./" is ignored). An excluded directory excludes its contents.
 * The file form takes one pattern per line; empty and '#' lines ignored.
 */
SQP_API int sqp_policy_add_exclude(struct sqp_policy *p, const char *pattern);
/* A POSIX extended regex, matched anywhere in the path relative to the
 * image root (no leading '/') and in each of its ancestors' paths, as
 * mkfs.erofs's --exclude-regex. SQP_ERR_ARG when it does not compile. */
SQP_API int sqp_policy_add_exclude_regex(struct sqp_policy *p, const char *regex);
SQP_API int sqp_policy_load_excludes(struct sqp_policy *p, const char *file);

/* mksquashfs sort file: "PATH PRIORITY" per line (priority -32768..32767,
 * default 0); higher priorities have their data placed first. */
SQP_API int sqp_policy_load_sort(struct sqp_policy *p, const char *file);

/* Spec definitions (syntax above): a file, or one line. */
SQP_API int sqp_policy_load_spec(struct sqp_policy *p, const char *file);
SQP_API int sqp_policy_add_spec_line(struct sqp_policy *p, const char *line);

/* 1 when path (normalised, relative) is excluded, else 0. */
SQP_API int sqp_policy_excluded(const struct sqp_policy *p, const char *path);

/* The --sort priority of path (0 when not listed). */
SQP_API int sqp_policy_priority(const struct sqp_policy *p, const char *path);

/* 1 when a sort file was loaded (the order of data matters). */
SQP_API int sqp_policy_has_sort(const struct sqp_policy *p);

/*
 * Apply the transforms to e in place (attributes only; the path and the
 * borrowed pointers stay). Returns 1 when the entry is excluded (also a
 * hard link to an excluded path), 0 otherwise, or SQP_ERR_NOT_FOUND when an
 * fs_config file is loaded and has no line for the entry's path.
 */
SQP_API int sqp_policy_apply(const struct sqp_policy *p, struct sqp_entry *e);

/*
 * A selection on top of the exclusions: from now on sqp_policy_apply
 * excludes every entry for whose path keep(user, path) returns 0 (a hard
 * link by its own path: the caller keeps a link with its target), as
 * tar2img --shard leaves out what other shards hold. The scan's
 * sqp_policy_excluded does not ask it. keep NULL removes it.
 */
SQP_API void sqp_policy_set_keep(struct sqp_policy *p,
				 int (*keep)(void *user, const char *path), void *user);

/*
 * Security attributes, as Android's mkfs.erofs sets them.
 *
 * fs_config (mkfs.erofs --fs-config-file): Android's canned file, one
 * line per path, "PATH UID GID MODE [capabilities=N] [KEY=VALUE]...",
 * fields separated by spaces; PATH without its leading '/', the root as
 * "/" or "" (a line that starts with a space); UID and GID decimal, MODE
 * octal permission bits (at most 07777), N the capability mask (decimal,
 * or 0x hex). A later line for a path wins; empty lines are skipped.
 * Every entry then takes the owners and permission bits of its line,
 * before the owner options, and a capability mask other than 0 becomes
 * its security.capability (VFS revision 2, effective); an entry whose
 * path has no line fails sqp_policy_apply with SQP_ERR_NOT_FOUND, as
 * mkfs.erofs stops. The path looked up is MOUNT_POINT/PATH, or PATH
 * when no mount point is set; the root is "" either way. A bad line is
 * SQP_ERR_ARG, with the file name and line number in the message.
 */
SQP_API int sqp_policy_load_fs_config(struct sqp_policy *p, const char *file);

/*
 * Android's built-in fs_config (mkfs.erofs built for Android, given
 * --product-out and no --fs-config-file): libcutils' fs_config(). Every
 * entry takes the owners, permission bits and capabilities of the first
 * rule whose prefix matches MOUNT_POINT/PATH (without its leading '/';
 * a directory's with a '/' at its end, the root's "MOUNT_POINT/"): the
 * records of the generated PRODUCT_OUT/<part>/etc/fs_config_files (for
 * a directory, fs_config_dirs), for part system, vendor, oem, odm,
 * product and system_ext in that order, then libcutils' own table; a
 * path none matches is root's, 0755 for a directory and 0644 else. A
 * prefix is an fnmatch pattern whose '*' crosses '/' (a directory's
 * names it and everything below); a path under system/product/,
 * system/system_ext/, system/vendor/ or vendor/odm/ also matches its
 * partition's rules without its first component. product_out may end
 * in /system (as libcutils, it is then dropped) or be NULL (the table
 * alone); a part without the file is skipped, and nothing outside
 * product_out is read (libcutils would fall back to the host's /system).
 * A record cut short or malformed (a length not past its 16-byte head,
 * a prefix without its NUL, a mode beyond 07777) fails with the file
 * and the record's offset. A canned file, when one is loaded, is
 * looked up instead.
 */
SQP_API int sqp_policy_load_android_fs_config(struct sqp_policy *p,
					      const char *product_out);

/* The fs_config step of sqp_policy_apply alone: e's owners and
 * permission bits from its line (0; e unchanged when no file is
 * loaded), or SQP_ERR_NOT_FOUND. For the directories a writer makes up
 * for missing parents, which the other transforms leave alone. */
SQP_API int sqp_policy_fs_config(const struct sqp_policy *p, struct sqp_entry *e);

/* --mount-point: where the image is mounted ("/system"); one trailing
 * '/' is dropped, as mkfs.erofs drops it. It prefixes the paths of the
 * fs_config lookups and of the labeler's. */
SQP_API int sqp_policy_set_mount_point(struct sqp_policy *p, const char *mount_point);

/*
 * A labeler (file_contexts, through libselinux in the tools): asked for
 * each entry's SELinux label with the path mkfs.erofs asks selabel for,
 * "/MOUNT_POINT/PATH" ("/PATH" without a mount point; the root's ends in
 * '/') and the entry's full mode. It returns 0 with *label set
 * (malloc'ed, taken by the policy), 1 when the path has no label (the
 * entry then has none), or a negative sqp_error. Once a labeler is set,
 * every entry's own security.selinux is replaced by the labeler's.
 * release (may be NULL) is called with user when the policy is
 * destroyed.
 */
typedef int (*sqp_label_fn)(void *user, const char *path, uint32_t mode, char **label);
SQP_API void sqp_policy_set_labeler(struct sqp_policy *p, sqp_label_fn fn, void *user,
				    void (*release)(void *user));

/* 1 when sqp_policy_xattrs may change an entry's xattrs. */
SQP_API int sqp_policy_has_xattrs(const struct sqp_policy *p);

/*
 * The entry's xattrs under the policy (after sqp_policy_apply, on an
 * entry that is no hard link): its own, with security.selinux from the
 * labeler and security.capability from the fs_config line. x is the
 * caller's, zeroed before first use and reused for every entry (so any
 * thread may call with its own); e->xattrs then point into x until the
 * next call. Returns 0 or a negative sqp_error (the labeler's). Free x
 * with sqp_policy_xattrs_free.
 */
struct sqp_policy_xattrs {
	struct sqp_xattr *v;
	size_t cap;
	char *label;
	uint8_t caps[20];
};
SQP_API int sqp_policy_xattrs(const struct sqp_policy *p, struct sqp_entry *e,
			      struct sqp_policy_xattrs *x);
SQP_API void sqp_policy_xattrs_free(struct sqp_policy_xattrs *x);

/* The spec's entries to add after all others (d, s, c, b, i and l lines),
 * in file order. Valid until destroy. Lines without a time have mtime
 * SQP_POLICY_IMAGE_TIME: the writer gives them the image's time. */
#define SQP_POLICY_IMAGE_TIME INT64_MIN
SQP_API size_t sqp_policy_extra_count(const struct sqp_policy *p);
SQP_API const struct sqp_entry *sqp_policy_extra(const struct sqp_policy *p,
						  size_t i);

/* The spec's "m" lines, in file order: path, permission bits in mode,
 * uid, gid, and mtime (SQP_POLICY_IMAGE_TIME when the line has none: the
 * entry keeps its own). Valid until destroy. */
SQP_API size_t sqp_policy_mod_count(const struct sqp_policy *p);
SQP_API const struct sqp_entry *sqp_policy_mod(const struct sqp_policy *p, size_t i);

#ifdef __cplusplus
}
#endif
#endif
