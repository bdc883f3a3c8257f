/* SPDX-License-Identifier: MIT */
/*
 * check.c - sqp_image_check(): open the image (the superblock and table
 * checks of the reader), walk every directory from the root, check each
 * inode once, then the tables and link counts (check_items.c), while
 * the data of every file is decompressed on the pool.
 *
 * The walk is the reader's rd_walk, told to go on after a problem
 * wherever it safely can: an entry whose inode cannot be read is
 * reported and skipped, a directory whose listing breaks is reported and
 * left, its siblings still checked, and a directory met twice (a loop)
 * or too deep is reported and not entered, so the walk always ends.
 * Each inode number is counted as it is referenced, for the link
 * counts.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_impl.h"
#include "read/rd_walk.h"
#include "sqpack/error.h"

void chk_report(struct chk *c, const char *table, uint32_t inode,
		const char *path, const char *fmt, ...)
{
	struct sqp_check_problem p = { table, inode, path, NULL };
	char msg[SQP_ERRMSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p.msg = msg;
	c->st.problems++;
	if (c->d->report != NULL)
		c->d->report(c->d->user, &p);
}

const char *chk_unnamed(const char *msg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(msg, name, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ' ?
		msg + n + 2 : msg;
}

int chk_latched(struct chk *c, const char *table, uint32_t inode,
		const char *path)
{
	int code = c->img->err.code;

	if (code != SQP_ERR_CORRUPT && code != SQP_ERR_BAD_DATA &&
	    code != SQP_ERR_TRUNCATED)
		return code != 0 ? code : SQP_ERR_CORRUPT;
	chk_report(c, table, inode, path, "%s",
		   chk_unnamed(sqp_image_error(c->img), c->img->name));
	rd_err_clear(c->img);
	return 0;
}

/* The back end's checks report through these (struct rd_checker). */
static void back_report(void *user, const char *table, uint32_t inode,
			const char *path, const char *msg)
{
	chk_report(user, table, inode, path, "%s", msg);
}

static int back_latched(void *user, const char *table, uint32_t inode,
			const char *path, int any)
{
	struct chk *c = user;

	if (!any)
		return chk_latched(c, table, inode, path);
	chk_report(c, table, inode, path, "%s",
		   chk_unnamed(sqp_image_error(c->img), c->img->name));
	rd_err_clear(c->img);
	return 0;
}

static const char *type_name(unsigned t)
{
	static const char *const names[] = { "?", "directory", "file",
		"symlink", "block device", "char device", "fifo", "socket" };

	return names[t < 8 ? t : 0];
}

/* An entry the walk met: checked against its listing entry, counted
 * as a reference, and, the first time, its inode checked. */
static int entry(struct chk *c, const struct rd_walk_node *e)
{
	const struct rd_inode *ino = e->ino;
	uint32_t n = ino->inode_number; /* 1..inode_count */
	unsigned base = rd_type_of(ino->mode);
	int ret;

	if (e->de == NULL && !S_ISDIR(ino->mode)) {
		chk_report(c, "superblock", 0, NULL, "the root is not a directory");
		return 0;
	}
	if (e->de != NULL && e->de->inode_number != n)
		chk_report(c, "inode", n, e->path, "the listing says inode %u, "
			   "the inode says %u", e->de->inode_number, n);
	if (e->de != NULL && e->de->type != base)
		chk_report(c, "directory", n, e->path, "the listing says %s, "
			   "the inode is a %s", type_name(e->de->type),
			   type_name(base));
	if (c->refs[n - 1]++ > 0) /* a hard link; the walk refuses a
				   * directory met again */
		return 0;
	c->nlink[n - 1] = S_ISDIR(ino->mode) ? CHK_DIR_NLINK : ino->nlink;
	c->where[n - 1] = e->ref;
	c->st.inodes++;
	if (rd_xattrs_of(c->img, ino, &c->xs) != 0 &&
	    (ret = chk_latched(c, "xattr", n, e->path)) != 0)
		return ret;
	if (S_ISREG(ino->mode))
		return chk_file(c, e->path, ino);
	if (S_ISDIR(ino->mode) && e->de != NULL)
		return c->img->fmt->check_dir(c->img, &c->k, e->path, ino,
					      e->parent);
	return 0;
}

/* A directory done: its link count and index. The count is 2 + its
 * subdirectories (mksquashfs, the kernel's convention) or 2 + all its
 * entries (squashfs-tools-ng); nothing else is right. */
static int leave_dir(struct chk *c, const struct rd_walk_node *d)
{
	const struct rd_inode *ino = d->ino;

	c->st.directories++;
	if (ino->nlink != d->subdirs + 2 && ino->nlink != d->entries + 2)
		chk_report(c, "links", ino->inode_number, d->path, "a "
			   "directory with %u subdirectories has link count %u",
			   d->subdirs, ino->nlink);
	return c->img->fmt->check_dir_done(c->img, &c->k, d->path, ino);
}

/* What the walk finds wrong is reported, and the walk goes on. */
static int walk_problem(void *user, const char *table, uint32_t inode,
			const char *path)
{
	return chk_latched(user, table, inode, path);
}

/* The walk from the root. */
static int walk(struct chk *c)
{
	struct rd_walk_desc wd = { c->img, NULL, 0, 0, walk_problem, c };
	struct rd_walk_node n;
	struct rd_walk *w;
	int ret;

	if ((ret = rd_walk_create(&wd, &w)) != 0)
		return ret;
	while ((ret = rd_walk_next(w, &n)) > 0) {
		ret = ret == RD_WALK_LEAVE ? leave_dir(c, &n) : entry(c, &n);
		if (ret != 0)
			break;
	}
	rd_walk_destroy(w);
	return ret;
}

/* Per inode number arrays, when the count is believable: an inode
 * takes at least 16 bytes before compression, and metadata does not
 * compress 64 times over. */
static int alloc_counts(struct chk *c)
{
	uint64_t n = c->img->inode_count;

	if (n == 0 || n / 64 > c->img->end) {
		chk_report(c, "superblock", 0, NULL, "%llu inodes cannot fit in "
			   "%llu bytes", (unsigned long long)n,
			   (unsigned long long)c->img->end);
		return SQP_ERR_CORRUPT;
	}
	c->refs = calloc(n, sizeof(*c->refs));
	c->nlink = calloc(n, sizeof(*c->nlink));
	c->where = calloc(n, sizeof(*c->where));
	c->k.refs = c->refs;
	c->k.where = c->where;
	return c->refs && c->nlink && c->where ? 0 : SQP_ERR_NOMEM;
}

static int run(struct chk *c)
{
	int ret;

	if ((ret = alloc_counts(c)) != 0 || (ret = chk_data_start(c)) != 0)
		return ret;
	if ((ret = walk(c)) != 0)
		return ret;
	if ((ret = rd_blockrd_flush(c->br)) != 0)
		return ret;
	if ((ret = chk_tables(c)) != 0)
		return ret;
	return chk_links(c);
}

SQP_API int sqp_image_check(const struct sqp_check_desc *desc,
			    struct sqp_check_stats *stats)
{
	struct sqp_image_desc id = { .struct_size = sizeof(id) };
	struct chk c = { 0 };
	int ret;

	if (desc == NULL)
		return SQP_ERR_ARG;
	c.d = desc;
	c.k.user = &c;
	c.k.report = back_report;
	c.k.latched = back_latched;
	id.fd = desc->fd;
	id.offset = desc->offset;
	id.name = desc->name;
	ret = sqp_image_create(&id, &c.img);
	if (ret == SQP_ERR_CORRUPT || ret == SQP_ERR_BAD_DATA ||
	    ret == SQP_ERR_TRUNCATED || ret == SQP_ERR_UNSUPPORTED) {
		chk_report(&c, "superblock", 0, NULL, "%s",
			   chk_unnamed(c.img != NULL ? sqp_image_error(c.img) :
				       sqp_strerror(ret),
				       desc->name ? desc->name : "image"));
		ret = 0;
	} else if (ret == 0) {
		ret = run(&c);
	}
	rd_blockrd_destroy(c.br);
	rd_xattrs_free(&c.xs);
	sqp_image_destroy(c.img);
	free(c.refs);
	free(c.nlink);
	free(c.where);
	if (stats != NULL)
		*stats = c.st;
	if (ret == 0 && c.st.problems > 0)
		ret = SQP_ERR_CORRUPT;
	return ret;
}
