/* SPDX-License-Identifier: MIT */
/*
 * tool_erofs.c - what --format erofs takes in tar2img, dir2img and
 * img2img, checked once every option is read: the codec and block size
 * EROFS can hold; the options only EROFS can hold (--uuid, --label,
 * --pcluster-size, --ztailpacking, --erofs-fragments, --erofs-dedupe,
 * --erofs-compress-dirs, --erofs-metabox, --erofs-metazone,
 * --xattr-name-filter,
 * --max-extent-bytes, --chunk-size, --blobdev, --compress-hints,
 * --hint-compressor), refused for SquashFS
 * rather than ignored; and
 * tar2img's index modes (--index, --headers-only, mkfs.erofs's --tar=i
 * and --tar=headerball). Each refusal is a usage error (exit 2) that
 * names the option, before any output is made.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tool_mains.h"
#include "tool_optvals.h"

static int codec_options(struct tool_options *opt, const char *codec,
			 const char *comp_opts, uint32_t block_size);

/* The sizes given in bytes must be whole blocks, as mkfs.erofs asks.
 * An index of a tar has the tar's 512-byte blocks: its chunks name the
 * members' data where the tar holds it, at any multiple of 512 bytes,
 * which larger blocks could not address; -b may say 512 and no more
 * (mkfs.erofs --tar=i takes any -b and writes 512 anyway). */
static int block_sizes(const struct tool_options *opt)
{
	const struct sqp_writer_desc *d = &opt->desc;
	uint32_t bs = d->codec.block_size;

	if (opt->block_size != 0 && opt->block_size != 512 &&
	    (d->flags & SQP_WRITE_EROFS_TAR_INDEX))
		return tool_bad_usage("%s", "--index: the block size is the tar's 512 "
				      "bytes (-b 512, or none): a member's data "
				      "starts at any multiple of 512, which larger "
				      "blocks cannot point to");
	if (d->erofs_pcluster_size % bs != 0 || d->erofs_metabox_pcluster % bs != 0)
		return tool_bad_usage("%s", "--format erofs: --pcluster-size and "
				      "--erofs-metabox are multiples of the block size");
	if ((d->erofs_chunk_size != 0 && d->erofs_chunk_size < bs) ||
	    (d->erofs_max_extent != 0 && d->erofs_max_extent < bs))
		return tool_bad_usage("%s", "--format erofs: --chunk-size and "
				      "--max-extent-bytes are at least the block size");
	return 0;
}

/* --hint-compressor NAME[,OPTS]: desc.erofs_codec2, read as -c NAME
 * -X OPTS would be; it needs a codec of its own and one for the image. */
static int hint_codec(struct tool_options *opt)
{
	struct sqp_codec_config first = opt->desc.codec;
	const char *comma = strchr(opt->codec2, ',');
	char *name = strndup(opt->codec2, comma ? (size_t)(comma - opt->codec2) :
			     strlen(opt->codec2));
	int ret;

	if (name == NULL)
		return tool_bad_usage("%s", "out of memory");
	if (first.id == 0 || strcmp(name, "none") == 0)
		ret = tool_bad_usage("--hint-compressor '%s': a second compressor "
				     "beside -c's, neither none", opt->codec2);
	else
		ret = codec_options(opt, name, comma ? comma + 1 : NULL, 4096);
	free(name);
	opt->desc.erofs_codec2 = opt->desc.codec;
	opt->desc.codec = first;
	return ret;
}

/* --format erofs: what the EROFS writer takes so far: blocks of 512
 * to 4K,
 * data stored as it is (the default, or -c none) or with a codec that
 * compresses to a fixed size, and a second codec for compress hints;
 * everything else refused by name. */
int tool_erofs_options(struct tool_options *opt, const char *codec,
		       const char *comp_opts, uint32_t block_size)
{
	int ret = codec_options(opt, codec, comp_opts, block_size);

	if (ret == 0 && opt->hints_file != NULL && opt->desc.codec.id == 0)
		return tool_bad_usage("%s", "--compress-hints: needs a compressor (-c)");
	return ret == 0 && opt->codec2 != NULL ? hint_codec(opt) : ret;
}

static int codec_options(struct tool_options *opt, const char *codec,
			 const char *comp_opts, uint32_t block_size)
{
	struct sqp_writer_desc *d = &opt->desc;
	int id, ret;

	/* EROFS's name for the gzip codec's raw deflate. */
	if (codec != NULL && strcmp(codec, "deflate") == 0)
		codec = "gzip";
	id = codec != NULL ? sqp_codec_by_name(codec) : 0;

	if (block_size > 4096)
		return tool_bad_usage("%s", "--format erofs: the block size is 512 to 4K");
	if (codec != NULL && strcmp(codec, "none") != 0 &&
	    (id < 0 || !(sqp_codec_formats(id) & SQP_CODEC_FOR_EROFS)))
		return tool_bad_usage("--format erofs: compressor '%s' cannot write EROFS "
				      "here; valid are none, lz4 (-X hc for lz4hc), lzma, "
				      "deflate (or gzip) and zstd", codec);
	if (codec == NULL || strcmp(codec, "none") == 0) {
		if (comp_opts != NULL)
			return tool_bad_usage("%s", "--format erofs: -X needs a compressor");
		memset(&d->codec, 0, sizeof(d->codec));
		d->codec.block_size = block_size != 0 ? block_size : 4096;
		return block_sizes(opt);
	}
	/* The codec's settings in 4K blocks (lzma's least dictionary is 8
	 * of them, mkfs.erofs's 32K), the image's blocks as asked. */
	if ((ret = tool_finish_codec(d, codec, comp_opts, 4096)) != 0)
		return ret;
	d->codec.block_size = block_size != 0 ? block_size : 4096;
	return block_sizes(opt);
}

int tool_erofs_only(const struct tool_options *opt)
{
	static const struct {
		unsigned flag;
		const char *name;
	} flags[] = {
		{ SQP_WRITE_EROFS_UUID, "--uuid" },
		{ SQP_WRITE_EROFS_ZTAILPACKING, "--ztailpacking" },
		{ SQP_WRITE_EROFS_FRAGMENTS, "--erofs-fragments" },
		{ SQP_WRITE_EROFS_DEDUPE, "--erofs-dedupe" },
		{ SQP_WRITE_EROFS_COMPRESS_DIRS, "--erofs-compress-dirs" },
		{ SQP_WRITE_EROFS_XATTR_FILTER, "--xattr-name-filter" },
		{ SQP_WRITE_EROFS_48BIT, "--erofs-48bit" },
		{ SQP_WRITE_EROFS_METAZONE, "--erofs-metazone" },
	};
	const struct sqp_writer_desc *d = &opt->desc;
	const char *name = NULL;
	size_t i;

	/* Blocks below 4K are EROFS's alone (SquashFS's smallest is 4K). */
	if (opt->block_size != 0 && opt->block_size < 4096 && d->format != SQP_FORMAT_EROFS)
		return tool_bad_usage("%s", "a block size below 4K: only with --format erofs");
	if (d->format == SQP_FORMAT_EROFS)
		return 0;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (d->flags & flags[i].flag)
			name = flags[i].name;
	if (d->volume_label != NULL)
		name = "--label";
	if (d->erofs_pcluster_size != 0)
		name = "--pcluster-size";
	if (d->erofs_max_extent != 0)
		name = "--max-extent-bytes";
	if (d->erofs_metabox_pcluster != 0)
		name = "--erofs-metabox";
	if (d->erofs_chunk_size != 0)
		name = "--chunk-size";
	if (d->flags & SQP_WRITE_EROFS_BLOB)
		name = "--blobdev";
	if (opt->hints_file != NULL)
		name = "--compress-hints";
	if (opt->codec2 != NULL)
		name = "--hint-compressor";
	if (name == NULL)
		return 0;
	return tool_bad_usage("%s: an EROFS option, which a SquashFS image has no "
			      "place for; give --format erofs", name);
}

/* tar2img --index and --headers-only: an image whose files' data is
 * not in it (left in the tar, or absent). SquashFS has no way to say
 * so (no chunk that points outside the image, no file without its
 * blocks), and an index stores no data that a codec could compress. */
int tool_tar_index_check(const struct tool_options *opt, const char *codec)
{
	unsigned flags = opt->desc.flags;
	const char *name = (flags & SQP_WRITE_EROFS_TAR_INDEX) ? "--index" : "--headers-only";

	if (!(flags & (SQP_WRITE_EROFS_TAR_INDEX | SQP_WRITE_EROFS_TAR_HEADERBALL)))
		return 0;
	if (opt->desc.format != SQP_FORMAT_EROFS)
		return tool_bad_usage("%s: only EROFS can hold files whose data is not in "
				      "the image; give --format erofs", name);
	if (codec != NULL && strcmp(codec, "none") != 0)
		return tool_bad_usage("%s: the image holds no file data to compress; "
				      "no -c", name);
	if (opt->input_count > 1)
		return tool_bad_usage("%s takes one tar, not layers", name);
	return 0;
}
