/* SPDX-License-Identifier: MIT */
/*
 * unsq_extract.c - extraction as unsquashfs does it, on the library's
 * sqp_image_to_dir(): the selection turned into the subtrees it takes,
 * unsquashfs's messages around it, and its exit status.
 *
 * Why a plan first: img2dir extracts whole subtrees, unsquashfs a
 * selection (PATH matches, minus excludes). A walk of the metadata
 * turns one into the other - the highest selected entries with nothing
 * excluded below them become img2dir's paths, a selected directory with
 * an exclusion inside gives its entries instead - and counts what
 * unsquashfs announces ("N inodes (M blocks) to write") and reports
 * ("created N files"). The directories on the way to the selection,
 * which img2dir makes plainly, then get the image's mode, owner and
 * times, deepest first, each reached by one name at a time below DEST
 * without following symlinks, so nothing outside DEST is touched.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "unsq.h"

struct counts {
	unsigned long long files, dirs, symlinks, devices, fifos, sockets,
		hardlinks, blocks;
};

struct above {          /* a directory made on the way to the selection */
	char *path;
	struct sqp_inode_info info;
	int there;          /* already in DEST, and no -f: not made */
};

struct plan {
	struct counts c;
	/* Counted in c but not made: on the way to the selection, a
	 * directory already in DEST (no -f) and what it holds. */
	struct counts gone;
	int dest;           /* DEST when it exists already, else -1 */
	size_t there;       /* the last of dirs there + 1; 0: none yet */
	char **paths;       /* img2dir's subtrees; none: the whole image */
	size_t npaths, cap;
	struct above *dirs;
	size_t ndirs, dcap;
	int whole;
	/* A bit per inode number: a selected entry of it was counted, so
	 * the next is a hard link (the walk's own flag counts the names
	 * left out too: d/b alone, after an unselected d/a, would be a
	 * hard link to nothing extracted). */
	uint8_t *seen;
};

static int grow(void **items, size_t *cap, size_t n, size_t size)
{
	void *p;
	size_t c;

	if (n < *cap)
		return 0;
	c = *cap ? *cap * 2 : 16;
	if ((p = realloc(*items, c * size)) == NULL)
		return -1;
	*items = p;
	*cap = c;
	return 0;
}

static void count(struct counts *c, const struct sqp_walk_entry *e,
		  uint32_t bs, int hardlink)
{
	uint32_t m = e->info.mode;

	if (S_ISDIR(m))
		c->dirs++;
	else if (hardlink)
		c->hardlinks++;
	else if (S_ISREG(m)) {
		c->files++;
		c->blocks += (e->info.size + bs - 1) / bs;
	} else if (S_ISLNK(m))
		c->symlinks++;
	else if (S_ISCHR(m) || S_ISBLK(m))
		c->devices++;
	else if (S_ISFIFO(m))
		c->fifos++;
	else
		c->sockets++;
}

static int below(const char *path, const char *top)
{
	size_t n = strlen(top);

	return top[0] == '\0' || (strncmp(path, top, n) == 0 && path[n] == '/');
}

/* Whether a directory on the way is in DEST already, which unsquashfs
 * 4.5.1 does not enter without -f (DEST itself it does). A stat only:
 * its parents were checked before it, so none is a symlink. */
static int in_dest(const struct plan *p, const struct unsq_opts *o,
		   const char *path)
{
	struct stat st;

	return p->dest >= 0 && !o->force && path[0] != '\0' &&
	       fstatat(p->dest, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* One entry of the walk into the plan; -1: out of memory. */
static int plan_entry(struct plan *p, const struct unsq_opts *o,
		      const struct sqp_walk_entry *e, uint32_t bs)
{
	int isdir = S_ISDIR(e->info.mode);
	enum unsq_sel s = unsq_select(o, e->path, isdir);
	uint32_t n = e->info.inode_number;
	int hardlink = 0;
	char *copy;

	if (s == UNSQ_OUT || (o->max_depth && e->depth >= o->max_depth))
		return 0;
	/* The walk checked n to be 1..inode_count. */
	if (!isdir && (e->hardlink || e->info.nlink > 1)) {
		hardlink = p->seen[n / 8] >> (n % 8) & 1;
		p->seen[n / 8] |= (uint8_t)(1u << (n % 8));
	}
	count(&p->c, e, bs, hardlink);
	if (p->there > 0 && below(e->path, p->dirs[p->there - 1].path)) {
		count(&p->gone, e, bs, hardlink);
		return 0;
	}
	if (p->whole || (p->npaths > 0 && below(e->path, p->paths[p->npaths - 1])))
		return 0;
	/* Below -max-depth's last level nothing is taken: directories are
	 * then made here, one by one, never handed over whole. */
	if (s == UNSQ_IN && (!isdir || (!o->max_depth &&
					!unsq_excludes_below(o, e->path)))) {
		if (e->path[0] == '\0') {
			p->whole = 1;
			return 0;
		}
		if (grow((void **)&p->paths, &p->cap, p->npaths, sizeof(char *)) != 0 ||
		    (copy = strdup(e->path)) == NULL)
			return -1;
		p->paths[p->npaths++] = copy;
		return 0;
	}
	/* On the way, or holding an exclusion: made, entries chosen. */
	if (grow((void **)&p->dirs, &p->dcap, p->ndirs, sizeof(struct above)) != 0 ||
	    (copy = strdup(e->path)) == NULL)
		return -1;
	p->dirs[p->ndirs].path = copy;
	p->dirs[p->ndirs].info = e->info;
	p->dirs[p->ndirs].there = in_dest(p, o, e->path);
	if (p->dirs[p->ndirs++].there) {
		p->there = p->ndirs;
		p->gone.dirs++;
	}
	return 0;
}

static void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i]);
	for (size_t i = 0; i < p->ndirs; i++)
		free(p->dirs[i].path);
	free(p->paths);
	free(p->dirs);
	free(p->seen);
}

/* Walk the metadata once: the plan. */
static int walk(struct sqp_image *img, const struct unsq_opts *o,
		struct plan *p)
{
	struct sqp_image_info ii = { .struct_size = sizeof(ii) };
	struct sqp_walk_desc wd = { sizeof(wd), img, NULL, o->max_depth };
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	struct sqp_walk *w = NULL;
	int ret;

	ret = sqp_image_get_info(img, &ii);
	if (ret == 0 && (p->seen = calloc((size_t)ii.inode_count / 8 + 1, 1)) == NULL)
		ret = SQP_ERR_NOMEM;
	if (ret == 0)
		ret = sqp_walk_create(&wd, &w);
	while (ret == 0 && (ret = sqp_walk_next(w, &e)) == 1) {
		ret = 0;
		if (o->max_depth && e.depth >= o->max_depth)
			continue;
		if (plan_entry(p, o, &e, ii.block_size) != 0)
			ret = SQP_ERR_NOMEM;
	}
	if (ret < 0)
		fprintf(stderr, "%s: %s\n", unsq_prog(o), w != NULL &&
			sqp_walk_error(w)[0] ? sqp_walk_error(w) :
			sqp_image_error(img)[0] ? sqp_image_error(img) :
			sqp_strerror(ret));
	sqp_walk_destroy(w);
	return ret < 0 ? -1 : 0;
}

/* The directory at path below dest, each component opened without
 * following symlinks and made (0700, fixed later) when missing. */
static int open_below(int dest, const char *path)
{
	char name[257];
	int fd = dup(dest);

	while (fd >= 0 && *path != '\0') {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);
		int next;

		if (len >= sizeof(name)) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, path, len);
		name[len] = '\0';
		if (mkdirat(fd, name, 0700) != 0 && errno != EEXIST) {
			close(fd);
			return -1;
		}
		next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
		path += len + (slash != NULL);
	}
	return fd;
}

/* A refusal unsquashfs does not abort for; -strict-errors makes it
 * fatal (-1). */
static int nonfatal(const struct unsq_opts *o, const char *path,
		    const char *what)
{
	if (o->strict) {
		fprintf(stderr, "%s: '%s': %s: %s\n", unsq_prog(o), path, what,
			strerror(errno));
		return -1;
	}
	unsq_warnings.count++;
	if (!o->quiet)
		fprintf(stderr, "%s: warning: '%s': %s: %s\n", unsq_prog(o), path,
			what, strerror(errno));
	return 0;
}

/* Owner (as root), mode, xattrs and times of one directory made on the
 * way. 0, or -1 when it cannot be reached or its xattrs not read
 * (fatal). */
static int fix_dir(struct sqp_image *img, const struct unsq_opts *o, int dest,
		   const struct above *a)
{
	const struct sqp_xattr *xs;
	size_t n = 0;
	struct timespec ts[2];
	int fd = open_below(dest, a->path);

	if (fd < 0) {
		fprintf(stderr, "%s: '%s': %s\n", unsq_prog(o), a->path,
			strerror(errno));
		return -1;
	}
	if ((geteuid() == 0 && fchown(fd, a->info.uid, a->info.gid) != 0 &&
	     nonfatal(o, a->path, "setting the owner") != 0) ||
	    /* Not root: no owner set, so no set-id bits (as unsquashfs). */
	    (fchmod(fd, a->info.mode & (geteuid() == 0 ? 07777 : 01777)) != 0 &&
	     nonfatal(o, a->path, "setting the mode") != 0))
		goto fail;
	if (!o->no_xattrs && a->info.has_xattrs &&
	    sqp_image_xattrs(img, a->info.ref, &xs, &n) != 0) {
		fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img));
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		if ((o->user_xattrs && strncmp(xs[i].key, "user.", 5) != 0) ||
		    !unsq_xattr_keep((void *)o, xs[i].key))
			continue;
		if (fsetxattr(fd, xs[i].key, xs[i].value, xs[i].value_len, 0) != 0 &&
		    nonfatal(o, a->path, xs[i].key) != 0)
			goto fail;
	}
	ts[0].tv_sec = ts[1].tv_sec = (time_t)a->info.mtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	if (futimens(fd, ts) != 0 && nonfatal(o, a->path, "setting the times") != 0)
		goto fail;
	close(fd);
	return 0;
fail:
	close(fd);
	return -1;
}

/* What was made: c, less what was gone already. */
static void summary(const struct counts *c, const struct counts *gone)
{
	static const char *const what[][2] = {
		{ "file", "files" }, { "directory", "directories" },
		{ "symlink", "symlinks" }, { "device", "devices" },
		{ "fifo", "fifos" }, { "socket", "sockets" },
		{ "hardlink", "hardlinks" },
	};
	const unsigned long long n[] = { c->files - gone->files,
		c->dirs - gone->dirs, c->symlinks - gone->symlinks,
		c->devices - gone->devices, c->fifos - gone->fifos,
		c->sockets - gone->sockets, c->hardlinks - gone->hardlinks };

	putchar('\n');
	for (size_t i = 0; i < 7; i++)
		printf("created %llu %s\n", n[i], what[i][n[i] != 1]);
}

/* What img2dir's entered() drives as it makes each entry: the -i/-li
 * lines and the bar. The directories on the way to the selection, which
 * are not its entries, are printed in their turn of the walk's
 * pre-order: before the first entry that follows them. */
struct info_ctx {
	struct sqp_image *img;
	const struct unsq_opts *o;
	struct plan *p;
	size_t next;        /* the first of p->dirs not printed yet */
	struct unsq_progress *pg;
	uint32_t block_size;
};

/* The walk's pre-order: names in byte order, component by component,
 * a directory before what it holds ('/' sorts below every name byte,
 * the end of a path below '/'). */
static int walk_order(const char *a, const char *b)
{
	for (;; a++, b++) {
		int ca = *a == '/' ? 1 : *a ? (unsigned char)*a + 1 : 0;
		int cb = *b == '/' ? 1 : *b ? (unsigned char)*b + 1 : 0;

		if (ca != cb || ca == 0)
			return ca - cb;
	}
}

static int info_line(struct info_ctx *c, const char *path,
		     const struct sqp_inode_info *info)
{
	struct sqp_walk_entry e = { .struct_size = sizeof(e), .path = path,
				       .info = *info };

	return unsq_print_entry(c->img, c->o, &e, c->o->info - 1);
}

/* The directories on the way that come before path (NULL: all left). */
static int info_above(struct info_ctx *c, const char *path)
{
	int ret = 0;

	while (ret == 0 && c->next < c->p->ndirs &&
	       (path == NULL || walk_order(c->p->dirs[c->next].path, path) < 0)) {
		const struct above *a = &c->p->dirs[c->next++];

		ret = info_line(c, a->path, &a->info);
	}
	return ret;
}

static int on_entered(void *user, const char *path,
		      const struct sqp_inode_info *info)
{
	struct info_ctx *c = user;
	int ret = 0;

	/* The bar's units: an inode, and a regular file's blocks. */
	if (!S_ISDIR(info->mode))
		unsq_progress_add(c->pg, 1 + (S_ISREG(info->mode) ?
			(info->size + c->block_size - 1) / c->block_size : 0));
	if (c->o->info && (ret = info_above(c, path)) == 0)
		ret = info_line(c, path, info);
	return ret;
}

/* Not made, so not counted as created (unsquashfs counts what it made). */
static void on_skipped(void *user, const char *path, uint32_t mode)
{
	struct info_ctx *c = user;

	(void)path;
	if (mode == 0)
		c->p->c.hardlinks--;
	else if (S_ISREG(mode))
		c->p->c.files--;
	else if (S_ISDIR(mode))
		c->p->c.dirs--;
	else if (S_ISLNK(mode))
		c->p->c.symlinks--;
	else if (S_ISCHR(mode) || S_ISBLK(mode))
		c->p->c.devices--;
	else if (S_ISFIFO(mode))
		c->p->c.fifos--;
	else
		c->p->c.sockets--;
}

/* The directories on the way already in DEST: with -ignore-errors each
 * is warned about (neither it nor what it holds is made); without, the
 * first one ends the extraction in its turn, as in unsquashfs 4.5.1.
 * *stop is that one (p->ndirs: none); returns how many of p->paths come
 * before it, which are extracted. */
static size_t before_there(const struct unsq_opts *o, const struct plan *p,
			   size_t *stop)
{
	size_t n = 0;

	*stop = p->ndirs;
	for (size_t i = 0; i < p->ndirs; i++) {
		if (!p->dirs[i].there)
			continue;
		if (o->ignore_errors) {
			errno = EEXIST;
			(void)nonfatal(o, p->dirs[i].path, "making the directory");
		} else if (*stop == p->ndirs) {
			*stop = i;
		}
	}
	while (n < p->npaths && (*stop == p->ndirs ||
	       walk_order(p->paths[n], p->dirs[*stop].path) < 0))
		n++;
	return n;
}

static int run(struct sqp_image *img, const struct unsq_opts *o, int dest,
	       struct plan *p, struct unsq_progress *pg)
{
	struct sqp_image_info ii = { .struct_size = sizeof(ii) };
	struct info_ctx ic = { img, o, p, 0, pg, 0 };
	struct sqp_img2dir_desc xd = { sizeof(xd), o->jobs, 0, NULL, 0, unsq_xattr_keep,
				       (void *)o, on_entered, on_skipped, &ic };
	size_t stop = p->ndirs;
	int ret = 0;

	sqp_image_get_info(img, &ii);
	ic.block_size = ii.block_size;
	/* Each call costs a stat of the inode: only when something shows. */
	if (!o->info && !pg->live && !pg->percentage)
		xd.entered = NULL;

	xd.flags = (o->force ? SQP_IMG2DIR_FORCE : 0) |
		   (geteuid() != 0 ? SQP_IMG2DIR_NO_OWNER : 0) |
		   (o->no_xattrs ? SQP_IMG2DIR_NO_XATTRS : 0) |
		   (o->user_xattrs ? SQP_IMG2DIR_USER_XATTRS : 0) |
		   (o->strict ? SQP_IMG2DIR_STRICT : 0) | SQP_IMG2DIR_LENIENT |
		   (o->ignore_errors ? SQP_IMG2DIR_IGNORE_WRITES : 0);
	if (!p->whole) {
		xd.paths = (const char *const *)p->paths;
		xd.path_count = before_there(o, p, &stop);
	}
	if (p->whole || xd.path_count > 0)
		ret = sqp_image_to_dir(img, dest, &xd);
	if (ret == 0 && o->info)
		ret = info_above(&ic, stop < p->ndirs ? p->dirs[stop].path : NULL);
	if (ret == 0 && stop < p->ndirs) {
		/* Named, as unsquashfs names a directory before making it. */
		if (o->info)
			info_line(&ic, p->dirs[stop].path, &p->dirs[stop].info);
		fflush(stdout);
		fprintf(stderr, "%s: '%s': already exists (not replaced without "
			"-f)\n", unsq_prog(o), p->dirs[stop].path);
		return -1;
	}
	if (ret != 0) {
		fflush(stdout);
		fprintf(stderr, "%s: %s\n", unsq_prog(o), sqp_image_error(img)[0] ?
			sqp_image_error(img) : sqp_strerror(ret));
		return -1;
	}
	for (size_t i = p->ndirs; i-- > 0;)
		if (!p->dirs[i].there && fix_dir(img, o, dest, &p->dirs[i]) != 0)
			return -1;
	return 0;
}

/* With -i/-li, the line of DEST (the root), which unsquashfs prints
 * before it makes DEST: for an extraction that ends there. */
static void dest_line(struct sqp_image *img, const struct unsq_opts *o)
{
	struct sqp_walk_entry e = { .struct_size = sizeof(e), .path = "",
				       .name = "" };

	e.info.struct_size = sizeof(e.info);
	if (o->info && sqp_image_stat(img, sqp_image_root(img), &e.info) == 0)
		(void)unsq_print_entry(img, o, &e, o->info - 1);
	fflush(stdout);
}

/* DEST opened in *dest, made (or, already there, set) 0700 as unsquashfs
 * 4.5.1 does: it gets the image root's mode only once the extraction
 * ends, so one that stops leaves it so. 1; 0 when it cannot be made or
 * its mode changed (another user's) and -ignore-errors lets that pass
 * (nothing is then extracted); -1 when fatal. */
static int make_dest(struct sqp_image *img, const struct unsq_opts *o,
		     int *dest)
{
	const char *what;
	int err;

	*dest = -1;
	if (mkdir(o->dest, S_IRWXU) != 0 && errno != EEXIST)
		what = "making it";
	else if ((*dest = open(o->dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		what = "opening it";
	else if (fchmod(*dest, S_IRWXU) != 0)
		what = "making it writable";
	else
		return 1;
	err = errno;
	dest_line(img, o);
	errno = err;
	if (o->ignore_errors) {
		(void)nonfatal(o, o->dest, what);
		return 0;
	}
	fprintf(stderr, "%s: %s: %s: %s\n", unsq_prog(o), o->dest, what,
		strerror(err));
	return -1;
}

int unsq_extract(struct sqp_image *img, const struct unsq_opts *o)
{
	struct plan p;
	struct unsq_progress pg;
	int dest, writable, ret = 1;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned jobs = o->jobs ? o->jobs : cpus > 0 ? (unsigned)cpus : 1;

	memset(&p, 0, sizeof(p));
	p.dest = open(o->dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ret = walk(img, o, &p) != 0;
	if (p.dest >= 0)
		close(p.dest);
	if (ret != 0)
		goto out;
	ret = 1;
	if (!o->quiet) {
		printf("Parallel unsquashfs: Using %u processor%s\n", jobs,
		       jobs == 1 ? "" : "s");
		printf("%llu inodes (%llu blocks) to write\n\n",
		       p.c.files + p.c.symlinks + p.c.devices + p.c.fifos +
		       p.c.sockets + p.c.hardlinks, p.c.blocks);
	}
	fflush(stdout);
	unsq_progress_init(&pg, o, p.c.blocks + p.c.files + p.c.symlinks +
			   p.c.devices + p.c.fifos + p.c.sockets + p.c.hardlinks);
	writable = make_dest(img, o, &dest);
	if (writable == 0 || (writable == 1 && run(img, o, dest, &p, &pg) == 0)) {
		/* -i/-li turn unsquashfs's bar off, as -n does. */
		if ((!o->no_progress && !o->info) || o->percentage)
			(writable ? unsq_progress_end : unsq_progress_halt)(&pg);
		if (!writable)    /* nothing made */
			p.gone = p.c;
		if (!o->quiet)
			summary(&p.c, &p.gone);
		ret = unsq_warnings.count == 0 || o->no_exit_code ? 0 : 2;
	} else if (pg.live) {
		putchar('\n');     /* end the bar's line */
	}
	if (dest >= 0)
		close(dest);
out:
	plan_free(&p);
	if (fflush(stdout) != 0 || ferror(stdout))
		ret = 1;
	return ret;
}
