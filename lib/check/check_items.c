/* SPDX-License-Identifier: MIT */
/*
 * check_items.c - the checker's checks beyond the walk: a file's layout,
 * checked by the image's back end (rd_format.check_file), before its
 * data goes to the ordered block reader (every block decompressed on
 * the pool, its size checked); the back end's tables once the walk is
 * over; and link counts against references.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_impl.h"
#include "sqpack/error.h"
#include "util/endian.h"

/* Problems of one kind beyond this many are counted, not listed. */
#define LIST_MAX 20

struct chk_file {
	struct rd_bentry be;    /* first: the reader hands this back */
	char *path;
	uint32_t inode;
};

static int on_start(void *user, struct rd_bentry *be)
{
	(void)user;
	(void)be;
	return 0;
}

static int on_data(void *user, struct rd_bentry *be, uint64_t pos,
		   const uint8_t *data, uint32_t len)
{
	struct chk *c = user;

	(void)be;
	(void)pos;
	(void)len;
	if (data != NULL)
		c->st.blocks++;
	return 0;
}

static void on_drop(void *user, struct rd_bentry *be)
{
	(void)user;
	free(((struct chk_file *)be)->path);
	free(be);
}

static int on_end(void *user, struct rd_bentry *be)
{
	on_drop(user, be);
	return 0;
}

static int on_bad(void *user, struct rd_bentry *be, const char *msg)
{
	struct chk *c = user;

	chk_report(c, "data", ((struct chk_file *)be)->inode, be->name, "%s",
		   chk_unnamed(msg, c->img->name));
	return 0;
}

static const struct rd_blockrd_ops check_ops = {
	on_start, on_data, on_end, on_drop, on_bad, NULL,
};

int chk_data_start(struct chk *c)
{
	struct rd_blockrd_desc bd = { c->img, c->d->jobs, &check_ops, c, 0, 0 };

	return rd_blockrd_create(&bd, &c->br);
}

int chk_file(struct chk *c, const char *path, const struct rd_inode *ino)
{
	struct chk_file *e;
	int ret = c->img->fmt->check_file(c->img, &c->k, path, ino);

	c->st.fragments_used += c->k.fragments_used;
	c->k.fragments_used = 0;
	c->st.files++;
	if (ret != 1)
		return ret;
	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (e->path = strdup(path)) == NULL) {
		free(e);
		return SQP_ERR_NOMEM;
	}
	e->be.name = e->path;
	e->inode = ino->inode_number;
	return rd_blockrd_add(c->br, &e->be, ino);
}

int chk_tables(struct chk *c)
{
	int ret = c->img->fmt->check_tables(c->img, &c->k);

	c->st.fragments_used += c->k.fragments_used;
	c->k.fragments_used = 0;
	return ret;
}

int chk_links(struct chk *c)
{
	uint32_t unreached = 0, wrong = 0;

	for (uint32_t n = 1; n <= c->img->inode_count; n++) {
		uint32_t refs = c->refs[n - 1];

		/* Where numbers are slots, most of them name no inode. */
		if (refs == 0 && c->img->fmt->dense_numbers &&
		    unreached++ < LIST_MAX)
			chk_report(c, "inode", n, NULL, "not reachable from "
				   "the root");
		/* Directories: their count was checked when left. */
		else if (refs > 0 && c->nlink[n - 1] != CHK_DIR_NLINK &&
			 c->nlink[n - 1] != refs && wrong++ < LIST_MAX)
			chk_report(c, "links", n, NULL, "link count %u, %u "
				   "references", c->nlink[n - 1], refs);
	}
	if (unreached > LIST_MAX)
		chk_report(c, "inode", 0, NULL, "%u more inodes not reachable",
			   unreached - LIST_MAX);
	if (wrong > LIST_MAX)
		chk_report(c, "links", 0, NULL, "%u more wrong link counts",
			   wrong - LIST_MAX);
	return 0;
}
