/* SPDX-License-Identifier: MIT */
/*
 * fuse_read.c - the reply to a read, as buffers into the cache's
 * entries, pinned until it is written: a chunk's bytes, or where they
 * are (fuse_fs.h: FS_STORED, FS_SHARED). A file chunk pins itself and,
 * when its bytes are shared (at most a chunk of them), the two shared
 * chunks they may straddle at most: 3 pins and 2 buffers a chunk. Its
 * own file because the operations' file would pass 600 lines.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fuse_fs.h"

static int add_entry(struct fs *fs, struct fs_reply *r, struct fc_entry *e,
		     uint64_t from, uint64_t len, int shared);

/* len bytes of the shared data of w, from pos on, into r. */
static int add_shared(struct fs *fs, struct fs_reply *r,
		      const struct fs_where *w, uint64_t pos, uint64_t len)
{
	while (len > 0) {
		uint64_t idx = pos / fs->chunk, in = pos % fs->chunk;
		uint64_t take = fs->chunk - in < len ? fs->chunk - in : len;
		struct fc_entry *e;
		int ret;

		if ((ret = fc_get(fs->cache, w->ref, idx, &fs->packed_size,
				  &e)) != 0)
			return ret;
		r->pins[r->npins++] = e;
		if ((ret = add_entry(fs, r, e, in, take, 1)) != 0)
			return ret;
		pos += take;
		len -= take;
	}
	return 0;
}

/* Bytes from .. from + len of entry e's data into r: from the cache's
 * buffer, or from the image file. shared: e is shared data, which
 * cannot point to more. -EIO when e does not hold them. */
static int add_entry(struct fs *fs, struct fs_reply *r, struct fc_entry *e,
		     uint64_t from, uint64_t len, int shared)
{
	const struct fs_where *w = (const void *)fc_data(e);
	struct fuse_buf *b = &r->bv->buf[r->bv->count];

	switch (fc_kind(e)) {
	case FS_BYTES:
		if (from > fc_len(e) || len > fc_len(e) - from)
			return -EIO;
		*b = (struct fuse_buf){ .size = (size_t)len,
			.mem = (void *)(fc_data(e) + from) };
		break;
	case FS_STORED:
		if (w->pos > UINT64_MAX - from - len ||
		    w->pos + from + len > (uint64_t)INT64_MAX)
			return -EIO;
		*b = (struct fuse_buf){ .size = (size_t)len,
			.flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK,
			.fd = fs->fd, .pos = (off_t)(w->pos + from) };
		if (w->pos + from + len > r->stored_end)
			r->stored_end = w->pos + from + len;
		r->stored += len;
		break;
	default:
		if (shared || w->pos > UINT64_MAX - from)
			return -EIO;
		return add_shared(fs, r, w, w->pos + from, len);
	}
	r->bv->count++;
	return 0;
}

/* The image file still holds what the stored buffers read (it was
 * checked when opened; one truncated since would give a short reply,
 * which the kernel takes for the file's end): 0 or -EIO. */
static int stored_there(const struct fs *fs, const struct fs_reply *r)
{
	struct stat st;

	if (r->stored_end == 0)
		return 0;
	if (fstat(fs->fd, &st) != 0 || st.st_size < 0 ||
	    (uint64_t)st.st_size < r->stored_end)
		return -EIO;
	return 0;
}

int fs_read_reply(struct fs *fs, uint64_t ref, uint64_t fsize,
		  uint64_t off, uint64_t end, struct fs_reply *r)
{
	uint64_t first = off / fs->chunk, n = (end - 1) / fs->chunk - first + 1;
	int ret = 0;

	*r = (struct fs_reply){ 0 };
	r->pins = calloc(3 * n, sizeof(*r->pins));
	r->bv = malloc(sizeof(*r->bv) + 2 * n * sizeof(r->bv->buf[0]));
	if (r->pins == NULL || r->bv == NULL)
		return -ENOMEM;
	*r->bv = (struct fuse_bufvec)FUSE_BUFVEC_INIT(0);
	r->bv->count = 0;
	for (uint64_t i = 0; ret == 0 && i < n; i++) {
		uint64_t at = (first + i) * fs->chunk;
		uint64_t from = i == 0 ? off - at : 0;
		uint64_t to = end - at < fs->chunk ? end - at : fs->chunk;
		struct fc_entry *e;

		if ((ret = fc_get(fs->cache, ref, first + i, &fsize, &e)) != 0)
			break;
		r->pins[r->npins++] = e;
		ret = add_entry(fs, r, e, from, to - from, 0);
	}
	return ret != 0 ? ret : stored_there(fs, r);
}

void fs_reply_free(struct fs *fs, struct fs_reply *r)
{
	for (size_t i = 0; i < r->npins; i++)
		fc_put(fs->cache, r->pins[i]);
	free(r->pins);
	free(r->bv);
}
