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
#include <unistd.h>

#include "fuse_fs.h"

/* Chunks are at least CHUNK_MIN: a reader's 128 KiB requests (the
 * kernel's read-ahead) then take one cache entry, not one a small
 * block each. At most CHUNK_MAX: the kernel's FUSE reads are at most
 * 1 MiB, and a cache of 64 MiB (the default) still holds 64 of them. */
#define CHUNK_MIN (128u * 1024)
#define CHUNK_MAX (1u << 20)

int fs_init(struct fs *fs, const struct fs_setup *s, char *msg,
	    size_t msg_size)
{
	struct sqp_inode_info ri = { .struct_size = sizeof(ri) };
	struct sqp_inode_info pk = { .struct_size = sizeof(pk) };
	struct sqp_image *img;
	unsigned units;
	long cpus;
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
	/* A chunk is the image's decode unit, so that random readers,
	 * loading chunks on any thread, decode each unit about once (1
	 * MiB blocks or clusters of xz or lzma: an AppImage's kind);
	 * where the unit is smaller, the file reader keeps the last one
	 * it decoded, which a larger chunk reuses in turn. A chunk holds
	 * a block at least: a SquashFS fragment block is one chunk. */
	fs->chunk = fs->info.decode_unit < CHUNK_MIN ? CHUNK_MIN :
		    fs->info.decode_unit > CHUNK_MAX ? CHUNK_MAX :
		    fs->info.decode_unit;
	if (fs->chunk < fs->info.block_size)
		fs->chunk = fs->info.block_size;
	cpus = s->cores > 0 ? (long)s->cores : sysconf(_SC_NPROCESSORS_ONLN);
	fs->cores = cpus > 0 && cpus < 1024 ? (unsigned)cpus : 1;
	/* Each decoder of units keeps its dictionary (lzma's: 8 MiB) and
	 * holds the unit it decodes (several MiB) before the cache counts
	 * it: outside the budget, whose allowance beside it is fixed
	 * (issue 41: the cache plus 64 MiB). So the budget bounds them
	 * too, not the cores alone: one per FS_UNIT_BUDGET, one at least.
	 * big.tar's lzma image, 8 readers, the 64 MiB cache: 4 decoders
	 * (4 or 16 cores) peaked at 122 to 133 MiB, 2 at 113 to 117.
	 * The allowance holds FS_UNIT_HELD of them; those past it are
	 * paid from the budget, FS_UNIT_COST each (128 MiB, 4 decoders:
	 * 195 and 199 MiB unpaid, 152 paid; the bound 192). */
	units = fs->cores < FS_UNIT_DECODERS ? fs->cores : FS_UNIT_DECODERS;
	if (units > s->cache_bytes / FS_UNIT_BUDGET)
		units = s->cache_bytes < FS_UNIT_BUDGET ? 1 :
			(unsigned)(s->cache_bytes / FS_UNIT_BUDGET);
	if (units > fs->pool.max)
		units = fs->pool.max;
	fs->cache_budget = s->cache_bytes;
	if (units > FS_UNIT_HELD)
		fs->cache_budget -= (units - FS_UNIT_HELD) * FS_UNIT_COST;
	if (fc_create((size_t)fs->cache_budget, fs->chunk, fs_load, fs,
		      &fs->cache) != 0) {
		pool_destroy(&fs->pool);
		snprintf(msg, msg_size, "%s", strerror(ENOMEM));
		return SQP_ERR_NOMEM;
	}
	pool_init_empty(&fs->units, &s->desc, units);
	return 0;
}

void fs_fini(struct fs *fs)
{
	fc_destroy(fs->cache);
	fs->cache = NULL;
	pool_destroy(&fs->units);
	pool_destroy(&fs->pool);
}
