/* SPDX-License-Identifier: MIT */
/*
 * imginfo_verity.c - "imginfo verity IMAGE ROOTHASH [--hash-offset N |
 * --hash-file FILE]": check an image against its dm-verity tree and root
 * hash in user space (sqp_verity_check), as the kernel would on reading
 * every block, without root and without device-mapper. A mismatch names
 * the first bad block, its offset, and the files whose data it holds, so
 * a failed boot check can be traced to what was damaged. Exit 0 when all
 * blocks match, 1 when one does not or the tree cannot be read, 2 on bad
 * usage.
 *
 * Without --hash-offset or --hash-file the tree is looked for where
 * --verity appends it: right after the image, padded to the verity block
 * size (tried from 512 bytes to 64 KiB).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "imginfo.h"
#include "imginfo_verity.h"
#include "../common/tool_args.h"
#include "../common/tool_hex.h"
#include "sqpack/image_info.h"
#include "sqpack/inspect.h"
#include "sqpack/sqpack.h"

static const char verity_help[] =
	"Usage: imginfo [--offset N] verity [--hash-offset N | --hash-file FILE] IMAGE ROOTHASH\n"
	"Check every block of IMAGE against its dm-verity hash tree and ROOTHASH\n"
	"(hex), and name the first block that does not match and its files.\n\n"
	"      --hash-offset N   the verity superblock is at byte N of IMAGE\n"
	"                        (default: right after the image, as --verity\n"
	"                        writes it)\n"
	"      --hash-file FILE  the tree is in FILE, superblock at its start\n"
	"  -h, --help            show this help\n";

struct verity_opts {
	const char *hash_file;
	uint64_t hash_offset;
	int offset_given;
};

static int on_opt(void *user, int c, const char *arg)
{
	struct verity_opts *o = user;

	if (c == 'f') {
		o->hash_file = arg;
		return 0;
	}
	if (tool_offset(arg, &o->hash_offset) != 0)
		return imginfo_bad_usage("verity: --hash-offset '%s' is not a byte count", arg);
	o->offset_given = 1;
	return 0;
}

/* Where --verity put the tree: after the image padded to the block size. */
static int find_tree(const char *path, int fd, uint64_t *hash_offset)
{
	struct sqp_image *img;
	struct sqp_image_info info = { .struct_size = sizeof(info) };
	char magic[8];
	uint64_t bs, end;
	int ifd, ret;

	if (imginfo_open(path, &img, &ifd) != 0)
		return 1;
	ret = sqp_image_get_info(img, &info);
	imginfo_close(img, ifd);
	if (ret != 0)
		return imginfo_fail(path, sqp_strerror(ret));
	for (bs = SQP_VERITY_BLOCK_MIN; bs <= SQP_VERITY_BLOCK_MAX; bs *= 2) {
		end = imginfo_offset() + (info.bytes_used + bs - 1) / bs * bs;
		if (pread(fd, magic, sizeof(magic), (off_t)end) == (ssize_t)sizeof(magic) &&
		    memcmp(magic, "verity\0\0", sizeof(magic)) == 0) {
			*hash_offset = end;
			return 0;
		}
	}
	return imginfo_fail(path, "no verity superblock after the image; "
			    "give --hash-offset or --hash-file");
}

/* Print which files' data lie in image bytes [pos, pos + len). */
static void name_files(const char *path, uint64_t pos, uint32_t len)
{
	struct sqp_walk_desc wd = { .struct_size = sizeof(wd) };
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	struct sqp_file_layout fl;
	struct sqp_walk *w = NULL;
	struct sqp_image *img;
	unsigned long found = 0;
	int fd, ret;

	if (imginfo_open(path, &img, &fd) != 0)
		return;
	wd.img = img;
	ret = sqp_walk_create(&wd, &w);
	while (ret == 0 && (ret = sqp_walk_next(w, &e)) == 1) {
		ret = 0;
		if (!S_ISREG(e.info.mode) || e.hardlink ||
		    sqp_image_file_layout(img, e.info.ref, &fl) != 0)
			continue;
		if ((fl.stored_bytes > 0 && fl.blocks_start < pos + len &&
		     pos < fl.blocks_start + fl.stored_bytes) ||
		    (fl.frag_index != SQP_NO_FRAGMENT && fl.frag_start < pos + len &&
		     pos < fl.frag_start + fl.frag_size)) {
			if (found++ < 8)
				printf("  holds data of '%s'\n", e.path);
		}
	}
	if (found > 8)
		printf("  and of %lu more files\n", found - 8);
	if (ret < 0)
		printf("  (the image cannot be walked to name its files: %s)\n",
		       w != NULL ? sqp_walk_error(w) : sqp_strerror(ret));
	else if (found == 0)
		printf("  holds no file data (superblock, tables or padding)\n");
	sqp_walk_destroy(w);
	imginfo_close(img, fd);
}

static int check(const char *path, int fd, const struct verity_opts *o, const uint8_t *root)
{
	struct sqp_verity_check_desc d = { .struct_size = sizeof(d),
		.data_fd = fd, .data_offset = imginfo_offset(), .hash_fd = fd,
		.hash_offset = o->hash_offset, .root_hash = root,
		.root_hash_len = SQP_VERITY_DIGEST_SIZE,
	};
	struct sqp_verity_bad bad = { .struct_size = sizeof(bad) };
	char msg[256];
	int hfd = -1, ret;

	if (o->hash_file != NULL) {
		hfd = open(o->hash_file, O_RDONLY | O_CLOEXEC);
		if (hfd < 0)
			return imginfo_fail(o->hash_file, strerror(errno));
		d.hash_fd = hfd;
	} else if (!o->offset_given && find_tree(path, fd, &d.hash_offset) != 0) {
		return 1;
	}
	ret = sqp_verity_check(&d, &bad, msg, sizeof(msg));
	if (hfd >= 0)
		close(hfd);
	if (ret < 0)
		return imginfo_fail(o->hash_file != NULL ? o->hash_file : path, msg);
	if (ret == 0) {
		printf("%s: %llu blocks of %u match the root hash\n", path,
		       (unsigned long long)bad.data_blocks, bad.block_size);
		return imginfo_flush();
	}
	if (bad.in_tree) {
		printf("%s: hash block %llu of level %d at offset %llu%s%s does not match "
		       "the level above it\n", path, (unsigned long long)bad.block, bad.level,
		       (unsigned long long)bad.offset, o->hash_file ? " of " : "",
		       o->hash_file ? o->hash_file : "");
	} else {
		printf("%s: data block %llu at offset %llu (image offset %llu) does not "
		       "match its hash\n", path, (unsigned long long)bad.block,
		       (unsigned long long)bad.offset, (unsigned long long)bad.image_pos);
		name_files(path, bad.image_pos, bad.block_size);
	}
	imginfo_flush();
	return 1;
}

int imginfo_verity_main(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "hash-offset", required_argument, NULL, 'o' },
		{ "hash-file", required_argument, NULL, 'f' },
		TOOL_LONG_HELP,
		{ NULL, 0, NULL, 0 },
	};
	struct verity_opts o = { 0 };
	struct tool_args a = { .prog = "imginfo", .cmd = "verity",
			       .shorts = ":h", .longs = longs,
			       .help = verity_help, .own = on_opt, .user = &o };
	uint8_t root[SQP_VERITY_DIGEST_SIZE];
	int fd, ret;

	ret = tool_args_parse(&a, argc, argv);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (argc - optind != 2)
		return imginfo_bad_usage("%s", "verity: expected IMAGE and ROOTHASH");
	if (o.hash_file != NULL && o.offset_given)
		return imginfo_bad_usage("%s", "verity: --hash-offset and --hash-file "
					 "exclude each other");
	if (strlen(argv[optind + 1]) != 2 * SQP_VERITY_DIGEST_SIZE ||
	    tool_hex_decode(argv[optind + 1], 2 * SQP_VERITY_DIGEST_SIZE, root) != 0)
		return imginfo_bad_usage("verity: ROOTHASH '%s' is not 64 hex digits",
					 argv[optind + 1]);
	if (!sqp_verity_available())
		return imginfo_bad_usage("%s", "verity: dm-verity is not built in "
					 "(configure found no libcrypto)");
	fd = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return imginfo_fail(argv[optind], strerror(errno));
	ret = check(argv[optind], fd, &o, root);
	close(fd);
	return ret;
}
