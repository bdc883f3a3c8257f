/* SPDX-License-Identifier: MIT */
/*
 * istream.c - tar input read ahead on its own thread.
 *
 * A reader thread fills a small ring of large buffers with decoded bytes
 * (idecode.c: read(), and decompression for compressed input) while the
 * caller's thread parses the tar and copies file data out of them. For a
 * packer with cheap codecs that copy out of the page cache, or the input
 * decompression, would otherwise be most of the work left on the thread
 * that orders everything. Memory stays bounded: SLOTS x SLOT_SIZE.
 *
 * The thread reports in stream order: a slot holds data, or the end of
 * the input (len 0), or an error (status < 0, message in thread_err), so
 * the caller meets an input error exactly where serial reading would.
 * What follows a compressed stream is read only when the caller drains.
 *
 * A skip past everything read ahead, on plain input in a regular file,
 * is a seek: the caller drops its slots and asks the thread to go on
 * from the target (the data of a replaced or deleted layer entry is
 * then never read). The thread throws away a slot it was filling when
 * the request came (seek_gen moved). Anywhere the input might end
 * first, the skip reads through, so errors are those of serial reading.
 *
 * Invariant: consumed <= filled <= consumed + SLOTS; slots [consumed,
 * filled) belong to the caller, the others to the thread; the lock
 * orders every hand-over. The caller reads slot cur (= consumed - 1 once
 * taken) at pos < its len.
 *
 * A caller that skips nearly every byte (an index of the tar, mkfs.erofs
 * --tar=i, reads headers and seeks past the data) asks for a window
 * instead: no thread, one slot of that size, filled on the caller's
 * thread only when the caller needs a byte, and a skip past the window
 * is a seek. Read-ahead there is waste: the ring read 676 MB of an 841
 * MB tar whose headers and sparse maps are a few MB. A pipe is read
 * through window by window.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "tar/idecode.h"
#include "tar/istream.h"
#include "util/fileio.h"

/* 8 MiB ahead: enough that the reader thread rarely waits on the caller
 * or the caller on it, even when the scheduler keeps one of them off a
 * busy core for a few milliseconds (with 4 MiB, tar2img -j 2 at lz4 left
 * a core idle a quarter of the time); large reads keep the system calls
 * off the profile. */
#define SLOTS 8
#define SLOT_SIZE (1u << 20)

struct slot {
	uint8_t *data;
	size_t len;              /* 0 with status 0: the input has ended */
	int status;              /* 0, or the thread's error */
	const char *compression; /* as detected when the slot was filled */
	int seekable;            /* idecode_seekable() when it was filled */
};

struct istream {
	struct sqp_errbuf *err;  /* the caller's */
	struct idecode *dec;     /* the thread's (the caller's with a window) */
	size_t window;           /* 0: the ring and its thread; else slot 0's size */
	struct sqp_errbuf thread_err;
	int whole;               /* fill whole slots: the input is a file */
	uint64_t size;           /* whole: the file's bytes from where it stood */
	int cancel[2];           /* a pipe: closing [1] stops a blocked read */

	pthread_t thread;
	int started;
	pthread_mutex_t lock;    /* protects everything down to seek_done */
	pthread_cond_t filled_cv, freed_cv;
	struct slot slots[SLOTS];
	uint64_t filled, consumed;
	int stop, drain_asked, drained, drain_status;
	uint64_t seek_to, seek_gen, seek_done; /* a seek asked when gen > done */

	/* The caller's alone. */
	struct slot *cur;        /* slots[consumed % SLOTS] while taken */
	size_t pos;
	int at_end;              /* cur is the end or an error */
	uint64_t offset;
	const char *compression;
};

/* Fill one slot: for a regular file up to its size (reads cannot block
 * for long), for a pipe what one read gives, so the caller is never kept
 * waiting for bytes that were already there. */
static void fill_slot(struct istream *s, struct slot *sl)
{
	size_t cap = s->window != 0 ? s->window : SLOT_SIZE;
	long n;

	sl->len = 0;
	sl->status = 0;
	do {
		n = idecode_fill(s->dec, sl->data + sl->len, cap - sl->len);
		if (n > 0)
			sl->len += (size_t)n;
	} while (n > 0 && s->whole && sl->len < cap);
	/* Bytes before an error are delivered first, the error next time. */
	if (n < 0 && sl->len == 0)
		sl->status = (int)n;
	sl->compression = idecode_compression(s->dec);
	sl->seekable = idecode_seekable(s->dec);
}

/* With the lock held, after the last slot (the end or an error): on the
 * caller's request, read what follows a compressed stream. */
static void finish_input(struct istream *s)
{
	while (!s->stop && !s->drain_asked)
		pthread_cond_wait(&s->freed_cv, &s->lock);
	if (!s->stop && s->slots[(s->filled - 1) % SLOTS].status == 0) {
		pthread_mutex_unlock(&s->lock);
		s->drain_status = idecode_finish(s->dec);
		pthread_mutex_lock(&s->lock);
	}
	s->drained = 1;
	pthread_cond_signal(&s->filled_cv);
}

/* Seek first if the caller asked, then fill; a failed seek is the
 * slot's error. */
static void seek_and_fill(struct istream *s, struct slot *sl, int seek,
			  uint64_t to)
{
	int ret = seek ? idecode_seek(s->dec, to) : 0;

	if (ret == 0) {
		fill_slot(s, sl);
		return;
	}
	sl->len = 0;
	sl->status = ret;
	sl->compression = idecode_compression(s->dec);
	sl->seekable = 0;
}

static void *reader_main(void *arg)
{
	struct istream *s = arg;
	struct slot *sl;
	uint64_t gen, to;
	int seek;

	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (!s->stop && s->filled - s->consumed == SLOTS)
			pthread_cond_wait(&s->freed_cv, &s->lock);
		if (s->stop)
			break;
		sl = &s->slots[s->filled % SLOTS];
		gen = s->seek_gen;
		seek = gen != s->seek_done;
		to = s->seek_to;
		s->seek_done = gen;
		pthread_mutex_unlock(&s->lock);
		seek_and_fill(s, sl, seek, to);
		pthread_mutex_lock(&s->lock);
		if (gen != s->seek_gen)
			continue; /* bytes before a seek the caller asked since */
		s->filled++;
		pthread_cond_signal(&s->filled_cv);
		if (sl->len == 0) {
			finish_input(s);
			break;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* Not regular files, read on the thread: poll() with a way out, since
 * read() may block. */
static int setup_input(struct istream *s, int fd)
{
	struct stat st;

	s->whole = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
	if (s->whole) {
		off_t at = lseek(fd, 0, SEEK_CUR);

		s->size = at >= 0 && at <= st.st_size ? (uint64_t)(st.st_size - at) : 0;
		return 0;
	}
	if (s->window != 0)
		return 0; /* read on the caller's thread, which nothing stops */
	if (pipe(s->cancel) != 0)
		return sqp_err(s->err, sqp_errno_code(errno), "creating a pipe: %s",
			       strerror(errno));
	(void)fcntl(s->cancel[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(s->cancel[1], F_SETFD, FD_CLOEXEC);
	idecode_set_cancel(s->dec, s->cancel[0]);
	return 0;
}

/* Reading fd starts: its decoder, the cancel pipe, the thread. The slots
 * are the caller's to have allocated; everything else starts afresh. */
static int start(struct istream *s, int fd, const char *name)
{
	int ret = idecode_create(fd, name, &s->thread_err, &s->dec);

	if (ret != 0)
		return sqp_err(s->err, ret, "%s", sqp_errmsg(&s->thread_err));
	if ((ret = setup_input(s, fd)) != 0 || s->window != 0)
		return ret;
	if (pthread_create(&s->thread, NULL, reader_main, s) != 0)
		return sqp_err(s->err, SQP_ERR_NOMEM, "cannot start the input reader thread");
	s->started = 1;
	return 0;
}

/* Undoes start(), whatever part of it was done; the slots stay. */
static void stop(struct istream *s)
{
	int i;

	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		pthread_cond_signal(&s->freed_cv);
		pthread_mutex_unlock(&s->lock);
		if (s->cancel[1] >= 0)
			close(s->cancel[1]); /* a blocked poll() wakes up */
		s->cancel[1] = -1;
		pthread_join(s->thread, NULL);
		s->started = 0;
	}
	for (i = 0; i < 2; ++i) {
		if (s->cancel[i] >= 0)
			close(s->cancel[i]);
		s->cancel[i] = -1;
	}
	idecode_destroy(s->dec);
	s->dec = NULL;
}

int istream_create(int fd, const char *name, size_t window, struct sqp_errbuf *err,
		   struct istream **out)
{
	struct istream *s = calloc(1, sizeof(*s));
	int i, ret;

	if (s == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	s->err = err;
	s->window = window;
	s->cancel[0] = s->cancel[1] = -1;
	s->compression = "none";
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->filled_cv, NULL);
	pthread_cond_init(&s->freed_cv, NULL);
	for (i = 0; i < (window != 0 ? 1 : SLOTS); ++i) {
		s->slots[i].data = sqp_iobuf_alloc(window != 0 ? window : SLOT_SIZE);
		if (s->slots[i].data == NULL) {
			ret = sqp_err(err, SQP_ERR_NOMEM, "out of memory");
			goto fail;
		}
	}
	if ((ret = start(s, fd, name)) != 0)
		goto fail;
	*out = s;
	return 0;
fail:
	istream_destroy(s);
	return ret;
}

int istream_reset(struct istream *s, int fd, const char *name)
{
	stop(s);
	/* The state create left, but for the slots' buffers, the sync
	 * objects and what start() sets anyway (whole, size). A seek the
	 * caller asked that the thread had not served when it stopped must
	 * not move the next input: seek_gen and seek_done start equal. */
	s->thread_err.code = 0;
	s->thread_err.msg[0] = '\0';
	s->filled = s->consumed = 0;
	s->stop = s->drain_asked = s->drained = s->drain_status = 0;
	s->seek_to = s->seek_gen = s->seek_done = 0;
	s->cur = NULL;
	s->pos = 0;
	s->at_end = 0;
	s->offset = 0;
	s->compression = "none";
	return start(s, fd, name);
}

void istream_destroy(struct istream *s)
{
	int i;

	if (s == NULL)
		return;
	stop(s);
	for (i = 0; i < SLOTS; ++i)
		free(s->slots[i].data);
	pthread_cond_destroy(&s->freed_cv);
	pthread_cond_destroy(&s->filled_cv);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* With a window: fill slot 0 here, at the target of a seek asked since
 * the last fill. */
static void fill_window(struct istream *s)
{
	int seek = s->seek_gen != s->seek_done;

	s->seek_done = s->seek_gen;
	s->cur = &s->slots[0];
	seek_and_fill(s, s->cur, seek, s->seek_to);
}

/* Hand the current slot back and take the next one from the thread. */
static int next_slot(struct istream *s)
{
	if (s->window != 0) {
		fill_window(s);
		goto taken;
	}
	pthread_mutex_lock(&s->lock);
	if (s->cur != NULL) {
		s->consumed++;
		pthread_cond_signal(&s->freed_cv);
	}
	while (s->filled == s->consumed)
		pthread_cond_wait(&s->filled_cv, &s->lock);
	s->cur = &s->slots[s->consumed % SLOTS];
	pthread_mutex_unlock(&s->lock);
taken:
	s->pos = 0;
	s->compression = s->cur->compression;
	s->at_end = s->cur->len == 0;
	if (s->cur->status != 0)
		return sqp_err(s->err, s->cur->status, "%s", sqp_errmsg(&s->thread_err));
	return 0;
}

/* Bytes available in the current slot, taking the next one if needed:
 * 0 only at the end of the input. */
static long available(struct istream *s)
{
	int ret;

	if (s->err->code != 0)
		return s->err->code;
	while (!s->at_end && (s->cur == NULL || s->pos == s->cur->len)) {
		if ((ret = next_slot(s)) != 0)
			return ret;
	}
	return s->at_end ? 0 : (long)(s->cur->len - s->pos);
}

long istream_read_some(struct istream *s, void *buf, size_t n)
{
	long avail = available(s);

	if (avail <= 0)
		return avail;
	if ((size_t)avail > n)
		avail = (long)n;
	memcpy(buf, s->cur->data + s->pos, (size_t)avail);
	s->pos += (size_t)avail;
	s->offset += (uint64_t)avail;
	return avail;
}

int istream_read(struct istream *s, void *buf, size_t n)
{
	uint8_t *p = buf;

	while (n > 0) {
		long got = istream_read_some(s, p, n);

		if (got < 0)
			return (int)got;
		if (got == 0)
			return SQP_ERR_TRUNCATED;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

/* With a window, seek_past: the target is past the window (or no window
 * was filled since the last seek). The seek itself waits for the next
 * fill, which reports it failing. */
static int seek_window(struct istream *s, uint64_t n)
{
	uint64_t target = s->offset + n;

	if (s->err->code != 0 || s->at_end || !idecode_seekable(s->dec) ||
	    (s->cur != NULL && n <= s->cur->len - s->pos) || target > s->size ||
	    target < s->offset)
		return 0;
	s->seek_to = target;
	s->seek_gen++;
	s->cur = NULL;
	s->pos = 0;
	s->offset = target;
	return 1;
}

/* 1 when the skip of n became a seek (see the top), 0 to read through:
 * the target is among the bytes read ahead, or the input cannot seek,
 * or it may end before the target. */
static int seek_past(struct istream *s, uint64_t n)
{
	uint64_t ahead, i, target = s->offset + n;

	if (s->window != 0)
		return seek_window(s, n);
	if (s->cur == NULL || s->at_end || !s->cur->seekable || target > s->size ||
	    target < s->offset)
		return 0;
	ahead = s->cur->len - s->pos;
	pthread_mutex_lock(&s->lock);
	for (i = s->consumed + 1; i < s->filled && ahead < n; ++i) {
		const struct slot *sl = &s->slots[i % SLOTS];

		if (sl->len == 0) /* the end, or an error: met in order */
			ahead = n;
		ahead += sl->len;
	}
	if (ahead >= n) {
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	s->consumed = s->filled; /* every slot back to the thread */
	s->seek_to = target;
	s->seek_gen++;
	pthread_cond_signal(&s->freed_cv);
	pthread_mutex_unlock(&s->lock);
	s->cur = NULL;
	s->pos = 0;
	s->offset = target;
	return 1;
}

int istream_skip(struct istream *s, uint64_t n)
{
	if (seek_past(s, n))
		return 0;
	while (n > 0) {
		long avail = available(s);

		if (avail < 0)
			return (int)avail;
		if (avail == 0)
			return SQP_ERR_TRUNCATED;
		if ((uint64_t)avail > n)
			avail = (long)n;
		s->pos += (size_t)avail;
		s->offset += (uint64_t)avail;
		n -= (uint64_t)avail;
	}
	return 0;
}

int istream_drain(struct istream *s)
{
	long avail;

	while ((avail = available(s)) > 0) {
		s->pos += (size_t)avail;
		s->offset += (uint64_t)avail;
	}
	if (avail < 0)
		return (int)avail;
	if (s->window != 0) {
		int ret = idecode_finish(s->dec);

		return ret != 0 ? sqp_err(s->err, ret, "%s", sqp_errmsg(&s->thread_err)) : 0;
	}
	pthread_mutex_lock(&s->lock);
	s->drain_asked = 1;
	pthread_cond_signal(&s->freed_cv);
	while (!s->drained)
		pthread_cond_wait(&s->filled_cv, &s->lock);
	pthread_mutex_unlock(&s->lock);
	if (s->drain_status != 0)
		return sqp_err(s->err, s->drain_status, "%s", sqp_errmsg(&s->thread_err));
	return 0;
}

uint64_t istream_offset(const struct istream *s)
{
	return s->offset;
}

const char *istream_compression(const struct istream *s)
{
	return s->compression;
}

int istream_file_at(const struct istream *s, int *fd, uint64_t *off)
{
	uint64_t base;

	if (s->compression == NULL || strcmp(s->compression, "none") != 0 ||
	    !idecode_origin(s->dec, fd, &base))
		return 0;
	*off = base + s->offset;
	return 1;
}
