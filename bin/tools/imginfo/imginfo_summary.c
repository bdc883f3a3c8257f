/* SPDX-License-Identifier: MIT */
/*
 * imginfo_summary.c - `imginfo [summary] [--json] IMAGE`: the format,
 * the codec and its options (an EROFS image's codecs), block size, flags, image time, counts of each entry type,
 * the bytes each part of the image takes, the compression ratio and what
 * deduplication saved, as text or as one JSON object.
 *
 * The numbers come from sqp_image_get_layout() (superblock and tables)
 * and sqp_image_summarize() (a streaming walk of the tree); this file
 * only derives ratios and prints. Dedup savings: the files' block lists
 * name block_bytes of data, the image stores data_bytes; the difference
 * is what sharing blocks saved (tails shared in fragments not included).
 * EROFS has no fragment blocks but one packed inode holding them, which
 * is shown in its terms (dump.erofs's "packed nid"), with the inode
 * count of its superblock.
 */
#include "config.h"

#include <string.h>

#include "imginfo.h"
#include "sqpack/image_info.h"
#include "sqpack/inspect.h"
#include "../common/tool_codecs.h"

struct kv {
	const char *key;
	char val[64];
	int num;                 /* a number in JSON, else a string */
};

static size_t add_kv(struct kv *o, size_t n, const char *key, int num,
		     const char *val)
{
	o[n].key = key;
	o[n].num = num;
	snprintf(o[n].val, sizeof(o[n].val), "%s", val);
	return n + 1;
}

static size_t add_num(struct kv *o, size_t n, const char *key, unsigned long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lu", v);
	return add_kv(o, n, key, 1, buf);
}

/* Names of the bits set in v, comma separated ("none" for 0). */
static void bit_names(char *buf, size_t size, unsigned v,
		      const char *const *names, unsigned count)
{
	size_t n = 0;

	snprintf(buf, size, "none");
	for (unsigned i = 0; i < count; i++)
		if ((v & (1u << i)) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? "," : "", names[i]);
}

static const char *format_name(int format)
{
	return format == SQP_FORMAT_EROFS ? "erofs" : "squashfs";
}

/* The options in force for the image's codec, as key/value pairs. */
static size_t codec_options(const struct sqp_codec_config *c, struct kv *o)
{
	static const char *const strat[] = { "default", "filtered",
		"huffman_only", "rle", "fixed" };
	static const char *const filt[] = { "x86", "powerpc", "ia64", "arm",
		"armthumb", "sparc" };
	static const char *const lzo[] = { "lzo1x_1", "lzo1x_1_11",
		"lzo1x_1_12", "lzo1x_1_15", "lzo1x_999" };
	char buf[64];
	size_t n = 0;

	switch (c->id) {
	case SQP_CODEC_GZIP:
		n = add_num(o, n, "level", (unsigned long)c->level);
		n = add_num(o, n, "window", c->window);
		bit_names(buf, sizeof(buf), c->strategies, strat, 5);
		return add_kv(o, n, "strategies", 0, buf);
	case SQP_CODEC_XZ:
		n = add_num(o, n, "dict_size", c->dict_size);
		bit_names(buf, sizeof(buf), c->filters, filt, 6);
		return add_kv(o, n, "filters", 0, buf);
	case SQP_CODEC_LZO:
		n = add_kv(o, n, "algorithm", 0,
			   c->algorithm < 5 ? lzo[c->algorithm] : "?");
		return c->algorithm == SQP_LZO1X_999 ?
			add_num(o, n, "level", (unsigned long)c->level) : n;
	case SQP_CODEC_LZ4:
		return add_kv(o, n, "hc", 0, (c->flags & SQP_LZ4_HC) ? "yes" : "no");
	case SQP_CODEC_ZSTD:
		return add_num(o, n, "level", (unsigned long)c->level);
	default:
		return 0;
	}
}

static const char *const flag_names[] = {
	"uncompressed-inodes", "uncompressed-data", "check",
	"uncompressed-fragments", "no-fragments", "always-fragments",
	"deduplicated", "exportable", "uncompressed-xattrs", "no-xattrs",
	"compressor-options", "uncompressed-ids",
};

struct report {
	const char *name;
	struct sqp_image_info ii;
	struct sqp_image_layout lo;
	struct sqp_image_summary s;
	uint64_t meta;           /* every table's bytes */
	int64_t dedup;           /* bytes saved by shared blocks */
	/* EROFS: the superblock's inode count, and the packed inode's
	 * fragments (bytes, and bytes stored) when there is one */
	uint64_t inodes, packed, packed_stored;
};

static void flag_list(const struct report *r, char *buf, size_t size)
{
	bit_names(buf, size, r->lo.flags, flag_names, 12);
}

static double ratio(const struct report *r)
{
	return r->s.file_bytes ? 100.0 * (double)(r->lo.data_bytes +
		r->lo.fragment_bytes) / (double)r->s.file_bytes : 0.0;
}

/* Codec, flags and counts. */
static void print_header(const struct report *r)
{
	const struct sqp_image_summary *s = &r->s;
	const struct sqp_image_layout *lo = &r->lo;
	struct kv opt[4];
	size_t n = codec_options(&lo->codec, opt);
	char buf[400];

	printf("image:             ");
	imginfo_escape(stdout, r->name, strlen(r->name), 0);
	printf("\nformat:            %s\n", format_name(r->ii.format));
	if (r->ii.format == SQP_FORMAT_EROFS) {
		/* Per file, in the file's map header: no options to show. */
		tool_codec_list(&r->ii, buf, sizeof(buf));
		printf("codec:             %s\n", buf);
	} else {
		printf("codec:             %s", tool_codec_name(r->ii.format, r->ii.codec));
		for (size_t i = 0; i < n; i++)
			printf(" %s=%s", opt[i].key, opt[i].val);
		printf(" (%s)\n", lo->options_bytes ? "options block" : "defaults");
	}
	printf("block size:        %u\n", r->ii.block_size);
	imginfo_time(r->ii.mod_time, buf, sizeof(buf));
	printf("image time:        %s (%u)\n", buf, r->ii.mod_time);
	flag_list(r, buf, sizeof(buf));
	printf("flags:             %s\n", buf);
	printf("image size:        %llu bytes (%llu used, %s)\n",
	       (unsigned long long)lo->file_size,
	       (unsigned long long)lo->bytes_used,
	       lo->file_size > lo->bytes_used ? "padded" : "not padded");
	printf("entries:           %llu names, %llu of %llu inodes, %llu hard "
	       "links\n", (unsigned long long)s->entries,
	       (unsigned long long)s->inodes, (unsigned long long)r->inodes,
	       (unsigned long long)s->hardlinks);
	printf("  directories %llu, files %llu, symlinks %llu, block devices "
	       "%llu, character devices %llu, fifos %llu, sockets %llu\n",
	       (unsigned long long)s->dirs, (unsigned long long)s->files,
	       (unsigned long long)s->symlinks, (unsigned long long)s->blockdevs,
	       (unsigned long long)s->chardevs, (unsigned long long)s->fifos,
	       (unsigned long long)s->sockets);
	printf("ids:               %u\n", lo->id_count);
	printf("xattrs:            %u sets, on %llu inodes\n", lo->xattr_id_count,
	       (unsigned long long)s->xattr_inodes);
}

/* Where the bytes go, the ratio and the dedup savings. */
static void print_sizes(const struct report *r)
{
	const struct sqp_image_summary *s = &r->s;
	const struct sqp_image_layout *lo = &r->lo;

	printf("file data:         %llu bytes\n", (unsigned long long)s->file_bytes);
	printf("data blocks:       %llu bytes (%llu blocks, %llu holes, %llu "
	       "uncompressed)\n", (unsigned long long)lo->data_bytes,
	       (unsigned long long)s->blocks, (unsigned long long)s->hole_blocks,
	       (unsigned long long)s->raw_blocks);
	if (r->ii.format != SQP_FORMAT_EROFS)
		printf("fragments:         %llu bytes (%u fragment blocks; %llu "
		       "tails of %llu bytes)\n", (unsigned long long)lo->fragment_bytes,
		       lo->frag_count, (unsigned long long)s->tails,
		       (unsigned long long)s->tail_bytes);
	else if (r->ii.packed_ref != 0)
		/* dump.erofs's word for it: "packed nid" */
		printf("packed inode:      nid %llu, %llu bytes of fragments, "
		       "%llu stored (in data blocks)\n",
		       (unsigned long long)r->ii.packed_ref,
		       (unsigned long long)r->packed,
		       (unsigned long long)r->packed_stored);
	else
		printf("packed inode:      none (no fragments)\n");
	printf("metadata:          %llu bytes (inodes %llu, directories %llu, "
	       "fragment table %llu, export table %llu, ids %llu, xattrs "
	       "%llu)\n", (unsigned long long)r->meta,
	       (unsigned long long)lo->inode_bytes,
	       (unsigned long long)lo->dir_bytes,
	       (unsigned long long)lo->frag_table_bytes,
	       (unsigned long long)lo->export_bytes,
	       (unsigned long long)lo->id_bytes,
	       (unsigned long long)lo->xattr_bytes);
	if (s->file_bytes)
		printf("compression ratio: %.2f%% (data and fragments stored "
		       "/ file data)\n", ratio(r));
	else
		printf("compression ratio: n/a (no file data)\n");
	printf("dedup savings:     %lld bytes (block lists name %llu bytes, "
	       "%llu stored)\n", (long long)r->dedup,
	       (unsigned long long)s->block_bytes,
	       (unsigned long long)lo->data_bytes);
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20 || c == 0x7F)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

#define JNUM(key, v) printf(",\n  \"%s\": %llu", key, (unsigned long long)(v))

static void json_codec(const struct report *r)
{
	struct kv opt[4];
	size_t n = codec_options(&r->lo.codec, opt);

	const char *sep = "";

	printf(",\n  \"format\": ");
	json_str(format_name(r->ii.format));
	printf(",\n  \"codec\": ");
	json_str(tool_codec_name(r->ii.format, r->ii.codec));
	printf(",\n  \"codecs\": [");
	for (int id = 1; id <= SQP_CODEC_MAX; id++)
		if (r->ii.codecs & (1u << id)) {
			printf("%s", sep);
			json_str(tool_codec_name(r->ii.format, id));
			sep = ", ";
		}
	printf("]");
	printf(",\n  \"codec_options\": {");
	for (size_t i = 0; i < n; i++) {
		printf("%s", i ? ", " : "");
		json_str(opt[i].key);
		printf(": ");
		if (opt[i].num)
			printf("%s", opt[i].val);
		else
			json_str(opt[i].val);
	}
	printf("},\n  \"options_block\": %s", r->lo.options_bytes ? "true" : "false");
	JNUM("options_bytes", r->lo.options_bytes);
}

static void json_flags(const struct report *r)
{
	const char *sep = "";

	/* A list, not bit_names()'s string, so "none" cannot be a flag. */
	printf(",\n  \"flags\": [");
	for (unsigned i = 0; i < 12; i++)
		if (r->lo.flags & (1u << i)) {
			printf("%s", sep);
			json_str(flag_names[i]);
			sep = ", ";
		}
	printf("]");
	printf(",\n  \"exportable\": %s", r->lo.has_export ? "true" : "false");
	printf(",\n  \"has_xattrs\": %s", r->lo.xattr_id_count ? "true" : "false");
	printf(",\n  \"has_fragments\": %s", r->lo.frag_count ||
	       r->ii.packed_ref ? "true" : "false");
	printf(",\n  \"padded\": %s",
	       r->lo.file_size > r->lo.bytes_used ? "true" : "false");
}

static void print_json(const struct report *r)
{
	const struct sqp_image_summary *s = &r->s;
	const struct sqp_image_layout *lo = &r->lo;

	printf("{\n  \"image\": ");
	json_str(r->name);
	json_codec(r);
	JNUM("block_size", r->ii.block_size);
	JNUM("mod_time", r->ii.mod_time);
	json_flags(r);
	JNUM("image_size", lo->file_size);
	JNUM("bytes_used", lo->bytes_used);
	JNUM("inode_count", r->inodes);
	JNUM("entries", s->entries);
	JNUM("inodes", s->inodes);
	JNUM("hardlinks", s->hardlinks);
	JNUM("directories", s->dirs);
	JNUM("files", s->files);
	JNUM("symlinks", s->symlinks);
	JNUM("block_devices", s->blockdevs);
	JNUM("char_devices", s->chardevs);
	JNUM("fifos", s->fifos);
	JNUM("sockets", s->sockets);
	JNUM("ids", lo->id_count);
	JNUM("xattr_sets", lo->xattr_id_count);
	JNUM("xattr_inodes", s->xattr_inodes);
	JNUM("fragment_blocks", lo->frag_count);
	JNUM("file_bytes", s->file_bytes);
	JNUM("blocks", s->blocks);
	JNUM("hole_blocks", s->hole_blocks);
	JNUM("uncompressed_blocks", s->raw_blocks);
	JNUM("tails", s->tails);
	JNUM("tail_bytes", s->tail_bytes);
	JNUM("data_bytes", lo->data_bytes);
	JNUM("fragment_bytes", lo->fragment_bytes);
	JNUM("inode_table_bytes", lo->inode_bytes);
	JNUM("directory_table_bytes", lo->dir_bytes);
	JNUM("fragment_table_bytes", lo->frag_table_bytes);
	if (r->ii.format == SQP_FORMAT_EROFS) {
		JNUM("packed_nid", r->ii.packed_ref);
		JNUM("packed_bytes", r->packed);
		JNUM("packed_stored_bytes", r->packed_stored);
	}
	JNUM("export_table_bytes", lo->export_bytes);
	JNUM("id_table_bytes", lo->id_bytes);
	JNUM("xattr_table_bytes", lo->xattr_bytes);
	JNUM("metadata_bytes", r->meta);
	printf(",\n  \"compression_ratio\": ");
	if (s->file_bytes)
		printf("%.4f", ratio(r) / 100.0);
	else
		printf("null");
	printf(",\n  \"dedup_savings\": %lld\n}\n", (long long)r->dedup);
}

/* The inode count, and EROFS's packed inode: its size, what it stores.
 * A SquashFS image's count is its inode_count; an EROFS image's is the
 * superblock's, as inode_count is the range of nids there. */
static int packed_inode(struct sqp_image *img, struct report *r)
{
	struct sqp_inode_info info = { .struct_size = sizeof(info) };
	struct sqp_file_layout fl;
	int ret;

	r->inodes = r->ii.format == SQP_FORMAT_EROFS ? r->ii.inodes :
		    r->ii.inode_count;
	if (r->ii.packed_ref == 0)
		return 0;
	if ((ret = sqp_image_stat(img, r->ii.packed_ref, &info)) != 0 ||
	    (ret = sqp_image_file_layout(img, r->ii.packed_ref, &fl)) != 0)
		return ret;
	r->packed = info.size;
	r->packed_stored = fl.stored_bytes;
	return 0;
}

/* The one option of its own: --json. */
static int on_opt(void *user, int c, const char *arg)
{
	(void)c;
	(void)arg;
	*(int *)user = 1;
	return 0;
}

int imginfo_summary_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "json", no_argument, NULL, TOOL_OPT_OWN },
		TOOL_LONG_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct sqp_image *img;
	struct report r;
	char msg[600];
	int json = 0, fd, ret;
	struct tool_args a = { .prog = "imginfo", .cmd = "summary",
		.shorts = ":h", .longs = longs,
		.help = "Usage: imginfo [summary] [--json] IMAGE\n"
			"Summarise an image: codec, sizes, counts, flags.\n",
		.own = on_opt, .user = &json };

	ret = tool_args_parse(&a, argc, argv);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (argc - optind != 1)
		return imginfo_bad_usage("%s", "summary takes one IMAGE");
	memset(&r, 0, sizeof(r));
	r.name = argv[optind];
	if (imginfo_open(r.name, &img, &fd) != 0)
		return 1;
	r.ii.struct_size = sizeof(r.ii);
	if ((ret = sqp_image_get_info(img, &r.ii)) != 0 ||
	    (ret = sqp_image_get_layout(img, &r.lo)) != 0)
		ret = imginfo_fail(r.name, imginfo_why(img, ret));
	else if ((ret = sqp_image_summarize(img, &r.s, msg, sizeof(msg))) != 0)
		ret = imginfo_fail(r.name, msg[0] ? msg : sqp_strerror(ret));
	else if ((ret = packed_inode(img, &r)) != 0)
		ret = imginfo_fail(r.name, imginfo_why(img, ret));
	imginfo_close(img, fd);
	if (ret != 0)
		return 1;
	r.meta = r.lo.inode_bytes + r.lo.dir_bytes + r.lo.frag_table_bytes +
		r.lo.export_bytes + r.lo.id_bytes + r.lo.xattr_bytes;
	r.dedup = (int64_t)r.s.block_bytes - (int64_t)r.lo.data_bytes;
	if (json)
		print_json(&r);
	else {
		print_header(&r);
		print_sizes(&r);
	}
	return imginfo_flush();
}
