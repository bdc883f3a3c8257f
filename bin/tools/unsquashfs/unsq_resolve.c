/* SPDX-License-Identifier: MIT */
/*
 * unsq_resolve.c - a PATH resolved inside the image through the symbolic
 * links on it, for -cat, sqfscat and -follow-symlinks. On a usrmerge
 * system /bin is a link to usr/bin, so "/bin/true" names a file only
 * through a link; the library's lookup follows none.
 *
 * Resolution is the kernel's, with the image as the root (a chroot): a
 * link's target replaces the link and resolution goes on from there;
 * ".." is the parent of the directory reached (after a link, of where it
 * led, not of the link), and at the root stays there; an absolute target
 * starts again at the image's root. squashfs-tools 4.7's unsquashfs
 * follows relative links the same way but refuses absolute targets and
 * ".." above the root; 4.5.1 cannot follow any (each directory it opens
 * twice is "directory loop detected"). Images of root file systems hold
 * absolute links (/lib64/ld-linux-x86-64.so.2), which name their own
 * root, and nothing here can leave the image, so we follow them.
 *
 * Bounds, so that a hostile image costs little: more than UNSQ_LINKS
 * links on one path (a loop), a path or target of UNSQ_PATH_CAP bytes or
 * more, or more than RESOLVE_STEPS names looked up, and the PATH cannot
 * be resolved. Each listing on the way is read to its end (not only to
 * the name), so a hostile listing is refused as extraction refuses it,
 * wherever the name sits.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/sqpack.h"
#include "unsq.h"

#define UNSQ_LINKS 40           /* links on one path, as Linux's ELOOP */
#define RESOLVE_STEPS 8192      /* names looked up for one PATH */
#define RESOLVE_DEPTH (UNSQ_PATH_CAP / 2)  /* "a/" at least per level */

/* The walk: the directories from the root to where it stands. */
struct walk {
	struct sqp_image *img;
	struct unsq_resolved *res;  /* path, ref, mode: where it stands */
	int (*on_link)(void *user, const char *path);
	void *user;
	uint64_t refs[RESOLVE_DEPTH];
	size_t ends[RESOLVE_DEPTH];  /* res->path's length at each level */
	size_t depth;                /* 0: at the root */
	unsigned links, steps;
};

/* The entry name (len bytes) of directory dir, its whole listing read.
 * 1 found, 0 not, or an error of the image. */
static int child(struct sqp_image *img, uint64_t dir, const char *name,
		 size_t len, uint64_t *ref)
{
	struct sqp_dirent e = { .struct_size = sizeof(e) };
	struct sqp_dir *d = NULL;
	int found = 0, ret = sqp_dir_open(img, dir, &d);

	while (ret == 0 && (ret = sqp_dir_next(d, &e)) == 1) {
		ret = 0;
		if (!found && strlen(e.name) == len && memcmp(e.name, name, len) == 0) {
			found = 1;
			*ref = e.ref;
		}
	}
	sqp_dir_close(d);
	return ret < 0 ? ret : found;
}

static void to_root(struct walk *w)
{
	w->depth = 0;
	w->res->path[0] = '\0';
	w->res->ref = w->refs[0];
	w->res->mode = S_IFDIR;
}

static void up(struct walk *w)
{
	if (w->depth > 0)
		w->depth--;
	w->res->path[w->ends[w->depth]] = '\0';
	w->res->ref = w->refs[w->depth];
	w->res->mode = S_IFDIR;
}

/* Step into the entry name (len bytes) of the directory where w stands.
 * 0, UNSQ_RES_MISSING (why set), or an error of the image. */
static int down(struct walk *w, const char *name, size_t len)
{
	struct sqp_inode_info info = { .struct_size = sizeof(info) };
	struct unsq_resolved *r = w->res;
	size_t at = w->ends[w->depth];
	uint64_t ref = 0;
	int ret;

	if (++w->steps > RESOLVE_STEPS || w->depth + 1 >= RESOLVE_DEPTH ||
	    at + 1 + len >= UNSQ_PATH_CAP) {
		r->why = "the path is too long";
		return UNSQ_RES_MISSING;
	}
	if ((ret = child(w->img, r->ref, name, len, &ref)) < 0)
		return ret;
	if (ret == 0) {
		r->why = "no such entry";
		return UNSQ_RES_MISSING;
	}
	if ((ret = sqp_image_stat(w->img, ref, &info)) < 0)
		return ret;
	if (at > 0)
		r->path[at++] = '/';
	memcpy(r->path + at, name, len);
	r->path[at + len] = '\0';
	w->refs[++w->depth] = ref;
	w->ends[w->depth] = at + len;
	r->ref = ref;
	r->mode = info.mode;
	return 0;
}

static int walk(struct walk *w, const char *text, int named);

/* w stands on a link: told, then replaced by where its target leads.
 * 0, UNSQ_RES_BROKEN (why set), or an error. */
static int through(struct walk *w)
{
	struct unsq_resolved *r = w->res;
	char *target;
	int n, ret;

	if (w->on_link != NULL && (ret = w->on_link(w->user, r->path)) != 0)
		return ret;
	if (++w->links > UNSQ_LINKS) {
		r->why = "too many levels of symbolic links";
		return UNSQ_RES_BROKEN;
	}
	if ((target = malloc(UNSQ_PATH_CAP)) == NULL)
		return SQP_ERR_NOMEM;
	n = sqp_image_readlink(w->img, r->ref, target, UNSQ_PATH_CAP);
	if (n >= UNSQ_PATH_CAP) {
		r->why = "a symbolic link's target is too long";
		n = UNSQ_RES_BROKEN;
	} else if (n == 0) {
		r->why = "no such entry";   /* an empty target, as Linux */
		n = UNSQ_RES_BROKEN;
	} else if (n > 0) {
		up(w);
		n = walk(w, target, 0);
	}
	free(target);
	return n;
}

/* Walk text from where w stands. named: text is the PATH itself, whose
 * failures are told by kind, with res->at and res->via_link; below a
 * link every failure is UNSQ_RES_BROKEN. */
static int walk(struct walk *w, const char *text, int named)
{
	struct unsq_resolved *r = w->res;
	const char *p = text;
	int ret;

	if (*p == '/')
		to_root(w);
	while (*(p += strspn(p, "/")) != '\0') {
		const char *name = p;
		size_t len = strcspn(p, "/");

		p += len;
		if (named) {
			r->at = (size_t)(p - text);
			r->via_link = 0;
		}
		if (len == 1 && name[0] == '.')
			continue;
		if (len == 2 && name[0] == '.' && name[1] == '.') {
			up(w);
			continue;
		}
		if ((ret = down(w, name, len)) != 0)
			return ret < 0 || named ? ret : UNSQ_RES_BROKEN;
		if (S_ISLNK(r->mode)) {
			if ((ret = through(w)) != 0)
				return ret;
			r->via_link = named;
		}
		if (p[strspn(p, "/")] != '\0' && !S_ISDIR(r->mode)) {
			r->why = "not a directory";
			return !named ? UNSQ_RES_BROKEN : r->via_link ?
				UNSQ_RES_LINK_NOTDIR : UNSQ_RES_NOTDIR;
		}
	}
	return 0;
}

int unsq_resolve(struct sqp_image *img, const char *path,
		 struct unsq_resolved *res,
		 int (*on_link)(void *user, const char *path), void *user)
{
	struct walk *w = malloc(sizeof(*w));
	int ret;

	if (w == NULL)
		return SQP_ERR_NOMEM;
	w->img = img;
	w->res = res;
	w->on_link = on_link;
	w->user = user;
	w->refs[0] = sqp_image_root(img);
	w->ends[0] = 0;
	w->links = w->steps = 0;
	res->at = 0;
	res->via_link = 0;
	res->why = NULL;
	to_root(w);
	ret = walk(w, path, 1);
	free(w);
	return ret;
}
