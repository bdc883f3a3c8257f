/* SPDX-License-Identifier: MIT */
/*
 * fuse_read.c - the reply to a read, as buffers into the cache's
 * entries, pinned until it is written: a chunk's bytes, or where its
 * pieces are (fuse_fs.h: FS_PIECES). A file chunk pins itself; a piece
 * in the image file is a descriptor buffer (which libfuse splices), a
 * shared one (at most a chunk of bytes) pins the two shared chunks it
 * may straddle at most, whose own pieces are the image file's; a
 * piece of a decoded unit pins the unit's entry (fuse_load.c). The
 * arrays grow as the pieces need. Its own file because the operations'
 * file would pass 600 lines.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fuse_fs.h"

/* Room in r for more pins and buffers: 0 or -ENOMEM. */
static int reserve(struct fs_reply *r, size_t pins, size_t bufs)
{
	if (r->npins + pins > r->pins_cap) {
		size_t cap = 2 * (r->npins + pins);
		void *p = realloc(r->pins, cap * sizeof(*r->pins));

		if (p == NULL)
			return -ENOMEM;
		r->pins = p;
		r->pins_cap = cap;
	}
	if (r->bv->count + bufs > r->bv_cap) {
		size_t cap = 2 * (r->bv->count + bufs);
		void *p = realloc(r->bv, sizeof(*r->bv) +
				  cap * sizeof(r->bv->buf[0]));

		if (p == NULL)
			return -ENOMEM;
		r->bv = p;
		r->bv_cap = cap;
	}
	return 0;
}

static int add_entry(struct fs *fs, struct fs_reply *r, struct fc_entry *e,
		     uint64_t from, uint64_t len, int shared);

/* len bytes of the shared data ref from pos on, into r, from its
 * chunks. */
static int add_shared(struct fs *fs, struct fs_reply *r, uint64_t ref,
		      uint64_t pos, uint64_t len)
{
	while (len > 0) {
		uint64_t idx = pos / fs->chunk, in = pos % fs->chunk;
		uint64_t take = fs->chunk - in < len ? fs->chunk - in : len;
		struct fc_entry *e;
		int ret;

		if ((ret = reserve(r, 1, 0)) != 0 ||
		    (ret = fc_get(fs->cache, ref, idx, &fs->packed_size,
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

/* len bytes from pos on of the decoded unit piece p is of, into r,
 * from its entry. */
static int add_unit(struct fs *fs, struct fs_reply *r,
		    const struct fs_piece *p, uint64_t pos, uint64_t len)
{
	struct fc_entry *e;
	int ret;

	if ((ret = reserve(r, 1, 0)) != 0 ||
	    (ret = fc_get(fs->cache, p->ref, FS_UNIT | p->unit, &p->unit_len,
			  &e)) != 0)
		return ret;
	r->pins[r->npins++] = e;
	return fc_kind(e) == FS_BYTES ? add_entry(fs, r, e, pos, len, 1) :
	       -EIO;
}

/* Bytes from .. from + len of the chunk whose pieces p (n of them)
 * are, into r. shared: the chunk is shared data's, whose pieces are
 * the image file's or its own units only (EROFS's packed inode holds
 * no fragment). */
static int add_pieces(struct fs *fs, struct fs_reply *r,
		      const struct fs_piece *p, size_t n, uint64_t from,
		      uint64_t len, int shared)
{
	for (size_t i = 0; i < n && len > 0; i++) {
		uint64_t take, pos;
		int ret;

		if (from >= p[i].len) {
			from -= p[i].len;
			continue;
		}
		take = p[i].len - from < len ? p[i].len - from : len;
		pos = p[i].pos + from;
		if (pos < p[i].pos)
			return -EIO;
		if (p[i].unit_len != 0) {
			if ((ret = add_unit(fs, r, &p[i], pos, take)) != 0)
				return ret;
		} else if (p[i].ref != FS_IMAGE_FILE) {
			if (shared ||
			    (ret = add_shared(fs, r, p[i].ref, pos, take)) != 0)
				return shared ? -EIO : ret;
		} else {
			if (pos + take < pos || pos + take > (uint64_t)INT64_MAX)
				return -EIO;
			if ((ret = reserve(r, 0, 1)) != 0)
				return ret;
			r->bv->buf[r->bv->count++] = (struct fuse_buf){
				.size = (size_t)take,
				.flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK,
				.fd = fs->fd, .pos = (off_t)pos };
			if (pos + take > r->stored_end)
				r->stored_end = pos + take;
			r->stored += take;
		}
		from = 0;
		len -= take;
	}
	return len == 0 ? 0 : -EIO;
}

/* Bytes from .. from + len of chunk entry e into r: from the cache's
 * buffer, or where its pieces are. -EIO when e does not hold them. */
static int add_entry(struct fs *fs, struct fs_reply *r, struct fc_entry *e,
		     uint64_t from, uint64_t len, int shared)
{
	const struct fs_piece *p = (const void *)fc_data(e);
	int ret;

	if (fc_kind(e) == FS_PIECES)
		return add_pieces(fs, r, p, fc_len(e) / sizeof(*p), from, len,
				  shared);
	if (fc_kind(e) != FS_BYTES || from > fc_len(e) ||
	    len > fc_len(e) - from)
		return -EIO;
	if ((ret = reserve(r, 0, 1)) != 0)
		return ret;
	r->bv->buf[r->bv->count++] = (struct fuse_buf){ .size = (size_t)len,
		.mem = (void *)(fc_data(e) + from) };
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
	/* One pin and one buffer a chunk, the common case; more as the
	 * pieces need. */
	r->bv = malloc(sizeof(*r->bv) + n * sizeof(r->bv->buf[0]));
	if (r->bv == NULL)
		return -ENOMEM;
	*r->bv = (struct fuse_bufvec)FUSE_BUFVEC_INIT(0);
	r->bv->count = 0;
	r->bv_cap = (size_t)n;
	for (uint64_t i = 0; ret == 0 && i < n; i++) {
		uint64_t at = (first + i) * fs->chunk;
		uint64_t from = i == 0 ? off - at : 0;
		uint64_t to = end - at < fs->chunk ? end - at : fs->chunk;
		struct fc_entry *e;

		if ((ret = reserve(r, 1, 0)) != 0 ||
		    (ret = fc_get(fs->cache, ref, first + i, &fsize, &e)) != 0)
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

/* Nothing while as many requests as cores are in flight: they keep the
 * cores busy, so decoding ahead of them is no faster, and what it loads
 * for each of many readers at once evicts what they are reading. 8
 * readers of big.tar's tree on its lzma image (extents of up to 12 MiB
 * decoded whole, a 64 MiB cache) decoded 360 extents of its 317 with
 * the prefetch, 317 without. One reader in order (requests fewer than
 * the cores) is prefetched for as before. */
void fs_prefetch(void *user, uint64_t ref, uint64_t idx, uint64_t size)
{
	struct fs *fs = user;
	uint64_t off = idx * fs->chunk;
	struct fs_reply r;

	if (idx >= size / fs->chunk + 1 || off >= size ||
	    atomic_load(&fs->busy) >= fs->cores)
		return;
	(void)fs_read_reply(fs, ref, size, off, size - off < fs->chunk ?
			    size : off + fs->chunk, &r);
	fs_reply_free(fs, &r);
}
