/* SPDX-License-Identifier: MIT */
/*
 * mkfs_erofs_main.c - sqpack-mkfs.erofs: mkfs.erofs's command line as
 * image builders pass it (archiso, mkosi, systemd-repart, osbuild,
 * kiwi, containerd, Android's build with its fs_config and
 * file_contexts), read into the packers' options (struct tool_options,
 * with --format erofs's settings) and packed by dir2img's code
 * (tar2img's for --tar=f) in this process.
 *
 * Why not a second tool: the EROFS writer is the library's, shared with
 * tar2img and dir2img; only the spelling differs. Every option either
 * means the same thing here or is refused by name with exit status 2
 * (never ignored when it would change the image): a build system must
 * not get a different image than it asked for without being told. Each
 * value is checked here, so a message names the option as typed.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/tool_mains.h"
#include "../common/tool_optvals.h"
#include "../common/tool_version.h"
#include "sqpack/tar.h"
#include "mkfs_erofs.h"


enum {
	OPT_ALL_ROOT = 256, OPT_FORCE_UID, OPT_FORCE_GID, OPT_QUIET, OPT_TAR,
	OPT_WORKERS, OPT_PRESERVE_MTIME, OPT_HELP, OPT_VERSION, OPT_EXCLUDE_REGEX,
	OPT_AUFS, OPT_SORT, OPT_EXCLUDE_PATH, OPT_UID_OFFSET, OPT_GID_OFFSET,
	OPT_HARD_DEREF, OPT_IGNORE_MTIME, OPT_ALL_TIME, OPT_MKFS_TIME, OPT_OVLFS_STRIP,
	OPT_SHARD, OPT_SHARD_PLAN, OPT_MAX_EXTENT, OPT_CHUNKSIZE, OPT_BLOBDEV,
	OPT_UNZIP, OPT_HINTS, OPT_ZDIRS, OPT_METAZONE, OPT_OFFSET,
	/* in enum tool_security_opt order */
	OPT_FILE_CONTEXTS, OPT_FS_CONFIG, OPT_MOUNT_POINT, OPT_PRODUCT_OUT,
};

enum { TIME_DEFAULT, TIME_ALL, TIME_MKFS };

/* What is resolved once every option is read: mkfs.erofs adds the
 * offsets to the forced owners whatever the options' order. */
struct mkfs_args {
	int tar, aufs;
	int blockmap;              /* -E force-inode-blockmap, last given */
	uint64_t uid_offset, gid_offset;
	int has_time, time_mode;   /* -T given; --all-time or --mkfs-time */
	uint64_t time;
	uint64_t block_size;       /* -b, 0: not given (4096) */
	/* --quiet: mkfs.erofs then prints errors alone, no warning (a
	 * snapshotter logs whatever the tool says); counted, not shown. */
	struct tool_warnings quiet;
};

static const struct option long_opts[] = {
	{ "all-root", no_argument, NULL, OPT_ALL_ROOT },
	{ "force-uid", required_argument, NULL, OPT_FORCE_UID },
	{ "force-gid", required_argument, NULL, OPT_FORCE_GID },
	{ "quiet", no_argument, NULL, OPT_QUIET },
	{ "tar", optional_argument, NULL, OPT_TAR },
	{ "workers", required_argument, NULL, OPT_WORKERS },
	{ "preserve-mtime", no_argument, NULL, OPT_PRESERVE_MTIME },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "file-contexts", required_argument, NULL, OPT_FILE_CONTEXTS },
	{ "fs-config-file", required_argument, NULL, OPT_FS_CONFIG },
	{ "mount-point", required_argument, NULL, OPT_MOUNT_POINT },
	{ "product-out", required_argument, NULL, OPT_PRODUCT_OUT },
	/* mkfs.erofs 1.9's newer options. */
	{ "exclude-path", required_argument, NULL, OPT_EXCLUDE_PATH },
	{ "uid-offset", required_argument, NULL, OPT_UID_OFFSET },
	{ "gid-offset", required_argument, NULL, OPT_GID_OFFSET },
	{ "hard-dereference", no_argument, NULL, OPT_HARD_DEREF },
	{ "exclude-regex", required_argument, NULL, OPT_EXCLUDE_REGEX },
	{ "ignore-mtime", no_argument, NULL, OPT_IGNORE_MTIME },
	{ "all-time", no_argument, NULL, OPT_ALL_TIME },
	{ "mkfs-time", no_argument, NULL, OPT_MKFS_TIME },
	{ "blobdev", required_argument, NULL, OPT_BLOBDEV },
	{ "chunksize", required_argument, NULL, OPT_CHUNKSIZE },
	{ "compress-hints", required_argument, NULL, OPT_HINTS },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "max-extent-bytes", required_argument, NULL, OPT_MAX_EXTENT },
	{ "aufs", no_argument, NULL, OPT_AUFS },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "shard-plan", required_argument, NULL, OPT_SHARD_PLAN },
	{ "ovlfs-strip", optional_argument, NULL, OPT_OVLFS_STRIP },
	{ "gzip", no_argument, NULL, OPT_UNZIP },
	{ "ungzip", optional_argument, NULL, OPT_UNZIP },
	{ "unxz", optional_argument, NULL, OPT_UNZIP },
	{ "unlzma", optional_argument, NULL, OPT_UNZIP },
	{ "zD", optional_argument, NULL, OPT_ZDIRS },
	{ "MZ", optional_argument, NULL, OPT_METAZONE },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [OPTIONS] IMAGE DIRECTORY\n"
	      "       " PROG " --tar=f|i [OPTIONS] IMAGE [TAR] (stdin without TAR or with -)\n"
	      "       " PROG " --shard-plan=N [OPTIONS] DIRECTORY\n"
	      "Pack DIRECTORY's contents (or a tar) into an EROFS image, with\n"
	      "mkfs.erofs's command line; IMAGE is replaced if it exists. The\n"
	      "packer is dir2img's (tar2img's for --tar=f) with --format erofs;\n"
	      "see sqpack-mkfs.erofs(1).\n\n"
	      "Taken: -zlz4 -zlz4hc[,LEVEL] -zlzma[,LEVEL] -zdeflate[,LEVEL]\n"
	      "  -zzstd[,LEVEL] (or ,level=LEVEL) -znone -C# (a multiple of the block\n"
	      "  size up to 1048576)\n"
	      "  -zX:Y (two of those but none: Y for the files --compress-hints gives\n"
	      "  index 1) --compress-hints=FILE (lines PCLUSTER [INDEX] REGEX)\n"
	      "  -b# (512, 1024, 2048 or 4096, the default; --tar=i's is 512)\n"
	      "  -T# (SOURCE_DATE_EPOCH, when set, wins over -T, --all-time\n"
	      "  and --mkfs-time: it is the build time, and clamps newer files)\n"
	      "  -UUUID -Uclear -Urandom -LLABEL -d# -x# (< 0: no xattrs)\n"
	      "  --all-root --force-uid=# --force-gid=# --quiet (no summary, no build warning)\n"
	      "  --tar=f --tar=i (an index: the data stays in the tar, to be appended to\n"
	      "  IMAGE or given as its device)\n"
	      "  --tar=headerball (the tar's headers alone: every file's data a hole)\n"
	      "  --workers=# --preserve-mtime --exclude-regex=# --exclude-path=#\n"
	      "  --uid-offset=# --gid-offset=# --hard-dereference --aufs --ovlfs-strip[=0|1]\n"
	      "  --sort=none|path --max-extent-bytes=# (at least the block size)\n"
	      "  --all-time --mkfs-time --ignore-mtime --file-contexts=FILE (SELinux\n"
	      "  labels) --fs-config-file=FILE (Android's owners, modes, capabilities)\n"
	      "  --mount-point=PATH --product-out=DIR (Android's built-in fs_config)\n"
	      "  -Eztailpacking -Efragments --zD[=0|1] (compressed directories)\n"
	      "  -m#[:X] (inodes in the metabox, in clusters of # with -z's Xth\n"
	      "  algorithm, 0 or 1)\n"
	      "  --MZ[=0|i|id] (every inode, and the directories' blocks, in one\n"
	      "  zone after the data; i and id are the same zone here)\n"
	      "  -Eall-fragments -Efragdedupe[=inode|full]\n"
	      "  -Ededupe -E[^]inline_data -Enoinline_data -Eforce-inode-compact\n"
	      "  -Eforce-inode-extended -Eforce-chunk-indexes -Eforce-inode-blockmap\n"
	      "  -E48bit (compact inodes with their own times; Linux 6.15 or later)\n"
	      "  -E[^]xattr-name-filter (on unless ^, as mkfs.erofs 1.9)\n"
	      "  --chunksize=# (chunk-based files: those not compressed) --blobdev=FILE\n"
	      "  (the chunks in FILE, the image's extra device; -znone) --ungzip --gzip\n"
	      "  --unxz --unlzma (the tar's compression is found by its magic anyway)\n"
	      "  --offset=# (the image # bytes into IMAGE, zeros before it)\n"
	      "  --help --version. Anything else (-zX:Y:Z, other -E options,\n"
	      "  --dsunit ...) is refused with exit status 2.\n"
	      "sqpack's own: --shard=I/N packs shard I of N of DIRECTORY (dir2img\n"
	      "  --shard; img2img --shards merges them); --shard-plan=N prints where\n"
	      "  each of N shards starts and its bytes, no IMAGE, no data read.\n", f);
}

int mkfs_refuse(const char *what, const char *why)
{
	fprintf(stderr, PROG ": %s: %s\n", what, why);
	tool_try_help();
	return 2;
}

/* A number in 0..max for option name (as typed). */
static int number(const char *name, const char *arg, uint64_t max, uint64_t *out)
{
	char why[64];

	if (tool_parse_u64(arg, max, out) == 0)
		return 0;
	snprintf(why, sizeof(why), "'%s' is not a number in 0..%llu", arg,
		 (unsigned long long)max);
	return mkfs_refuse(name, why);
}

static int short_option(struct tool_options *opt, int c, const char *arg,
			struct mkfs_args *a)
{
	struct sqp_writer_desc *d = &opt->desc;
	char name[256];   /* the option as typed, value attached */
	uint64_t v;

	snprintf(name, sizeof(name), "-%c%s", c, arg);
	switch (c) {
	case 'z': return mkfs_compressors(d, name, arg);
	case 'C':
		/* a multiple of the block size, which -b may give later */
		if (tool_parse_bytes(arg, &v) != 0 || v % 512 != 0 || v == 0 || v > (1u << 20))
			return mkfs_refuse(name, "the cluster size is a multiple of the block "
					   "size up to 1M");
		d->erofs_pcluster_size = (uint32_t)v;
		return 0;
	case 'm': {
		/* mkfs.erofs also takes an algorithm's name for X, which
		 * adds it to -z's: here X is one of -z's, by its index. */
		const char *colon = strchr(arg, ':');
		char size[32];

		if (colon != NULL && strcmp(colon + 1, "0") != 0 && strcmp(colon + 1, "1") != 0)
			return mkfs_refuse(name, "X is the index of one of -z's algorithms, 0 or 1");
		snprintf(size, sizeof(size), "%.*s", colon ? (int)(colon - arg) : 31, arg);
		if (tool_parse_bytes(size, &v) != 0 || v % 512 != 0 || v == 0 || v > (1u << 20))
			return mkfs_refuse(name, "the metabox's cluster size is a multiple of "
					   "the block size up to 1M");
		d->erofs_metabox_pcluster = (uint32_t)v;
		d->erofs_metabox_codec = colon != NULL && colon[1] == '1';
		return 0;
	}
	case 'b':
		/* mkfs.erofs takes 512 to 4096, rounded down to a power of
		 * two: a typo here would be another block size. */
		if (tool_parse_u64(arg, 4096, &v) != 0 || v < 512 || (v & (v - 1)) != 0)
			return mkfs_refuse(name, "the block size is 512, 1024, 2048 or 4096");
		a->block_size = v;
		return 0;
	case 'E': return mkfs_extended(&d->flags, &a->blockmap, name, arg);
	case 'T':
		a->has_time = 1;
		return number(name, arg, UINT32_MAX, &a->time);
	case 'U':
		/* Stored as given, zero included (archiso's reproducible
		 * images ask for none so); clear and random as mkfs.erofs
		 * 1.9 takes them. A bad one exits 1, as mkfs.erofs does. */
		switch (tool_uuid_arg(arg, d->uuid)) {
		case 0:
			d->flags |= SQP_WRITE_EROFS_UUID;
			return 0;
		case -2:
			fprintf(stderr, PROG ": -U random: no random bytes: %s\n",
				strerror(errno));
			return 1;
		default:
			fprintf(stderr, PROG ": -U %s: invalid UUID (xxxxxxxx-xxxx-"
				"xxxx-xxxx-xxxxxxxxxxxx, clear or random)\n", arg);
			return 1;
		}
	case 'L':
		if (strlen(arg) > 16)
			return mkfs_refuse(name, "the label is longer than 16 bytes");
		d->volume_label = arg;
		return 0;
	case 'd': return 0; /* message level */
	case 'x':
		if (arg[0] == '-') {
			d->flags |= SQP_WRITE_NO_XATTRS;
			opt->scan_flags |= SQP_DIRSCAN_NO_XATTRS;
		}
		return 0;
	default: return -1;
	}
}

/* --exclude-path=PATH: mkfs.erofs compares PATH, as it is, with each
 * path relative to the source; the same test as a regex anchored at
 * both ends with every character literal. */
static int exclude_path(struct tool_options *opt, const char *arg)
{
	char *re = malloc(2 * strlen(arg) + 3), *p = re;
	int ret;

	if (re == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	*p++ = '^';
	for (; *arg != '\0'; arg++) {
		if (strchr(".[]()*+?{}|^$\\", *arg) != NULL)
			*p++ = '\\';
		*p++ = *arg;
	}
	*p++ = '$';
	*p = '\0';
	ret = tool_pargs_add(&opt->pargs, PARG_EXCLUDE_REGEX, re, 1);
	free(re);
	if (ret != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	}
	return 0;
}

static int long_option(struct tool_options *opt, int c, const char *arg, const char *name,
		       struct mkfs_args *a)
{
	struct sqp_policy_desc *p = &opt->policy;
	uint64_t v;
	int ret;

	switch (c) {
	case OPT_ALL_ROOT: p->flags |= SQP_POLICY_ALL_ROOT; return 0;
	case OPT_FORCE_UID: case OPT_FORCE_GID:
		if ((ret = number(name, arg, UINT32_MAX, &v)) != 0)
			return ret;
		p->flags |= c == OPT_FORCE_UID ? SQP_POLICY_SET_UID : SQP_POLICY_SET_GID;
		*(c == OPT_FORCE_UID ? &p->uid : &p->gid) = (uint32_t)v;
		return 0;
	case OPT_QUIET:
		opt->quiet = a->quiet.quiet = 1;
		opt->warnings = &a->quiet;
		return 0;
	case OPT_WORKERS:
		/* mkfs.erofs takes 0 as no worker thread (profiles pass
		 * --workers=0): one thread here, the same bytes anyway. */
		if (tool_parse_u64(arg, 1024, &v) != 0)
			return mkfs_refuse(name, "the worker count is a number in 0..1024");
		opt->desc.jobs = v == 0 ? 1 : (unsigned)v;
		return 0;
	case OPT_PRESERVE_MTIME:
		/* per-file times are kept anyway; it undoes --ignore-mtime */
		opt->desc.flags &= ~(unsigned)SQP_WRITE_EROFS_IGNORE_MTIME;
		return 0;
	case OPT_IGNORE_MTIME:
		opt->desc.flags |= SQP_WRITE_EROFS_IGNORE_MTIME;
		return 0;
	case OPT_ALL_TIME: case OPT_MKFS_TIME:
		a->time_mode = c == OPT_ALL_TIME ? TIME_ALL : TIME_MKFS;
		return 0;
	case OPT_EXCLUDE_REGEX:
		if (tool_pargs_add(&opt->pargs, PARG_EXCLUDE_REGEX, arg, 0) == 0)
			return 0;
		fprintf(stderr, PROG ": out of memory\n");
		return 1;
	case OPT_TAR:
		/* mkfs.erofs 1.9 reads "i" and "0" as the index, anything
		 * else as f; a typo here would be a different image. */
		if (arg != NULL && strcmp(arg, "f") != 0 && strcmp(arg, "i") != 0 &&
		    strcmp(arg, "0") != 0 && strcmp(arg, "headerball") != 0)
			return mkfs_refuse(name, "valid are f, i and headerball");
		a->tar = 1;
		/* a tar without an entry for / or a parent: what 1.9 makes */
		opt->desc.flags |= SQP_WRITE_IMPLIED_FROM_PARENT;
		opt->desc.flags &= ~(unsigned)(SQP_WRITE_EROFS_TAR_INDEX |
					       SQP_WRITE_EROFS_TAR_HEADERBALL);
		opt->tar_read_flags = 0;
		if (arg != NULL && strcmp(arg, "headerball") == 0) {
			opt->desc.flags |= SQP_WRITE_EROFS_TAR_HEADERBALL;
			opt->tar_read_flags = SQP_TAR_READ_HEADERS_ONLY;
		} else if (arg != NULL && strcmp(arg, "f") != 0) {
			opt->desc.flags |= SQP_WRITE_EROFS_TAR_INDEX;
			opt->tar_read_flags = SQP_TAR_READ_INDEX;
		}
		return 0;
	case OPT_EXCLUDE_PATH: return exclude_path(opt, arg);
	case OPT_UID_OFFSET: return number(name, arg, UINT32_MAX, &a->uid_offset);
	case OPT_GID_OFFSET: return number(name, arg, UINT32_MAX, &a->gid_offset);
	case OPT_HARD_DEREF:
		/* Each name its own inode; a tar's hard links are its
		 * entries', kept, as mkfs.erofs --tar keeps them. */
		opt->scan_flags |= SQP_DIRSCAN_NO_HARDLINKS;
		return 0;
	case OPT_AUFS: a->aufs = 1; return 0;
	case OPT_SHARD: case OPT_SHARD_PLAN:
		if (opt->shard_count != 0)
			return mkfs_refuse(name, "--shard and --shard-plan: give one, once");
		if (tool_shard_set(opt, c == OPT_SHARD_PLAN, arg) == 0)
			return 0;
		return mkfs_refuse(name, c == OPT_SHARD ?
				   "I/N, shard I of N, 1 <= I <= N <= 65536" :
				   "a number of shards, 1 to 65536");
	case OPT_FILE_CONTEXTS: case OPT_FS_CONFIG: case OPT_MOUNT_POINT: case OPT_PRODUCT_OUT:
		return tool_security_option(&opt->security, c - OPT_FILE_CONTEXTS, arg);
	case OPT_OVLFS_STRIP:
		/* mkfs.erofs takes any other value as 0; a typo here
		 * would keep whiteouts the caller wanted gone. */
		if (arg != NULL && strcmp(arg, "0") != 0 && strcmp(arg, "1") != 0)
			return mkfs_refuse(name, "valid are 0 and 1");
		if (arg == NULL || strcmp(arg, "1") == 0)
			opt->desc.flags |= SQP_WRITE_OVERLAY_STRIP;
		else
			opt->desc.flags &= ~(unsigned)SQP_WRITE_OVERLAY_STRIP;
		return 0;
	case OPT_SORT:
		/* mkfs.erofs's order of file data in the image. Ours is
		 * the tar's always (data is stored as it is read, which is
		 * what none asks for): the same tar, the same bytes. path
		 * (the default here too) changes no file's contents. */
		if (strcmp(arg, "none") != 0 && strcmp(arg, "path") != 0)
			return mkfs_refuse(name, "valid are none and path");
		return 0;
	case OPT_MAX_EXTENT:
		/* mkfs.erofs's negative values ask for unaligned extents,
		 * which its 48-bit layout (-E48bit) maps by encoded extents;
		 * sqpack writes cluster indexes, under -E48bit too. */
		if (arg[0] == '-')
			return mkfs_refuse(name, "unaligned extents (a negative size) "
					   "are not done: clusters start on blocks, "
					   "-E48bit's too");
		if ((ret = number(name, arg, UINT32_MAX, &v)) != 0)
			return ret;
		if (v < 512)
			return mkfs_refuse(name, "at least the block size");
		opt->desc.erofs_max_extent = (uint32_t)v;
		return 0;
	case OPT_CHUNKSIZE:
		/* mkfs.erofs reads a plain number (strtol, base 0) */
		if ((ret = number(name, arg, (uint64_t)1 << 30, &v)) != 0)
			return ret;
		if (tool_chunk_size(&opt->desc, arg) != 0)
			return mkfs_refuse(name, "the chunk size is a power of two from "
					   "the block size to 1 GiB");
		return 0;
	case OPT_BLOBDEV:
		opt->blob_file = arg;
		opt->desc.flags |= SQP_WRITE_EROFS_BLOB;
		return 0;
	case OPT_HINTS:
		opt->hints_file = arg;
		return 0;
	case OPT_METAZONE:
		/* mkfs.erofs 1.9's metadata zone: no value, or a string of
		 * 'i' (the inodes) and 'd' (the directories' data, only with
		 * 'i'), puts them in a zone of their own; 0 leaves them. This
		 * writer's directory blocks lie just before the inodes
		 * anyway, so 'i' alone and 'id' are the same zone. */
		if (arg == NULL || (arg[0] != '\0' && strspn(arg, "id") == strlen(arg) &&
				    strchr(arg, 'i') != NULL))
			opt->desc.flags |= SQP_WRITE_EROFS_METAZONE;
		else if (strcmp(arg, "0") == 0)
			opt->desc.flags &= ~(unsigned)SQP_WRITE_EROFS_METAZONE;
		else
			return mkfs_refuse(name, arg[0] != '\0' && strspn(arg, "id") == strlen(arg) ?
					   "the directories' data ('d') goes in the "
					   "zone only with the inodes ('i')" :
					   "valid are 0, or 'i' and 'd' (the inodes, "
					   "the directories' data)");
		return 0;
	case OPT_ZDIRS:
		/* As mkfs.erofs documents it: 1 (or no value) on, 0 off.
		 * mkfs.erofs 1.9.3 itself reads any value but 1 as on. */
		if (arg != NULL && strcmp(arg, "0") != 0 && strcmp(arg, "1") != 0)
			return mkfs_refuse(name, "valid are 0 and 1");
		if (arg == NULL || strcmp(arg, "1") == 0)
			opt->desc.flags |= SQP_WRITE_EROFS_COMPRESS_DIRS;
		else
			opt->desc.flags &= ~(unsigned)SQP_WRITE_EROFS_COMPRESS_DIRS;
		return 0;
	case OPT_OFFSET:
		/* IMAGE is replaced: zeros in front, as mkfs.erofs, which
		 * truncates it, leaves there. */
		opt->prefix_zeros = 1;
		return number(name, arg, (uint64_t)1 << 62, &opt->desc.offset);
	case OPT_UNZIP:
		/* The tar is read through its decompressor whatever the
		 * option says: tar2img knows gzip, xz, lzma, zstd, lz4 and
		 * bzip2 by their magic (and a plain tar, which mkfs.erofs
		 * would refuse). A copy of the tar as read is not made. */
		if (arg != NULL)
			return mkfs_refuse(name, "writing the decompressed tar to a "
					   "file is not done (give the option without =FILE)");
		return 0;
	default:
		return mkfs_refuse(name, "unknown option");
	}
}

/* The offsets: added to every owner, the forced ones included
 * (--all-root's 0:0 too), as mkfs.erofs adds them. A forced owner that
 * overflows 32 bits is refused (mkfs.erofs wraps it around). */
static int offsets(struct tool_options *opt, const struct mkfs_args *a)
{
	struct sqp_policy_desc *p = &opt->policy;

	if (a->uid_offset == 0 && a->gid_offset == 0)
		return 0;
	if (p->flags & SQP_POLICY_ALL_ROOT) {
		p->flags &= ~(unsigned)SQP_POLICY_ALL_ROOT;
		p->flags |= SQP_POLICY_SET_UID | SQP_POLICY_SET_GID;
		p->uid = p->gid = 0;
	}
	if (!(p->flags & SQP_POLICY_SET_UID))
		p->uid_offset = (int64_t)a->uid_offset;
	else if (p->uid + a->uid_offset > UINT32_MAX)
		return mkfs_refuse("--uid-offset", "the forced uid plus the offset passes 2^32 - 1");
	else
		p->uid += (uint32_t)a->uid_offset;
	if (!(p->flags & SQP_POLICY_SET_GID))
		p->gid_offset = (int64_t)a->gid_offset;
	else if (p->gid + a->gid_offset > UINT32_MAX)
		return mkfs_refuse("--gid-offset", "the forced gid plus the offset passes 2^32 - 1");
	else
		p->gid += (uint32_t)a->gid_offset;
	return 0;
}

/* SOURCE_DATE_EPOCH, as mkfs.erofs 1.9 reads it, wins over -T,
 * --all-time and --mkfs-time: it is the build time, and every file
 * (the root too) at that time or newer gets it, nanoseconds cleared;
 * older files keep theirs. Reproducible builders (archiso) export it
 * and expect 1.9's file times. */
static int source_date_epoch(struct tool_options *opt)
{
	int ret = tool_source_date_epoch(&opt->desc.mod_time);

	if (ret == 0 && opt->desc.mod_time != SQP_TIME_NEWEST) {
		opt->policy.flags |= SQP_POLICY_CLAMP_MTIME;
		opt->policy.mtime = opt->desc.mod_time;
	}
	return ret;
}

/* -T with --all-time (the default) or --mkfs-time, whatever the order:
 * every file's time and the build time, or the build time alone.
 * --all-time without -T gives mkfs.erofs's files the time of the run,
 * which no reproducible build asks for: refused, not guessed. */
static int times(struct tool_options *opt, const struct mkfs_args *a)
{
	int ret = source_date_epoch(opt);

	if (ret != 0 || opt->desc.mod_time != SQP_TIME_NEWEST)
		return ret;
	if (!a->has_time)
		return a->time_mode != TIME_ALL ? 0 :
		       mkfs_refuse("--all-time", "without -T or SOURCE_DATE_EPOCH (every "
			      "file at the time of the run) is not done; give -T");
	opt->desc.mod_time = (int64_t)a->time;
	if (a->time_mode != TIME_MKFS) {
		opt->policy.flags |= SQP_POLICY_SET_MTIME;
		opt->policy.mtime = (int64_t)a->time;
	}
	return 0;
}

/* --chunksize, --blobdev, --compress-hints and -m against the rest, as
 * mkfs.erofs 1.9 checks them, and what is not done here. */
static int chunks(const struct tool_options *opt, const struct mkfs_args *a)
{
	unsigned tidx = SQP_WRITE_EROFS_TAR_INDEX | SQP_WRITE_EROFS_TAR_HEADERBALL;

	if (opt->blob_file != NULL && opt->desc.erofs_chunk_size == 0)
		return mkfs_refuse("--blobdev", "must be used together with --chunksize");
	if (opt->blob_file != NULL && a->blockmap)
		return mkfs_refuse("--blobdev", "cannot work with block map "
				   "(-E force-inode-blockmap), as mkfs.erofs says");
	/* Hints choose among the compressors: with none there is nothing
	 * to choose (mkfs.erofs reads them and compresses nothing). */
	if (opt->hints_file != NULL && opt->desc.codec.id == 0)
		return mkfs_refuse("--compress-hints", "needs a compressor (-z)");
	if (opt->desc.erofs_metabox_pcluster != 0 &&
	    (opt->desc.codec.id == 0 ||
	     (opt->desc.erofs_metabox_codec == 1 && opt->desc.erofs_codec2.id == 0)))
		return mkfs_refuse("-m", "needs a compressor (-z), and X one of -z's");
	if (opt->desc.erofs_chunk_size == 0)
		return 0;
	/* As mkfs.erofs 1.9, a compressor compresses what gains and the
	 * rest is chunk based, in the image: no blob with it (writer.h). */
	if (opt->blob_file != NULL && opt->desc.codec.id != 0)
		return mkfs_refuse("--blobdev", "with a compressor is not done "
				   "(-znone: every file in chunks in the blob)");
	if (opt->desc.flags & tidx)
		return mkfs_refuse("--chunksize", "not with --tar=i or --tar=headerball, "
				   "which make their own chunks");
	return 0;
}

/* -b: the block size, which the sizes given in blocks must be whole
 * multiples of, as mkfs.erofs 1.9.3 checks once every option is read
 * (-C1536 with -b1024 is refused there too). --tar=i's blocks are the
 * tar's 512 bytes whatever -b says, as there. */
static int blocks(struct tool_options *opt, const struct mkfs_args *a)
{
	const struct sqp_writer_desc *d = &opt->desc;
	uint32_t bs = a->block_size != 0 ? (uint32_t)a->block_size : 4096;

	if (d->erofs_pcluster_size % bs != 0)
		return mkfs_refuse("-C", "the cluster size is not a multiple of the "
				   "block size (-b)");
	if (d->erofs_metabox_pcluster % bs != 0)
		return mkfs_refuse("-m", "the metabox's cluster size is not a multiple "
				   "of the block size (-b)");
	if (d->erofs_max_extent != 0 && d->erofs_max_extent < bs)
		return mkfs_refuse("--max-extent-bytes", "at least the block size (-b)");
	if (d->erofs_chunk_size != 0 && d->erofs_chunk_size < bs)
		return mkfs_refuse("--chunksize", "a power of two from the block size "
				   "(-b) to 1 GiB");
	opt->desc.codec.block_size = bs;
	return 0;
}

/* IMAGE, and DIRECTORY or TAR (none or "-": stdin); DIRECTORY alone
 * with --shard-plan, which writes no image. */
static int operands(struct tool_options *opt, int tar, int argc, char **argv)
{
	if (opt->shard_count != 0 && tar)
		return mkfs_refuse("--tar=f", "--shard and --shard-plan split a "
				   "DIRECTORY, not a tar");
	if (opt->shard_plan && optind >= argc)
		return mkfs_refuse("DIRECTORY", "missing");
	if (opt->shard_plan && optind + 1 < argc)
		return mkfs_refuse(argv[optind + 1], "unexpected argument (--shard-plan "
				   "writes no IMAGE)");
	if (opt->shard_plan) {
		opt->dirs = argv + optind;
		opt->dir_count = 1;
		return 0;
	}
	if (optind >= argc)
		return mkfs_refuse("IMAGE", "missing");
	opt->output = argv[optind++];
	if (!tar && optind >= argc)
		return mkfs_refuse("DIRECTORY", "missing");
	if (optind + 1 < argc)
		return mkfs_refuse(argv[optind + 1], "unexpected argument");
	if (tar) {
		opt->tool = TOOL_TAR2IMG;
		opt->inputs = argv + optind;
		opt->input_count = optind < argc && strcmp(argv[optind], "-") != 0;
	} else {
		opt->dirs = argv + optind;
		opt->dir_count = 1;
	}
	return 0;
}

/* Our argv into the packer's options: 0, 2 (bad usage, reported), 1
 * (out of memory) or -1 (help or version printed). */
static int parse(int argc, char **argv, struct tool_options *opt, struct mkfs_args *a)
{
	int c, ret;

	tool_options_init(opt, TOOL_DIR2IMG);
	opt->desc.format = SQP_FORMAT_EROFS;
	opt->desc.codec.block_size = 4096;  /* -znone's: stored as it is */
	/* mkfs.erofs 1.9 writes the xattr name filter unless told
	 * -E^xattr-name-filter; dir2img and tar2img only on request. */
	opt->desc.flags |= SQP_WRITE_EROFS_XATTR_FILTER;
	/* Its fragments share what they can unless -E^fragdedupe: the
	 * default is fragdedupe=full (mkfs_extended), cleared below where
	 * there are no fragments, as mkfs.erofs only reads it with them. */
	opt->desc.flags |= SQP_WRITE_EROFS_FRAGDEDUPE | SQP_WRITE_EROFS_FRAGDEDUPE_FULL;
	opt->force = 1;
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, argv, ":z:C:b:E:T:U:L:d:x:m:V", long_opts, NULL)) != -1) {
		const char *name = argv[optind - 1];

		if (c == OPT_HELP) {
			usage(stdout);
			return -1;
		}
		if (c == 'V' || c == OPT_VERSION) {
			tool_print_version(PROG);
			return -1;
		}
		if (c == '?' || c == ':')
			return mkfs_refuse(name, c == '?' ? "unknown option" : "needs a value");
		ret = c < 256 ? short_option(opt, c, optarg, a)
			      : long_option(opt, c, optarg, name, a);
		if (ret != 0)
			return ret < 0 ? mkfs_refuse(name, "unknown option") : ret;
	}
	if (!(opt->desc.flags & SQP_WRITE_EROFS_FRAGMENTS))
		opt->desc.flags &= ~(SQP_WRITE_EROFS_FRAGDEDUPE | SQP_WRITE_EROFS_FRAGDEDUPE_FULL);
	if ((ret = offsets(opt, a)) != 0 || (ret = times(opt, a)) != 0 ||
	    (ret = chunks(opt, a)) != 0 || (ret = blocks(opt, a)) != 0)
		return ret;
	/* A tar layer is written to be an overlay's lower directory, as
	 * containerd's EROFS snapshotter mounts it. mkfs.erofs reads the
	 * markers in a tar alone: a directory's .wh. files stay files. */
	if (a->aufs && a->tar)
		opt->desc.flags |= SQP_WRITE_OVERLAY_WHITEOUTS;
	ret = operands(opt, a->tar, argc, argv);
	return ret != 0 ? ret : tool_options_finish(opt);
}

int main(int argc, char **argv)
{
	struct tool_options opt;
	struct mkfs_args a = { 0 };
	int ret;

	tool_set_progname(PROG);
	ret = parse(argc, argv, &opt, &a);
	if (ret != 0) {
		tool_options_free(&opt);
		return ret < 0 ? 0 : ret;
	}
	return a.tar ? tar2img_run(&opt) : dir2img_run(&opt);
}
