/* SPDX-License-Identifier: MIT */
/*
 * shard_plan.c - img2img --shards --plan FILE: the shards given are the
 * N of the plan that `--shard-plan N` printed, in order.
 *
 * Why from a plan and not from the shards: a shard does not know it is
 * one of N. SquashFS has no place that every reader ignores (each byte
 * of its superblock has a meaning; what follows bytes_used is padding
 * or --verity's tree), and EROFS only reserved fields a later kernel may
 * give a meaning, so nothing is recorded in the images. The plan comes
 * from the input alone (no data read), so a scheduler makes it before
 * the shards: given it, a shard left out, one too many, or one given
 * out of place is refused, not merged silently into a smaller tree.
 *
 * What is checked per shard: its plan row's first path (FIRST) is in
 * it. That path is where the shard's units start; another shard holds
 * it only as a directory on the way, and then it is a directory in
 * both, so a shard given out of order is caught by the overlap check of
 * the merge (SQP_ADD_IMAGE_DISJOINT) or here.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "../common/tool_msg.h"
#include "shard_plan.h"

/* The plan's rows: row k's FIRST (without its "/"; NULL for "-"). */
struct plan {
	char **first;
	unsigned n, count;     /* rows read; N of "I/N" */
};

static void plan_free(struct plan *p)
{
	for (unsigned i = 0; i < p->n; i++)
		free(p->first[i]);
	free(p->first);
}

/* One row, "I/N ENTRIES BYTES FIRST", the next of p. */
static int plan_row(struct plan *p, char *line)
{
	unsigned i, count;
	unsigned long long entries, bytes;
	size_t len = strlen(line);
	char **v, *first;
	int off = -1;

	if (len > 0 && line[len - 1] == '\n')
		line[--len] = '\0';
	if (sscanf(line, "%u/%u %llu %llu %n", &i, &count, &entries, &bytes, &off) != 4 ||
	    off < 0 || i != p->n + 1 || count == 0 || (p->n > 0 && count != p->count) ||
	    i > count)
		return -1;
	first = line + off;
	if (strcmp(first, "-") != 0 && first[0] != '/')
		return -1;
	if ((v = realloc(p->first, (p->n + 1) * sizeof(*v))) == NULL)
		return SQP_ERR_NOMEM;
	p->first = v;
	v[p->n] = NULL;
	if (first[0] == '/' && (v[p->n] = strdup(first + 1)) == NULL)
		return SQP_ERR_NOMEM;
	p->n++;
	p->count = count;
	return 0;
}

static int plan_read(const char *name, struct plan *p)
{
	FILE *f = fopen(name, "r");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), name, strerror(errno));
		return 1;
	}
	if (getline(&line, &cap, f) < 0 || strncmp(line, "SHARD ", 6) != 0)
		ret = -1;
	while (ret == 0 && getline(&line, &cap, f) >= 0)
		ret = plan_row(p, line);
	if (ret == 0 && (ferror(f) || p->n != p->count))
		ret = ferror(f) ? -2 : -1;
	free(line);
	fclose(f);
	if (ret == SQP_ERR_NOMEM)
		fprintf(stderr, "%s: out of memory\n", tool_progname());
	else if (ret == -2)
		fprintf(stderr, "%s: %s: read error\n", tool_progname(), name);
	else if (ret != 0)
		fprintf(stderr, "%s: %s: not the output of --shard-plan N\n",
			tool_progname(), name);
	return ret != 0;
}

int img2img_check_plan(const char *plan, struct sqp_image *const *img,
		       const char *const *names, size_t n)
{
	struct plan p = { NULL, 0, 0 };
	uint64_t ref;
	unsigned k;
	int ret = plan_read(plan, &p);

	if (ret == 0 && n != p.count) {
		fprintf(stderr, "%s: %s plans %u shards, %zu given: %s\n", tool_progname(),
			plan, p.count, n, n < p.count ? "one is missing" : "one too many");
		ret = 1;
	}
	for (k = 0; ret == 0 && k < p.count; k++) {
		if (p.first[k] == NULL ||
		    sqp_image_lookup(img[k], p.first[k], &ref) == 0)
			continue;
		fprintf(stderr, "%s: %s: not shard %u/%u of %s (it has no /%s)\n",
			tool_progname(), names[k], k + 1, p.count, plan, p.first[k]);
		ret = 1;
	}
	plan_free(&p);
	return ret;
}
