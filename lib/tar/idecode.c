/* SPDX-License-Identifier: MIT */
/*
 * idecode.c - the decoding side of tar input: read()s the descriptor and,
 * for compressed input, decompresses it, producing decoded bytes into
 * whatever buffer the caller gives. It runs on istream.c's reader thread,
 * so neither the kernel's copy out of the page cache nor the input
 * decompression costs the thread that parses the tar.
 *
 * Compression is detected at the first fill from the magic bytes, so the
 * caller never needs to say what the input is. Plain input is read
 * straight into the caller's buffer (no copy of ours); compressed input
 * is decoded into it from a raw buffer. Plain input in a regular file
 * can also be repositioned (idecode_seek), so that data the caller will
 * drop is never read; compressed input has no offsets to seek to, and a
 * pipe none at all, so both are always read through.
 *
 * Invariant: raw_pos <= raw_len <= RAW_SIZE; raw[raw_pos, raw_len) is
 * input read and not yet decoded (or, before detection, not yet passed on).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "tar/idecode.h"
#include "tar/tcodec.h"

#define RAW_SIZE (256u << 10)
/* The first read, before the input is known: enough for any magic and
 * a skippable frame's header, and no more of input that a caller which
 * seeks (istream.c's window) may never want. */
#define DETECT_SIZE 4096u

struct idecode {
	int fd;
	off_t base;      /* the descriptor's offset at create, or -1: not a file */
	int cancel_fd;   /* -1, or readable once the reads must stop */
	const char *name;
	struct sqp_errbuf *err;
	const struct tar_codec *dec; /* NULL: plain input */
	void *dec_state;
	const char *compression;
	int detected;
	int raw_eof;     /* the descriptor reported end of file */
	int stream_end;  /* the decoder saw the end of the compressed data */
	uint8_t *raw;
	size_t raw_pos, raw_len;
};

int idecode_create(int fd, const char *name, struct sqp_errbuf *err,
		   struct idecode **out)
{
	struct idecode *s = calloc(1, sizeof(*s));
	struct stat st;

	if (s == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	s->fd = fd;
	/* Offsets in a regular file are stable; stdin redirected from one
	 * may start anywhere in it, so seeks are relative to here. */
	s->base = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ?
		  lseek(fd, 0, SEEK_CUR) : -1;
	s->cancel_fd = -1;
	s->name = name != NULL ? name : "input";
	s->err = err;
	s->compression = "none";
	s->raw = malloc(RAW_SIZE);
	if (s->raw == NULL) {
		idecode_destroy(s);
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	}
	*out = s;
	return 0;
}

void idecode_destroy(struct idecode *s)
{
	if (s == NULL)
		return;
	if (s->dec != NULL && s->dec_state != NULL)
		s->dec->dec_destroy(s->dec_state);
	free(s->raw);
	free(s);
}

void idecode_set_cancel(struct idecode *s, int cancel_fd)
{
	s->cancel_fd = cancel_fd;
}

/* Wait until the descriptor has something to read, unless cancel_fd
 * says to give up first (a pipe may stay silent for ever). */
static int wait_readable(struct idecode *s)
{
	struct pollfd pfd[2] = {
		{ .fd = s->fd, .events = POLLIN },
		{ .fd = s->cancel_fd, .events = POLLIN },
	};

	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return sqp_err(s->err, sqp_errno_code(errno), "waiting for %s: %s",
				       s->name, strerror(errno));
		}
		if (pfd[1].revents != 0)
			return sqp_err(s->err, SQP_ERR_CANCELED, "reading %s: stopped",
				       s->name);
		if (pfd[0].revents != 0)
			return 0;
	}
}

/* Append what the descriptor has to dst (at most cap); 0 at end. */
static long fd_read(struct idecode *s, uint8_t *dst, size_t cap)
{
	int ret;

	if (s->cancel_fd >= 0 && (ret = wait_readable(s)) != 0)
		return ret;
	for (;;) {
		ssize_t n = read(s->fd, dst, cap);

		if (n >= 0)
			return (long)n;
		if (errno != EINTR)
			return sqp_err(s->err, sqp_errno_code(errno),
				       "reading %s: %s", s->name,
				       strerror(errno));
	}
}

static int fill_raw(struct idecode *s)
{
	long n;

	if (s->raw_pos > 0 && s->raw_pos < s->raw_len)
		memmove(s->raw, s->raw + s->raw_pos, s->raw_len - s->raw_pos);
	s->raw_len -= s->raw_pos;
	s->raw_pos = 0;
	n = fd_read(s, s->raw + s->raw_len, (s->detected ? RAW_SIZE : DETECT_SIZE) - s->raw_len);
	if (n < 0)
		return (int)n;
	if (n == 0)
		s->raw_eof = 1;
	s->raw_len += (size_t)n;
	return 0;
}

/* At least n raw bytes ahead, unless the input ends first. */
static int want_raw(struct idecode *s, size_t n)
{
	int ret;

	while (s->raw_len - s->raw_pos < n && !s->raw_eof)
		if ((ret = fill_raw(s)) != 0)
			return ret;
	return 0;
}

/*
 * Drop zstd/lz4 skippable frames (magic 0x184D2A5?, a 32-bit length,
 * that many bytes of anything): pzstd writes one before every frame, the
 * seekable format one at the end. *skipped counts them.
 */
static int skip_frames(struct idecode *s, int *skipped)
{
	int ret;

	*skipped = 0;
	for (;;) {
		const uint8_t *p;
		uint64_t len;

		if ((ret = want_raw(s, 8)) != 0)
			return ret;
		p = s->raw + s->raw_pos;
		if (s->raw_len - s->raw_pos < 8 || (p[0] & 0xf0) != 0x50 ||
		    p[1] != 0x2a || p[2] != 0x4d || p[3] != 0x18)
			return 0;
		len = 8 + ((uint64_t)p[4] | (uint64_t)p[5] << 8 |
			   (uint64_t)p[6] << 16 | (uint64_t)p[7] << 24);
		while (len > 0) {
			size_t n = s->raw_len - s->raw_pos;

			if (n == 0 && s->raw_eof)
				return sqp_err(s->err, SQP_ERR_TRUNCATED, "%s: "
					       "truncated skippable frame", s->name);
			n = n < len ? n : (size_t)len;
			s->raw_pos += n;
			len -= n;
			if (len > 0 && (ret = fill_raw(s)) != 0)
				return ret;
		}
		(*skipped)++;
	}
}

static int detect(struct idecode *s)
{
	const struct tar_codec *c;
	int skipped, ret;

	/* Enough bytes for the longest magic, unless the input is shorter. */
	if ((ret = skip_frames(s, &skipped)) != 0 || (ret = want_raw(s, 8)) != 0)
		return ret;
	s->detected = 1;
	c = tar_codec_detect(s->raw + s->raw_pos, s->raw_len - s->raw_pos);
	if (skipped && c == NULL)
		return sqp_err(s->err, SQP_ERR_BAD_DATA, "%s: a skippable frame "
			       "is followed by neither zstd nor lz4 data",
			       s->name);
	if (c == NULL)
		return 0;
	if (c->dec_create == NULL)
		return sqp_err(s->err, SQP_ERR_UNSUPPORTED,
			       "%s: input is %s-compressed, but this build "
			       "cannot decompress %s", s->name, c->name, c->name);
	ret = c->dec_create(&s->dec_state);
	if (ret != 0)
		return sqp_err(s->err, ret, "%s: setting up the %s decoder",
			       s->name, c->name);
	s->dec = c;
	s->compression = c->name;
	return 0;
}

/*
 * A compressed member ended. Concatenated members (gzip -c a >> b, pzstd,
 * pbzip2, pixz output) are one stream: if the next bytes, past skippable
 * frames, carry the same magic, restart the decoder; anything else ends
 * the compressed data.
 */
static int next_member(struct idecode *s)
{
	int skipped, ret;

	if ((ret = skip_frames(s, &skipped)) != 0 || (ret = want_raw(s, 8)) != 0)
		return ret;
	if (tar_codec_detect(s->raw + s->raw_pos, s->raw_len - s->raw_pos) !=
	    s->dec) {
		s->stream_end = 1;
		return 0;
	}
	s->dec->dec_destroy(s->dec_state);
	s->dec_state = NULL;
	ret = s->dec->dec_create(&s->dec_state);
	if (ret != 0)
		return sqp_err(s->err, ret, "%s: setting up the %s decoder",
			       s->name, s->compression);
	return 0;
}

/* Plain input: bytes read for detection first, then the descriptor's,
 * straight into dst. */
static long fill_plain(struct idecode *s, uint8_t *dst, size_t cap)
{
	size_t have = s->raw_len - s->raw_pos;

	if (have == 0)
		return fd_read(s, dst, cap);
	if (have > cap)
		have = cap;
	memcpy(dst, s->raw + s->raw_pos, have);
	s->raw_pos += have;
	return (long)have;
}

/* The decoder made no output and consumed nothing: it needs more input.
 * 1 when the stream has ended cleanly here, 0 when more was read. */
static int decoder_starved(struct idecode *s)
{
	if (s->raw_eof && s->raw_pos == s->raw_len &&
	    s->dec->dec_clean_end != NULL && s->dec->dec_clean_end(s->dec_state)) {
		s->stream_end = 1;
		return 1;
	}
	if (s->raw_eof)
		return sqp_err(s->err, SQP_ERR_TRUNCATED, "%s: the %s stream is "
			       "truncated", s->name, s->compression);
	if (s->raw_pos == 0 && s->raw_len == RAW_SIZE)
		return sqp_err(s->err, SQP_ERR_BAD_DATA, "%s: %s decoder made no "
			       "progress", s->name, s->compression);
	return fill_raw(s);
}

static long fill_decoded(struct idecode *s, uint8_t *dst, size_t cap)
{
	size_t made = 0;
	int ret;

	while (made == 0 && !s->stream_end) {
		const uint8_t *in = s->raw + s->raw_pos;
		size_t in_len = s->raw_len - s->raw_pos, consumed, out_len = cap;
		uint8_t *out = dst;
		int member_end = 0;

		ret = s->dec->dec_run(s->dec_state, &in, &in_len, &out, &out_len,
				      &member_end);
		if (ret != 0)
			return sqp_err(s->err, ret, "%s: corrupt %s data",
				       s->name, s->compression);
		consumed = (size_t)(in - s->raw) - s->raw_pos;
		s->raw_pos += consumed;
		made = cap - out_len;
		if (member_end) {
			if ((ret = next_member(s)) != 0)
				return ret;
			continue;
		}
		if (made > 0 || consumed > 0)
			continue;
		ret = decoder_starved(s);
		if (ret < 0)
			return ret;
	}
	return (long)made;
}

long idecode_fill(struct idecode *s, uint8_t *dst, size_t cap)
{
	int ret;

	if (s->err->code != 0)
		return s->err->code;
	if (!s->detected && (ret = detect(s)) != 0)
		return ret;
	return s->dec == NULL ? fill_plain(s, dst, cap) : fill_decoded(s, dst, cap);
}

int idecode_finish(struct idecode *s)
{
	int ret;

	/* Whatever follows the end of a compressed stream is not ours to
	 * judge; read it so the producer can finish. */
	while (s->dec != NULL && !s->raw_eof) {
		s->raw_pos = s->raw_len = 0;
		if ((ret = fill_raw(s)) != 0)
			return ret;
	}
	return 0;
}

int idecode_seekable(const struct idecode *s)
{
	return s->detected && s->dec == NULL && s->base >= 0;
}

int idecode_seek(struct idecode *s, uint64_t offset)
{
	if (s->err->code != 0)
		return s->err->code;
	if (!idecode_seekable(s) || offset > (uint64_t)(INT64_MAX - s->base))
		return sqp_err(s->err, SQP_ERR_INTERNAL, "%s: a seek to %llu on "
			       "input that cannot seek there", s->name,
			       (unsigned long long)offset);
	if (lseek(s->fd, s->base + (off_t)offset, SEEK_SET) < 0)
		return sqp_err(s->err, sqp_errno_code(errno), "seeking in %s: %s",
			       s->name, strerror(errno));
	/* Bytes read for detection lie before any offset a seek goes to. */
	s->raw_pos = s->raw_len = 0;
	return 0;
}

const char *idecode_compression(const struct idecode *s)
{
	return s->compression;
}

int idecode_origin(const struct idecode *s, int *fd, uint64_t *base)
{
	if (s->base < 0)
		return 0;
	*fd = s->fd;
	*base = (uint64_t)s->base;
	return 1;
}
