/* SPDX-License-Identifier: MIT */
/*
 * unsq_stat.c - `-s` (the superblock report) and `-mkfs-time`.
 *
 * Remaster scripts grep unsquashfs -s for "Compression X", "Block size N"
 * and "Number of inodes N", so the report is unsquashfs 4.5.1's byte for
 * byte: the same lines in the same order, the compressor's stored
 * options in its words (only when the image stores an options block),
 * and the creation time as ctime() prints it, in the local zone unless
 * -UTC. An EROFS image gets a report of its own shape (report_erofs).
 */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include "sqpack/sqpack.h"
#include "sqpack/image_info.h"
#include "../common/tool_codecs.h"
#include "unsq.h"

static void names(unsigned bits, const char *const *table, size_t n)
{
	const char *sep = "";

	for (size_t i = 0; i < n; i++)
		if (bits & (1u << i)) {
			printf("%s%s", sep, table[i]);
			sep = ", ";
		}
	putchar('\n');
}

/* The options block, as each of unsquashfs's compressors describes it. */
static void codec_options(const struct sqp_codec_config *c)
{
	static const char *const gzip_s[] = { "default", "filtered",
		"huffman_only", "run_length_encoded", "fixed" };
	static const char *const xz_f[] = { "x86", "powerpc", "ia64", "arm",
		"armthumb", "sparc" };
	static const char *const lzo_a[] = { "lzo1x_1", "lzo1x_1_11",
		"lzo1x_1_12", "lzo1x_1_15", "lzo1x_999" };

	switch (c->id) {
	case SQP_CODEC_GZIP:
		printf("\tcompression-level %d\n\twindow-size %u\n", c->level,
		       c->window);
		printf("\tStrategies selected: ");
		names(c->strategies ? c->strategies : SQP_GZIP_DEFAULT, gzip_s, 5);
		break;
	case SQP_CODEC_XZ:
		printf("\tDictionary size %u\n", (unsigned)c->dict_size);
		if (c->filters == 0) {
			printf("\tNo filters specified\n");
		} else {
			printf("\tFilters selected: ");
			names(c->filters, xz_f, 6);
		}
		break;
	case SQP_CODEC_LZO:
		if (c->algorithm < 5)
			printf("\talgorithm %s\n", lzo_a[c->algorithm]);
		if (c->algorithm == SQP_LZO1X_999)
			printf("\tcompression level %d\n", c->level);
		break;
	case SQP_CODEC_LZ4:
		if (c->flags & SQP_LZ4_HC)
			printf("\tHigh Compression option specified (-Xhc)\n");
		break;
	case SQP_CODEC_ZSTD:
		printf("\tcompression-level %d\n", c->level);
		break;
	default:
		break;
	}
}

static const char *un(int flag)
{
	return flag ? "un" : "";
}

/* The lines both formats have: time and size. */
static void common_lines(const struct unsq_opts *o, const struct sqp_image_info *ii)
{
	time_t t = (time_t)ii->mod_time;
	char when[64];
	struct tm tm;

	if (o->utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	strftime(when, sizeof(when), "%a %b %e %H:%M:%S %Y", &tm);
	printf("Creation or last append time %s\n", when);
	printf("Filesystem size %llu bytes (%.2f Kbytes / %.2f Mbytes)\n",
	       (unsigned long long)ii->bytes_used, ii->bytes_used / 1024.0,
	       ii->bytes_used / (1024.0 * 1024.0));
}

/* EROFS, which unsquashfs cannot read: the first line names the format,
 * so a script that looks for SQUASHFS is not misled, and only the lines
 * with a meaning there follow, in unsquashfs's words (doc/sqpack-
 * unsquashfs.1); Compression lists the algorithms, "none" when the data
 * is stored as it is. */
static void report_erofs(const struct unsq_opts *o, const struct sqp_image_info *ii)
{
	char codecs[128];

	tool_codec_list(ii, codecs, sizeof(codecs));
	printf("Found a valid EROFS superblock on %s.\n", o->image);
	common_lines(o, ii);
	printf("Compression %s\n", codecs);
	printf("Block size %u\n", (unsigned)ii->block_size);
	printf("Number of inodes %llu\n", (unsigned long long)ii->inodes);
}

static void report(const struct unsq_opts *o, const struct sqp_image_info *ii,
		   const struct sqp_image_layout *l)
{
	const char *codec = sqp_codec_name(ii->codec);
	unsigned f = l->flags;

	printf("Found a valid SQUASHFS 4:0 superblock on %s.\n", o->image);
	common_lines(o, ii);
	printf("Compression %s\n", codec != NULL ? codec : "unknown");
	if (l->options_bytes != 0)
		codec_options(&l->codec);
	printf("Block size %u\n", (unsigned)ii->block_size);
	printf("Filesystem is %sexportable via NFS\n",
	       f & SQP_SB_EXPORTABLE ? "" : "not ");
	printf("Inodes are %scompressed\n", un(f & SQP_SB_UNCOMPRESSED_INODES));
	printf("Data is %scompressed\n", un(f & SQP_SB_UNCOMPRESSED_DATA));
	printf("Uids/Gids (Id table) are %scompressed\n",
	       un(f & (SQP_SB_UNCOMPRESSED_INODES | SQP_SB_UNCOMPRESSED_IDS)));
	if (f & SQP_SB_NO_FRAGMENTS) {
		printf("Fragments are not stored\n");
	} else {
		printf("Fragments are %scompressed\n",
		       un(f & SQP_SB_UNCOMPRESSED_FRAGMENTS));
		printf("Always-use-fragments option is %sspecified\n",
		       f & SQP_SB_ALWAYS_FRAGMENTS ? "" : "not ");
	}
	if (f & SQP_SB_NO_XATTRS)
		printf("Xattrs are not stored\n");
	else
		printf("Xattrs are %scompressed\n",
		       un(f & SQP_SB_UNCOMPRESSED_XATTRS));
	printf("Duplicates are %sremoved\n", f & SQP_SB_DEDUPLICATED ? "" : "not ");
	printf("Number of fragments %u\n", (unsigned)l->frag_count);
	printf("Number of inodes %u\n", (unsigned)ii->inode_count);
	printf("Number of ids %u\n", (unsigned)l->id_count);
	if (!(f & SQP_SB_NO_XATTRS))
		printf("Number of xattr ids %u\n", (unsigned)l->xattr_id_count);
}

int unsq_stat(struct sqp_image *img, const struct unsq_opts *o)
{
	struct sqp_image_info ii = { .struct_size = sizeof(ii) };
	struct sqp_image_layout l;
	int ret;

	if ((ret = sqp_image_get_info(img, &ii)) != 0) {
		fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_strerror(ret));
		return 1;
	}
	if (o->mode == UNSQ_MKFS_TIME) {
		printf("%u\n", (unsigned)ii.mod_time);
	} else if (ii.format == SQP_FORMAT_EROFS) {
		report_erofs(o, &ii);
	} else if ((ret = sqp_image_get_layout(img, &l)) != 0) {
		fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img));
		return 1;
	} else {
		report(o, &ii, &l);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: writing the report failed\n", unsq_prog(o));
		return 1;
	}
	return 0;
}
