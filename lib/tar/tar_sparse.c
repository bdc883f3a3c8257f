/* SPDX-License-Identifier: MIT */
/*
 * tar_sparse.c - GNU sparse files: the four ways the data map is stored
 * (old GNU or star header slots and extension blocks, pax 0.0 record
 * pairs, pax 0.1 map string, pax 1.0 map at the start of the data) and
 * the data source that gives the file's logical contents, with holes
 * reported so they are never read.
 *
 * The archive holds the data runs back to back. Invariant once checked:
 * runs are in order, do not overlap, end within the file's real size,
 * and their lengths add up to the stored data, so reading the file front
 * to back reads the archive front to back.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "tar/tar_impl.h"
#include "util/array.h"

/* More runs than this is not a sparse map but an attack on memory. */
#define SPARSE_MAX_RUNS (1u << 20)

int tar_sparse_add(struct sqp_tar_reader *r, uint64_t offset, uint64_t len)
{
	if (r->run_count == r->run_cap) {
		struct sqp_sparse_run *p;

		if (r->run_count >= SPARSE_MAX_RUNS)
			return tar_err(r, SQP_ERR_BAD_TAR, "sparse map has more "
				       "than %u runs", SPARSE_MAX_RUNS);
		p = sqp_array_grow(r->runs, &r->run_cap, r->run_count + 1,
				   sizeof(*p), 16);
		if (p == NULL)
			return tar_err(r, SQP_ERR_NOMEM, "out of memory");
		r->runs = p;
	}
	r->runs[r->run_count++] = (struct sqp_sparse_run){ offset, len };
	r->sparse = 1;
	return 0;
}

/* Old GNU: four slots in the header, 21 more per extension block. */
static int old_gnu_slots(struct sqp_tar_reader *r, const uint8_t *p, int n)
{
	for (int i = 0; i < n; i++, p += 24) {
		uint64_t off, len;

		if (p[0] == '\0')
			return 0;
		if (tar_field_u64(p, 12, &off) != 0 ||
		    tar_field_u64(p + 12, 12, &len) != 0)
			return tar_err(r, SQP_ERR_BAD_TAR, "old GNU sparse "
				       "header: bad number in the map");
		if (tar_sparse_add(r, off, len) != 0)
			return r->err.code;
	}
	return 0;
}

/*
 * star's current format (every xstar, xustar and exustar archive since
 * star 1.5) keeps no slots in the header and always writes at least one
 * extension block, whatever the header's flag says; its old format kept
 * four slots in the header, the first offset written in full. star tells
 * them apart this way, and so do we.
 */
static int star_map_in_header(const uint8_t *hdr)
{
	return hdr[TH_PREFIX] == '\0' && hdr[TH_STAR_SPARSE + 10] != '\0';
}

/* One extension block of 21 slots. star counts these blocks in the
 * entry's size, GNU tar does not. */
static int extension_block(struct sqp_tar_reader *r, uint8_t *ext, int star)
{
	int ret;

	if (star) {
		if (r->stored_left < TAR_BLOCK)
			return tar_err(r, SQP_ERR_BAD_TAR, "star sparse header: "
				       "extension blocks run past the entry's "
				       "size");
		r->stored_left -= TAR_BLOCK;
	}
	ret = istream_read(r->in, ext, TAR_BLOCK);
	if (ret != 0)
		return tar_err(r, ret, "%s sparse header: truncated extension "
			       "block", star ? "star" : "old GNU");
	return old_gnu_slots(r, ext, 21);
}

int tar_sparse_old_gnu(struct sqp_tar_reader *r, const uint8_t *hdr, int star)
{
	uint8_t ext[TAR_BLOCK];
	int more = 1, ret;

	r->sparse = 1;
	if (!star || star_map_in_header(hdr)) {
		ret = old_gnu_slots(r, hdr + (star ? TH_STAR_SPARSE :
					     TH_GNU_SPARSE), 4);
		if (ret != 0)
			return ret;
		more = hdr[star ? TH_STAR_ISEXT : TH_GNU_ISEXT] != 0;
	}
	while (more) {
		if ((ret = extension_block(r, ext, star)) != 0)
			return ret;
		more = ext[504] != 0;
	}
	return 0;
}

/* 0.1: "offset,length,offset,length,..." */
int tar_sparse_map_01(struct sqp_tar_reader *r, const char *map)
{
	uint64_t v[2];
	int k = 0;

	while (*map != '\0') {
		size_t n = strcspn(map, ",");

		if (tar_decimal_u64(map, n, &v[k]) != 0)
			return tar_err(r, SQP_ERR_BAD_TAR,
				       "pax header: bad GNU.sparse.map");
		if (k == 1 && tar_sparse_add(r, v[0], v[1]) != 0)
			return r->err.code;
		k ^= 1;
		map += n + (map[n] == ',');
	}
	r->sparse = 1;
	return k == 0 ? 0 : tar_err(r, SQP_ERR_BAD_TAR, "pax header: "
				    "GNU.sparse.map has an odd count");
}

/* One decimal line of a 1.0 map, read from the archive data. */
static int map_line(struct sqp_tar_reader *r, uint64_t *out, uint64_t *used)
{
	char line[24];
	size_t n = 0;

	for (;;) {
		int ret;

		if (r->stored_left == 0)
			return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': "
				       "sparse map runs past the entry's data",
				       r->entry.path);
		if ((ret = istream_read(r->in, line + n, 1)) != 0)
			return tar_err(r, ret, "tar entry '%s': truncated "
				       "sparse map", r->entry.path);
		r->stored_left--;
		(*used)++;
		if (line[n] == '\n')
			break;
		if (++n == sizeof(line))
			return tar_err(r, SQP_ERR_BAD_TAR, "sparse map: number "
				       "too long");
	}
	if (tar_decimal_u64(line, n, out) != 0)
		return tar_err(r, SQP_ERR_BAD_TAR, "sparse map: not a number");
	return 0;
}

/* 1.0: the map precedes the data, as decimal lines, padded to a block. */
int tar_sparse_map_10(struct sqp_tar_reader *r)
{
	uint64_t count, off, len, used = 0;
	int ret;

	r->sparse = 1;
	if ((ret = map_line(r, &count, &used)) != 0)
		return ret;
	if (count > SPARSE_MAX_RUNS)
		return tar_err(r, SQP_ERR_BAD_TAR, "sparse map claims %llu "
			       "runs", (unsigned long long)count);
	for (uint64_t i = 0; i < count; i++) {
		if ((ret = map_line(r, &off, &used)) != 0 ||
		    (ret = map_line(r, &len, &used)) != 0)
			return ret;
		if ((ret = tar_sparse_add(r, off, len)) != 0)
			return ret;
	}
	used = (TAR_BLOCK - used % TAR_BLOCK) % TAR_BLOCK;
	if (used > r->stored_left)
		return tar_err(r, SQP_ERR_BAD_TAR, "sparse map runs past the "
			       "entry's data");
	if ((ret = istream_skip(r->in, used)) != 0)
		return tar_err(r, ret, "tar entry '%s': truncated "
				       "sparse map", r->entry.path);
	r->stored_left -= used;
	return 0;
}

int tar_sparse_check(struct sqp_tar_reader *r, uint64_t real_size)
{
	uint64_t end = 0, total = 0;

	for (size_t i = 0; i < r->run_count; i++) {
		const struct sqp_sparse_run *s = &r->runs[i];

		if (s->offset < end || s->length > real_size ||
		    s->offset > real_size - s->length)
			return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': sparse "
				       "map run %zu (%llu+%llu) is out of order "
				       "or beyond the file's size %llu",
				       r->entry.path, i,
				       (unsigned long long)s->offset,
				       (unsigned long long)s->length,
				       (unsigned long long)real_size);
		end = s->offset + s->length;
		total += s->length;
	}
	if (total != r->stored_left)
		return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': sparse map "
			       "describes %llu bytes of data but the archive "
			       "holds %llu", r->entry.path, (unsigned long long)total,
			       (unsigned long long)r->stored_left);
	return 0;
}

/* Advance run_idx past runs that end at or before the position. */
static const struct sqp_sparse_run *current_run(struct sqp_tar_reader *r)
{
	while (r->run_idx < r->run_count &&
	       r->runs[r->run_idx].offset + r->runs[r->run_idx].length <=
		       r->logical_pos)
		r->run_idx++;
	return r->run_idx < r->run_count ? &r->runs[r->run_idx] : NULL;
}

static int read_stored(struct sqp_tar_reader *r, uint8_t *buf, size_t n)
{
	int ret;

	if (n > r->stored_left)
		return tar_err(r, SQP_ERR_BAD_TAR, "tar entry '%s': data runs "
			       "past the entry", r->entry.path);
	ret = istream_read(r->in, buf, n);
	if (ret != 0)
		return tar_err(r, ret, "tar entry '%s': truncated data "
			       "(%llu bytes missing)", r->entry.path,
			       (unsigned long long)r->stored_left);
	r->stored_left -= n;
	return 0;
}

int tar_data_read(void *user, void *buf, size_t n)
{
	struct sqp_tar_reader *r = user;
	uint8_t *p = buf;
	int ret;

	if (r->err.code != 0)
		return r->err.code;
	if (n > r->logical_size - r->logical_pos)
		return tar_err(r, SQP_ERR_SEQUENCE, "'%s': read past the end "
			       "of the file", r->entry.path);
	if (!r->sparse) {
		ret = read_stored(r, p, n);
		r->logical_pos += n;
		return ret;
	}
	while (n > 0) {
		const struct sqp_sparse_run *s = current_run(r);
		uint64_t chunk;

		if (s == NULL || s->offset > r->logical_pos) {
			/* In a hole: up to the next run, or the end. */
			chunk = (s ? s->offset : r->logical_size) - r->logical_pos;
			if (chunk > n)
				chunk = n;
			memset(p, 0, (size_t)chunk);
		} else {
			chunk = s->offset + s->length - r->logical_pos;
			if (chunk > n)
				chunk = n;
			if ((ret = read_stored(r, p, (size_t)chunk)) != 0)
				return ret;
		}
		p += chunk;
		n -= (size_t)chunk;
		r->logical_pos += chunk;
	}
	return 0;
}

uint64_t tar_data_hole(void *user)
{
	struct sqp_tar_reader *r = user;
	const struct sqp_sparse_run *s;

	if (!r->sparse || r->err.code != 0)
		return 0;
	s = current_run(r);
	if (s == NULL)
		return r->logical_size - r->logical_pos;
	return s->offset > r->logical_pos ? s->offset - r->logical_pos : 0;
}

int tar_data_skip(void *user, uint64_t n)
{
	struct sqp_tar_reader *r = user;

	if (n > tar_data_hole(user))
		return tar_err(r, SQP_ERR_SEQUENCE, "'%s': skipped data that is "
			       "not a hole", r->entry.path);
	r->logical_pos += n;
	return 0;
}
