/* SPDX-License-Identifier: MIT */
/*
 * spill.c - the spill arena (see spill.h).
 *
 * File space is handed out in regions, each one mapping of the file: a
 * large allocation gets a region of its own (freed by unmapping it), small
 * ones are cut from the current slab by bumping a pointer. Freed slab
 * space is never reused; its pages are punched out of the file, so it
 * costs neither memory nor disk. The file only grows (new regions go at
 * its end), so no two regions overlap.
 *
 * Invariant: heap_used <= heap_cap whenever a budget is set; every live
 * file allocation lies inside one region of regions[].
 */
#include "config.h" /* _GNU_SOURCE: O_TMPFILE, fallocate */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "util/spill.h"

/* Small allocations are cut from slabs of an eighth of the budget, within
 * these bounds; a quarter of a slab or more gets a region of its own. */
#define SLAB_MIN ((size_t)1 << 20)
#define SLAB_MAX ((size_t)64 << 20)
/* Ticks between two looks at how much of the file is mapped in: adapts
 * between these, shrinking when the file pages mapped in grow fast (a
 * read fault maps the pages around it too, so a pass over scattered
 * records can map in megabytes within a few ticks). */
#define CHECK_EVERY_MAX 256
#define CHECK_EVERY_MIN 4
/* Resizing copies in pieces of this size, checking between them. */
#define COPY_PIECE ((size_t)4 << 20)

struct spill_region {
	uint8_t *addr;
	size_t len;
	uint64_t off;           /* in the file */
};

struct sqp_spill {
	uint64_t heap_cap;      /* heap bytes allowed: 3/8 of the budget */
	uint64_t heap_used;
	uint64_t resident_cap;  /* mapped-in file bytes allowed: 3/8 too */
	char *dir;
	int fd;                 /* -1 until the first file allocation */
	uint64_t file_end;
	struct spill_region *regions;
	size_t region_count, region_cap;
	size_t slab_size;
	size_t slab;            /* index of the current slab; SIZE_MAX = none */
	size_t slab_used;
	int statm_fd;           /* /proc/self/statm, -1 if unreadable */
	uint64_t resident_base; /* file pages mapped in before we mapped any */
	uint64_t last_pages;    /* file pages mapped in at the last check */
	unsigned ticks;
	unsigned check_every;
	size_t page;
	struct sqp_errbuf *err;
	struct sqp_spill_stats stats;
};

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

int sqp_spill_create(const struct sqp_spill_desc *desc, struct sqp_spill **out)
{
	struct sqp_spill *s;

	*out = NULL;
	if (desc->budget == 0)
		return 0;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->dir = strdup(desc->dir != NULL ? desc->dir : P_tmpdir);
	if (s->dir == NULL) {
		free(s);
		return SQP_ERR_NOMEM;
	}
	/* The last quarter is headroom: pages mapped in between two
	 * checks, and the heap's own slack. */
	s->heap_cap = desc->budget / 8 * 3;
	s->resident_cap = s->heap_cap;
	s->fd = -1;
	s->statm_fd = -1;
	s->slab = SIZE_MAX;
	s->check_every = CHECK_EVERY_MAX;
	s->slab_size = desc->budget / 8 < SLAB_MIN ? SLAB_MIN :
		       desc->budget / 8 > SLAB_MAX ? SLAB_MAX : (size_t)(desc->budget / 8);
	s->page = (size_t)sysconf(_SC_PAGESIZE);
	s->err = desc->err;
	*out = s;
	return 0;
}

void sqp_spill_destroy(struct sqp_spill *s)
{
	size_t i;

	if (s == NULL)
		return;
	for (i = 0; i < s->region_count; ++i)
		munmap(s->regions[i].addr, s->regions[i].len);
	free(s->regions);
	if (s->fd >= 0)
		close(s->fd);
	if (s->statm_fd >= 0)
		close(s->statm_fd);
	free(s->dir);
	free(s);
}

/* File pages of this process mapped in (RssFile + RssShmem), or 0. */
static uint64_t file_pages_in(const struct sqp_spill *s)
{
	char buf[128];
	unsigned long long size, resident, shared;
	ssize_t n;

	if (s->statm_fd < 0)
		return 0;
	n = pread(s->statm_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu %llu", &size, &resident, &shared) != 3)
		return 0;
	return shared;
}

static void sweep(struct sqp_spill *s)
{
	size_t i;

	for (i = 0; i < s->region_count; ++i)
		madvise(s->regions[i].addr, s->regions[i].len, MADV_DONTNEED);
}

/* Sweep when the file pages mapped in exceed their share. Without
 * /proc, sweep on every check: slower, never over budget. */
static void check_resident(struct sqp_spill *s)
{
	uint64_t pages, grown;

	s->ticks = 0;
	if (s->region_count == 0)
		return;
	pages = file_pages_in(s);
	grown = pages > s->last_pages ? (pages - s->last_pages) * s->page : 0;
	if (grown > s->resident_cap / 32)
		s->check_every = CHECK_EVERY_MIN;
	else if (s->check_every < CHECK_EVERY_MAX)
		s->check_every *= 2;
	s->last_pages = pages;
	if (s->statm_fd < 0 ||
	    (pages > s->resident_base &&
	     (pages - s->resident_base) * s->page > s->resident_cap)) {
		sweep(s);
		s->last_pages = s->resident_base;
	}
}

void sqp_spill_check(struct sqp_spill *s)
{
	if (s != NULL)
		check_resident(s);
}

void sqp_spill_tick(struct sqp_spill *s)
{
	if (s != NULL && ++s->ticks >= s->check_every)
		check_resident(s);
}

static void *fail(struct sqp_spill *s, int errnum, const char *what)
{
	sqp_err(s->err, sqp_errno_code(errnum), "spill file in '%s': %s: %s",
		s->dir, what, strerror(errnum));
	return NULL;
}

/* A new unlinked temporary file in dir: its descriptor, or -1 with
 * errno set. */
static int tmpfile_in(const char *dir)
{
	char *name;
	int fd, e;

	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* No O_TMPFILE on this file system: a named file, unlinked as
	 * soon as it exists. */
	if (asprintf(&name, "%s/.sqpack-spill-XXXXXX", dir) < 0) {
		errno = ENOMEM;
		return -1;
	}
	fd = mkostemp(name, O_CLOEXEC);
	e = errno;
	if (fd >= 0)
		unlink(name);
	free(name);
	errno = e;
	return fd;
}

static int open_file(struct sqp_spill *s)
{
	int fd = tmpfile_in(s->dir);

	if (fd < 0)
		return errno;
	s->fd = fd;
	s->statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
	s->resident_base = s->last_pages = file_pages_in(s);
	return 0;
}

int sqp_spill_tmpfile(const struct sqp_spill *s, struct sqp_errbuf *err)
{
	const char *dir = s != NULL ? s->dir : P_tmpdir;
	int fd = tmpfile_in(dir);

	if (fd < 0)
		return sqp_err(err, sqp_errno_code(errno), "temporary file in '%s': "
			       "creating it: %s", dir, strerror(errno));
	return fd;
}

/* A new region of len bytes (a multiple of the page size) at the end of
 * the file, its space reserved. */
static struct spill_region *new_region(struct sqp_spill *s, size_t len)
{
	struct spill_region *r;
	void *addr;
	int ret;

	if (s->fd < 0 && (ret = open_file(s)) != 0)
		return fail(s, ret, "creating it");
	r = sqp_array_grow(s->regions, &s->region_cap, s->region_count + 1,
			   sizeof(*r), 16);
	if (r == NULL)
		return fail(s, ENOMEM, "region list");
	s->regions = r;
	ret = posix_fallocate(s->fd, (off_t)s->file_end, (off_t)len);
	if (ret != 0)
		return fail(s, ret, "reserving space");
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, s->fd,
		    (off_t)s->file_end);
	if (addr == MAP_FAILED)
		return fail(s, errno, "mapping it");
	/* Small page-cache folios: with large ones (ext4 on recent
	 * kernels), every write fault and every sweep walks the buffers of
	 * a whole folio, which costs more than the page it is about. */
	madvise(addr, len, MADV_RANDOM);
	madvise(addr, len, MADV_NOHUGEPAGE);
	r = &s->regions[s->region_count++];
	r->addr = addr;
	r->len = len;
	r->off = s->file_end;
	s->file_end += len;
	return r;
}

static void *file_alloc(struct sqp_spill *s, size_t size)
{
	struct spill_region *r;
	void *p;

	s->stats.file_bytes += size;
	if (size >= s->slab_size / 4) {
		r = new_region(s, round_up(size, s->page));
		return r != NULL ? r->addr : NULL;
	}
	size = round_up(size, 64);
	if (s->slab == SIZE_MAX || s->slab_used + size > s->regions[s->slab].len) {
		if (new_region(s, s->slab_size) == NULL)
			return NULL;
		s->slab = s->region_count - 1;
		s->slab_used = 0;
	}
	p = s->regions[s->slab].addr + s->slab_used;
	s->slab_used += size;
	return p;
}

/* The region holding p, or NULL when p is heap memory. */
static struct spill_region *region_of(const struct sqp_spill *s, const void *p)
{
	size_t i;

	for (i = 0; i < s->region_count; ++i) {
		const struct spill_region *r = &s->regions[i];

		if ((const uint8_t *)p >= r->addr && (const uint8_t *)p < r->addr + r->len)
			return (struct spill_region *)r;
	}
	return NULL;
}

static void file_free(struct sqp_spill *s, struct spill_region *r, void *p, size_t size)
{
	uint64_t first = r->off + round_up((size_t)((uint8_t *)p - r->addr), s->page);
	uint64_t end = r->off + ((size_t)((uint8_t *)p - r->addr) + size) / s->page * s->page;
	size_t i = (size_t)(r - s->regions);

	/* Failing to punch only costs disk space. */
	if (end > first)
		fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  (off_t)first, (off_t)(end - first));
	if (i == s->slab || p != r->addr || round_up(size, s->page) != r->len)
		return;
	munmap(r->addr, r->len);
	memmove(r, r + 1, (s->region_count - i - 1) * sizeof(*r));
	s->region_count--;
	if (s->slab != SIZE_MAX && s->slab > i)
		s->slab--;
}

/* What allocations other than hash tables may take from the heap: they
 * leave three quarters of its share to the hash tables (spill.h). */
static uint64_t cold_cap(const struct sqp_spill *s)
{
	return s->heap_cap / 4;
}

/* size zeroed bytes, from the heap if heap_used stays within limit. */
static void *alloc_within(struct sqp_spill *s, size_t size, uint64_t limit)
{
	void *p;

	if (s == NULL)
		return calloc(1, size);
	if (s->heap_used + size <= limit) {
		p = calloc(1, size);
		if (p != NULL)
			s->heap_used += size;
		return p;
	}
	return file_alloc(s, size); /* new file space reads as zeros */
}

void *sqp_spill_alloc(struct sqp_spill *s, size_t size)
{
	return alloc_within(s, size, s != NULL ? cold_cap(s) : 0);
}

void *sqp_spill_alloc_hot(struct sqp_spill *s, size_t size)
{
	return alloc_within(s, size, s != NULL ? s->heap_cap : 0);
}

void sqp_spill_free(struct sqp_spill *s, void *p, size_t size)
{
	struct spill_region *r;

	if (p == NULL)
		return;
	if (s == NULL) {
		free(p);
		return;
	}
	r = region_of(s, p);
	if (r != NULL) {
		file_free(s, r, p, size);
	} else {
		free(p);
		s->heap_used -= size;
	}
}

/* Copy in pieces, dropping what was copied when the file share is full,
 * so moving a table bigger than the budget stays within it. */
static void copy_out(struct sqp_spill *s, uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t done = 0, n;

	while (done < len) {
		n = len - done < COPY_PIECE ? len - done : COPY_PIECE;
		memcpy(dst + done, src + done, n);
		done += n;
		check_resident(s);
	}
}

void *sqp_spill_resize(struct sqp_spill *s, void *p, size_t old, size_t size)
{
	struct spill_region *r;
	void *np;

	if (s == NULL)
		return realloc(p, size);
	if (p == NULL)
		return sqp_spill_alloc(s, size);
	r = region_of(s, p);
	if (r == NULL && (size <= old || s->heap_used - old + size <= cold_cap(s))) {
		np = realloc(p, size);
		if (np != NULL)
			s->heap_used = s->heap_used - old + size;
		return np;
	}
	np = file_alloc(s, size);
	if (np == NULL)
		return NULL;
	copy_out(s, np, p, old < size ? old : size);
	sqp_spill_free(s, p, old);
	return np;
}

void *sqp_spill_grow(struct sqp_spill *s, void *old, size_t *cap, size_t need,
		     size_t elem, size_t first)
{
	size_t n;
	void *p;

	if (need <= *cap)
		return old;
	n = sqp_array_next_cap(*cap, need, elem, first);
	if (n == 0)
		return NULL;
	p = sqp_spill_resize(s, old, *cap * elem, n * elem);
	if (p != NULL)
		*cap = n;
	return p;
}

void sqp_spill_get_stats(const struct sqp_spill *s, struct sqp_spill_stats *st)
{
	if (s == NULL)
		memset(st, 0, sizeof(*st));
	else
		*st = s->stats;
}
