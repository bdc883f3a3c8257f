/* SPDX-License-Identifier: MIT */
/*
 * mkfs_erofs_z.c - sqpack-mkfs.erofs's -z (compressor and level) and -E
 * (extended options), read with mkfs.erofs's names and defaults into
 * the codec settings and the writer's flags. Apart from the option
 * loop (mkfs_erofs_main.c) because each is a table of its own.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/writer.h"
#include "../common/tool_mains.h"
#include "../common/tool_optvals.h"
#include "mkfs_erofs.h"

/* mkfs.erofs's compressors, as the library names them, and the levels
 * each takes after a comma (lo..hi; none for lz4). lzma's 100 + N is
 * level N with the extreme preset. bare: the option for -zX without a
 * level, which is mkfs.erofs's own default (its compressors'
 * default_level: the libraries' defaults, and deflate's fastest), not
 * dir2img's: a script that says -zzstd gets the speed and the image it
 * had, where dir2img's level 15 took 40 times as long. */
static const struct {
	const char *name, *codec, *bare_key, *bare_value;
	long lo, hi;     /* hi < 0: no level */
	int extreme;     /* 100 + N taken too */
} compressors[] = {
	{ "lz4", "lz4", NULL, NULL, 0, -1, 0 },
	{ "lz4hc", "lz4", "hc", NULL, 1, 12, 0 },
	{ "lzma", "lzma", "level", "6", 0, 9, 1 },
	{ "deflate", "gzip", "level", "1", 1, 9, 0 },
	{ "zstd", "zstd", "level", "3", 1, 22, 0 },
	{ "none", NULL, NULL, NULL, 0, -1, 0 },
};

/* The codec of compressors[i]: its defaults for 4 KiB blocks (EROFS's),
 * refused by name when this build cannot write EROFS with it. */
static int codec_init(struct sqp_codec_config *cfg, const char *what, size_t i)
{
	const char *name = compressors[i].codec;
	int id = name != NULL ? sqp_codec_by_name(name) : 0;
	char why[96];

	memset(cfg, 0, sizeof(*cfg));
	cfg->block_size = 4096;
	if (name == NULL)
		return 0;  /* none: data stored as it is */
	if (id < 0 || !(sqp_codec_formats(id) & SQP_CODEC_FOR_EROFS) ||
	    sqp_codec_config_init(cfg, id, 4096) != 0) {
		snprintf(why, sizeof(why), "this build cannot write EROFS with %s",
			 compressors[i].name);
		return mkfs_refuse(what, why);
	}
	return 0;
}

/* One option of the codec, for -zX (what): 0, or the exit status after
 * a message. */
static int codec_option(struct sqp_codec_config *cfg, const char *what,
			const char *key, const char *value)
{
	char msg[256];
	int ret = tool_codec_option(cfg, what, key, value, 0, msg, sizeof(msg));

	if (ret != 0) {
		fprintf(stderr, PROG ": %s\n", msg);
		if (ret == 2)
			tool_try_help();
	}
	return ret;
}

/* -zX[,Y] or -zX,level=Y (what, as typed): one compressor, with a
 * level where it takes one. */
int mkfs_compressor(struct sqp_codec_config *cfg, const char *what, const char *arg)
{
	const char *comma = strchr(arg, ','), *lv;
	size_t len = comma ? (size_t)(comma - arg) : strlen(arg), i;
	char *end, why[80], num[24];
	long level;
	int ret, extreme;

	for (i = 0; i < sizeof(compressors) / sizeof(compressors[0]); i++)
		if (strlen(compressors[i].name) == len &&
		    strncmp(arg, compressors[i].name, len) == 0)
			break;
	if (i == sizeof(compressors) / sizeof(compressors[0]))
		return mkfs_refuse(what, "unknown compressor; valid are lz4, lz4hc, lzma, "
			      "deflate, zstd and none");
	if (comma != NULL && compressors[i].hi < 0)
		return mkfs_refuse(what, "this compressor takes no level");
	if ((ret = codec_init(cfg, what, i)) != 0)
		return ret;
	if (comma == NULL)
		return compressors[i].bare_key == NULL ? 0 :
		       codec_option(cfg, what, compressors[i].bare_key,
				    compressors[i].bare_value);
	/* -zX,N and mkfs.erofs 1.8's -zX,level=N (Fedora CoreOS's
	 * -zlzma,level=6); dictsize= and other options are refused. */
	lv = strncmp(comma + 1, "level=", 6) == 0 ? comma + 7 : comma + 1;
	level = strtol(lv, &end, 10);
	extreme = compressors[i].extreme && level >= 100;
	if (extreme)
		level -= 100;
	if (*end != '\0' || end == lv || level < compressors[i].lo ||
	    level > compressors[i].hi) {
		snprintf(why, sizeof(why), "the level is %ld..%ld%s", compressors[i].lo,
			 compressors[i].hi, compressors[i].extreme ?
			 " (100 + N: N with the extreme preset)" : "");
		return mkfs_refuse(what, why);
	}
	snprintf(num, sizeof(num), "%ld", level);
	ret = codec_option(cfg, what, "level", num);
	return ret == 0 && extreme ? codec_option(cfg, what, "extreme", NULL) : ret;
}

int mkfs_compressors(struct sqp_writer_desc *d, const char *what, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char first[64];
	int ret;

	memset(&d->erofs_codec2, 0, sizeof(d->erofs_codec2));
	if (colon == NULL)
		return mkfs_compressor(&d->codec, what, arg);
	if (strchr(colon + 1, ':') != NULL)
		return mkfs_refuse(what, "more than two algorithms are not done; give "
				   "at most two (-zX:Y)");
	if ((size_t)(colon - arg) >= sizeof(first))
		return mkfs_refuse(what, "unknown compressor");
	memcpy(first, arg, (size_t)(colon - arg));
	first[colon - arg] = '\0';
	if ((ret = mkfs_compressor(&d->codec, what, first)) != 0 ||
	    (ret = mkfs_compressor(&d->erofs_codec2, what, colon + 1)) != 0)
		return ret;
	/* Hints name compressors by index: none is not one of them. */
	if (d->codec.id == 0 || d->erofs_codec2.id == 0)
		return mkfs_refuse(what, "none is no compressor to choose between");
	return 0;
}

/* -E X[,Y...]: ztailpacking, fragments, all-fragments, fragdedupe[=M],
 * dedupe, [^]inline_data, noinline_data, xattr-name-filter,
 * force-chunk-indexes and
 * force-inode-blockmap (*blockmap set: mkfs.erofs refuses it with
 * --blobdev); the others are refused by
 * name, and so is fragments=SIZE (the packed inode's clusters are -C's,
 * as every other file's). ^X clears X, as mkfs.erofs reads it:
 * ^all-fragments clears fragments too. fragdedupe=full (mkfs.erofs's
 * default, on here too unless ^fragdedupe: parse() in
 * mkfs_erofs_main.c) and inode share equal fragments and a fragment
 * found at an earlier one's end; full also splits, with all-fragments,
 * a file whose end an earlier fragment holds for 64 KiB or more while
 * its front differs (SQP_WRITE_EROFS_FRAGDEDUPE_FULL: the end shared,
 * the front compressed as clusters), as 1.9 does for every such file
 * with all-fragments (where its --workers=2 splits without
 * all-fragments too, ours measured nothing to gain: on rootfs-small
 * 19 tails share 15 KB in all); fragdedupe=off is full, as 1.9 reads
 * it, with a warning. */
#define FULL (SQP_WRITE_EROFS_FRAGDEDUPE | SQP_WRITE_EROFS_FRAGDEDUPE_FULL)
int mkfs_extended(unsigned *flags, int *blockmap, const char *what, const char *arg)
{
	static const struct {
		const char *name;
		unsigned flag;
		int clears;   /* X (not ^X) clears flag */
	} done[] = {
		{ "ztailpacking", SQP_WRITE_EROFS_ZTAILPACKING, 0 },
		{ "fragments", SQP_WRITE_EROFS_FRAGMENTS, 0 },
		{ "all-fragments", SQP_WRITE_EROFS_FRAGMENTS | SQP_WRITE_EROFS_ALL_FRAGMENTS, 0 },
		{ "fragdedupe", FULL, 0 },
		{ "fragdedupe=inode", SQP_WRITE_EROFS_FRAGDEDUPE, 0 },
		{ "fragdedupe=full", FULL, 0 },
		{ "fragdedupe=off", FULL, 0 },
		{ "dedupe", SQP_WRITE_EROFS_DEDUPE, 0 },
		{ "noinline_data", SQP_WRITE_EROFS_NO_INLINE, 0 },
		{ "inline_data", SQP_WRITE_EROFS_NO_INLINE, 1 },
		{ "force-inode-compact", SQP_WRITE_EROFS_INODE_COMPACT, 0 },
		{ "force-inode-extended", SQP_WRITE_EROFS_INODE_EXTENDED, 0 },
		{ "force-chunk-indexes", SQP_WRITE_EROFS_CHUNK_INDEXES, 0 },
		{ "force-inode-blockmap", SQP_WRITE_EROFS_CHUNK_INDEXES, 1 },
		{ "xattr-name-filter", SQP_WRITE_EROFS_XATTR_FILTER, 0 },
		{ "48bit", SQP_WRITE_EROFS_48BIT, 0 },
	};
	const unsigned forms = SQP_WRITE_EROFS_INODE_COMPACT | SQP_WRITE_EROFS_INODE_EXTENDED;
	const char *s = arg, *end;
	size_t len, i;
	int clear;

	for (; *s != '\0'; s = *end ? end + 1 : end) {
		end = strchr(s, ',');
		if (end == NULL)
			end = s + strlen(s);
		clear = *s == '^';
		s += clear;
		len = (size_t)(end - s);
		/* mkfs.erofs 1.9 reads any value but inode as full, off too:
		 * taken so, for its image, but said, since it surprises. */
		if (!clear && len == 14 && strncmp(s, "fragdedupe=off", 14) == 0)
			fprintf(stderr, PROG ": %s: fragdedupe=off is read as full, as "
				"mkfs.erofs 1.9 reads it; -E^fragdedupe turns it off\n", what);
		for (i = 0; i < sizeof(done) / sizeof(done[0]); i++)
			if (strlen(done[i].name) == len && strncmp(s, done[i].name, len) == 0)
				break;
		/* the last of the two chunk forms wins, as in mkfs.erofs */
		if (i < sizeof(done) / sizeof(done[0]) &&
		    done[i].flag == SQP_WRITE_EROFS_CHUNK_INDEXES)
			*blockmap = done[i].clears;
		if (i < sizeof(done) / sizeof(done[0]) && clear != done[i].clears)
			*flags &= ~done[i].flag;
		else if (i < sizeof(done) / sizeof(done[0]))
			/* one inode form, one fragdedupe mode: the last given,
			 * as mkfs.erofs */
			*flags = (done[i].flag & forms ? *flags & ~forms :
				  done[i].flag & FULL ? *flags & ~FULL : *flags) | done[i].flag;
		else if (len > 9 && strncmp(s, "fragments=", 10) == 0)
			return mkfs_refuse(what, "a pcluster size of the packed inode's own is "
				      "not done (its clusters are -C's)");
		else
			return mkfs_refuse(what, "extended option not done yet (sqpack writes "
				      "compact cluster indexes; ztailpacking, "
				      "[all-]fragments, fragdedupe[=inode|full], "
				      "dedupe, [^]inline_data, xattr-name-filter, "
				      "force-inode-*, force-chunk-indexes and 48bit are done)");
	}
	return 0;
}
