/* SPDX-License-Identifier: MIT */
/*
 * istream.c - buffered, optionally decompressing input for the tar reader.
 *
 * Two buffers: raw bytes from the descriptor, and decoded bytes the
 * reader consumes. For plain input the decoded buffer is filled straight
 * from the descriptor. Compression is detected at the first fill from the
 * magic bytes, so the caller never needs to say what the input is.
 *
 * Invariant: out_pos <= out_len <= OUT_SIZE and raw_pos <= raw_len; bytes
 * in out[out_pos, out_len) are decoded and not yet consumed.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "tar/istream.h"
#include "tar/tcodec.h"

#define RAW_SIZE (256u << 10)
#define OUT_SIZE (1u << 20)

struct istream {
	int fd;
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
	uint8_t *out;
	size_t out_pos, out_len;
	uint64_t offset;
};

int istream_create(int fd, const char *name, struct sqp_errbuf *err,
		   struct istream **out)
{
	struct istream *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	s->fd = fd;
	s->name = name != NULL ? name : "input";
	s->err = err;
	s->compression = "none";
	s->raw = malloc(RAW_SIZE);
	s->out = malloc(OUT_SIZE);
	if (s->raw == NULL || s->out == NULL) {
		istream_destroy(s);
		return sqp_err(err, SQP_ERR_NOMEM, "out of memory");
	}
	*out = s;
	return 0;
}

void istream_destroy(struct istream *s)
{
	if (s == NULL)
		return;
	if (s->dec != NULL && s->dec_state != NULL)
		s->dec->dec_destroy(s->dec_state);
	free(s->raw);
	free(s->out);
	free(s);
}

/* Append what the descriptor has to dst (at most cap); 0 at end. */
static long fd_read(struct istream *s, uint8_t *dst, size_t cap)
{
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

static int fill_raw(struct istream *s)
{
	long n;

	if (s->raw_pos > 0 && s->raw_pos < s->raw_len)
		memmove(s->raw, s->raw + s->raw_pos, s->raw_len - s->raw_pos);
	s->raw_len -= s->raw_pos;
	s->raw_pos = 0;
	n = fd_read(s, s->raw + s->raw_len, RAW_SIZE - s->raw_len);
	if (n < 0)
		return (int)n;
	if (n == 0)
		s->raw_eof = 1;
	s->raw_len += (size_t)n;
	return 0;
}

/* At least n raw bytes ahead, unless the input ends first. */
static int want_raw(struct istream *s, size_t n)
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
static int skip_frames(struct istream *s, int *skipped)
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

static int detect(struct istream *s)
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
static int next_member(struct istream *s)
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

/* Refill out; on return out_len > out_pos, or the input has ended. */
static int fill_out(struct istream *s)
{
	int ret;

	if (!s->detected && (ret = detect(s)) != 0)
		return ret;
	s->out_pos = s->out_len = 0;
	if (s->dec == NULL) {
		size_t have = s->raw_len - s->raw_pos;
		long n;

		/* Bytes read for detection are passed on first. */
		if (have > 0) {
			memcpy(s->out, s->raw + s->raw_pos, have);
			s->raw_pos = s->raw_len = 0;
			s->out_len = have;
			return 0;
		}
		n = fd_read(s, s->out, OUT_SIZE);
		if (n < 0)
			return (int)n;
		s->out_len = (size_t)n;
		return 0;
	}
	while (s->out_len == 0 && !s->stream_end) {
		const uint8_t *in = s->raw + s->raw_pos;
		size_t in_len = s->raw_len - s->raw_pos, consumed;
		uint8_t *out = s->out;
		size_t out_len = OUT_SIZE;
		int member_end = 0;

		ret = s->dec->dec_run(s->dec_state, &in, &in_len, &out, &out_len,
				  &member_end);
		if (ret != 0)
			return sqp_err(s->err, ret, "%s: corrupt %s data",
				       s->name, s->compression);
		consumed = (size_t)(in - s->raw) - s->raw_pos;
		s->raw_pos += consumed;
		s->out_len = OUT_SIZE - out_len;
		if (member_end) {
			if ((ret = next_member(s)) != 0)
				return ret;
			continue;
		}
		if (s->out_len > 0 || consumed > 0)
			continue;
		/* The decoder wants more input than there is. */
		if (s->raw_eof && s->raw_pos == s->raw_len &&
		    s->dec->dec_clean_end != NULL &&
		    s->dec->dec_clean_end(s->dec_state)) {
			s->stream_end = 1;
			break;
		}
		if (s->raw_eof)
			return sqp_err(s->err, SQP_ERR_TRUNCATED,
				       "%s: the %s stream is truncated",
				       s->name, s->compression);
		if (s->raw_pos == 0 && s->raw_len == RAW_SIZE)
			return sqp_err(s->err, SQP_ERR_BAD_DATA,
				       "%s: %s decoder made no progress",
				       s->name, s->compression);
		if ((ret = fill_raw(s)) != 0)
			return ret;
	}
	return 0;
}

long istream_read_some(struct istream *s, void *buf, size_t n)
{
	size_t avail;
	int ret;

	if (s->err->code != 0)
		return s->err->code;
	if (s->out_pos == s->out_len) {
		if ((ret = fill_out(s)) != 0)
			return ret;
	}
	avail = s->out_len - s->out_pos;
	if (avail > n)
		avail = n;
	memcpy(buf, s->out + s->out_pos, avail);
	s->out_pos += avail;
	s->offset += avail;
	return (long)avail;
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

int istream_skip(struct istream *s, uint64_t n)
{
	int ret;

	while (n > 0) {
		size_t avail;

		if (s->err->code != 0)
			return s->err->code;
		if (s->out_pos == s->out_len) {
			if ((ret = fill_out(s)) != 0)
				return ret;
			if (s->out_len == 0)
				return SQP_ERR_TRUNCATED;
		}
		avail = s->out_len - s->out_pos;
		if (avail > n)
			avail = (size_t)n;
		s->out_pos += avail;
		s->offset += avail;
		n -= avail;
	}
	return 0;
}

int istream_drain(struct istream *s)
{
	int ret;

	do {
		s->offset += s->out_len - s->out_pos;
		s->out_pos = s->out_len;
		if ((ret = fill_out(s)) != 0)
			return ret;
	} while (s->out_len > 0);
	/* Whatever follows the end of a compressed stream is not ours to
	 * judge; read it so the producer can finish. */
	while (s->dec != NULL && !s->raw_eof) {
		s->raw_pos = s->raw_len = 0;
		if ((ret = fill_raw(s)) != 0)
			return ret;
	}
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
