/* SPDX-License-Identifier: MIT */
/*
 * writer.h - build a SquashFS 4.0 image from a stream of entries.
 *
 * Entries arrive in any order (parents need not come first; missing parent
 * directories are implied). File data is pulled from a data source, cut
 * into blocks and compressed by a pool of worker threads; one thread (the
 * caller's) writes the results strictly in the order they were submitted,
 * so the image is byte-identical for any number of workers.
 *
 * Deduplication: a hash of the uncompressed bytes nominates an earlier run
 * of blocks, tail or fragment as a candidate; the candidate's bytes are
 * then read back from the image being written and compared exactly before
 * anything is shared. A hash collision can therefore never corrupt data.
 *
 * Determinism: the superblock time is desc.mod_time, or, with
 * SQP_TIME_NEWEST, the newest mtime among the entries. Implied parent
 * directories get mode 0755, owner 0:0 and that same time.
 *
 * Lifecycle: create, add... , finish, destroy. Any error is latched: every
 * later call returns it. destroy without finish leaves a partial image on
 * the descriptor; the caller (see outfile.h) discards it.
 *
 * Thread safety: one writer belongs to one thread; it starts its own
 * workers. Several writers may be used in one process.
 */
#ifndef SQPACK_WRITER_H
#define SQPACK_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include "sqpack/api.h"
#include "sqpack/entry.h"
#include "sqpack/codec.h"
#include "sqpack/verity.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sqp_writer;

/* Superblock time: take the newest mtime of all entries. */
#define SQP_TIME_NEWEST (-1)

/* Which file tails go into fragment blocks. */
enum sqp_fragment_mode {
	SQP_FRAGMENTS_ALL = 0,   /* the tail of every file (smallest images) */
	SQP_FRAGMENTS_SMALL = 1, /* only files smaller than one block */
	SQP_FRAGMENTS_NONE = 2,  /* never: tails are short data blocks */
};

#define SQP_WRITE_NO_DEDUP    0x0001 /* store every block, tail and file */
#define SQP_WRITE_EXPORTABLE  0x0002 /* write an NFS export table */
#define SQP_WRITE_NO_XATTRS   0x0004 /* drop extended attributes */
#define SQP_WRITE_NO_PAD      0x0008 /* do not pad the image to 4 KiB */
/* Run the codec on every block, even those a quick test (flat byte
 * histogram, no repeats) shows it cannot shrink. */
#define SQP_WRITE_NO_PROBE    0x0010
/* Parts stored uncompressed (mksquashfs -noI -noD -noF -noX). RAW_INODES
 * covers the inode and directory tables and the lookup tables (fragment,
 * export, id), as mksquashfs's -noI implies -noId. */
#define SQP_WRITE_RAW_INODES    0x0020
#define SQP_WRITE_RAW_DATA      0x0040
#define SQP_WRITE_RAW_FRAGMENTS 0x0080
#define SQP_WRITE_RAW_XATTRS    0x0100
/* OCI layer whiteouts: sqp_writer_add takes an entry named ".wh.NAME" as
 * sqp_writer_whiteout(NAME) and ".wh..wh..opq" as an opaque whiteout of
 * its directory, and stores neither marker. */
#define SQP_WRITE_OCI_WHITEOUTS 0x0200
/* EROFS with a codec: a compressed file's last physical cluster is
 * stored inline after its inode and indexes when they fit one block
 * together (mkfs.erofs -E ztailpacking; Linux 5.17). */
#define SQP_WRITE_EROFS_ZTAILPACKING 0x0400
/* EROFS with a codec: compressed files' tails, and whole files of a
 * pcluster or less, go into one packed inode, itself compressed
 * (mkfs.erofs -E fragments; Linux 6.1); a file's rest that compresses
 * into less than a pcluster is its tail. Equal files and clusters are
 * shared as with SQP_WRITE_EROFS_DEDUPE (their fragments only with it or
 * FRAGDEDUPE), as mkfs.erofs 1.9 shares extents whenever it makes
 * fragments. Without a codec it does nothing, as mkfs.erofs. */
#define SQP_WRITE_EROFS_FRAGMENTS 0x0800
/* EROFS: a file whose stored data equals an earlier file's shares the
 * earlier file's blocks (and fragment), and a compressed cluster whose
 * input equals an earlier physical cluster's names that one, each
 * proven equal by reading back (and decoding), never on a hash alone
 * (mkfs.erofs -E dedupe). */
#define SQP_WRITE_EROFS_DEDUPE 0x1000
/* EROFS: the superblock's UUID is the descriptor's uuid as it is, all
 * zero included: no UUID, as mkfs.erofs -U 00000000-... (archiso's
 * reproducible images) and -U clear write. Without it an all-zero uuid
 * asks for one derived from the image. */
#define SQP_WRITE_EROFS_UUID 0x2000
/* overlayfs whiteouts, as mkfs.erofs --aufs writes them for a layer to
 * be mounted as an overlay's lower directory: ".wh.NAME" is stored as
 * NAME, a character device 0/0 without permission bits, with the
 * marker's owner and time, and its directory gets an empty
 * "trusted.overlay.origin" so that overlayfs does not show the
 * whiteouts; ".wh..wh..opq" is not
 * stored, its directory gets "trusted.overlay.opaque" = "y". No layer
 * is hidden by either (that is SQP_WRITE_OCI_WHITEOUTS, which wins when
 * both are set). */
#define SQP_WRITE_OVERLAY_WHITEOUTS 0x4000
/* EROFS: an uncompressed file's last partial block goes in a block of
 * its own, never inline after its inode (mkfs.erofs -E noinline_data:
 * every block of the file is block aligned, as FSDAX wants). */
#define SQP_WRITE_EROFS_NO_INLINE 0x8000
/* EROFS inode forms (mkfs.erofs --ignore-mtime, -E force-inode-compact,
 * -E force-inode-extended). IGNORE_MTIME: a time other than the build
 * time no longer asks for an extended inode; a compact one reads as the
 * build time. INODE_EXTENDED: every inode extended (64 bytes).
 * INODE_COMPACT: every inode compact (32 bytes), times ignored as with
 * IGNORE_MTIME; an owner or link count over 65535, a size over 4 GiB or
 * an inline compressed tail that needs the extended form fails. */
#define SQP_WRITE_EROFS_IGNORE_MTIME    0x10000
#define SQP_WRITE_EROFS_INODE_EXTENDED  0x20000
#define SQP_WRITE_EROFS_INODE_COMPACT   0x40000
/* EROFS with SQP_WRITE_EROFS_FRAGMENTS and a codec (mkfs.erofs
 * -E all-fragments): every file with data goes wholly into the packed
 * inode, whatever its size, not only its tail or a file of a pcluster
 * or less. FRAGDEDUPE (mkfs.erofs -E fragdedupe=inode): a whole-file
 * fragment equal, byte for byte, to an earlier one shares it, and so
 * does the tail of a file equal to an earlier one; a fragment that
 * ends as an earlier one does is stored as that one's end (mkfs.erofs's
 * fragdedupe=full finds a tail inside an earlier fragment so).
 * SQP_WRITE_EROFS_DEDUPE implies it. */
#define SQP_WRITE_EROFS_ALL_FRAGMENTS   0x80000
#define SQP_WRITE_EROFS_FRAGDEDUPE      0x100000
/* overlayfs's metadata stripped, as mkfs.erofs --ovlfs-strip does for
 * an image that is not an overlay's layer: a whiteout (a character
 * device 0/0, or with SQP_WRITE_OVERLAY_WHITEOUTS a ".wh.NAME" marker)
 * is not stored, nor is an opaque marker (its directory is still
 * implied), and "trusted.overlay.opaque" is dropped from every entry's
 * xattrs; no directory gets "trusted.overlay.origin". A whiteout that
 * names an entry added before it leaves that entry in place (entries
 * are taken as they come). */
#define SQP_WRITE_OVERLAY_STRIP         0x200000
/* EROFS from sqp_writer_add_tar only (mkfs.erofs --tar=i): an index of
 * the tar, its file data left in the tar. The image has 512-byte blocks
 * and one extra device, the tar, that every regular file's chunks point
 * into; it is mounted with the tar appended to it (as containerd keeps a
 * layer) or given as that device. No codec; the tar must not be
 * compressed. A sparse member's holes are chunks without blocks; its
 * data regions must start, and end unless at the file's end, on
 * 512-byte blocks of the file (SQP_ERR_UNSUPPORTED otherwise), and its
 * chunks (as large as those edges allow) be at most 2^24
 * (SQP_ERR_LIMIT). */
#define SQP_WRITE_EROFS_TAR_INDEX       0x400000
/* EROFS (mkfs.erofs --tar=headerball): every regular file's data is
 * absent, as from a tar reader with SQP_TAR_READ_HEADERS_ONLY: its
 * size kept, its chunks holes (it reads as zeros); codec.block_size's
 * blocks, no codec. */
#define SQP_WRITE_EROFS_TAR_HEADERBALL  0x800000
/* EROFS with erofs_chunk_size (mkfs.erofs --blobdev): the chunks go to
 * erofs_blob_fd, extra device 1 of the image's device table, which the
 * kernel reads as the device named by mount -o device=, or appended to
 * the image. Not with desc.verity: its tree would cover the image and
 * not the data. Not with a codec. */
#define SQP_WRITE_EROFS_BLOB            0x1000000
/* EROFS with erofs_chunk_size: 8-byte chunk indexes, as a blob's,
 * where a 4-byte block map would do (mkfs.erofs -E force-chunk-indexes;
 * a blob always has them). */
#define SQP_WRITE_EROFS_CHUNK_INDEXES   0x2000000
/* A directory no entry named (an implied one) made as mkfs.erofs --tar
 * makes it, not 0755 owned by root: the root 0777, any other 0755 with
 * its parent's group- and other-write bits, owner and group. A policy
 * (fs_config, forced owners) still applies after. */
#define SQP_WRITE_IMPLIED_FROM_PARENT   0x4000000
/* EROFS (mkfs.erofs --zD): every directory's listing is wholly a
 * fragment of the packed inode, compressed with the packed inode when
 * there is a codec (Linux 6.1 reads them). */
#define SQP_WRITE_EROFS_COMPRESS_DIRS   0x8000000
/* EROFS (mkfs.erofs -E xattr-name-filter): each xattr area's header
 * holds a 32-bit filter of its names, and the superblock says so, so
 * that the kernel (Linux 6.6 and later) answers a lookup of most absent
 * names without reading the entries; older kernels ignore it. */
#define SQP_WRITE_EROFS_XATTR_FILTER    0x10000000
/* EROFS: the 48-bit layout (mkfs.erofs -E 48bit; Linux 6.15 and later
 * mount it): a compact inode keeps any time, to the second, in the 2^32
 * seconds from an epoch base (0 until the build time passes 2106), so
 * only times with nanoseconds, before 1970 or far past the base need
 * extended inodes. Compressed files keep their cluster indexes. */
#define SQP_WRITE_EROFS_48BIT           0x20000000
/* EROFS (mkfs.erofs --MZ): every inode in one metadata zone after the
 * files' data and the directories' blocks, none in the superblock's
 * block; the nids count from the zone. The directories' blocks come
 * just before the zone in any case, so mkfs.erofs's --MZ=i (the inodes
 * only) and --MZ (the directories' data too) are the same here. No new
 * feature: any kernel that mounts EROFS reads it. */
#define SQP_WRITE_EROFS_METAZONE        0x40000000
/* EROFS with SQP_WRITE_EROFS_ALL_FRAGMENTS and FRAGDEDUPE (mkfs.erofs
 * -E fragdedupe=full, its default; =inode leaves it out): a file whose
 * end equals an earlier fragment's end for at least 64 KiB, its front
 * differing, keeps only that end as its fragment (an offset into the
 * earlier bytes, compared byte for byte) and has its front compressed
 * as any file's clusters, where the earlier copy lies beyond twice the
 * codec's reach (nearer, the packed inode compresses the repeat). */
#define SQP_WRITE_EROFS_FRAGDEDUPE_FULL 0x80000000u

struct sqp_policy;

/* Progress: entries taken so far and file bytes read so far. Called after
 * every entry and while a file's data is read (every block), from the
 * writer's thread; it must not call back into the writer. */
typedef void (*sqp_progress_fn)(void *user, uint64_t entries, uint64_t bytes);

struct sqp_writer_desc {
	size_t struct_size;  /* sizeof(struct sqp_writer_desc): see sqpack/api.h */
	/* The image: opened read-write (the writer reads back what it wrote
	 * to verify duplicates), seekable, empty. Borrowed. */
	int fd;

	/* Codec and block size (codec.block_size: power of two, 4K..1M).
	 * Copied. */
	struct sqp_codec_config codec;

	/* Compression workers: 0 = number of online CPUs, 1 = compress in
	 * the caller's thread. */
	unsigned jobs;

	unsigned flags;         /* SQP_WRITE_* */
	int fragment_mode;      /* enum sqp_fragment_mode */
	int64_t mod_time;       /* seconds, or SQP_TIME_NEWEST */

	sqp_warn_fn warn;       /* optional */
	void *warn_user;

	/* The image starts this many bytes into fd (an AppImage's runtime
	 * goes in front): every position in it is relative to that start,
	 * and the bytes before it are never touched. */
	uint64_t offset;

	/* Optional, borrowed (policy.h): applied to every entry added; its
	 * spec entries are added by finish. */
	struct sqp_policy *policy;

	sqp_progress_fn progress; /* optional */
	void *progress_user;
	/* Memory for the tree, the dedup records and the tables, in bytes;
	 * 0 = no limit. Past 3/8 of it they go to a temporary file in
	 * tmp_dir (NULL: the system's temporary directory; best next to
	 * the image), created only when needed and never left behind, of
	 * which about another 3/8 is kept mapped in. Job buffers and codec
	 * state come on top (see tar2img(1)). */
	uint64_t mem_limit;
	const char *tmp_dir;    /* borrowed until create returns */

	/* dm-verity (verity.h): NULL = none. Borrowed until create returns;
	 * hash_fd, when separate, until finish. */
	const struct sqp_verity_desc *verity;

	/* Optional: a normalised relative path (no leading or trailing '/',
	 * no "." or ".." component) every entry goes below: an entry's path,
	 * a hard link's target and a whiteout's path are taken relative to
	 * it, and the root entry gives the directory at prefix its
	 * attributes. The policy sees the paths before the prefix; the
	 * spec's own entries are not moved. NULL or "" = none. Copied. */
	const char *prefix;
	/* The image format (enum sqp_image_format). EROFS: blocks of
	 * codec.block_size, 4096 or 512, 1024 or 2048 (where an inode's
	 * xattrs must fit its block beside it; a tar's index has 512
	 * whatever it says; a codec's own settings are read as for 4096);
	 * the sizes below said in blocks are multiples of it, those said to
	 * be at least 4096 at least it. codec.id 0 stores data as it is, else a
	 * codec with SQP_CODEC_FOR_EROFS compresses files of more than a
	 * block into one-block clusters (or erofs_pcluster_size's);
	 * fragment_mode and the SQP_WRITE_* flags other than NO_XATTRS
	 * change nothing. verity works for both formats. */
	int format;
	/* EROFS: the superblock's UUID; all zero without
	 * SQP_WRITE_EROFS_UUID = derived from the image's bytes (the same
	 * input and options give the same UUID). */
	uint8_t uuid[16];
	/* EROFS: the volume label (up to 16 bytes), or NULL. Borrowed
	 * until finish. */
	const char *volume_label;
	/* EROFS with a codec: the most bytes of a physical cluster, a
	 * multiple of 4096 up to 1 MiB (0 or 4096: one block; more: big
	 * pclusters, which the kernel reads since Linux 5.13). */
	uint32_t erofs_pcluster_size;
	/* EROFS with a codec: the most bytes of a file one compressed
	 * cluster holds (mkfs.erofs --max-extent-bytes: what a read of one
	 * byte may have to decompress), at least 4096; 0: as many as fit
	 * erofs_pcluster_size. */
	uint32_t erofs_max_extent;
	/* EROFS (mkfs.erofs --chunksize): 0, or every regular file is
	 * chunk based, in chunks of this many bytes (a power of two, 4096
	 * up to 1 GiB): a chunk equal byte for byte to an earlier one
	 * shares it (read back and compared first), a chunk of zeros is a
	 * hole, and a file's chunks that follow each other merge into
	 * larger ones. With a codec, only the files not compressed (as
	 * mkfs.erofs 1.9); one of several segments (8 MiB) is then one run
	 * of blocks, without holes or shared chunks. Not with a tar's
	 * index, nor with a codec and SQP_WRITE_EROFS_BLOB. SquashFS
	 * refuses it. */
	uint32_t erofs_chunk_size;
	/* EROFS with SQP_WRITE_EROFS_BLOB: the blob file, opened read-write
	 * (the writer reads back what it wrote), empty. Borrowed. */
	int erofs_blob_fd;
	/* EROFS with a codec (mkfs.erofs -zX:Y): a second codec, id 0 for
	 * none, that erofs_hints may name for some files (algorithm index
	 * 1; codec is index 0). It must compress to a fixed size
	 * (SQP_CODEC_FOR_EROFS); its block_size is taken as codec's. Each
	 * file is compressed with one codec, whose algorithm its map
	 * header names; the superblock lists both. Copied. */
	struct sqp_codec_config erofs_codec2;
	/* EROFS with a codec (mkfs.erofs --compress-hints): NULL, or the
	 * text of a hints file, borrowed until create returns. Each line
	 * is "PCLUSTER [INDEX] REGEX": a regular file whose path (as added,
	 * no leading '/') matches the POSIX extended REGEX (the rest of
	 * the line) is compressed in pclusters of at most PCLUSTER bytes
	 * (a multiple of 4096 up to 1 MiB; 0: stored as it is) with codec
	 * INDEX (0, the default, or 1: erofs_codec2). The first line that
	 * matches wins; a file no line matches gets codec and
	 * erofs_pcluster_size. Lines empty or of blanks and lines that
	 * begin with '#' are skipped; blanks before PCLUSTER are too. A
	 * bad line fails create (SQP_ERR_ARG, its number in the message).
	 * The image's largest pcluster is the largest of them all. */
	const char *erofs_hints;
	/* EROFS with a codec (mkfs.erofs -m#[:X]): 0, or every inode record
	 * but the root's (with its xattrs, inline data and cluster
	 * indexes) goes into the metabox, a file compressed in pclusters
	 * of at most this many bytes (a multiple of 4096 up to 1 MiB) with
	 * codec erofs_metabox_codec (0: codec, 1: erofs_codec2); Linux 6.17
	 * reads it. Not with a tar's index or a blob. */
	uint32_t erofs_metabox_pcluster;
	unsigned erofs_metabox_codec;
	/* EROFS with erofs_hints: NULL, or the name of the file the text
	 * came from, which a bad line's message then names ("compress
	 * hints file 'NAME' line N: ..."). Borrowed until create returns. */
	const char *erofs_hints_name;
};

SQP_API int sqp_writer_create(const struct sqp_writer_desc *desc,
			      struct sqp_writer **out);

/*
 * Add one entry. For a regular file that is not a hard link, data supplies
 * exactly entry->size bytes; it is ignored otherwise and may be NULL.
 * Rules: a path seen before replaces the earlier entry (with a warning, as
 * tar extraction would); a directory entry for an existing directory only
 * updates its attributes; the empty path sets the root's attributes; a hard
 * link must name an entry added before. Xattrs outside user., trusted. and
 * security. are skipped with a warning.
 */
SQP_API int sqp_writer_add(struct sqp_writer *w, const struct sqp_entry *entry,
			   const struct sqp_data_source *data);

/* sqp_writer_add's answer for an entry an upper layer hides: nothing is
 * stored and its data source was not read (but by sqp_writer_add_tar
 * on a compressed or piped layer, see below). */
#define SQP_ADD_SHADOWED 1

/*
 * Layers (container images): the image is the tree that applying the
 * layers in order, lowest first, leaves. They are added the other way
 * round, topmost first, so that what a layer replaces or deletes below it
 * is never read or stored: entries before the first begin_layer are the
 * topmost layer, and each begin_layer starts the next lower one. An entry
 * of a lower layer is dropped (SQP_ADD_SHADOWED) when an upper layer made
 * its path, whited it out, or put a non-directory or an opaque directory
 * above it; a directory an upper layer only implied takes the lower
 * layer's attributes. Within a layer a later entry replaces an earlier
 * one, as without layers. Once layers are in use (after a begin_layer or
 * a whiteout) a hard link whose target is not in its own layer waits for
 * the first layer below that has it (a caller that knows layers follow
 * calls begin_layer before the topmost layer too); finish fails while one
 * waits. The data stored for it is that lower file's, even where an upper
 * layer hides its path. A link that names a file its own layer gave
 * earlier, after an upper layer hid that file, gets that file's data
 * and attributes when the layer is a tar archive fed by
 * sqp_writer_add_tar, which keeps the hidden files of a layer within
 * reach until the next begin_layer (their place in a plain archive
 * file, else their data, read as the stream passes); from other sources
 * it is an error: one pass has skipped the data.
 */
SQP_API int sqp_writer_begin_layer(struct sqp_writer *w);

/* In the current layer, delete path (normalised, as an entry's) from the
 * layers below; opaque: keep the directory at path but hide every entry
 * the layers below put in it. The current layer's own entries stay. */
SQP_API int sqp_writer_whiteout(struct sqp_writer *w, const char *path, int opaque);

/*
 * Entries added after this call whose path's first component is `name`
 * (hard link targets too) take `new_name` there instead, after the
 * policy has seen their own paths: mksquashfs's renaming of a source
 * directory's entry whose name an image's root already has. Both are
 * one path component; a later rename of the same name wins. The spec's
 * own entries are not renamed.
 */
SQP_API int sqp_writer_rename(struct sqp_writer *w, const char *name,
			      const char *new_name);

struct sqp_tar_reader;

/*
 * Add every entry of a tar archive (see tar.h) until its end; does not
 * finish the image. On failure sqp_writer_error() explains, with the tar
 * reader's own message when the archive was at fault.
 */
SQP_API int sqp_writer_add_tar(struct sqp_writer *w, struct sqp_tar_reader *r);

struct sqp_image;

/* sqp_writer_add_image's flags. AS_IS: the policy (desc.policy) is not
 * applied to the image's entries, which keep their names, owners and
 * times, as mksquashfs keeps an image's when it appends; its exclusions,
 * owner and time options then apply to the entries added after only. */
#define SQP_ADD_IMAGE_AS_IS 0x0001
/* NEW_ROOT, with under "": the image's root directory is not taken (its
 * entries are), so the root is the writer's own, as if none had been
 * added: what is added after and the policy give its attributes, and
 * its time is the image time unless they do. mksquashfs makes the root
 * anew when it appends. With another `under` it changes nothing. */
#define SQP_ADD_IMAGE_NEW_ROOT 0x0002
/* DISJOINT, in a layer below others: the image shares nothing but
 * directories with the layers above it, as the shards of one build
 * (img2img --shards); a path of another type an upper layer holds
 * already fails the call, naming it. */
#define SQP_ADD_IMAGE_DISJOINT 0x0004

/*
 * Add every entry of base (an image opened with the reader, reader.h) to
 * the tree, its root becoming `under` ("" = the root itself; "NAME" =
 * mksquashfs -root-becomes NAME; a relative path without "." or ".."
 * components). Each entry goes through sqp_writer_add: the policy
 * applies (unless flags has SQP_ADD_IMAGE_AS_IS), and a path added
 * before is replaced. File data enters as references to base's blocks.
 * flags: SQP_ADD_IMAGE_*; others are refused. The image must stay open,
 * on this thread, until this returns. On failure sqp_writer_error()
 * explains, with the reader's message when the base was at fault.
 */
SQP_API int sqp_writer_add_image(struct sqp_writer *w, struct sqp_image *base,
				 const char *under, unsigned flags);

/* Write the remaining blocks, the tables and the superblock. */
SQP_API int sqp_writer_finish(struct sqp_writer *w);

SQP_API void sqp_writer_destroy(struct sqp_writer *w);

/* The latched error's message, with context; "" when none. */
SQP_API const char *sqp_writer_error(const struct sqp_writer *w);

struct sqp_writer_stats {
	size_t struct_size;  /* sizeof(struct sqp_writer_stats): see sqpack/api.h */
	uint64_t inodes;
	uint64_t bytes_in;          /* file bytes consumed */
	uint64_t image_bytes;       /* final image size (after finish) */
	uint64_t blocks_written;    /* data blocks stored */
	uint64_t blocks_sparse;     /* all-zero blocks stored as holes */
	uint64_t blocks_raw;        /* blocks stored uncompressed */
	uint64_t blocks_probed_raw; /* of those, not even tried (see NO_PROBE;
	                               EROFS: within the input of a try that
	                               gained nothing) */
	uint64_t blocks_deduped;    /* data blocks shared with earlier ones */
	uint64_t tails_deduped;     /* tails shared with earlier ones */
	uint64_t files_deduped;     /* files whose whole data was shared */
	uint64_t dedup_rejected;    /* hash matches refuted by read-back */
	uint64_t fragment_blocks;
	uint64_t hashed;            /* blocks and tails hashed for dedup */
	uint64_t dedup_rerouted;    /* runs that broke and went on from
	                               another earlier copy */
	uint64_t spilled_bytes;     /* temporary file space used (mem_limit) */
	uint64_t proofs_on_workers; /* read-backs run on the proof workers */
	uint64_t proofs_replayed;   /* files whose matching was decided again
	                               after a read-back refuted a hash */
	uint64_t entries_shadowed;  /* entries hidden by an upper layer */
	uint64_t files_copied;      /* base images' files whose data was
	                               copied as stored, not decoded */
};

/* 0, or SQP_ERR_ARG when st->size is unset (the writer is const: its
 * message does not change). */
SQP_API int sqp_writer_get_stats(const struct sqp_writer *w,
				 struct sqp_writer_stats *st);

/* After a successful finish with desc.verity: the tree's root hash and
 * where it went. SQP_ERR_SEQUENCE otherwise. */
SQP_API int sqp_writer_get_verity(const struct sqp_writer *w,
				  struct sqp_verity_result *r);

#ifdef __cplusplus
}
#endif
#endif
