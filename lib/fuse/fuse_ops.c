/* SPDX-License-Identifier: MIT */
/*
 * fuse_ops.c - sqpack-fuse's low-level operations: each request borrows
 * an image from the pool for its metadata, reads file data and listings
 * through the shared cache, and answers with long timeouts (the image
 * never changes), so the kernel asks each thing about once.
 *
 * Rule that keeps the pool from deadlocking: a request never holds an
 * image while it gets from the cache (whose loader takes an image too).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "fuse_fs.h"
#include "sqpack/image_info.h"

/* The image never changes: the kernel may keep what it learnt forever
 * (a year, as a finite number of seconds). */
#define FOREVER (365.0 * 24 * 3600)

static struct fs *fs_of(fuse_req_t req)
{
	struct fs *fs = fuse_req_userdata(req);

	atomic_fetch_add(&fs->busy, 1);
	return fs;
}

/* Every reply goes through these: the request is over (-o timeout=). */
static void done(struct fs *fs)
{
	atomic_store(&fs->last_active, (long long)time(NULL));
	atomic_fetch_sub(&fs->busy, 1);
}

static void reply_err(struct fs *fs, fuse_req_t req, int err)
{
	fuse_reply_err(req, err);
	done(fs);
}

static uint64_t ref_of(const struct fs *fs, fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID ? fs->root : (uint64_t)ino - 2;
}

static fuse_ino_t ino_of(const struct fs *fs, uint64_t ref)
{
	return ref == fs->root ? FUSE_ROOT_ID : (fuse_ino_t)(ref + 2);
}

/* The stat of ref as the mount shows it: 0 or an sqp error. */
static int get_stat(struct fs *fs, struct sqp_image *img, uint64_t ref,
		    struct stat *st)
{
	struct sqp_inode_info i = { .struct_size = sizeof(i) };
	int ret = sqp_image_stat(img, ref, &i);

	if (ret != 0)
		return ret;
	/* A size off_t cannot hold is a corrupt image's: EIO, not a
	 * negative st_size (which the kernel would refuse anyway). */
	if (i.size > (uint64_t)INT64_MAX)
		return SQP_ERR_CORRUPT;
	memset(st, 0, sizeof(*st));
	st->st_ino = i.inode_number;
	st->st_mode = i.mode & ~(fs->o.umask |
				 (S_ISDIR(i.mode) ? fs->o.dmask : fs->o.fmask));
	st->st_nlink = i.nlink;
	st->st_uid = fs->o.set_uid ? fs->o.uid : i.uid;
	st->st_gid = fs->o.set_gid ? fs->o.gid : i.gid;
	st->st_size = (off_t)i.size;
	st->st_blksize = (blksize_t)fs->info.block_size;
	st->st_blocks = (blkcnt_t)((i.size + 511) / 512);
	st->st_rdev = makedev(i.dev_major, i.dev_minor);
	st->st_atime = st->st_mtime = st->st_ctime = (time_t)i.mtime;
	return 0;
}

/* An entry for ref (its stat through pi's image): 0 or an sqp error. */
static int get_entry(struct fs *fs, struct sqp_image *img, uint64_t ref,
		     struct fuse_entry_param *e)
{
	memset(e, 0, sizeof(*e));
	if (ref > UINT64_MAX - 2)
		return SQP_ERR_CORRUPT;
	e->ino = ino_of(fs, ref);
	e->attr_timeout = e->entry_timeout = FOREVER;
	return get_stat(fs, img, ref, &e->attr);
}

/* The entry called name in a listing, or NULL. */
static const struct fs_dirent *find(const struct fc_entry *ce,
				    const char *name)
{
	const struct fs_listing *l = (const void *)fc_data(ce);
	size_t lo = 0, hi = l->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp((const char *)l + l->ents[mid].name_off, name);

		if (c == 0)
			return &l->ents[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fs *fs = fs_of(req);
	struct fuse_entry_param e;
	const struct fs_dirent *d;
	struct fc_entry *ce;
	struct pool_img *pi;
	uint64_t ref;
	int ret;

	if ((ret = fc_get(fs->cache, ref_of(fs, parent), FS_LISTING, NULL,
			  &ce)) != 0)
		return reply_err(fs, req, -ret);
	d = find(ce, name);
	ref = d != NULL ? d->ref : 0;
	fc_put(fs->cache, ce);
	if (d == NULL) {
		/* A negative entry, which the kernel keeps as long. */
		memset(&e, 0, sizeof(e));
		e.entry_timeout = FOREVER;
		fuse_reply_entry(req, &e);
		return done(fs);
	}
	if ((ret = pool_get(&fs->pool, &pi)) != 0)
		return reply_err(fs, req, -ret);
	ret = get_entry(fs, pi->img, ref, &e);
	pool_put(&fs->pool, pi, ret);
	if (ret != 0)
		return reply_err(fs, req, pool_errno(ret));
	fuse_reply_entry(req, &e);
	done(fs);
}

/* ino's attributes, on an image lent by the pool: 0 or an errno. */
static int stat_ino(struct fs *fs, fuse_ino_t ino, struct stat *st)
{
	struct pool_img *pi;
	int ret;

	if ((ret = pool_get(&fs->pool, &pi)) != 0)
		return -ret;
	ret = get_stat(fs, pi->img, ref_of(fs, ino), st);
	pool_put(&fs->pool, pi, ret);
	return ret != 0 ? pool_errno(ret) : 0;
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct stat st;
	int err = stat_ino(fs, ino, &st);

	if (err != 0)
		return reply_err(fs, req, err);
	fuse_reply_attr(req, &st, FOREVER);
	done(fs);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = fs_of(req);
	size_t cap = 256;
	char *buf = NULL;
	struct pool_img *pi;
	int ret;

	if ((ret = pool_get(&fs->pool, &pi)) != 0)
		return reply_err(fs, req, -ret);
	for (;;) {
		char *nb = realloc(buf, cap);

		if (nb == NULL) {
			ret = SQP_ERR_NOMEM;
			break;
		}
		buf = nb;
		ret = sqp_image_readlink(pi->img, ref_of(fs, ino), buf, cap);
		if (ret < 0 || (size_t)ret < cap)
			break;
		cap = (size_t)ret + 1;
	}
	pool_put(&fs->pool, pi, ret < 0 ? ret : 0);
	if (ret >= 0)
		fuse_reply_readlink(req, buf);
	else
		fuse_reply_err(req, ret == SQP_ERR_ARG ? EINVAL : pool_errno(ret));
	free(buf);
	done(fs);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);

	/* Without open, the kernel keeps both by default. */
	if (atomic_load(&fs->no_open) & FS_NO_OPENDIR)
		return reply_err(fs, req, ENOSYS);
	fi->keep_cache = 1;
	fi->cache_readdir = 1;
	fuse_reply_open(req, fi);
	done(fs);
}

/* readdir and readdirplus: entries from index off on, next offset
 * index + 1. */
static void readdir_any(fuse_req_t req, fuse_ino_t ino, size_t size,
			off_t off, int plus)
{
	struct fs *fs = fs_of(req);
	const struct fs_listing *l;
	struct pool_img *pi = NULL;
	struct fc_entry *ce;
	size_t pos = 0;
	char *buf;
	int ret;

	if ((ret = fc_get(fs->cache, ref_of(fs, ino), FS_LISTING, NULL,
			  &ce)) != 0)
		return reply_err(fs, req, -ret);
	l = (const void *)fc_data(ce);
	if ((buf = malloc(size)) == NULL ||
	    (plus && (ret = -pool_get(&fs->pool, &pi)) != 0)) {
		fc_put(fs->cache, ce);
		free(buf);
		return reply_err(fs, req, ret != 0 ? ret : ENOMEM);
	}
	for (size_t i = (size_t)off; off >= 0 && i < l->count; i++) {
		const struct fs_dirent *d = &l->ents[i];
		const char *name = (const char *)l + d->name_off;
		struct fuse_entry_param e;
		size_t n;

		if (plus) {
			if ((ret = get_entry(fs, pi->img, d->ref, &e)) != 0)
				break;
			n = fuse_add_direntry_plus(req, buf + pos, size - pos,
						   name, &e, (off_t)i + 1);
		} else {
			e.attr.st_ino = d->ino;
			e.attr.st_mode = d->type;
			n = fuse_add_direntry(req, buf + pos, size - pos, name,
					      &e.attr, (off_t)i + 1);
		}
		if (n > size - pos)
			break;
		pos += n;
	}
	if (pi != NULL)
		pool_put(&fs->pool, pi, ret);
	fc_put(fs->cache, ce);
	if (ret != 0 && pos == 0)
		fuse_reply_err(req, pool_errno(ret));
	else
		fuse_reply_buf(req, buf, pos);
	free(buf);
	done(fs);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
		       off_t off, struct fuse_file_info *fi)
{
	readdir_any(req, ino, size, off, 0);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size,
			   off_t off, struct fuse_file_info *fi)
{
	readdir_any(req, ino, size, off, 1);
}

static void op_open(fuse_req_t req, fuse_ino_t ino,
		    struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct ahead_file *of;
	struct stat st;
	int err;

	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return reply_err(fs, req, EROFS);
	if ((err = stat_ino(fs, ino, &st)) != 0)
		return reply_err(fs, req, err);
	if (!S_ISREG(st.st_mode))
		return reply_err(fs, req, S_ISDIR(st.st_mode) ? EISDIR : EACCES);
	/* The kernel keeps the page cache by default then; reads come
	 * with no open file (fi->fh 0). */
	if (atomic_load(&fs->no_open) & FS_NO_OPEN)
		return reply_err(fs, req, ENOSYS);
	if ((of = malloc(sizeof(*of))) == NULL)
		return reply_err(fs, req, ENOMEM);
	ahead_file_init(of, (uint64_t)st.st_size);
	fi->fh = (uint64_t)(uintptr_t)of;
	fi->keep_cache = 1;
	if (fuse_reply_open(req, fi) != 0) {    /* no release will come */
		ahead_file_destroy(of);
		free(of);
	}
	done(fs);
}

static struct ahead_file *file_of(const struct fuse_file_info *fi)
{
	return (struct ahead_file *)(uintptr_t)fi->fh;
}

/* The size of the file a read or lseek is of: its open file's, or,
 * when the kernel opened it without us (no open), its inode's. 0 or an
 * errno. */
static int size_of(struct fs *fs, fuse_ino_t ino,
		   const struct fuse_file_info *fi, uint64_t *size)
{
	struct stat st;
	int err;

	if (fi->fh != 0) {
		*size = file_of(fi)->size;
		return 0;
	}
	if ((err = stat_ino(fs, ino, &st)) != 0)
		return err;
	*size = (uint64_t)st.st_size;
	return 0;
}

static void op_release(fuse_req_t req, fuse_ino_t ino,
		       struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);

	ahead_file_destroy(file_of(fi));
	free(file_of(fi));
	reply_err(fs, req, 0);
}

/* Buffers of a reply in memory written as they are, at most: more go
 * through fuse_reply_data. */
#define REPLY_IOV 64

/* The chunks a read covers, pinned, answered without a copy: the
 * kernel takes the bytes from the cache's buffers, or from the image
 * file where they are stored as they are (spliced, where the kernel
 * allows: op_init). Those after them are prefetched when the reads go
 * in order (fuse_ahead.h). A reply all in memory is an iovec: given
 * two buffers or more (a read across chunks, 256 KiB when the kernel's
 * read-ahead grows), fuse_reply_data would copy them into one it
 * allocates for the reply, above malloc's mmap threshold: fresh pages
 * each time, which were half of the daemon's page faults. */
static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	uint64_t fsize, ref = ref_of(fs, ino), end;
	struct fs_reply r;
	int ret;

	if ((ret = size_of(fs, ino, fi, &fsize)) != 0)
		return reply_err(fs, req, ret);
	if (off < 0 || (uint64_t)off >= fsize || size == 0) {
		fuse_reply_buf(req, NULL, 0);
		return done(fs);
	}
	end = fsize - (uint64_t)off < size ? fsize : (uint64_t)off + size;
	ahead_read(fs->ahead, file_of(fi), ref, fsize,
		   (uint64_t)off / fs->chunk, (end - 1) / fs->chunk);
	if ((ret = fs_read_reply(fs, ref, fsize, (uint64_t)off, end,
				 &r)) != 0) {
		fuse_reply_err(req, -ret);
	} else if (r.stored == 0 && r.bv->count <= REPLY_IOV) {
		struct iovec iov[REPLY_IOV];

		for (size_t i = 0; i < r.bv->count; i++)
			iov[i] = (struct iovec){ r.bv->buf[i].mem,
						 r.bv->buf[i].size };
		fuse_reply_iov(req, iov, (int)r.bv->count);
	} else {
		atomic_fetch_add(&fs->stored_bytes, r.stored);
		/* Buffers in memory are copied either way: splice would
		 * write them into a pipe first. */
		fuse_reply_data(req, r.bv, r.stored != 0 ? 0 :
				FUSE_BUF_NO_SPLICE);
	}
	fs_reply_free(fs, &r);
	done(fs);
}

/* SEEK_DATA and SEEK_HOLE (the kernel answers the other whences): the
 * holes the image records, so cp --sparse and tar --sparse skip them. */
static void op_lseek(fuse_req_t req, fuse_ino_t ino, off_t off, int whence,
		     struct fuse_file_info *fi)
{
	struct fs *fs = fs_of(req);
	struct pool_img *pi;
	uint64_t to = 0, fsize;
	int ret;

	if (whence != SEEK_DATA && whence != SEEK_HOLE)
		return reply_err(fs, req, EINVAL);
	if ((ret = size_of(fs, ino, fi, &fsize)) != 0)
		return reply_err(fs, req, ret);
	if (off < 0 || (uint64_t)off >= fsize)
		return reply_err(fs, req, ENXIO);
	if ((ret = pool_get(&fs->pool, &pi)) != 0)
		return reply_err(fs, req, -ret);
	if ((ret = pool_file(pi, ref_of(fs, ino))) == 0)
		ret = sqp_file_seek(pi->file, (uint64_t)off,
				    whence == SEEK_DATA, &to);
	pool_put(&fs->pool, pi, ret);
	if (ret == SQP_ERR_NOT_FOUND)
		return reply_err(fs, req, ENXIO);
	if (ret != 0)
		return reply_err(fs, req, pool_errno(ret));
	fuse_reply_lseek(req, (off_t)to);
	done(fs);
}

/* getxattr and listxattr: the image's xattrs of ino, through pi. */
static void xattr_any(fuse_req_t req, fuse_ino_t ino, const char *name,
		      size_t size)
{
	struct fs *fs = fs_of(req);
	const struct sqp_xattr *xa;
	struct pool_img *pi;
	size_t count, len = 0;
	char *list = NULL;
	int ret, err = 0;

	if ((ret = pool_get(&fs->pool, &pi)) != 0)
		return reply_err(fs, req, -ret);
	if ((ret = sqp_image_xattrs(pi->img, ref_of(fs, ino), &xa,
				    &count)) != 0) {
		err = pool_errno(ret);
	} else if (name != NULL) {
		size_t i = 0;

		while (i < count && strcmp(xa[i].key, name) != 0)
			i++;
		if (i == count)
			err = ENODATA;
		else if (size == 0)
			fuse_reply_xattr(req, xa[i].value_len);
		else if (size < xa[i].value_len)
			err = ERANGE;
		else
			fuse_reply_buf(req, (const char *)xa[i].value,
				       xa[i].value_len);
	} else {
		for (size_t i = 0; i < count; i++)
			len += strlen(xa[i].key) + 1;
		if (size == 0)
			fuse_reply_xattr(req, len);
		else if (size < len)
			err = ERANGE;
		else if ((list = malloc(len + 1)) == NULL)
			err = ENOMEM;
		else {
			len = 0;
			for (size_t i = 0; i < count; i++) {
				strcpy(list + len, xa[i].key);
				len += strlen(xa[i].key) + 1;
			}
			fuse_reply_buf(req, list, len);
		}
	}
	pool_put(&fs->pool, pi, ret);
	free(list);
	if (err != 0)
		fuse_reply_err(req, err);
	done(fs);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name,
			size_t size)
{
	xattr_any(req, ino, name, size);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	xattr_any(req, ino, NULL, size);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct fs *fs = fs_of(req);
	uint32_t bs = fs->info.block_size ? fs->info.block_size : 4096;
	struct statvfs sv = {
		.f_bsize = bs, .f_frsize = bs,
		.f_blocks = (fs->info.bytes_used + bs - 1) / bs,
		.f_files = fs->info.inodes, .f_namemax = 256,
		.f_flag = ST_RDONLY,
	};

	fuse_reply_statfs(req, &sv);
	done(fs);
}

/* No open and opendir where the kernel takes it: fs->no_open.
 * Symlinks kept by the kernel, and readdirplus whenever it helps.
 * Replies spliced from the image file (stored data) where the kernel
 * takes them: SPLICE_WRITE. Not SPLICE_READ, which would read every
 * request through a pipe, for the writes a read-only mount never gets;
 * nor SPLICE_MOVE, which would hand the image's page-cache pages over. */
static void op_init(void *user, struct fuse_conn_info *conn)
{
	struct fs *fs = user;

	atomic_store(&fs->no_open,
		     (conn->capable & FUSE_CAP_NO_OPEN_SUPPORT ?
		      FS_NO_OPEN : 0) |
		     (conn->capable & FUSE_CAP_NO_OPENDIR_SUPPORT ?
		      FS_NO_OPENDIR : 0));
	if (conn->capable & FUSE_CAP_CACHE_SYMLINKS)
		conn->want |= FUSE_CAP_CACHE_SYMLINKS;
	if (conn->capable & FUSE_CAP_SPLICE_WRITE)
		conn->want |= FUSE_CAP_SPLICE_WRITE;
}

const struct fuse_lowlevel_ops fs_ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.readlink = op_readlink,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.readdirplus = op_readdirplus,
	.open = op_open,
	.release = op_release,
	.read = op_read,
	.lseek = op_lseek,
	.getxattr = op_getxattr,
	.listxattr = op_listxattr,
	.statfs = op_statfs,
};
