/* SPDX-License-Identifier: MIT */
/*
 * data.c - a base file's data into the writer.
 *
 * The file is read through the reader (sqp_file_pread, decompressed
 * block by block) and handed to sqp_writer_add as a data source, so the
 * writer cuts, deduplicates and compresses it as any other file's.
 * The source is only read if the writer takes the entry: an entry the
 * policy excludes or an upper layer shadows costs no decompression.
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "rebuild/rebuild.h"
#include "sqpack/error.h"
#include "write/writer_impl.h"

struct base_source {
	struct rebuild *rb;
	const struct rd_walk_node *node;
	struct sqp_file *f;      /* opened at the first read */
	uint64_t off;
};

static int base_read(void *user, void *buf, size_t n)
{
	struct base_source *s = user;
	size_t got = 0;
	int ret;

	if (s->f == NULL &&
	    (ret = sqp_file_open(s->rb->img, s->node->ref, &s->f)) != 0)
		return ret;
	if ((ret = sqp_file_pread(s->f, buf, n, s->off, &got)) != 0)
		return ret;
	if (got != n)
		return SQP_ERR_CORRUPT;
	s->off += n;
	return 0;
}

int rebuild_init(struct rebuild *rb)
{
	(void)rb;
	return 0;
}

void rebuild_cleanup(struct rebuild *rb)
{
	free(rb->path);
}

int rebuild_add(struct rebuild *rb, const struct sqp_entry *e,
		const struct rd_walk_node *n)
{
	struct base_source s = { rb, n, NULL, 0 };
	struct sqp_data_source src = { base_read, NULL, NULL, &s };
	int ret;

	if (n == NULL || !S_ISREG(e->mode))
		return sqp_writer_add(rb->w, e, NULL);
	ret = sqp_writer_add(rb->w, e, &src);
	sqp_file_close(s.f);
	return ret;
}
