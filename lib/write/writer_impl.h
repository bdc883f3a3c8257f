/* SPDX-License-Identifier: MIT */
/*
 * writer_impl.h - the image writer's state, shared by the format-neutral
 * core (writer.c: life cycle; writer_add.c: entries; the layers, links
 * and renames; tar2img.c) and the format back ends it calls through
 * struct writer_format: SquashFS's (lib/squashfs/write.am) and EROFS's
 * (lib/erofs/write.am). The back ends include this header; the core
 * includes none of theirs.
 */
#ifndef SQP_WRITE_WRITER_IMPL_H
#define SQP_WRITE_WRITER_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "sqpack/writer.h"
#include "util/errbuf.h"
#include "util/hchain.h"
#include "write/datapipe.h"
#include "write/fstree.h"
#include "write/imgout.h"
#include "write/xattrs.h"

struct sqp_writer;
struct writer_test_hooks;
struct writer_base;
struct sqp_image;

/*
 * A format's back end, chosen once from desc.format (lib/formats:
 * sqp_writer_create) and never asked again: everything the core needs
 * of a format goes through these. Each keeps its own state in
 * w->fmt_state.
 */
struct writer_format {
	const char *name;       /* for messages: "SquashFS", "EROFS" */
	/* The desc fields only this format reads (the format-neutral ones
	 * are checked before). */
	int (*check)(const struct sqp_writer_desc *d, struct sqp_errbuf *err);
	/* Its state (w->fmt_state) and whatever goes first in the image. */
	int (*init)(struct sqp_writer *w, const struct writer_test_hooks *hooks);
	void (*cleanup)(struct sqp_writer *w);
	/* An entry (attributes a, in the tree's ranges) against the
	 * format's limits, before the tree takes it: a refusal names the
	 * format's limit; what it only narrows it may warn about. */
	int (*check_entry)(struct sqp_writer *w, const struct sqp_entry *e,
			   const struct fs_attr *a);
	/* A spec "m" line's new owners for path's inode, likewise. */
	int (*check_owners)(struct sqp_writer *w, const char *path, uint32_t uid,
			    uint32_t gid);
	/* A regular file's data, from data, into *file. */
	int (*add_file)(struct sqp_writer *w, const struct sqp_entry *e,
			struct fs_irec *ino, const struct sqp_data_source *data,
			struct fs_inode *file);
	/* Everything after the last entry (the spec's entries are in). */
	int (*finish)(struct sqp_writer *w);
	/* Optional, for lib/rebuild: whether a base image of this format
	 * (img) has data this writer takes as it is stored (codec, cluster
	 * size, layout agree); then each of its regular files comes as a
	 * writer_base without a copy, which add_base stores into *file,
	 * copying what it can and decoding b->src where it cannot. */
	int (*base_fits)(struct sqp_writer *w, struct sqp_image *img);
	int (*add_base)(struct sqp_writer *w, const struct sqp_entry *e,
			struct fs_irec *ino, const struct writer_base *b,
			struct fs_inode *file);
};

/* The back end for an image format (desc.format, known or not: the core
 * refuses an unknown one after). lib/formats holds the one that knows
 * them; the core calls it once. */
typedef const struct writer_format *(*writer_pick_fn)(int format);

/* writer.c: a writer for desc, the back end pick's; *out is set even on
 * failure (sqp_writer_create's convention), hooks NULL for none. */
int writer_new(const struct sqp_writer_desc *desc, writer_pick_fn pick,
	       const struct writer_test_hooks *hooks, struct sqp_writer **out);

struct sqp_writer {
	struct sqp_writer_desc desc;  /* copy; jobs resolved */
	struct sqp_errbuf err;
	struct sqp_spill *spill;      /* the tree's and tables' memory (NULL = heap) */
	struct imgout out;
	struct fstree tree;
	struct datapipe pipe;         /* SquashFS's data path (its init) */
	int pipe_ready;
	struct xattr_store xattrs;
	struct sqp_writer_stats stats;
	const struct writer_format *fmt; /* the back end */
	void *fmt_state;              /* its own state, its init's */

	int64_t newest_mtime;         /* of the entries, at least 0 */
	int finished;
	int adding_extras;            /* the policy's spec entries: not transformed */
	int policy_off;               /* a base image's entries added as they are
	                                 (SQP_ADD_IMAGE_AS_IS) */
	/* the policy's labels and capabilities for the entry being added
	 * (writer_add.c; NULL until a policy sets some) */
	struct sqp_policy_xattrs *pxattrs;
	/* writer_add_base: the regular file being added is a base image's,
	 * stored as this describes (NULL otherwise). */
	const struct writer_base *base_file;
	/* Sizes of the files layers brought from data sources (only once
	 * layered, with dedup; zeroed until the first): see
	 * writer_size_seen. */
	struct hchain layer_sizes;
	/* sqp_writer_expect_images (lib/rebuild/expect.c): per image, the
	 * fragment blocks that hold a tail of a file read through (those
	 * are decoded and their tails packed anew; the others are copied
	 * whole). Freed with the writer. */
	struct writer_expect {
		const struct sqp_image *img;
		uint8_t *repack;          /* one byte per fragment block */
		uint32_t frag_count;
	} *expect;
	size_t expect_count;
	/* Set there too: the inode and directory tables go at the codec's
	 * fastest level (codec_fastest_level). */
	int tables_fast;
	uint64_t entries_added;       /* for the progress callback */
	uint64_t bytes_read;
	uint64_t fail_meta_job;       /* test hook, see writer_test.h */
	struct verity *verity;        /* --verity's hasher, or NULL */
	int verity_separate, verity_hash_fd;
	uint64_t verity_hash_offset;  /* where the tree went */
	uint64_t verity_hash_pos;     /* bytes of it written to verity_hash_fd */
	struct writer_links *links;   /* hard links across layers, or NULL */
	struct writer_kept *kept;     /* hidden files of this layer (writer_kept.c) */
	struct sqp_tar_reader *layer_tar; /* the layer sqp_writer_add_tar reads */
	uint64_t tar_data_at;         /* where its entry's data starts in it, */
	int tar_data_known;           /* if sqp_tar_data_offset knows */
	char *lpath;                  /* a whiteout's path (writer_layers.c) */
	size_t lpath_cap;
	char *ppath, *ptarget;        /* paths below desc.prefix (owned, as is
				       * desc.prefix itself) */
	size_t ppath_cap, ptarget_cap;
	char **ren_from, **ren_to;    /* sqp_writer_rename's names (owned) */
	size_t ren_count;
	char *rpath, *rtarget;        /* an entry's renamed paths */
	size_t rpath_cap, rtarget_cap;
	char *opath;                  /* an overlay whiteout's path (writer_ovl.c) */
	size_t opath_cap;
	struct writer_ovl_mark *ovl;  /* directories to mark for overlayfs */
	size_t ovl_count, ovl_cap;
	struct sqp_xattr *oxattrs;    /* an entry's xattrs less overlayfs's */
	size_t oxattrs_cap;
};

#ifdef WITH_OPENSSL
/* verity_writer.c, only built with libcrypto: start the hasher (nothing
 * unless desc.verity), pad the image to its block size, and after the
 * superblock write the tree. Without it the writer refuses desc.verity
 * (writer.c) and never reaches these. */
int writer_verity_start(struct sqp_writer *w);
int writer_verity_pad(struct sqp_writer *w);
int writer_verity_finish(struct sqp_writer *w, const uint8_t *super, size_t super_len);
/* finish for a back end that rewrote its image's first 4 KiB after
 * writing on (EROFS's block 0): pad, flush, and hand the hasher those
 * bytes as they are now in the file. */
int writer_verity_seal(struct sqp_writer *w);
void writer_verity_destroy(struct sqp_writer *w);
#endif

struct kept_file;
/* writer_kept.c: a file of a tar layer that an upper layer hides, kept
 * within reach until the layer ends (src: its data, or NULL); the one
 * kept for path; it stored at path, unless a link took it already
 * (kept_linked names where); the link e to it, which takes its data or
 * links to the link that did; all dropped. */
int writer_kept_add(struct sqp_writer *w, const struct sqp_entry *e,
		    const struct sqp_data_source *src);
struct kept_file *writer_kept_find(struct sqp_writer *w, const char *path);
int writer_kept_store(struct sqp_writer *w, struct kept_file *k, const char *path);
const char *writer_kept_linked(const struct kept_file *k);
int writer_kept_link(struct sqp_writer *w, const struct sqp_entry *e,
		     struct kept_file *k);
void writer_kept_clear(struct sqp_writer *w);

/* writer_layers.c: 1 when e is an OCI whiteout marker (now applied), 0
 * when it is an entry, or an error. */
int writer_oci_marker(struct sqp_writer *w, const struct sqp_entry *e);
/* SQP_ADD_SHADOWED when an upper layer hides e, 0 to add it, or an error. */
int writer_shadowed(struct sqp_writer *w, const struct sqp_entry *e);
/* Whether path is normalised: relative, no empty, "." or ".." part. */
int writer_path_ok(const char *path);
/* e moved below desc.prefix (its strings in w's buffers until the next
 * call); *path alone for a whiteout's path. */
int writer_prefix_entry(struct sqp_writer *w, struct sqp_entry *e);
/* e's path (and hard link target) under its renamed top-level name
 * (writer_rename.c; strings in w's buffers until the next entry). */
int writer_rename_entry(struct sqp_writer *w, struct sqp_entry *e);
void writer_rename_free(struct sqp_writer *w);
int writer_prefix_path(struct sqp_writer *w, const char **path);
/* Leave out e, which an upper layer hides: SQP_ADD_SHADOWED or an error. */
int writer_skip(struct sqp_writer *w, const struct sqp_entry *e,
		const struct sqp_data_source *data);
/* writer_add.c: n bytes of src into buf, where a hole the source knows
 * of is zero-filled and skipped, not read. For formats that store a
 * hole's zeros as data (EROFS's compressed and flat files, its chunks):
 * a sparse file's gigabytes of holes then cost a memset, not read()s
 * through page-cache pages of zeros. */
int writer_read_filled(const struct sqp_data_source *src, void *buf, size_t n);
/* writer_add.c: e into the tree, its data from data (no policy, no layer
 * checks). */
int writer_add_entry(struct sqp_writer *w, const struct sqp_entry *e,
		     const struct sqp_data_source *data);

/* writer_links.c: hard links across layers. A layered hard link e (its
 * path not hidden): bound now, or waiting for its target below. */
int writer_link(struct sqp_writer *w, const struct sqp_entry *e);
/* Whether links wait for path; then writer_add_wanted adds e (shadowed:
 * hidden at its own path) for them. */
int writer_links_wanted(struct sqp_writer *w, const char *path);
int writer_add_wanted(struct sqp_writer *w, const struct sqp_entry *e,
		      const struct sqp_data_source *data, int shadowed);
/* A file of the current layer skipped unread; a new layer forgets them. */
int writer_links_skipped(struct sqp_writer *w, const char *path);
void writer_links_next_layer(struct sqp_writer *w);
/* writer_ovl.c (SQP_WRITE_OVERLAY_WHITEOUTS): 0 when e is no marker,
 * 1 when e (the caller's copy) now is the whiteout device to add, 2 when
 * nothing is to be added (an opaque marker, or with
 * SQP_WRITE_OVERLAY_STRIP any marker), or an error. writer_ovl_apply
 * sets the directories' xattrs once every entry is in.
 * writer_ovl_strip (SQP_WRITE_OVERLAY_STRIP): 1 when e is a whiteout
 * (not to be added), else 0 with e's xattrs less "trusted.overlay.opaque"
 * (an array the writer owns until the next call), or an error. */
struct writer_ovl_mark;
int writer_ovl_marker(struct sqp_writer *w, struct sqp_entry *e);
int writer_ovl_strip(struct sqp_writer *w, struct sqp_entry *e);
int writer_ovl_apply(struct sqp_writer *w);
void writer_ovl_free(struct sqp_writer *w);

/* whiteout NULL: an error when a link still waits (finish); else when a
 * link waits for the path this whiteout deletes. */
int writer_links_check(struct sqp_writer *w, const char *whiteout);
void writer_links_free(struct sqp_writer *w);

/* A regular file of a base image, as it is stored there: a SquashFS
 * block list for basecopy (basecopy.h), or with copy NULL the image and
 * its inode for the back end's add_base, and its bytes decoded (src)
 * for what that cannot copy. */
struct basecopy;
struct base_file;
struct sqp_image;
struct rd_inode;
struct writer_base {
	struct basecopy *copy;
	const struct base_file *file;
	struct sqp_image *img;
	const struct rd_inode *ino;
	const struct sqp_data_source *src;
};

/* sqp_writer_add for a base image's regular file e (lib/rebuild): the
 * same entry path (policy, layers, links waiting for it), the data taken
 * as b describes it: w->base_file holds b for the call, the way
 * adding_extras marks the spec's entries. */
int writer_add_base(struct sqp_writer *w, const struct sqp_entry *e,
		    const struct writer_base *b);

/* Whether a layer brought a file of this size. Layers are added before
 * the base, whose copied blocks dedup cannot see by content: a base file
 * of such a size goes through the data path decoded instead, so that it
 * shares the layer file's blocks when equal (the size is the cheap
 * nomination; the read-back still proves). */
int writer_size_seen(const struct sqp_writer *w, uint64_t size);

/* Add the policy's spec entries (finish calls this first). */
int writer_add_extras(struct sqp_writer *w);
/* writer_policy.c: the policy on e as it is added: 1 when it is
 * excluded, 0, or a negative error (latched). */
int writer_apply_policy(struct sqp_writer *w, struct sqp_entry *e);
/* The fs_config lines and labels of the directories no entry named (a
 * tar's missing parents and root), once every entry is in. */
int writer_policy_implied(struct sqp_writer *w);
/* Free w->pxattrs (destroy calls it). */
void writer_policy_free(struct sqp_writer *w);

/* Latch an error on the writer (first one wins); returns the latched code. */
int writer_fail(struct sqp_writer *w, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
