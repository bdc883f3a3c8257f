/* SPDX-License-Identifier: MIT */
/*
 * diff.c - what differs between the trees of two images: names present
 * on one side only, then for names on both sides type, permissions,
 * owner, mtime, size, symlink target, device numbers, xattrs and file
 * contents.
 *
 * Listings are sorted by name (the format requires it), so each side's
 * walk (sqp_walk, the reader's, with its guard against loops) gives its
 * paths in one order, component by component; one merge of the two
 * walks pairs the names without holding a listing. A name on one side
 * only, or two of different types, is reported and its directory
 * skipped. Contents are compared a chunk at a time, so memory does not
 * depend on file sizes.
 *
 * Hard links are compared by structure, not by inode numbers (two
 * packers number inodes differently): the first time a linked inode is
 * met on a side, it is paired with the inode met at the same path on the
 * other side and that path is kept; a later name of either inode must
 * meet the same pair again. Memory is 8 bytes per inode of each image
 * (fixed by the superblock) plus the paths of linked inodes.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "sqpack/inspect.h"
#include "util/array.h"
#include "util/errbuf.h"

#define CHUNK (64u * 1024)

/* Per side and inode number: the other side's inode first met at the same
 * path (0: not met yet), and where that path is kept in the arena. */
struct link_pair {
	uint32_t partner;
	uint32_t path;
};

struct differ {
	const struct sqp_diff_desc *desc;
	struct sqp_image *img[2];
	struct sqp_walk *walk[2];
	struct sqp_walk_entry e[2];
	int have[2];           /* e[i] holds side i's next entry */
	uint32_t inode_count[2];
	struct link_pair *links[2];
	char *names;           /* arena of the paths of linked inodes */
	size_t names_len, names_cap;
	struct sqp_errbuf err;
	const char *path;      /* of the entry compared, in e[] */
	uint8_t *buf[2];
	int differs, stopped;
};

static int img_fail(struct differ *df, int side, int ret)
{
	return sqp_err_wrap(&df->err, ret, sqp_image_error(df->img[side]),
			    "'%s': ", df->path);
}

static int report(struct differ *df, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int report(struct differ *df, const char *fmt, ...)
{
	char what[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	df->differs = 1;
	if (df->desc->report(df->desc->user, df->path, what) != 0)
		df->stopped = 1;
	return 0;
}

/* Side i's next entry, or its end. */
static int advance(struct differ *df, int i)
{
	int ret = sqp_walk_next(df->walk[i], &df->e[i]);

	if (ret < 0)
		return sqp_err_wrap(&df->err, ret, sqp_walk_error(df->walk[i]),
				    "in the %s image: ", i == 0 ? "first" :
				    "second");
	df->have[i] = ret;
	return 0;
}

static int compare_links(struct differ *df, const uint64_t ref[2])
{
	char *t[2] = { NULL, NULL };
	int len[2], ret = 0;

	for (int i = 0; i < 2 && ret == 0; i++) {
		len[i] = sqp_image_readlink(df->img[i], ref[i], NULL, 0);
		if (len[i] < 0)
			ret = img_fail(df, i, len[i]);
		else if ((t[i] = malloc((size_t)len[i] + 1)) == NULL)
			ret = sqp_err(&df->err, SQP_ERR_NOMEM, "out of memory");
		else if ((len[i] = sqp_image_readlink(df->img[i], ref[i], t[i],
						      (size_t)len[i] + 1)) < 0)
			ret = img_fail(df, i, len[i]);
	}
	if (ret == 0 && strcmp(t[0], t[1]) != 0)
		report(df, "symlink target '%s' != '%s'", t[0], t[1]);
	free(t[0]);
	free(t[1]);
	return ret;
}

static const struct sqp_xattr *find_xattr(const struct sqp_xattr *x,
					  size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(x[i].key, key) == 0)
			return &x[i];
	return NULL;
}

/* Each image keeps its own xattr scratch, so both lists stay valid. */
static int compare_xattrs(struct differ *df, const uint64_t ref[2])
{
	const struct sqp_xattr *x[2], *o;
	size_t n[2];
	int ret;

	for (int i = 0; i < 2; i++)
		if ((ret = sqp_image_xattrs(df->img[i], ref[i], &x[i], &n[i])) != 0)
			return img_fail(df, i, ret);
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < n[i]; k++) {
			o = find_xattr(x[!i], n[!i], x[i][k].key);
			if (o == NULL)
				report(df, "xattr %s only in the %s image",
				       x[i][k].key, i == 0 ? "first" : "second");
			else if (i == 0 && (o->value_len != x[0][k].value_len ||
				 memcmp(o->value, x[0][k].value, o->value_len)))
				report(df, "xattr %s values differ", o->key);
		}
	}
	return 0;
}

/* Contents of two files of equal size, chunk by chunk. */
static int compare_data(struct differ *df, const uint64_t ref[2])
{
	struct sqp_file *f[2] = { NULL, NULL };
	size_t got[2];
	uint64_t off = 0;
	int ret = 0;

	for (int i = 0; i < 2 && ret == 0; i++)
		if ((ret = sqp_file_open(df->img[i], ref[i], &f[i])) != 0)
			ret = img_fail(df, i, ret);
	while (ret == 0) {
		for (int i = 0; i < 2 && ret == 0; i++)
			if ((ret = sqp_file_pread(f[i], df->buf[i], CHUNK, off,
						  &got[i])) != 0)
				ret = img_fail(df, i, ret);
		if (ret != 0 || got[0] == 0)
			break;
		if (got[0] != got[1] || memcmp(df->buf[0], df->buf[1], got[0])) {
			size_t k = 0;

			while (k < got[0] && k < got[1] &&
			       df->buf[0][k] == df->buf[1][k])
				k++;
			report(df, "contents differ from byte %llu",
			       (unsigned long long)(off + k));
			break;
		}
		off += got[0];
	}
	sqp_file_close(f[0]);
	sqp_file_close(f[1]);
	return ret;
}

static const char *type_name(uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return "directory";
	case S_IFREG: return "file";
	case S_IFLNK: return "symlink";
	case S_IFBLK: return "block device";
	case S_IFCHR: return "character device";
	case S_IFIFO: return "fifo";
	default: return "socket";
	}
}

static int compare_attrs(struct differ *df, const struct sqp_inode_info *a,
			 const struct sqp_inode_info *b)
{
	unsigned flags = df->desc->flags;

	if ((a->mode & 07777) != (b->mode & 07777))
		report(df, "mode %04o != %04o", (unsigned)(a->mode & 07777),
		       (unsigned)(b->mode & 07777));
	if (!(flags & SQP_DIFF_IGNORE_OWNER) &&
	    (a->uid != b->uid || a->gid != b->gid))
		report(df, "owner %u:%u != %u:%u", (unsigned)a->uid,
		       (unsigned)a->gid, (unsigned)b->uid, (unsigned)b->gid);
	if (!(flags & SQP_DIFF_IGNORE_MTIME) && a->mtime != b->mtime)
		report(df, "mtime %lld != %lld", (long long)a->mtime,
		       (long long)b->mtime);
	if ((S_ISCHR(a->mode) || S_ISBLK(a->mode)) &&
	    (a->dev_major != b->dev_major || a->dev_minor != b->dev_minor))
		report(df, "device %u,%u != %u,%u", (unsigned)a->dev_major,
		       (unsigned)a->dev_minor, (unsigned)b->dev_major,
		       (unsigned)b->dev_minor);
	return 0;
}

/* Keep df->path in the arena; its offset, or -1 when out of memory (or
 * past 4 GiB of linked paths). */
static int64_t keep_path(struct differ *df)
{
	size_t len = strlen(df->path) + 1, at = df->names_len;
	char *p = sqp_array_grow(df->names, &df->names_cap, at + len, 1, 256);

	if (p == NULL || at > UINT32_MAX)
		return -1;
	df->names = p;
	memcpy(p + at, df->path, len);
	df->names_len += len;
	return (int64_t)at;
}

/* Two non-directories of one type at the same path: either inode met
 * before must have been met with the other one. */
static int compare_hardlinks(struct differ *df, const struct sqp_inode_info in[2])
{
	struct link_pair *l[2];
	int64_t at;

	if (in[0].nlink < 2 && in[1].nlink < 2)
		return 0;
	for (int i = 0; i < 2; i++) {
		if (in[i].inode_number == 0 ||
		    in[i].inode_number > df->inode_count[i])
			return sqp_err(&df->err, SQP_ERR_CORRUPT, "'%s': inode "
				       "number out of range in the %s image",
				       df->path, i == 0 ? "first" : "second");
		l[i] = &df->links[i][in[i].inode_number - 1];
	}
	if (l[0]->partner == in[1].inode_number &&
	    l[1]->partner == in[0].inode_number)
		return 0;
	if (l[0]->partner != 0 && l[1]->partner != 0)
		return report(df, "hard link to '/%s' in the first image, to "
			      "'/%s' in the second", df->names + l[0]->path,
			      df->names + l[1]->path);
	for (int i = 0; i < 2; i++)
		if (l[i]->partner != 0)
			return report(df, "hard link to '/%s' in the %s image "
				      "only", df->names + l[i]->path,
				      i == 0 ? "first" : "second");
	if ((at = keep_path(df)) < 0)
		return sqp_err(&df->err, SQP_ERR_NOMEM, "out of memory");
	for (int i = 0; i < 2; i++) {
		l[i]->partner = in[!i].inode_number;
		l[i]->path = (uint32_t)at;
	}
	return 0;
}

/* Compare the entries in e[] (both at df->path). */
static int compare_entry(struct differ *df)
{
	const struct sqp_inode_info in[2] = { df->e[0].info, df->e[1].info };
	const uint64_t ref[2] = { in[0].ref, in[1].ref };
	int ret;

	if ((in[0].mode & S_IFMT) != (in[1].mode & S_IFMT))
		return report(df, "type %s != %s", type_name(in[0].mode),
			      type_name(in[1].mode));
	compare_attrs(df, &in[0], &in[1]);
	ret = S_ISDIR(in[0].mode) ? 0 : compare_hardlinks(df, in);
	if (ret == 0 && !(df->desc->flags & SQP_DIFF_IGNORE_XATTRS) &&
	    (in[0].has_xattrs || in[1].has_xattrs))
		ret = compare_xattrs(df, ref);
	if (ret != 0 || df->stopped)
		return ret;
	if (S_ISLNK(in[0].mode))
		return compare_links(df, ref);
	if (S_ISREG(in[0].mode) && in[0].size != in[1].size)
		return report(df, "size %llu != %llu",
			      (unsigned long long)in[0].size,
			      (unsigned long long)in[1].size);
	if (S_ISREG(in[0].mode))
		return compare_data(df, ref);
	return 0;
}

/* The order both walks give paths in: component by component, each
 * compared as listings sort names (strcmp), a directory before what is
 * below it. */
static int path_cmp(const char *a, const char *b)
{
	for (;;) {
		size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
		int c = memcmp(a, b, la < lb ? la : lb);

		if (c != 0 || la != lb)
			return c != 0 ? c : la < lb ? -1 : 1;
		if (a[la] == '\0' || b[lb] == '\0')
			return a[la] == '\0' ? (b[lb] == '\0' ? 0 : -1) : 1;
		a += la + 1;
		b += lb + 1;
	}
}

/* One step of the merge: the lesser entry alone, or the pair. A
 * directory is entered only when both sides have one at its path. */
static int step(struct differ *df)
{
	int cmp = !df->have[0] ? 1 : !df->have[1] ? -1 :
		  path_cmp(df->e[0].path, df->e[1].path);
	int ret = 0;

	df->path = df->e[cmp <= 0 ? 0 : 1].path;
	if (cmp != 0)
		report(df, "only in the %s image", cmp < 0 ? "first" : "second");
	else
		ret = compare_entry(df);
	for (int i = 0; i < 2; i++)
		if ((i == 0 ? cmp <= 0 : cmp >= 0) &&
		    S_ISDIR(df->e[i].info.mode) &&
		    (cmp != 0 || !S_ISDIR(df->e[!i].info.mode)))
			sqp_walk_skip(df->walk[i]);
	for (int i = 0; i < 2 && ret == 0; i++)
		if (i == 0 ? cmp <= 0 : cmp >= 0)
			ret = advance(df, i);
	return ret;
}

static int run(struct differ *df)
{
	struct sqp_walk_desc wd = { sizeof(wd), NULL, NULL, 0 };
	struct sqp_image_info ii = { .struct_size = sizeof(ii) };
	int ret;

	for (int i = 0; i < 2; i++) {
		if ((ret = sqp_image_get_info(df->img[i], &ii)) != 0)
			return sqp_err(&df->err, ret, "%s", sqp_strerror(ret));
		df->inode_count[i] = ii.inode_count;
		df->buf[i] = malloc(CHUNK);
		df->links[i] = calloc((size_t)ii.inode_count + 1,
				      sizeof(*df->links[i]));
		if (df->buf[i] == NULL || df->links[i] == NULL)
			return sqp_err(&df->err, SQP_ERR_NOMEM, "out of memory");
		wd.img = df->img[i];
		ret = sqp_walk_create(&wd, &df->walk[i]);
		if (ret != 0)
			return df->walk[i] == NULL ?
				sqp_err(&df->err, ret, "%s", sqp_strerror(ret)) :
				sqp_err_wrap(&df->err, ret,
					     sqp_walk_error(df->walk[i]),
					     "in the %s image: ",
					     i == 0 ? "first" : "second");
		if ((ret = advance(df, i)) != 0)
			return ret;
	}
	while ((df->have[0] || df->have[1]) && !df->stopped)
		if ((ret = step(df)) != 0)
			return ret;
	return 0;
}

SQP_API int sqp_image_diff(const struct sqp_diff_desc *desc, char *msg,
			   size_t msg_size)
{
	struct differ df;
	int ret;

	if (desc == NULL || desc->a == NULL || desc->b == NULL ||
	    desc->a == desc->b || desc->report == NULL)
		return SQP_ERR_ARG;
	memset(&df, 0, sizeof(df));
	df.e[0].struct_size = df.e[1].struct_size = sizeof(df.e[0]);
	df.desc = desc;
	df.img[0] = desc->a;
	df.img[1] = desc->b;
	ret = run(&df);
	if (ret != 0 && msg != NULL && msg_size > 0)
		snprintf(msg, msg_size, "%s", sqp_errmsg(&df.err));
	for (int i = 0; i < 2; i++) {
		sqp_walk_destroy(df.walk[i]);
		free(df.buf[i]);
		free(df.links[i]);
	}
	free(df.names);
	return ret != 0 ? ret : df.differs;
}
