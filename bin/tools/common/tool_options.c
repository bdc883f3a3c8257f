/* SPDX-License-Identifier: MIT */
/*
 * tool_options.c - the option table of tar2img and dir2img and the loop
 * that applies it (img2img's too). Options that only make sense for a
 * directory are refused by tar2img with a reason, not ignored, and
 * img2img's own by the others, tar2img's (--index, --headers-only)
 * by dir2img and img2img. What --format erofs takes is tool_erofs.c's.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/shard.h"
#include "sqpack/tar.h"
#include "tool_mains.h"
#include "tool_optvals.h"
#include "tool_usage.h"
#include "tool_version.h"

enum {
	OPT_NO_DEDUP = 256, OPT_NO_FRAGMENTS, OPT_ALWAYS_FRAGMENTS, OPT_NO_TAILENDS,
	OPT_EXPORTABLE, OPT_NO_XATTRS, OPT_NO_PAD, OPT_TRY_ALL,
	/* entry options (both tools) */
	OPT_ALL_ROOT, OPT_UID, OPT_GID, OPT_UID_OFFSET, OPT_GID_OFFSET, OPT_MTIME,
	OPT_CLAMP_MTIME, OPT_IMAGE_TIME, OPT_EXCLUDE, OPT_EXCLUDE_FROM, OPT_EXCLUDE_REGEX, OPT_SPEC,
	OPT_SPEC_LINE, OPT_OFFSET, OPT_UNCOMPRESSED, OPT_PROGRESS, OPT_MEM,
	OPT_WHITEOUTS, OPT_PREFIX, OPT_SHARD, OPT_SHARD_PLAN,
	OPT_FORMAT, OPT_UUID, OPT_LABEL, OPT_PCLUSTER, OPT_ZTAILPACKING, OPT_EROFS_FRAGMENTS,
	OPT_EROFS_DEDUPE, OPT_EROFS_48BIT, OPT_EROFS_ZDIRS, OPT_EROFS_METABOX,
	OPT_EROFS_METAZONE, OPT_OVLFS_STRIP, OPT_MAX_EXTENT, OPT_CHUNK_SIZE, OPT_BLOBDEV,
	OPT_HINTS, OPT_HINT_CODEC, OPT_XATTR_FILTER,
	/* tar2img only: an EROFS index of the tar (tool_erofs.c) */
	OPT_INDEX, OPT_HEADERS_ONLY,
	/* --verity and its options (tool_verity.c), in enum tool_verity_opt order */
	OPT_VERITY, OPT_VERITY_BLOCK_SIZE, OPT_VERITY_SALT, OPT_VERITY_NO_SUPERBLOCK,
	OPT_VERITY_ROOTHASH,
	/* tool_security.c's, in enum tool_security_opt order */
	OPT_FILE_CONTEXTS, OPT_FS_CONFIG, OPT_MOUNT_POINT, OPT_PRODUCT_OUT,
	/* dir2img only */
	OPT_FIRST_DIR_ONLY, OPT_SORT = OPT_FIRST_DIR_ONLY, OPT_VERBOSE, OPT_KEEP_DIR, OPT_ONE_FS,
	OPT_NO_HARDLINKS, OPT_ON_CHANGE, OPT_SKIP_UNREADABLE, OPT_LAYERS,
	/* img2img only */
	OPT_FIRST_IMG_ONLY, OPT_DELETE = OPT_FIRST_IMG_ONLY, OPT_SHARDS, OPT_PLAN,
};

static const struct option long_opts[] = {
	{ "compressor", required_argument, NULL, 'c' },
	{ "comp-opt", required_argument, NULL, 'X' },
	{ "block-size", required_argument, NULL, 'b' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "force", no_argument, NULL, 'f' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "no-dedup", no_argument, NULL, OPT_NO_DEDUP },
	{ "no-fragments", no_argument, NULL, OPT_NO_FRAGMENTS },
	{ "always-fragments", no_argument, NULL, OPT_ALWAYS_FRAGMENTS },
	{ "tailends", no_argument, NULL, OPT_ALWAYS_FRAGMENTS },
	{ "no-tailends", no_argument, NULL, OPT_NO_TAILENDS },
	{ "exportable", no_argument, NULL, OPT_EXPORTABLE },
	{ "no-xattrs", no_argument, NULL, OPT_NO_XATTRS },
	{ "no-pad", no_argument, NULL, OPT_NO_PAD },
	{ "try-all-blocks", no_argument, NULL, OPT_TRY_ALL },
	{ "all-root", no_argument, NULL, OPT_ALL_ROOT },
	{ "uid", required_argument, NULL, OPT_UID },
	{ "gid", required_argument, NULL, OPT_GID },
	{ "uid-offset", required_argument, NULL, OPT_UID_OFFSET },
	{ "gid-offset", required_argument, NULL, OPT_GID_OFFSET },
	{ "mtime", required_argument, NULL, OPT_MTIME },
	{ "clamp-mtime", no_argument, NULL, OPT_CLAMP_MTIME },
	{ "image-time", required_argument, NULL, OPT_IMAGE_TIME },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "exclude-from", required_argument, NULL, OPT_EXCLUDE_FROM },
	{ "exclude-regex", required_argument, NULL, OPT_EXCLUDE_REGEX },
	{ "spec", required_argument, NULL, OPT_SPEC },
	{ "spec-line", required_argument, NULL, OPT_SPEC_LINE },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "uncompressed", required_argument, NULL, OPT_UNCOMPRESSED },
	{ "progress", required_argument, NULL, OPT_PROGRESS },
	{ "mem", required_argument, NULL, OPT_MEM },
	{ "whiteouts", required_argument, NULL, OPT_WHITEOUTS },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "ovlfs-strip", no_argument, NULL, OPT_OVLFS_STRIP },
	{ "index", no_argument, NULL, OPT_INDEX },
	{ "headers-only", no_argument, NULL, OPT_HEADERS_ONLY },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "shard-plan", required_argument, NULL, OPT_SHARD_PLAN },
	{ "shards", no_argument, NULL, OPT_SHARDS },
	{ "plan", required_argument, NULL, OPT_PLAN },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "uuid", required_argument, NULL, OPT_UUID },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "pcluster-size", required_argument, NULL, OPT_PCLUSTER },
	{ "ztailpacking", no_argument, NULL, OPT_ZTAILPACKING },
	{ "erofs-fragments", no_argument, NULL, OPT_EROFS_FRAGMENTS },
	{ "erofs-dedupe", no_argument, NULL, OPT_EROFS_DEDUPE },
	{ "erofs-compress-dirs", no_argument, NULL, OPT_EROFS_ZDIRS },
	{ "erofs-metabox", required_argument, NULL, OPT_EROFS_METABOX },
	{ "erofs-metazone", no_argument, NULL, OPT_EROFS_METAZONE },
	{ "xattr-name-filter", no_argument, NULL, OPT_XATTR_FILTER },
	{ "erofs-48bit", no_argument, NULL, OPT_EROFS_48BIT },
	{ "max-extent-bytes", required_argument, NULL, OPT_MAX_EXTENT },
	{ "chunk-size", required_argument, NULL, OPT_CHUNK_SIZE },
	{ "blobdev", required_argument, NULL, OPT_BLOBDEV },
	{ "compress-hints", required_argument, NULL, OPT_HINTS },
	{ "hint-compressor", required_argument, NULL, OPT_HINT_CODEC },
	{ "verity", optional_argument, NULL, OPT_VERITY },
	{ "verity-block-size", required_argument, NULL, OPT_VERITY_BLOCK_SIZE },
	{ "verity-salt", required_argument, NULL, OPT_VERITY_SALT },
	{ "verity-no-superblock", no_argument, NULL, OPT_VERITY_NO_SUPERBLOCK },
	{ "verity-roothash", required_argument, NULL, OPT_VERITY_ROOTHASH },
	{ "file-contexts", required_argument, NULL, OPT_FILE_CONTEXTS },
	{ "fs-config-file", required_argument, NULL, OPT_FS_CONFIG },
	{ "mount-point", required_argument, NULL, OPT_MOUNT_POINT },
	{ "product-out", required_argument, NULL, OPT_PRODUCT_OUT },
	{ "verbose", no_argument, NULL, OPT_VERBOSE },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "keep-dir", no_argument, NULL, OPT_KEEP_DIR },
	{ "one-file-system", no_argument, NULL, OPT_ONE_FS },
	{ "no-hardlinks", no_argument, NULL, OPT_NO_HARDLINKS },
	{ "on-change", required_argument, NULL, OPT_ON_CHANGE },
	{ "skip-unreadable", no_argument, NULL, OPT_SKIP_UNREADABLE },
	{ "layers", no_argument, NULL, OPT_LAYERS },
	{ "delete", required_argument, NULL, OPT_DELETE },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

int tool_pargs_add(struct tool_pargs *l, int kind, const char *arg, int copy)
{
	struct policy_arg *p;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;

		p = realloc(l->v, cap * sizeof(*p));
		if (p == NULL)
			return -1;
		l->v = p;
		l->cap = cap;
	}
	p = &l->v[l->n];
	p->kind = kind;
	p->own = copy ? strdup(arg) : NULL;
	if (copy && p->own == NULL)
		return -1;
	p->arg = copy ? p->own : arg;
	l->n++;
	return 0;
}

void tool_pargs_free(struct tool_pargs *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].own);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* A policy input from the command line (argv outlives the options). */
static int add_parg(struct tool_options *opt, int kind, const char *arg)
{
	if (tool_pargs_add(&opt->pargs, kind, arg, 0) == 0)
		return 0;
	fprintf(stderr, "%s: out of memory\n", tool_progname());
	return 1;
}

static int id_value(const char *name, const char *arg, uint32_t *out)
{
	uint64_t v;

	if (tool_parse_u64(arg, UINT32_MAX, &v) != 0) {
		fprintf(stderr, "%s: %s '%s' is not a number between 0 and 4294967295\n",
			tool_progname(), name, arg);
		tool_try_help();
		return 2;
	}
	*out = (uint32_t)v;
	return 0;
}

static int offset_value(const char *name, const char *arg, int64_t *out)
{
	if (tool_parse_i64(arg, -(int64_t)UINT32_MAX, UINT32_MAX, out) != 0) {
		fprintf(stderr, "%s: %s '%s' is not a number between -4294967295 and "
			"4294967295\n", tool_progname(), name, arg);
		tool_try_help();
		return 2;
	}
	return 0;
}

static int progress_value(const char *arg, int *out)
{
	static const char *const names[] = { "auto", "none", "tty", "json" };
	int i;

	for (i = 0; i < 4; i++) {
		if (strcmp(arg, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	return tool_bad_usage("--progress '%s': valid are auto, none, tty and json", arg);
}

/* --prefix DIR: leading and trailing '/' dropped (in argv), no empty,
 * "." or ".." component left inside. */
static int prefix_value(char *arg, const char **out)
{
	size_t len;
	char *p;

	while (*arg == '/')
		arg++;
	len = strlen(arg);
	while (len > 0 && arg[len - 1] == '/')
		arg[--len] = '\0';
	for (p = arg; len > 0; p++) {
		size_t n = strcspn(p, "/");

		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return tool_bad_usage("--prefix '%s': a directory path without empty, "
					      "'.' or '..' components", arg);
		p += n;
		if (*p == '\0')
			break;
	}
	*out = arg;
	return 0;
}

/* Options about the image layout and codec (both tools). */
static int layout_option(struct tool_options *opt, int c, const char *arg)
{
	struct sqp_writer_desc *d = &opt->desc;
	uint64_t v;

	switch (c) {
	case 'j':
		if (tool_parse_u64(arg, 1024, &v) != 0 || v == 0)
			return tool_bad_usage("jobs '%s' is not a number between 1 and 1024", arg);
		d->jobs = (unsigned)v;
		return 0;
	case OPT_NO_DEDUP: d->flags |= SQP_WRITE_NO_DEDUP; return 0;
	case OPT_NO_FRAGMENTS: d->fragment_mode = SQP_FRAGMENTS_NONE; return 0;
	case OPT_ALWAYS_FRAGMENTS: d->fragment_mode = SQP_FRAGMENTS_ALL; return 0;
	case OPT_NO_TAILENDS: d->fragment_mode = SQP_FRAGMENTS_SMALL; return 0;
	case OPT_EXPORTABLE: d->flags |= SQP_WRITE_EXPORTABLE; return 0;
	case OPT_NO_XATTRS:
		d->flags |= SQP_WRITE_NO_XATTRS;
		opt->scan_flags |= SQP_DIRSCAN_NO_XATTRS;
		return 0;
	case OPT_NO_PAD: d->flags |= SQP_WRITE_NO_PAD; return 0;
	case OPT_ZTAILPACKING: d->flags |= SQP_WRITE_EROFS_ZTAILPACKING; return 0;
	case OPT_EROFS_FRAGMENTS: d->flags |= SQP_WRITE_EROFS_FRAGMENTS; return 0;
	case OPT_EROFS_DEDUPE: d->flags |= SQP_WRITE_EROFS_DEDUPE; return 0;
	case OPT_EROFS_ZDIRS: d->flags |= SQP_WRITE_EROFS_COMPRESS_DIRS; return 0;
	case OPT_XATTR_FILTER: d->flags |= SQP_WRITE_EROFS_XATTR_FILTER; return 0;
	case OPT_EROFS_48BIT: d->flags |= SQP_WRITE_EROFS_48BIT; return 0;
	case OPT_EROFS_METAZONE: d->flags |= SQP_WRITE_EROFS_METAZONE; return 0;
	case OPT_MEM:
		if (tool_parse_bytes(arg, &v) != 0 || v < ((uint64_t)1 << 20))
			return tool_bad_usage("--mem '%s' is not a size of at least 1M", arg);
		d->mem_limit = v;
		return 0;
	case OPT_TRY_ALL: d->flags |= SQP_WRITE_NO_PROBE; return 0;
	case OPT_PREFIX:
		return prefix_value(optarg, &d->prefix);
	case OPT_WHITEOUTS:
		d->flags &= ~(unsigned)(SQP_WRITE_OCI_WHITEOUTS | SQP_WRITE_OVERLAY_WHITEOUTS);
		if (strcmp(arg, "oci") == 0)
			d->flags |= SQP_WRITE_OCI_WHITEOUTS;
		else if (strcmp(arg, "overlay") == 0)
			d->flags |= SQP_WRITE_OVERLAY_WHITEOUTS;
		else if (strcmp(arg, "none") != 0)
			return tool_bad_usage("--whiteouts '%s': valid are oci, overlay "
					      "and none", arg);
		return 0;
	case OPT_OVLFS_STRIP: d->flags |= SQP_WRITE_OVERLAY_STRIP; return 0;
	case OPT_INDEX: case OPT_HEADERS_ONLY:
		if (d->flags & (SQP_WRITE_EROFS_TAR_INDEX | SQP_WRITE_EROFS_TAR_HEADERBALL))
			return tool_bad_usage("%s", "--index and --headers-only: give one");
		d->flags |= c == OPT_INDEX ? SQP_WRITE_EROFS_TAR_INDEX :
			    SQP_WRITE_EROFS_TAR_HEADERBALL;
		opt->tar_read_flags = c == OPT_INDEX ? SQP_TAR_READ_INDEX :
				      SQP_TAR_READ_HEADERS_ONLY;
		return 0;
	case OPT_OFFSET:
		if (tool_parse_u64(arg, (uint64_t)1 << 62, &v) != 0)
			return tool_bad_usage("--offset '%s' is not a byte count", arg);
		d->offset = v;
		return 0;
	case OPT_UNCOMPRESSED:
		return tool_parse_uncompressed(arg, &d->flags);
	case OPT_FORMAT:
		opt->format_given = 1;
		if (strcmp(arg, "squashfs") == 0)
			d->format = SQP_FORMAT_SQUASHFS;
		else if (strcmp(arg, "erofs") == 0)
			d->format = SQP_FORMAT_EROFS;
		else
			return tool_bad_usage("--format '%s': valid are squashfs and erofs", arg);
		return 0;
	case OPT_UUID:
		switch (tool_uuid_arg(arg, d->uuid)) {
		case 0: break;
		case -2:
			fprintf(stderr, "%s: --uuid random: no random bytes: %s\n",
				tool_progname(), strerror(errno));
			return 1;
		default:
			return tool_bad_usage("--uuid '%s' is not a UUID (xxxxxxxx-xxxx-"
					      "xxxx-xxxx-xxxxxxxxxxxx, clear or random)", arg);
		}
		d->flags |= SQP_WRITE_EROFS_UUID;
		return 0;
	case OPT_LABEL:
		if (strlen(arg) > 16)
			return tool_bad_usage("--label '%s' is longer than 16 bytes", arg);
		d->volume_label = arg;
		return 0;
	case OPT_PCLUSTER:
		if (tool_parse_bytes(arg, &v) != 0 || v % 512 != 0 || v == 0 || v > (1u << 20))
			return tool_bad_usage("--pcluster-size '%s': a multiple of the block "
					      "size up to 1M", arg);
		d->erofs_pcluster_size = (uint32_t)v;
		return 0;
	case OPT_EROFS_METABOX:
		if (tool_parse_bytes(arg, &v) != 0 || v % 512 != 0 || v == 0 || v > (1u << 20))
			return tool_bad_usage("--erofs-metabox '%s': a multiple of the block "
					      "size up to 1M", arg);
		d->erofs_metabox_pcluster = (uint32_t)v;
		return 0;
	case OPT_MAX_EXTENT:
		if (tool_parse_bytes(arg, &v) != 0 || v < 512 || v > UINT32_MAX)
			return tool_bad_usage("--max-extent-bytes '%s': at least the block "
					      "size", arg);
		d->erofs_max_extent = (uint32_t)v;
		return 0;
	case OPT_CHUNK_SIZE:
		return tool_chunk_size(d, arg) == 0 ? 0 :
		       tool_bad_usage("--chunk-size '%s': a power of two from the "
				      "block size to 1G", arg);
	case OPT_BLOBDEV:
		opt->blob_file = arg;
		d->flags |= SQP_WRITE_EROFS_BLOB;
		return 0;
	case OPT_HINTS:
		opt->hints_file = arg;
		return 0;
	case OPT_HINT_CODEC:
		opt->codec2 = arg;
		return 0;
	case OPT_VERITY: case OPT_VERITY_BLOCK_SIZE: case OPT_VERITY_SALT:
	case OPT_VERITY_NO_SUPERBLOCK: case OPT_VERITY_ROOTHASH:
		return tool_verity_option(&opt->verity, c - OPT_VERITY, arg);
	default:
		return -1;
	}
}

/* Options about entries: owners, times, selection (both tools). */
static int entry_option(struct tool_options *opt, int c, const char *arg,
			const char *name)
{
	struct sqp_policy_desc *p = &opt->policy;

	switch (c) {
	case OPT_ALL_ROOT: p->flags |= SQP_POLICY_ALL_ROOT; return 0;
	case OPT_UID: p->flags |= SQP_POLICY_SET_UID; return id_value(name, arg, &p->uid);
	case OPT_GID: p->flags |= SQP_POLICY_SET_GID; return id_value(name, arg, &p->gid);
	case OPT_UID_OFFSET: return offset_value(name, arg, &p->uid_offset);
	case OPT_GID_OFFSET: return offset_value(name, arg, &p->gid_offset);
	case OPT_MTIME: p->flags |= SQP_POLICY_SET_MTIME; return tool_parse_time(name, arg, &p->mtime);
	case OPT_CLAMP_MTIME: p->flags |= SQP_POLICY_CLAMP_MTIME; return 0;
	case OPT_IMAGE_TIME: return tool_parse_time(name, arg, &opt->desc.mod_time);
	case OPT_EXCLUDE: return add_parg(opt, PARG_EXCLUDE, arg);
	case OPT_DELETE: return add_parg(opt, PARG_DELETE, arg);
	case OPT_EXCLUDE_FROM: return add_parg(opt, PARG_EXCLUDE_FROM, arg);
	case OPT_EXCLUDE_REGEX: return add_parg(opt, PARG_EXCLUDE_REGEX, arg);
	case OPT_SPEC: return add_parg(opt, PARG_SPEC, arg);
	case OPT_SPEC_LINE: return add_parg(opt, PARG_SPEC_LINE, arg);
	case OPT_FILE_CONTEXTS: case OPT_FS_CONFIG: case OPT_MOUNT_POINT: case OPT_PRODUCT_OUT:
		return tool_security_option(&opt->security, c - OPT_FILE_CONTEXTS, arg);
	case OPT_PROGRESS: return progress_value(arg, &opt->progress);
	case OPT_VERBOSE: opt->verbose = 1; return 0;
	case OPT_SORT: return add_parg(opt, PARG_SORT, arg);
	case OPT_KEEP_DIR: opt->scan_flags |= SQP_DIRSCAN_KEEP_DIR; return 0;
	case OPT_ONE_FS: opt->scan_flags |= SQP_DIRSCAN_ONE_FS; return 0;
	case OPT_NO_HARDLINKS: opt->scan_flags |= SQP_DIRSCAN_NO_HARDLINKS; return 0;
	case OPT_SKIP_UNREADABLE: opt->scan_flags |= SQP_DIRSCAN_SKIP_UNREADABLE; return 0;
	case OPT_LAYERS: opt->layers = 1; return 0;
	case OPT_ON_CHANGE:
		if (strcmp(arg, "warn") == 0)
			opt->scan_flags |= SQP_DIRSCAN_CHANGE_WARN;
		else if (strcmp(arg, "fail") == 0)
			opt->scan_flags &= ~(unsigned)SQP_DIRSCAN_CHANGE_WARN;
		else
			return tool_bad_usage("--on-change '%s': valid are fail and warn", arg);
		return 0;
	default:
		return -1;
	}
}

/* "--name" of a long option, for messages (argv may hold its value). */
static const char *long_name(int c)
{
	static char buf[40];
	size_t i;

	for (i = 0; long_opts[i].name != NULL; i++) {
		if (long_opts[i].val == c) {
			snprintf(buf, sizeof(buf), "--%s", long_opts[i].name);
			return buf;
		}
	}
	return "?";
}

/* --shard I/N (1 <= I <= N) or --shard-plan N; one of them, once. */
static int shard_option(struct tool_options *opt, int plan, const char *arg)
{
	if (opt->shard_count != 0)
		return tool_bad_usage("%s", "--shard and --shard-plan: give one, once");
	if (tool_shard_set(opt, plan, arg) == 0)
		return 0;
	return plan ? tool_bad_usage("--shard-plan '%s': a number of shards, 1 to 65536", arg)
		    : tool_bad_usage("--shard '%s': I/N, shard I of N, 1 <= I <= N <= 65536",
				     arg);
}

static int one_option(struct tool_options *opt, int c, char **argv, const char **codec,
		      const char **comp_opts, uint32_t *block_size)
{
	const char *name = c >= OPT_NO_DEDUP ? long_name(c) : argv[optind - 1];
	uint64_t v;
	int ret;

	if (opt->tool != TOOL_IMG2IMG && c >= OPT_FIRST_IMG_ONLY)
		return tool_bad_usage("%s is an option of img2img", name);
	if (opt->tool != TOOL_TAR2IMG && (c == OPT_INDEX || c == OPT_HEADERS_ONLY))
		return tool_bad_usage("%s is an option of tar2img: an index of a tar", name);
	if (opt->tool == TOOL_TAR2IMG && c >= OPT_FIRST_DIR_ONLY)
		return tool_bad_usage(c == OPT_SORT ?
				      "%s: a stream's data is stored in stream order; sort the "
				      "tar instead (or use dir2img)" :
				      "%s is an option of dir2img, not of tar2img", name);
	switch (c) {
	case 'c': *codec = optarg; return 0;
	case 'X': *comp_opts = optarg; return 0;
	case 'b':
		/* 512 to 2K too: EROFS's, refused for SquashFS once the format is known */
		if (tool_parse_bytes(optarg, &v) != 0 || v < 512 || v > (1u << 20) || (v & (v - 1)))
			return tool_bad_usage("block size '%s' is not a power of two between 512 and 1M", optarg);
		*block_size = (uint32_t)v;
		return 0;
	case 'f': opt->force = 1; return 0;
	case OPT_SHARD:
	case OPT_SHARD_PLAN:
		if (opt->tool == TOOL_IMG2IMG)
			return tool_bad_usage("%s is an option of dir2img and tar2img; img2img "
					      "merges shards with --shards", name);
		return shard_option(opt, c == OPT_SHARD_PLAN, optarg);
	case OPT_SHARDS: opt->shards = 1; return 0;
	case OPT_PLAN: opt->plan = optarg; return 0;
	case 'q': opt->quiet = 1; return 0;
	case ':':
		return tool_bad_usage("option '%s' needs a value", name);
	case '?':
		return tool_bad_usage("unknown option '%s'", name);
	}
	ret = layout_option(opt, c, optarg);
	return ret >= 0 ? ret : entry_option(opt, c, optarg, name);
}

/* Layers are read from the top down, each once: stdin can be one of
 * them, but only one. */
static int stdin_once(const struct tool_options *opt)
{
	size_t i, dashes = 0;

	for (i = 0; i < opt->input_count; i++)
		dashes += strcmp(opt->inputs[i], "-") == 0;
	if (dashes > 1)
		return tool_bad_usage("%s", "'-' (stdin) is given more than once");
	return 0;
}

static int operands(int tool, int argc, char **argv, struct tool_options *opt)
{
	struct stat st;

	if (opt->shard_plan && tool == TOOL_DIR2IMG && optind >= argc)
		return tool_bad_usage("%s", "missing DIR");
	if (!opt->shard_plan && optind >= argc)
		return tool_bad_usage("%s", "missing OUTPUT");
	if (!opt->shard_plan)    /* a plan is printed: no image, no OUTPUT */
		opt->output = argv[optind++];
	if (tool == TOOL_IMG2IMG) {
		if (optind >= argc)
			return tool_bad_usage("%s", "missing BASE");
		opt->base = argv[optind++];
		opt->prefix_from = opt->base;
		opt->dirs = argv + optind;
		opt->dir_count = (size_t)(argc - optind);
		return 0;
	}
	if (tool == TOOL_DIR2IMG) {
		/* mksquashfs takes the image last: a directory here is most
		 * likely that habit, and replacing it is never wanted. */
		if (opt->output != NULL && stat(opt->output, &st) == 0 && S_ISDIR(st.st_mode))
			return tool_bad_usage("'%s' is a directory; the image comes "
					      "first: dir2img [OPTION]... OUTPUT DIR...",
					      opt->output);
		if (optind >= argc)
			return tool_bad_usage("%s", "missing DIR");
		opt->dirs = argv + optind;
		opt->dir_count = (size_t)(argc - optind);
		return 0;
	}
	opt->inputs = argv + optind;
	opt->input_count = (size_t)(argc - optind);
	return stdin_once(opt);
}

/* Times that depend on each other: clamping needs the image time; and
 * the verity options, checked as a whole. */
int tool_options_finish(struct tool_options *opt)
{
	int ret = 0;

	if (opt->desc.mod_time == SQP_TIME_NEWEST)
		ret = tool_source_date_epoch(&opt->desc.mod_time);
	if (ret == 0 && (opt->policy.flags & SQP_POLICY_CLAMP_MTIME) &&
	    !(opt->policy.flags & SQP_POLICY_SET_MTIME)) {
		if (opt->desc.mod_time == SQP_TIME_NEWEST)
			return tool_bad_usage("%s", "--clamp-mtime needs SOURCE_DATE_EPOCH or "
					      "--image-time");
		opt->policy.mtime = opt->desc.mod_time;
	}
	opt->policy.warn = tool_warn;
	opt->policy.warn_user = opt->warnings;
	if (ret == 0)
		ret = tool_security_check(&opt->security);
	return ret != 0 ? ret : tool_verity_check(&opt->verity);
}

void tool_options_init(struct tool_options *opt, int tool)
{
	memset(opt, 0, sizeof(*opt));
	opt->tool = tool;
	opt->desc.struct_size = sizeof(opt->desc);
	opt->verity.desc.struct_size = sizeof(opt->verity.desc);
	opt->verity.res.struct_size = sizeof(opt->verity.res);
	opt->desc.fragment_mode = SQP_FRAGMENTS_ALL;
	opt->desc.mod_time = SQP_TIME_NEWEST;
}

int tool_parse_options(int tool, int argc, char **argv, struct tool_options *opt)
{
	const char *codec = NULL, *comp_opts = NULL;
	uint32_t block_size = 0;
	int c, ret;

	tool_options_init(opt, tool);
	opterr = 0;   /* our own messages: argv[0] may be a libtool wrapper path */
	optind = 0;   /* full restart: another main may have parsed before */
	while ((c = getopt_long(argc, argv, ":c:X:b:j:fqhV", long_opts, NULL)) != -1) {
		if (c == 'h') {
			tool_usage(tool, stdout);
			return -1;
		}
		if (c == 'V') {
			tool_print_version(tool_progname());
			return -1;
		}
		ret = one_option(opt, c, argv, &codec, &comp_opts, &block_size);
		if (ret != 0)
			return ret;
	}
	ret = operands(tool, argc, argv, opt);
	if (ret == 0 && tool == TOOL_TAR2IMG)
		ret = tool_tar_index_check(opt, codec);
	opt->block_size = block_size;
	if (ret == 0 && tool != TOOL_IMG2IMG)
		ret = tool_erofs_only(opt);
	if (ret == 0 && tool == TOOL_IMG2IMG) {
		opt->codec_name = codec;
		opt->comp_opts = comp_opts;
	} else if (ret == 0 && opt->desc.format == SQP_FORMAT_EROFS)
		ret = tool_erofs_options(opt, codec, comp_opts, block_size);
	else if (ret == 0)
		ret = tool_finish_codec(&opt->desc, codec, comp_opts,
					block_size ? block_size : 128 * 1024);
	return ret != 0 ? ret : tool_options_finish(opt);
}

void tool_options_free(struct tool_options *opt)
{
	tool_pargs_free(&opt->pargs);
}
