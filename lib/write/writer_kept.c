/* SPDX-License-Identifier: MIT */
/*
 * writer_kept.c - the files a layer gave that an upper layer hides, kept
 * within reach until the layer ends, for a hard link of the same layer
 * that still names one of them.
 *
 * A package update that replaces one name of a hard-linked binary leaves
 * the other names with the old data: the lower layer holds a and its link
 * b, the upper one a new a. Layers come topmost first, so the lower a is
 * hidden when it arrives and its data would be skipped unread; the link b
 * after it then needs exactly that data. So every file skipped this way
 * is remembered (its attributes, its sparse map) with the way back to
 * its bytes: where they lie in the layer's file when the layer is a plain
 * tar file (read again with pread, nothing read now: a replaced file
 * still costs no read), else the bytes themselves, read as the stream
 * goes by anyway (a pipe, a compressed layer: skipping reads them too),
 * into the writer's spill arena (memory within the --mem budget, the
 * rest in its file). The first link that names a kept file becomes a
 * file with that data; the next links of the layer link to it. All of
 * it is dropped when the next layer begins.
 *
 * Layers that are not tar streams (directories, images) keep nothing:
 * there a link to a hidden file stays the error writer_links.c reports.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "sqpack/error.h"
#include "sqpack/tar.h"
#include "util/fileio.h"
#include "util/spill.h"
#include "write/writer_impl.h"

/* Read through a streamed file in pieces of this size. */
#define PIECE ((size_t)64 << 10)

struct kept_file {
	char *path;
	char *linked;                 /* the first link that took it, or NULL */
	struct sqp_entry e;           /* attributes; pointers into the copies */
	struct sqp_xattr *xattrs;     /* owned, keys and values too */
	struct sqp_sparse_run *runs;  /* owned; none: one run, the whole file */
	size_t run_count;
	int fd;                       /* -1: the bytes are in bytes[] */
	uint64_t at;                  /* file offset, or offset in bytes[] */
};

struct writer_kept {
	struct kept_file *rec;        /* spill arena, as the tree's records */
	size_t count, cap;
	uint32_t *heads;              /* by path: record + 1; 0 = empty */
	size_t heads_size;            /* a power of two, or 0 */
	uint8_t *bytes;               /* streamed files' data (spill arena) */
	size_t bytes_len, bytes_cap;
};

/* Reading a kept file back: a data source (entry.h). */
struct kept_reader {
	struct sqp_writer *w;
	const struct kept_file *k;
	uint64_t pos, stored;         /* logical position, stored bytes used */
	size_t run;
};

static int nomem(struct sqp_writer *w)
{
	return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
}

static void drop(struct kept_file *k)
{
	for (size_t i = 0; k->xattrs != NULL && i < k->e.xattr_count; i++) {
		free((char *)k->xattrs[i].key);
		free((uint8_t *)k->xattrs[i].value);
	}
	free(k->xattrs);
	free(k->runs);
	free(k->path);
	free(k->linked);
	memset(k, 0, sizeof(*k));
}

void writer_kept_clear(struct sqp_writer *w)
{
	struct writer_kept *kp = w->kept;

	if (kp == NULL)
		return;
	for (size_t i = 0; i < kp->count; i++)
		drop(&kp->rec[i]);
	sqp_spill_free(w->spill, kp->rec, kp->cap * sizeof(*kp->rec));
	free(kp->heads);
	sqp_spill_free(w->spill, kp->bytes, kp->bytes_cap);
	free(kp);
	w->kept = NULL;
}

static size_t slot_of(const struct writer_kept *kp, const char *path)
{
	size_t mask = kp->heads_size - 1;
	size_t i = (size_t)XXH3_64bits(path, strlen(path)) & mask;

	while (kp->heads[i] != 0 && strcmp(kp->rec[kp->heads[i] - 1].path, path) != 0)
		i = (i + 1) & mask;
	return i;
}

static int grow_heads(struct writer_kept *kp)
{
	size_t size = kp->heads_size ? kp->heads_size * 2 : 256;
	uint32_t *heads = calloc(size, sizeof(*heads));

	if (heads == NULL)
		return SQP_ERR_NOMEM;
	free(kp->heads);
	kp->heads = heads;
	kp->heads_size = size;
	for (size_t i = 0; i < kp->count; i++)
		kp->heads[slot_of(kp, kp->rec[i].path)] = (uint32_t)(i + 1);
	return 0;
}

/* The attributes of e, deep: its strings and arrays die with the entry. */
static int copy_attrs(struct kept_file *k, const struct sqp_entry *e)
{
	k->e = *e;
	k->e.path = k->e.link_target = NULL;
	k->e.xattrs = NULL;
	k->e.sparse = NULL;
	k->e.sparse_count = 0;
	if (e->xattr_count > 0) {
		k->xattrs = calloc(e->xattr_count, sizeof(*k->xattrs));
		if (k->xattrs == NULL)
			return SQP_ERR_NOMEM;
		for (size_t i = 0; i < e->xattr_count; i++) {
			struct sqp_xattr *x = &k->xattrs[i];

			x->key = strdup(e->xattrs[i].key);
			x->value = malloc(e->xattrs[i].value_len + 1);
			if (x->key == NULL || x->value == NULL)
				return SQP_ERR_NOMEM;
			memcpy((uint8_t *)x->value, e->xattrs[i].value, e->xattrs[i].value_len);
			x->value_len = e->xattrs[i].value_len;
		}
		k->e.xattrs = k->xattrs;
	}
	if (e->sparse_count > 0) {
		k->runs = malloc(e->sparse_count * sizeof(*k->runs));
		if (k->runs == NULL)
			return SQP_ERR_NOMEM;
		memcpy(k->runs, e->sparse, e->sparse_count * sizeof(*k->runs));
		k->run_count = e->sparse_count;
	}
	return 0;
}

static int add_run(struct kept_file *k, uint64_t off, uint64_t len, size_t *cap)
{
	if (k->run_count > 0 && k->runs[k->run_count - 1].offset +
	    k->runs[k->run_count - 1].length == off) {
		k->runs[k->run_count - 1].length += len;
		return 0;
	}
	if (k->run_count == *cap) {
		size_t n = *cap ? *cap * 2 : 8;
		struct sqp_sparse_run *p = realloc(k->runs, n * sizeof(*p));

		if (p == NULL)
			return SQP_ERR_NOMEM;
		k->runs = p;
		*cap = n;
	}
	k->runs[k->run_count++] = (struct sqp_sparse_run){ off, len };
	return 0;
}

/* A streamed file's data into bytes[], its holes left out (the runs
 * built here replace the entry's map, which says the same). */
static int read_through(struct sqp_writer *w, struct writer_kept *kp,
			struct kept_file *k, const struct sqp_data_source *src)
{
	uint64_t pos = 0, size = k->e.size;
	size_t cap = 0;
	int ret;

	free(k->runs);
	k->runs = NULL;
	k->run_count = 0;
	k->fd = -1;
	k->at = kp->bytes_len;
	while (pos < size) {
		uint64_t hole = src->hole != NULL ? src->hole(src->user) : 0;
		size_t n = size - pos < PIECE ? (size_t)(size - pos) : PIECE;
		uint8_t *p;

		if (hole > 0) {
			if ((ret = src->skip(src->user, hole)) != 0)
				return ret;
			pos += hole;
			continue;
		}
		p = sqp_spill_grow(w->spill, kp->bytes, &kp->bytes_cap,
				   kp->bytes_len + n, 1, PIECE);
		if (p == NULL)
			return w->err.code ? w->err.code : SQP_ERR_NOMEM;
		kp->bytes = p;
		if ((ret = src->read(src->user, p + kp->bytes_len, n)) != 0)
			return ret;
		if ((ret = add_run(k, pos, n, &cap)) != 0)
			return ret;
		kp->bytes_len += n;
		pos += n;
		sqp_spill_tick(w->spill);
	}
	/* No map means "no holes": a file of holes alone needs one, a file
	 * of data alone none (most files, each spared an array). */
	if (k->run_count == 0)
		return size > 0 ? add_run(k, size, 0, &cap) : 0;
	if (k->run_count == 1 && k->runs[0].offset == 0 && k->runs[0].length == size) {
		free(k->runs);
		k->runs = NULL;
		k->run_count = 0;
	}
	return 0;
}

/* The record for path, new or (the same path skipped again) reused. */
static struct kept_file *record(struct sqp_writer *w, const char *path)
{
	struct writer_kept *kp = w->kept;
	size_t slot;

	if (kp == NULL && (kp = w->kept = calloc(1, sizeof(*kp))) == NULL)
		return NULL;
	if ((kp->count + 1) * 2 > kp->heads_size && grow_heads(kp) != 0)
		return NULL;
	slot = slot_of(kp, path);
	if (kp->heads[slot] != 0) {
		drop(&kp->rec[kp->heads[slot] - 1]);
	} else {
		struct kept_file *p = sqp_spill_grow(w->spill, kp->rec, &kp->cap,
						     kp->count + 1, sizeof(*p), 64);

		if (p == NULL)
			return NULL;
		kp->rec = p;
		memset(&kp->rec[kp->count], 0, sizeof(kp->rec[0]));
		kp->heads[slot] = (uint32_t)++kp->count;
	}
	kp->rec[kp->heads[slot] - 1].path = strdup(path);
	return kp->rec[kp->heads[slot] - 1].path ? &kp->rec[kp->heads[slot] - 1] : NULL;
}

int writer_kept_add(struct sqp_writer *w, const struct sqp_entry *e,
		    const struct sqp_data_source *src)
{
	struct kept_file *k;
	int ret;

	if (w->layer_tar == NULL || src == NULL)
		return 0;
	k = record(w, e->path);
	if (k == NULL)
		return nomem(w);
	if (copy_attrs(k, e) != 0)
		return nomem(w);
	if (sqp_tar_data_at(w->layer_tar, &k->fd, &k->at))
		return 0;
	ret = read_through(w, w->kept, k, src);
	return ret == 0 || w->err.code ? ret : writer_fail(w, ret, "'%s', hidden by an upper "
							  "layer: %s", e->path, sqp_strerror(ret));
}

const char *writer_kept_linked(const struct kept_file *k)
{
	return k->linked;
}

struct kept_file *writer_kept_find(struct sqp_writer *w, const char *path)
{
	struct writer_kept *kp = w->kept;
	uint32_t i;

	if (kp == NULL || kp->count == 0)
		return NULL;
	i = kp->heads[slot_of(kp, path)];
	return i != 0 ? &kp->rec[i - 1] : NULL;
}

/* The run at or after the reader's position: 1 and its start and
 * length, or 0 when only a hole is left. */
static int next_run(struct kept_reader *r, uint64_t *start, uint64_t *len)
{
	const struct kept_file *k = r->k;

	if (k->run_count == 0) {
		*start = 0;
		*len = k->e.size;
		return r->pos < k->e.size;
	}
	while (r->run < k->run_count &&
	       k->runs[r->run].offset + k->runs[r->run].length <= r->pos)
		r->run++;
	if (r->run == k->run_count)
		return 0;
	*start = k->runs[r->run].offset;
	*len = k->runs[r->run].length;
	return 1;
}

static int kept_read(void *user, void *buf, size_t n)
{
	struct kept_reader *r = user;
	const struct kept_file *k = r->k;
	uint8_t *p = buf;

	while (n > 0) {
		uint64_t start, len, chunk;
		int data = next_run(r, &start, &len) && start <= r->pos, ret;

		if (!data)
			chunk = (next_run(r, &start, &len) ? start : k->e.size) - r->pos;
		else
			chunk = start + len - r->pos;
		if (chunk > n)
			chunk = n;
		if (!data)
			memset(p, 0, (size_t)chunk);
		else if (k->fd < 0)
			memcpy(p, r->w->kept->bytes + k->at + r->stored, (size_t)chunk);
		else if ((ret = sqp_pread_full(k->fd, k->at + r->stored, p, (size_t)chunk)) != 0)
			return ret;
		if (data)
			r->stored += chunk;
		p += chunk;
		n -= (size_t)chunk;
		r->pos += chunk;
	}
	return 0;
}

static uint64_t kept_hole(void *user)
{
	struct kept_reader *r = user;
	uint64_t start, len;

	if (!next_run(r, &start, &len))
		return r->k->e.size - r->pos;
	return start > r->pos ? start - r->pos : 0;
}

static int kept_skip(void *user, uint64_t n)
{
	struct kept_reader *r = user;

	if (n > kept_hole(user))
		return SQP_ERR_SEQUENCE;
	r->pos += n;
	return 0;
}

int writer_kept_store(struct sqp_writer *w, struct kept_file *k, const char *path)
{
	struct kept_reader r = { w, k, 0, 0, 0 };
	struct sqp_data_source src = { kept_read, kept_hole, kept_skip, &r };
	struct sqp_entry copy = k->e;
	int ret;

	if (k->linked != NULL)
		return 0;
	copy.path = path;
	copy.sparse = k->runs;
	copy.sparse_count = k->run_count;
	ret = writer_add_entry(w, &copy, &src);
	if (ret != 0)
		return ret;
	k->linked = strdup(path);
	return k->linked != NULL ? 0 : nomem(w);
}

int writer_kept_link(struct sqp_writer *w, const struct sqp_entry *e,
		     struct kept_file *k)
{
	struct sqp_entry copy;

	if (k->linked == NULL)
		return writer_kept_store(w, k, e->path);
	copy = *e;
	copy.link_target = k->linked;
	return writer_link(w, &copy);
}
