/* SPDX-License-Identifier: MIT */
/*
 * tool_shard.c - see tool_shard.h. A tar is read twice: the plan needs
 * every path before the first entry can be kept or left out, and each
 * process of a sharded build must find its part alone. The first pass
 * reads headers only: the reader seeks past the data of a plain tar in
 * a file (a compressed one is decoded, not stored). A pipe cannot be
 * read again and is refused.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "tool_msg.h"
#include "tool_shard.h"

struct tool_keep {
	char **paths;          /* sorted by strcmp; owned */
	size_t n;
};

/* A shard count, 1 to SQP_SHARD_MAX: 0, or the count's end in *end. */
static unsigned shard_number(const char *s, char **end)
{
	unsigned long v;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoul(s, end, 10);
	return errno != 0 || v > SQP_SHARD_MAX ? 0 : (unsigned)v;
}

int tool_shard_set(struct tool_options *opt, int plan, const char *arg)
{
	unsigned i = 0, n;
	char *end = NULL;

	if (plan) {
		n = shard_number(arg, &end);
	} else {
		i = shard_number(arg, &end);
		n = i != 0 && *end == '/' ? shard_number(end + 1, &end) : 0;
	}
	if (n == 0 || *end != '\0' || i > n)
		return -1;
	opt->shard_index = plan ? 0 : i - 1;
	opt->shard_count = n;
	opt->shard_plan = plan;
	return 0;
}

int tool_shard_print(const struct sqp_shard_span *spans, unsigned n)
{
	printf("%-12s %12s %16s  %s\n", "SHARD", "ENTRIES", "BYTES", "FIRST");
	for (unsigned i = 0; i < n; i++) {
		char id[32];

		snprintf(id, sizeof(id), "%u/%u", i + 1, n);
		printf("%-12s %12llu %16llu  %s%s\n", id, (unsigned long long)spans[i].entries,
		       (unsigned long long)spans[i].bytes, spans[i].path ? "/" : "-",
		       spans[i].path ? spans[i].path : "");
	}
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	fprintf(stderr, "%s: standard output: %s\n", tool_progname(), strerror(errno));
	return 1;
}

/* The first pass: every entry's path, link target, size and type. */
struct headers {
	struct sqp_shard_item *items;
	size_t n, cap;
};

static void headers_free(struct headers *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free((char *)h->items[i].path);
		free((char *)h->items[i].link);
	}
	free(h->items);
}

static int headers_add(struct headers *h, const struct sqp_entry *e)
{
	struct sqp_shard_item *it;

	if (h->n == h->cap) {
		size_t cap = h->cap ? 2 * h->cap : 1024;

		it = realloc(h->items, cap * sizeof(*it));
		if (it == NULL)
			return -1;
		h->items = it;
		h->cap = cap;
	}
	it = &h->items[h->n];
	it->path = strdup(e->path);
	it->link = e->is_hardlink && e->link_target ? strdup(e->link_target) : NULL;
	it->size = S_ISREG(e->mode) && !e->is_hardlink ? e->size : 0;
	it->is_dir = S_ISDIR(e->mode) && !e->is_hardlink;
	if (it->path == NULL || (e->is_hardlink && e->link_target && it->link == NULL)) {
		free((char *)it->path);
		free((char *)it->link);
		return -1;
	}
	h->n++;
	return 0;
}

static int read_headers(int fd, const char *name, struct headers *h)
{
	struct sqp_tar_reader_desc d = { .struct_size = sizeof(d), .fd = fd, .name = name,
					 .warn = tool_warn };
	struct sqp_tar_reader *tr = NULL;
	const struct sqp_entry *e;
	int ret = sqp_tar_reader_create(&d, &tr);

	while (ret == 0 && (ret = sqp_tar_next(tr, &e)) == 1)
		ret = headers_add(h, e) == 0 ? 0 : SQP_ERR_NOMEM;
	if (ret < 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), name,
			tr && ret != SQP_ERR_NOMEM ? sqp_tar_reader_error(tr) : sqp_strerror(ret));
	sqp_tar_reader_destroy(tr);
	return ret < 0 ? 1 : 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The kept paths, moved out of h into a sorted list. */
static int make_keep(struct headers *h, const unsigned char *keep, struct tool_keep **out)
{
	struct tool_keep *k = calloc(1, sizeof(*k));
	size_t i;

	if (k == NULL || (k->paths = malloc((h->n + 1) * sizeof(char *))) == NULL) {
		free(k);
		fprintf(stderr, "%s: out of memory\n", tool_progname());
		return 1;
	}
	for (i = 0; i < h->n; i++) {
		if (!keep[i])
			continue;
		k->paths[k->n++] = (char *)h->items[i].path;
		h->items[i].path = NULL;
	}
	qsort(k->paths, k->n, sizeof(char *), cmp_str);
	*out = k;
	return 0;
}

int tool_shard_tar(const struct tool_options *opt, int fd, const char *name,
		   struct tool_keep **out)
{
	struct headers h = { NULL, 0, 0 };
	struct sqp_shard_span *spans = NULL;
	unsigned char *keep = NULL;
	int ret;

	*out = NULL;
	if (lseek(fd, 0, SEEK_SET) != 0) {
		fprintf(stderr, "%s: %s: --shard reads the tar twice (its headers first), "
			"which needs a file, not a pipe: %s\n", tool_progname(), name,
			strerror(errno));
		return 1;
	}
	ret = read_headers(fd, name, &h);
	if (ret == 0 && lseek(fd, 0, SEEK_SET) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), name, strerror(errno));
		ret = 1;
	}
	if (ret == 0) {
		spans = malloc(opt->shard_count * sizeof(*spans));
		keep = malloc(h.n + 1);
		if (spans == NULL || keep == NULL ||
		    sqp_shard_select(h.items, h.n, opt->shard_index, opt->shard_count, keep,
				     spans) != 0) {
			fprintf(stderr, "%s: out of memory\n", tool_progname());
			ret = 1;
		}
	}
	if (ret == 0 && opt->shard_plan)
		ret = tool_shard_print(spans, opt->shard_count);
	else if (ret == 0)
		ret = make_keep(&h, keep, out);
	headers_free(&h);
	free(spans);
	free(keep);
	return ret;
}

int tool_keep_path(void *user, const char *path)
{
	const struct tool_keep *k = user;

	return bsearch(&path, k->paths, k->n, sizeof(char *), cmp_str) != NULL;
}

void tool_keep_free(struct tool_keep *k)
{
	if (k == NULL)
		return;
	for (size_t i = 0; i < k->n; i++)
		free(k->paths[i]);
	free(k->paths);
	free(k);
}
