/* SPDX-License-Identifier: MIT */
/*
 * fuse_fs.c - a struct fs made ready to serve, apart from any FUSE
 * session: the pool opened on the image (which checks it), the mount's
 * root found (subdir), the chunk size chosen and the cache created.
 * sqp_fuse_create (fuse_object.c) mounts what this sets up; the tests
 * and the fuzz harness drive fs_ops over it directly, without a kernel.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "fuse_fs.h"
#include "sqpack/image_info.h"

/* The largest chunk an EROFS image's clusters ask for: the kernel's
 * FUSE reads are at most 1 MiB, and a cache of 64 MiB (the default)
 * still holds 64 of them. */
#define BIG_CHUNK_MAX (1u << 20)

int fs_init(struct fs *fs, const struct fs_setup *s, char *msg,
	    size_t msg_size)
{
	struct sqp_inode_info ri = { .struct_size = sizeof(ri) };
	struct sqp_inode_info pk = { .struct_size = sizeof(pk) };
	struct sqp_image_layout lay = { 0 };
	struct sqp_image *img;
	int ret;

	memset(fs, 0, sizeof(*fs));
	fs->o = s->o;
	fs->info.struct_size = sizeof(fs->info);
	if ((ret = pool_init(&fs->pool, &s->desc, s->threads, msg, msg_size)) != 0)
		return ret;
	img = fs->pool.free->img;
	fs->root = sqp_image_root(img);
	if ((ret = sqp_image_get_info(img, &fs->info)) == 0 &&
	    s->subdir != NULL &&
	    (ret = sqp_image_lookup(img, s->subdir, &fs->root)) == 0)
		ret = sqp_image_stat(img, fs->root, &ri);
	if (ret == 0 && s->subdir != NULL && !S_ISDIR(ri.mode))
		ret = SQP_ERR_NOT_FOUND;
	/* EROFS's fragments are read from the packed inode's chunks; an
	 * image whose packed inode is no file is refused here. */
	if (ret == 0 && fs->info.packed_ref != 0 &&
	    (ret = sqp_image_stat(img, fs->info.packed_ref, &pk)) == 0) {
		if (!S_ISREG(pk.mode))
			ret = SQP_ERR_CORRUPT;
		fs->packed_size = pk.size;
	}
	if (ret != 0) {
		snprintf(msg, msg_size, "%s", ret == SQP_ERR_NOT_FOUND ?
			 "subdir: no such directory" : sqp_image_error(img)[0] ?
			 sqp_image_error(img) : "the packed inode is no file");
		pool_destroy(&fs->pool);
		return ret;
	}
	fs->fd = s->desc.fd;
	/* SquashFS compresses by block; EROFS's clusters are decoded by a
	 * file reader that keeps the last one, which 128 KiB chunks reuse
	 * when one thread reads them in turn. Random readers load chunks
	 * on any thread, each decoding the cluster again: where clusters
	 * are larger (1 MiB lzma, an AppImage's kind), a chunk is the
	 * largest cluster, up to BIG_CHUNK_MAX, so it is decoded about
	 * once per chunk rather than once per 128 KiB. */
	fs->chunk = fs->info.format == SQP_FORMAT_SQUASHFS ?
		    fs->info.block_size : 128 * 1024;
	if (fs->info.format == SQP_FORMAT_EROFS &&
	    sqp_image_get_layout(img, &lay) == 0 && lay.erofs_pcluster > fs->chunk)
		fs->chunk = lay.erofs_pcluster < BIG_CHUNK_MAX ?
			    lay.erofs_pcluster : BIG_CHUNK_MAX;
	if (fs->chunk < fs->info.block_size)
		fs->chunk = fs->info.block_size;
	if (fc_create((size_t)s->cache_bytes, fs->chunk, fs_load, fs,
		      &fs->cache) != 0) {
		pool_destroy(&fs->pool);
		snprintf(msg, msg_size, "%s", strerror(ENOMEM));
		return SQP_ERR_NOMEM;
	}
	return 0;
}

void fs_fini(struct fs *fs)
{
	fc_destroy(fs->cache);
	fs->cache = NULL;
	pool_destroy(&fs->pool);
}
