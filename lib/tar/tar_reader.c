/* SPDX-License-Identifier: MIT */
/*
 * tar_reader.c - the header loop of the streaming tar reader and its
 * public API (include/sqpack/tar.h).
 *
 * Each call to sqp_tar_next() skips what is left of the previous entry,
 * then reads headers until one describes a file system object: pax and
 * GNU long-name headers only accumulate state for the entry that follows
 * them. The entry is then assembled with the precedence tar extractors
 * use (pax over GNU long names over the header) and its paths normalised.
 *
 * Invariant between calls: the stream is positioned inside the current
 * entry's data; stored_left + padding bytes remain before the next header,
 * unless that header was read ahead and is held (then both are 0).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "tar/tar_impl.h"
#include "util/abi.h"
#include "util/endian.h"

/* Bigger pax headers or GNU long names are not metadata but an attack. */
#define PAX_MAX (64u << 20)
#define LONGNAME_MAX (1u << 20)
/* SQP_TAR_READ_INDEX: the bytes of one read. A header with a small
 * member's data after it, and more headers (as mkfs.erofs 1.9 reads);
 * a larger window reads more data that is skipped, a smaller one makes
 * a read of more headers. */
#define INDEX_WINDOW (32u << 10)

SQP_API int sqp_tar_reader_create(const struct sqp_tar_reader_desc *desc,
				  struct sqp_tar_reader **out)
{
	struct sqp_tar_reader_desc d;
	struct sqp_tar_reader *r;
	int ret;

	if (out == NULL)
		return SQP_ERR_ARG;
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (r == NULL)
		return SQP_ERR_NOMEM;
	/* From here on a failure hands back r, whose error() says why. */
	*out = r;
	ret = sqp_abi_in(&r->err, "sqp_tar_reader_desc", &d, sizeof(d),
			 SQP_SIZE_TO(struct sqp_tar_reader_desc, warn_user), desc);
	if (ret != 0)
		return ret;
	desc = &d; /* the caller's struct only up to its size */
	if (desc->fd < 0)
		return sqp_err(&r->err, SQP_ERR_ARG, "no input file");
	r->name = desc->name != NULL ? desc->name : "input";
	r->warn = desc->warn;
	r->warn_user = desc->warn_user;
	r->headers_only = (desc->flags & SQP_TAR_READ_HEADERS_ONLY) != 0;
	return istream_create(desc->fd, r->name, (desc->flags & SQP_TAR_READ_INDEX) ?
			      INDEX_WINDOW : 0, &r->err, &r->in);
}

SQP_API void sqp_tar_reader_destroy(struct sqp_tar_reader *r)
{
	if (r == NULL)
		return;
	istream_destroy(r->in);
	tbuf_free(&r->path);
	tbuf_free(&r->link);
	tbuf_free(&r->gnu_longname);
	tbuf_free(&r->gnu_longlink);
	tbuf_free(&r->pax_buf);
	free(r->xattrs);
	free(r->runs);
	free(r);
}

SQP_API const char *sqp_tar_reader_compression(const struct sqp_tar_reader *r)
{
	return r != NULL ? istream_compression(r->in) : "none";
}

SQP_API const char *sqp_tar_reader_error(const struct sqp_tar_reader *r)
{
	return r != NULL ? sqp_errmsg(&r->err) : "";
}

SQP_API struct sqp_data_source sqp_tar_data(struct sqp_tar_reader *r)
{
	struct sqp_data_source src = { tar_data_read, NULL, NULL, r };

	if (r->sparse) {
		src.hole = tar_data_hole;
		src.skip = tar_data_skip;
	}
	return src;
}

SQP_API int sqp_tar_data_at(struct sqp_tar_reader *r, int *fd, uint64_t *offset)
{
	if (r == NULL || fd == NULL || offset == NULL || r->err.code != 0 ||
	    r->logical_pos != 0 || !S_ISREG(r->entry.mode) || r->entry.is_hardlink)
		return 0;
	return istream_file_at(r->in, fd, offset);
}

SQP_API int sqp_tar_data_offset(struct sqp_tar_reader *r, uint64_t *offset)
{
	if (r == NULL || offset == NULL || r->err.code != 0 || r->logical_pos != 0 ||
	    !S_ISREG(r->entry.mode) || r->entry.is_hardlink ||
	    strcmp(istream_compression(r->in), "none") != 0)
		return 0;
	*offset = istream_offset(r->in);
	return 1;
}

static uint64_t padding_of(uint64_t size)
{
	return (TAR_BLOCK - size % TAR_BLOCK) % TAR_BLOCK;
}

/* Read an extension header's data (pax, long name) into b, NUL-ended. */
static int read_ext(struct sqp_tar_reader *r, struct tbuf *b, uint64_t size,
		    uint64_t max, const char *what)
{
	int ret;

	if (size > max)
		return tar_err(r, SQP_ERR_BAD_TAR, "%s of %llu bytes is "
			       "absurdly large", what, (unsigned long long)size);
	if (tbuf_reserve(b, (size_t)size + 1) != 0)
		return tar_err(r, SQP_ERR_NOMEM, "out of memory");
	ret = istream_read(r->in, b->data, (size_t)size);
	if (ret == 0)
		ret = istream_skip(r->in, padding_of(size));
	if (ret != 0)
		return tar_err(r, ret, "truncated %s", what);
	b->data[size] = '\0';
	b->len = (size_t)size;
	return 0;
}

/* Read one header block: 1 when read, 0 at a clean end of input. */
static int read_block(struct sqp_tar_reader *r, uint8_t *h)
{
	size_t got = 0;

	if (r->have_held) {
		memcpy(h, r->held, TAR_BLOCK);
		r->have_held = 0;
		return 1;
	}
	while (got < TAR_BLOCK) {
		long n = istream_read_some(r->in, h + got, TAR_BLOCK - got);

		if (n < 0)
			return (int)n;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	if (got == 0)
		return 0;
	if (got < TAR_BLOCK)
		return tar_err(r, SQP_ERR_TRUNCATED, "%s: truncated tar header "
			       "at offset %llu", r->name, (unsigned long long)
			       (istream_offset(r->in) - got));
	return 1;
}

static void reset_entry(struct sqp_tar_reader *r)
{
	memset(&r->pax, 0, sizeof(r->pax));
	r->gnu_longname.len = 0;
	r->gnu_longlink.len = 0;
	r->pax_buf.len = 0;
	r->xattr_count = 0;
	r->run_count = r->run_idx = 0;
	r->sparse = 0;
	r->stored_left = r->padding = 0;
	r->logical_pos = r->logical_size = 0;
}

/* Header state (pax, GNU long names) waiting for its entry. */
static int pending_headers(const struct sqp_tar_reader *r)
{
	return r->pax.have != 0 || r->pax_buf.len != 0 ||
	       r->gnu_longname.len != 0 || r->gnu_longlink.len != 0;
}

/*
 * The input ended where a header would start. After at least one entry
 * and with no extension header pending, that is an archive whose writer
 * left out the end-of-archive blocks (many do): warn and end cleanly.
 * With no byte at all it is an empty archive, as bsdtar, tar2sqfs,
 * sqfstar and mkfs.erofs --tar read it (GNU tar refuses): warned, for
 * the pipe whose writer failed. Anywhere else it is a cut archive.
 */
static int end_without_marker(struct sqp_tar_reader *r)
{
	if (istream_offset(r->in) == 0) {
		tar_warn(r, "%s: the input is empty: an archive of nothing",
			 r->name);
		r->done = 1;
		return 0;
	}
	if (!r->seen_entry || pending_headers(r))
		return tar_err(r, SQP_ERR_TRUNCATED, "%s: the input ends "
			       "without an end-of-archive marker (truncated "
			       "archive?)", r->name);
	tar_warn(r, "%s: no end-of-archive marker; the input ends after a "
		 "complete entry", r->name);
	r->done = 1;
	return 0;
}

/*
 * A zero block was read into h. Two of them (or one and the end of input)
 * end the archive. A lone one followed by a valid header is skipped and
 * the entries after it are read (some Java writers emit one; GNU tar and
 * bsdtar 3.6 stop there, dropping them - with a warning, so do we only
 * when what follows is not a header). Returns 0 at the end, 1 when h
 * holds the next header, or an error.
 */
static int zero_block(struct sqp_tar_reader *r, uint8_t *h)
{
	unsigned long long off = istream_offset(r->in) - TAR_BLOCK;
	int ret = read_block(r, h);

	if (ret < 0)
		return ret;
	if (ret == 1 && !tar_block_is_zero(h)) {
		if (tar_checksum_ok(h)) {
			tar_warn(r, "%s: a lone zero block at offset %llu, "
				 "skipped", r->name, off);
			return 1;
		}
		tar_warn(r, "%s: a lone zero block at offset %llu ends the "
			 "archive (no tar header follows it)", r->name, off);
	}
	ret = istream_drain(r->in);
	if (ret != 0)
		return ret;
	r->done = 1;
	return 0;
}

/*
 * The input's first block is zero. GNU tar reads an archive of nothing
 * but an end-of-archive marker there; anything else is not a tar that
 * holds nothing: an EROFS image starts with 1 KiB of zeros, and taking
 * it for an empty layer dropped the layer without a word. So: a second
 * zero block, then the end of input or only zeros (a writer's record
 * padding), or an error. A header right after the zero block is the
 * lone zero block of zero_block(), skipped. Returns 0 at the end, 1
 * when h holds the next header, or an error.
 */
/* EROFS's superblock magic (little-endian, 1 KiB into the image): the
 * tar reader knows it only to say what it was given instead of a tar. */
#define EROFS_SB_MAGIC 0xE0F5E1E2u

static int leading_zeros(struct sqp_tar_reader *r, uint8_t *h)
{
	uint8_t buf[4096];
	uint64_t off;
	long n;
	int ret = read_block(r, h);

	if (ret < 0)
		return ret;
	if (ret == 1 && !tar_block_is_zero(h) && tar_checksum_ok(h)) {
		tar_warn(r, "%s: a lone zero block at offset 0, skipped", r->name);
		return 1;
	}
	if (ret == 1 && tar_block_is_zero(h)) {
		for (;;) {
			off = istream_offset(r->in);
			if ((n = istream_read_some(r->in, buf, sizeof(buf))) <= 0)
				break;
			for (long i = 0; i < n; i++) {
				if (buf[i] == 0)
					continue;
				off += (uint64_t)i;
				/* EROFS's superblock magic, 1 KiB in */
				if (off == 1024 && n - i >= 4 && sqp_get32(buf + i) == EROFS_SB_MAGIC)
					return tar_err(r, SQP_ERR_BAD_TAR, "%s: an EROFS "
						       "image, not a tar archive", r->name);
				return tar_err(r, SQP_ERR_BAD_TAR, "%s: not a tar archive: "
					       "zero blocks, then data at offset %llu",
					       r->name, (unsigned long long)off);
			}
		}
		if (n < 0)
			return (int)n;
		r->done = 1;
		return 0;
	}
	return tar_err(r, SQP_ERR_BAD_TAR, "%s: not a tar archive: it starts "
		       "with a zero block but no end-of-archive marker", r->name);
}

/*
 * A directory entry (not a GNU dumpdir, whose data is its listing) claims
 * a size. bsdtar ignores a directory's size and reads the next header
 * right after it, which is where old writers that put a size there left
 * it. So when the next block is a header (not zero, a good checksum), the
 * size is taken as 0, with a warning, and the block is held as the next
 * header. Otherwise it is the entry's data, skipped with the rest of it
 * as the size says. Returns 1 (the entry stands) or an error.
 */
static int directory_size(struct sqp_tar_reader *r, char type)
{
	int ret;

	if (!S_ISDIR(r->entry.mode) || r->stored_left == 0 || type == 'D')
		return 1;
	ret = read_block(r, r->held);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return tar_err(r, SQP_ERR_TRUNCATED, "tar entry '%s': truncated "
			       "data", r->entry.path);
	if (!tar_block_is_zero(r->held) && tar_checksum_ok(r->held)) {
		tar_warn(r, "tar entry '%s': a directory with a size of %llu "
			 "but no data: size taken as 0", r->entry.path,
			 (unsigned long long)r->stored_left);
		r->stored_left = r->padding = 0;
		r->have_held = 1;
		return 1;
	}
	if (r->stored_left >= TAR_BLOCK) {
		r->stored_left -= TAR_BLOCK;
	} else {
		r->padding -= TAR_BLOCK - r->stored_left;
		r->stored_left = 0;
	}
	return 1;
}

/* A header that only carries data for the next one. 1 = handled. */
static int extension_header(struct sqp_tar_reader *r, char type,
			    uint64_t size)
{
	int ret;

	switch (type) {
	case 'x':
		if (r->pax.have != 0 || r->pax_buf.len != 0)
			return tar_err(r, SQP_ERR_BAD_TAR, "%s: two pax headers "
				       "for one entry at offset %llu", r->name,
				       (unsigned long long)istream_offset(r->in));
		ret = read_ext(r, &r->pax_buf, size, PAX_MAX, "pax header");
		if (ret == 0)
			ret = tar_pax_parse(r, r->pax_buf.data, (size_t)size,
					    &r->pax, 0);
		r->pax_buf.len = 1; /* seen, even when empty */
		return ret != 0 ? ret : 1;
	case 'g':
		ret = read_ext(r, &r->link, size, PAX_MAX, "global pax header");
		if (ret == 0)
			ret = tar_pax_parse(r, r->link.data, (size_t)size,
					    &r->global, 1);
		return ret != 0 ? ret : 1;
	case 'L':
	case 'K':
		ret = read_ext(r, type == 'L' ? &r->gnu_longname :
				   &r->gnu_longlink, size, LONGNAME_MAX,
			       type == 'L' ? "GNU long name" : "GNU long link");
		return ret != 0 ? ret : 1;
	case 'V': /* volume label: nothing to store */
		ret = istream_skip(r->in, size + padding_of(size));
		return ret ? tar_err(r, ret, "truncated volume label") : 1;
	case 'M':
		return tar_err(r, SQP_ERR_UNSUPPORTED, "%s: multi-volume "
			       "archives are not supported", r->name);
	default:
		return 0;
	}
}

/* A reader is a few hundred bytes of state and 8 MiB of read-ahead whose
 * pages, once faulted in, cost nothing to use again; a new reader per
 * layer faulted in 2,048 pages afresh, a visible share of the system
 * time when the codec is fast (tar2img -c lz4). Only the parser state of
 * the archive before goes; its buffers keep their memory. */
SQP_API int sqp_tar_reader_reset(struct sqp_tar_reader *r, int fd, const char *name)
{
	if (r == NULL)
		return SQP_ERR_ARG;
	if (r->err.code != 0)
		return r->err.code;
	if (fd < 0)
		return sqp_err(&r->err, SQP_ERR_ARG, "no input file");
	reset_entry(r);
	memset(&r->global, 0, sizeof(r->global));
	memset(&r->entry, 0, sizeof(r->entry));
	r->path.len = r->link.len = 0;
	r->name = name != NULL ? name : "input";
	r->acl_warned = r->done = r->seen_entry = r->have_held = 0;
	return istream_reset(r->in, fd, r->name);
}

SQP_API int sqp_tar_next(struct sqp_tar_reader *r,
			 const struct sqp_entry **out)
{
	uint8_t h[TAR_BLOCK];
	uint64_t size;
	int ret;

	if (r == NULL || out == NULL)
		return SQP_ERR_ARG;
	if (r->err.code != 0)
		return r->err.code;
	if (r->done)
		return 0;
	ret = istream_skip(r->in, r->stored_left + r->padding);
	if (ret != 0)
		return tar_err(r, ret, "tar entry '%s': truncated data",
			       r->entry.path ? r->entry.path : "");
	reset_entry(r);
	for (;;) {
		ret = read_block(r, h);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return end_without_marker(r);
		if (tar_block_is_zero(h)) {
			ret = istream_offset(r->in) == TAR_BLOCK ?
			      leading_zeros(r, h) : zero_block(r, h);
			if (ret != 1)
				return ret;
		} else if (istream_offset(r->in) == TAR_BLOCK &&
			   memcmp(h, "hsqs", 4) == 0 && !tar_checksum_ok(h)) {
			/* not a header (a first name "hsqs..." is one) */
			return tar_err(r, SQP_ERR_BAD_TAR, "%s: a SquashFS image, "
				       "not a tar archive", r->name);
		}
		if (!tar_checksum_ok(h))
			return tar_err(r, SQP_ERR_BAD_TAR, "%s: bad header "
				       "checksum at offset %llu (corrupt, or not "
				       "a tar archive)", r->name,
				       (unsigned long long)
				       (istream_offset(r->in) - TAR_BLOCK));
		if (tar_field_u64(h + TH_SIZE, 12, &size) != 0)
			return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%.100s': "
				       "bad size field", (const char *)h);
		ret = extension_header(r, (char)h[TH_TYPE], size);
		if (ret < 0)
			return ret;
		if (ret == 1)
			continue;
		if (r->pax.have & PAX_SIZE)
			size = r->pax.size;
		r->stored_left = size;
		r->padding = padding_of(size);
		ret = tar_build_entry(r, h);
		/* The size is the header's; no data follows it. */
		if (r->headers_only)
			r->stored_left = r->padding = 0;
		if (ret == 1)
			ret = directory_size(r, (char)h[TH_TYPE]);
		if (ret < 0)
			return ret;
		if (ret == 1) {
			r->seen_entry = 1;
			*out = &r->entry;
			return 1;
		}
		/* An entry of a type we skip: drop it and its headers. */
		ret = istream_skip(r->in, r->stored_left + r->padding);
		if (ret != 0)
			return tar_err(r, ret, "truncated data of a skipped "
				       "entry");
		reset_entry(r);
	}
}
