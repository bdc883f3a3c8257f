/* SPDX-License-Identifier: MIT */
/*
 * check.c - sqp_image_check(): open the image (the superblock and table
 * checks of the reader), walk every directory from the root, check each
 * inode once, then the tables and link counts (check_items.c), while
 * the data of every file is decompressed on the pool.
 *
 * The walk goes on after a problem wherever it safely can: an entry whose
 * inode cannot be read is reported and skipped, a directory whose listing
 * breaks is reported and left, its siblings still checked. Each inode
 * number is counted as it is referenced, so a directory met twice (a
 * loop) is reported and not entered again, and the walk always ends.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check/check_impl.h"
#include "sqpack/error.h"

#define DEPTH_MAX 1024

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

static const char *type_name(unsigned t)
{
	static const char *const names[] = { "?", "directory", "file",
		"symlink", "block device", "char device", "fifo", "socket" };

	return names[t < 8 ? t : 0];
}

/* The inode behind one listing entry, read and checked; 1 when the walk
 * should enter it (a directory seen for the first time). */
static int entry_inode(struct chk *c, const char *path, uint32_t parent,
		       const struct rd_dirent *de, struct rd_inode *ino)
{
	uint32_t n = de->inode_number, base;
	int ret;

	if (n == 0 || n > c->img->sb.inode_count) {
		chk_report(c, "directory", parent, path, "entry names inode "
			   "number %u of %u", n, c->img->sb.inode_count);
		return 0;
	}
	if (rd_inode_read(c->img, de->inode_ref, ino) != 0)
		return chk_latched(c, "inode", n, path);
	base = ino->raw.type > SQFS_EXT_OFFSET ? ino->raw.type - SQFS_EXT_OFFSET :
		ino->raw.type;
	if (ino->raw.inode_number != n)
		chk_report(c, "inode", n, path, "the listing says inode %u, the "
			   "inode says %u", n, ino->raw.inode_number);
	if (de->type != base)
		chk_report(c, "directory", n, path, "the listing says %s, the "
			   "inode is a %s", type_name(de->type), type_name(base));
	if (c->refs[n - 1]++ > 0) {
		if (S_ISDIR(ino->mode))
			chk_report(c, "directory", n, path, "directory reached "
				   "twice (a loop, or two parents)");
		return 0;
	}
	c->nlink[n - 1] = S_ISDIR(ino->mode) ? CHK_DIR_NLINK : ino->raw.nlink;
	c->where[n - 1] = de->inode_ref;
	c->st.inodes++;
	if (rd_xattrs_read(c->img, ino->raw.xattr_idx, &c->xs) != 0 &&
	    (ret = chk_latched(c, "xattr", n, path)) != 0)
		return ret;
	if (S_ISREG(ino->mode))
		return chk_file(c, path, ino);
	if (!S_ISDIR(ino->mode))
		return 0;
	if (ino->raw.u.dir.parent != parent)
		chk_report(c, "inode", n, path, "parent is inode %u, but the "
			   "directory is in inode %u", ino->raw.u.dir.parent,
			   parent);
	return 1;
}

struct frame {
	struct rd_dir it;
	struct rd_inode ino;
	size_t path_len;
	uint32_t subdirs, entries;
};

/* A directory done: its link count and index. The count is 2 + its
 * subdirectories (mksquashfs, the kernel's convention) or 2 + all its
 * entries (squashfs-tools-ng); nothing else is right. */
static int leave_dir(struct chk *c, struct frame *f, const char *path)
{
	c->st.directories++;
	if (f->ino.raw.nlink != f->subdirs + 2 &&
	    f->ino.raw.nlink != f->entries + 2)
		chk_report(c, "links", f->ino.raw.inode_number, path, "a "
			   "directory with %u subdirectories has link count %u",
			   f->subdirs, f->ino.raw.nlink);
	return chk_dir_index(c, path, &f->ino);
}

/* Path buffer of cap bytes holding at least need. */
static int room(char **buf, size_t *cap, size_t need)
{
	char *nb;

	if (need <= *cap)
		return 0;
	if ((nb = realloc(*buf, need * 2)) == NULL)
		return SQP_ERR_NOMEM;
	*buf = nb;
	*cap = need * 2;
	return 0;
}

/* One step of the walk in the directory of stack[*depth]. */
static int walk_step(struct chk *c, struct frame *stack, size_t *depth,
		     char **buf, size_t *cap)
{
	struct frame *f = &stack[*depth];
	struct rd_dirent de;
	struct rd_inode ino;
	int ret = rd_dir_next(c->img, &f->it, &de);

	memset(&ino, 0, sizeof(ino));
	if (ret < 0 && (ret = chk_latched(c, "directory",
					  f->ino.raw.inode_number, *buf)) != 0)
		return ret;
	if (ret <= 0) {
		/* The end, or a broken listing: leave the directory. */
		ret = leave_dir(c, f, *buf);
		rd_inode_free(&f->ino);
		if (ret != 0 || *depth == 0)
			return ret != 0 ? ret : 1;
		(*buf)[stack[--*depth].path_len] = '\0';
		return 0;
	}
	f->entries++;
	if (room(buf, cap, f->path_len + strlen(de.name) + 2) != 0)
		return SQP_ERR_NOMEM;
	sprintf(*buf + f->path_len, "%s%s", f->path_len ? "/" : "", de.name);
	ret = entry_inode(c, *buf, f->ino.raw.inode_number, &de, &ino);
	if (ret == 1 && S_ISDIR(ino.mode)) {
		f->subdirs++;
		if (*depth + 1 >= DEPTH_MAX) {
			chk_report(c, "directory", ino.raw.inode_number, *buf,
				   "nested deeper than %d", DEPTH_MAX);
		} else if (rd_dir_open(c->img, &ino, &stack[*depth + 1].it) == 0) {
			stack[++*depth].ino = ino;
			stack[*depth].path_len = strlen(*buf);
			stack[*depth].subdirs = stack[*depth].entries = 0;
			return 0;
		}
	} else if (ret == 0 && S_ISDIR(ino.mode)) {
		f->subdirs++;
	}
	rd_inode_free(&ino);
	(*buf)[f->path_len] = '\0';
	return ret < 0 ? ret : 0;
}

/* The walk from the root. */
static int walk(struct chk *c)
{
	struct frame *stack = calloc(DEPTH_MAX, sizeof(*stack));
	size_t cap = 1024, depth = 0;
	char *buf = malloc(cap);
	uint64_t root = c->img->sb.root_inode;
	int ret = SQP_ERR_NOMEM;

	if (stack == NULL || buf == NULL)
		goto out;
	buf[0] = '\0';
	if (rd_inode_read(c->img, root, &stack[0].ino) != 0) {
		ret = chk_latched(c, "inode", 0, "");
		goto out;
	}
	ret = 0;
	if (!S_ISDIR(stack[0].ino.mode)) {
		chk_report(c, "superblock", 0, NULL, "the root is not a directory");
		goto out;
	}
	if (stack[0].ino.raw.inode_number - 1u < c->img->sb.inode_count) {
		uint32_t n = stack[0].ino.raw.inode_number;

		c->refs[n - 1]++;
		c->nlink[n - 1] = CHK_DIR_NLINK;
		c->where[n - 1] = root;
		c->st.inodes++;
	} else {
		chk_report(c, "inode", stack[0].ino.raw.inode_number, "",
			   "root inode number out of range");
	}
	if (rd_dir_open(c->img, &stack[0].ino, &stack[0].it) != 0) {
		ret = chk_latched(c, "directory", 0, "");
		goto out;
	}
	while ((ret = walk_step(c, stack, &depth, &buf, &cap)) == 0)
		;
	ret = ret == 1 ? 0 : ret;
out:
	for (size_t i = 0; stack != NULL && i <= depth; i++)
		rd_inode_free(&stack[i].ino);
	free(stack);
	free(buf);
	return ret;
}

/* Per inode number arrays, when the count is believable: an inode
 * takes at least 16 bytes before compression, and metadata does not
 * compress 64 times over. */
static int alloc_counts(struct chk *c)
{
	uint64_t n = c->img->sb.inode_count;

	if (n == 0 || n / 64 > c->img->sb.bytes_used) {
		chk_report(c, "superblock", 0, NULL, "%llu inodes cannot fit in "
			   "%llu bytes", (unsigned long long)n,
			   (unsigned long long)c->img->sb.bytes_used);
		return SQP_ERR_CORRUPT;
	}
	c->refs = calloc(n, sizeof(*c->refs));
	c->nlink = calloc(n, sizeof(*c->nlink));
	c->where = calloc(n, sizeof(*c->where));
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
	struct sqp_image_desc id = { 0 };
	struct chk c = { 0 };
	int ret;

	if (desc == NULL)
		return SQP_ERR_ARG;
	c.d = desc;
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
