/* SPDX-License-Identifier: MIT */
/*
 * imginfo_stat.c - `imginfo stat IMAGE PATH...`: every field of each
 * entry, one "field: value" line each, a blank line between entries:
 * type, mode, owner, size, mtime, inode number, link count, where a
 * file's blocks and tail are stored, device numbers, symlink target and
 * xattrs (values quoted and escaped, since they are often binary).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "imginfo.h"
#include "sqpack/image_info.h"
#include "../common/tool_mode.h"

static int print_file(struct sqp_image *img, const struct sqp_inode_info *in)
{
	struct sqp_file_layout fl;
	int ret = sqp_image_file_layout(img, in->ref, &fl);

	if (ret != 0)
		return ret;
	printf("blocks: %llu (start %llu, %llu bytes stored, %llu holes, "
	       "%llu uncompressed)\n", (unsigned long long)fl.block_count,
	       (unsigned long long)fl.blocks_start,
	       (unsigned long long)fl.stored_bytes,
	       (unsigned long long)fl.hole_blocks,
	       (unsigned long long)fl.raw_blocks);
	if (fl.sparse != 0)
		printf("sparse: %llu\n", (unsigned long long)fl.sparse);
	if (fl.frag_index == SQP_NO_FRAGMENT)
		printf("fragment: none\n");
	else
		printf("fragment: %u (offset %u, tail %u bytes; block at %llu, "
		       "%u bytes%s)\n", fl.frag_index, fl.frag_offset,
		       fl.tail_bytes, (unsigned long long)fl.frag_start,
		       fl.frag_size, fl.frag_raw ? ", uncompressed" : "");
	return 0;
}

static int print_target(struct sqp_image *img, const struct sqp_inode_info *in)
{
	int len = sqp_image_readlink(img, in->ref, NULL, 0);
	char *t;

	if (len < 0)
		return len;
	if ((t = malloc((size_t)len + 1)) == NULL)
		return SQP_ERR_NOMEM;
	len = sqp_image_readlink(img, in->ref, t, (size_t)len + 1);
	if (len >= 0) {
		printf("target: ");
		imginfo_escape(stdout, t, strlen(t), 0);
		putchar('\n');
	}
	free(t);
	return len < 0 ? len : 0;
}

static int print_xattrs(struct sqp_image *img, uint64_t ref)
{
	const struct sqp_xattr *x;
	size_t n;
	int ret = sqp_image_xattrs(img, ref, &x, &n);

	for (size_t i = 0; ret == 0 && i < n; i++) {
		printf("xattr: ");
		imginfo_escape(stdout, x[i].key, strlen(x[i].key), 0);
		printf("=\"");
		imginfo_escape(stdout, x[i].value, x[i].value_len, 1);
		printf("\"\n");
	}
	return ret;
}

static int print_inode(struct sqp_image *img, const struct sqp_inode_info *in)
{
	char mode[11], when[64];

	tool_mode_string(in->mode, mode);
	imginfo_time(in->mtime, when, sizeof(when));
	printf("type: %s\n", imginfo_type_name(in->mode));
	printf("mode: %04o (%s)\n", (unsigned)(in->mode & 07777), mode);
	printf("uid: %u\ngid: %u\n", (unsigned)in->uid, (unsigned)in->gid);
	printf("size: %llu\n", (unsigned long long)imginfo_size(in));
	printf("mtime: %lld (%s)\n", (long long)in->mtime, when);
	printf("inode: %u\nlinks: %u\n", in->inode_number, in->nlink);
	if (S_ISDIR(in->mode))
		printf("parent: %u\n", in->parent);
	if (S_ISCHR(in->mode) || S_ISBLK(in->mode))
		printf("device: %u,%u\n", (unsigned)in->dev_major,
		       (unsigned)in->dev_minor);
	if (S_ISREG(in->mode))
		return print_file(img, in);
	if (S_ISLNK(in->mode))
		return print_target(img, in);
	return 0;
}

static int stat_one(struct sqp_image *img, const char *path, int n,
		    void *user)
{
	struct sqp_inode_info in = { .struct_size = sizeof(in) };
	uint64_t ref;
	int ret = sqp_image_lookup(img, path, &ref);

	(void)user;
	if (ret == SQP_ERR_NOT_FOUND)
		return imginfo_fail(path, "no such entry");
	if (ret == 0)
		ret = sqp_image_stat(img, ref, &in);
	if (ret != 0)
		return imginfo_fail(path, imginfo_why(img, ret));
	if (n > 0)
		putchar('\n');
	printf("path: ");
	imginfo_escape(stdout, path, strlen(path), 0);
	putchar('\n');
	if ((ret = print_inode(img, &in)) == 0)
		ret = print_xattrs(img, ref);
	return ret != 0 ? imginfo_fail(path, imginfo_why(img, ret)) : 0;
}

int imginfo_stat_main(int argc, char **argv)
{
	return imginfo_each_path(argc, argv, "Usage: imginfo stat IMAGE PATH...\n"
				 "Show every field of the entries PATH...\n",
				 stat_one, NULL);
}
