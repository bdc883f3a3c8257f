/* SPDX-License-Identifier: MIT */
/*
 * options.c - tar2img's options: what each means, and how bad values are
 * reported (exit status 2, with the list of valid values).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tar2img_options.h"

enum {
	OPT_NO_DEDUP = 256,
	OPT_NO_FRAGMENTS,
	OPT_ALWAYS_FRAGMENTS,
	OPT_NO_TAILENDS,
	OPT_EXPORTABLE,
	OPT_NO_XATTRS,
	OPT_NO_PAD,
	OPT_TRY_ALL,
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
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	int id;

	fputs("Usage: tar2img [OPTIONS] OUTPUT [INPUT]\n"
	      "Pack a tar archive (a file, or stdin when INPUT is absent or '-'; plain\n"
	      "or gzip/xz/zstd/lz4/bzip2 compressed) into a SquashFS 4.0 image.\n\n"
	      "  -c, --compressor NAME   block compressor (default zstd)\n"
	      "  -X, --comp-opt OPTS     compressor options, comma separated\n"
	      "  -b, --block-size SIZE   4K .. 1M, a power of two (default 128K)\n"
	      "  -j, --jobs N            compression threads (default: CPUs online)\n"
	      "  -f, --force             replace OUTPUT if it exists\n"
	      "  -q, --quiet             do not print the summary\n"
	      "      --no-dedup          store duplicate files, blocks and tails again\n"
	      "      --no-fragments      store file tails as short blocks\n"
	      "      --always-fragments  pack the tail of every file into fragments\n"
	      "                          (default; also --tailends)\n"
	      "      --no-tailends       pack only files smaller than a block\n"
	      "      --exportable        add an NFS export table\n"
	      "      --no-xattrs         drop extended attributes\n"
	      "      --no-pad            do not pad the image to 4 KiB\n"
	      "      --try-all-blocks    run the compressor even on blocks that look\n"
	      "                          incompressible (random-looking bytes)\n"
	      "  -h, --help              show this help\n"
	      "  -V, --version           show the version\n\n"
	      "The image time is SOURCE_DATE_EPOCH if set, else the newest mtime in\n"
	      "the archive. Compressors in this build:\n", f);
	for (id = 1; id <= SQP_CODEC_MAX; ++id) {
		fprintf(f, "  %-5s %s\n", sqp_codec_name(id),
			sqp_codec_available(id) ? "" : "(not built)");
		if (sqp_codec_available(id) && sqp_codec_options_help(id) != NULL)
			fprintf(f, "%s", sqp_codec_options_help(id));
	}
}

static int bad_usage(const char *fmt, const char *arg)
{
	fputs("tar2img: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nTry 'tar2img --help'.\n", stderr);
	return 2;
}

static int parse_size(const char *s, uint32_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s)
		return -1;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end != '\0' || v < 4096 || v > (1u << 20) || (v & (v - 1)) != 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	return (errno != 0 || end == s || *end != '\0' || *out > max) ? -1 : 0;
}

static int codec_list_error(const char *name)
{
	int id;

	fprintf(stderr, "tar2img: unknown compressor '%s'; valid:", name);
	for (id = 1; id <= SQP_CODEC_MAX; ++id) {
		if (sqp_codec_available(id))
			fprintf(stderr, " %s", sqp_codec_name(id));
	}
	fputc('\n', stderr);
	return 2;
}

/* SOURCE_DATE_EPOCH, as reproducible-builds.org defines it. */
static int source_date_epoch(int64_t *out)
{
	const char *s = getenv("SOURCE_DATE_EPOCH");
	unsigned long long v;
	char *end;

	*out = SQP_TIME_NEWEST;
	if (s == NULL || s[0] == '\0')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' || v > UINT32_MAX)
		return bad_usage("SOURCE_DATE_EPOCH='%s' is not a time between 0 and 2^32-1", s);
	*out = (int64_t)v;
	return 0;
}

static int finish_codec(struct tar2img_options *opt, const char *codec,
			const char *comp_opts, uint32_t block_size)
{
	char msg[512];
	int id = codec ? sqp_codec_by_name(codec) : SQP_CODEC_ZSTD;

	if (id < 0 || !sqp_codec_available(id))
		return codec_list_error(codec ? codec : "zstd");
	if (sqp_codec_config_init(&opt->desc.codec, id, block_size) != 0)
		return bad_usage("cannot use block size %s", "");
	if (comp_opts != NULL &&
	    sqp_codec_config_parse(&opt->desc.codec, comp_opts, msg, sizeof(msg)) != 0)
		return bad_usage("%s", msg);
	return 0;
}

int tar2img_parse_options(int argc, char **argv, struct tar2img_options *opt)
{
	const char *codec = NULL, *comp_opts = NULL;
	uint32_t block_size = 128 * 1024;
	unsigned long v;
	int c;

	memset(opt, 0, sizeof(*opt));
	opt->desc.fragment_mode = SQP_FRAGMENTS_ALL;
	opterr = 0; /* our own message: argv[0] may be a libtool wrapper path */
	while ((c = getopt_long(argc, argv, ":c:X:b:j:fqhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'c': codec = optarg; break;
		case 'X': comp_opts = optarg; break;
		case 'b':
			if (parse_size(optarg, &block_size) != 0)
				return bad_usage("block size '%s' is not a power of two between 4K and 1M", optarg);
			break;
		case 'j':
			if (parse_uint(optarg, 1024, &v) != 0 || v == 0)
				return bad_usage("jobs '%s' is not a number between 1 and 1024", optarg);
			opt->desc.jobs = (unsigned)v;
			break;
		case 'f': opt->force = 1; break;
		case 'q': opt->quiet = 1; break;
		case OPT_NO_DEDUP: opt->desc.flags |= SQP_WRITE_NO_DEDUP; break;
		case OPT_NO_FRAGMENTS: opt->desc.fragment_mode = SQP_FRAGMENTS_NONE; break;
		case OPT_ALWAYS_FRAGMENTS: opt->desc.fragment_mode = SQP_FRAGMENTS_ALL; break;
		case OPT_NO_TAILENDS: opt->desc.fragment_mode = SQP_FRAGMENTS_SMALL; break;
		case OPT_EXPORTABLE: opt->desc.flags |= SQP_WRITE_EXPORTABLE; break;
		case OPT_NO_XATTRS: opt->desc.flags |= SQP_WRITE_NO_XATTRS; break;
		case OPT_NO_PAD: opt->desc.flags |= SQP_WRITE_NO_PAD; break;
		case OPT_TRY_ALL: opt->desc.flags |= SQP_WRITE_NO_PROBE; break;
		case 'h': usage(stdout); return -1;
		case 'V': printf("tar2img (sqpack) %s\n", sqp_version()); return -1;
		case ':':
			fprintf(stderr, "tar2img: option '%s' needs a value\n"
				"Try 'tar2img --help'.\n", argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr, "tar2img: unknown option '%s'\n"
				"Try 'tar2img --help'.\n", argv[optind - 1]);
			return 2;
		}
	}
	if (optind >= argc)
		return bad_usage("%s", "missing OUTPUT");
	opt->output = argv[optind++];
	if (optind < argc)
		opt->input = argv[optind++];
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	c = finish_codec(opt, codec, comp_opts, block_size);
	if (c == 0)
		c = source_date_epoch(&opt->desc.mod_time);
	return c;
}
