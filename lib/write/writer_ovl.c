/* SPDX-License-Identifier: MIT */
/*
 * writer_ovl.c - OCI whiteout markers stored in overlayfs's form
 * (SQP_WRITE_OVERLAY_WHITEOUTS, mkfs.erofs --aufs): the image is one
 * layer, to be mounted as an overlay's lower directory, so nothing is
 * deleted here; the markers become what overlayfs reads.
 *
 * A ".wh.NAME" entry is turned into NAME, a character device 0/0, as it
 * comes. The xattrs go on directories that are usually added before
 * their markers (a tar lists a directory, then its contents), so their
 * paths are kept and the xattrs set when every entry is in, before the
 * tree is finalized.
 *
 * SQP_WRITE_OVERLAY_STRIP (mkfs.erofs --ovlfs-strip) is the opposite
 * wish: the image is a tree of its own, so whiteouts and the opaque
 * mark are left out. mkfs.erofs strips them from its finished tree;
 * here each entry is judged as it comes, which is the same tree unless
 * a whiteout names an entry added before it in the same input.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "write/writer_impl.h"

#define WH_PREFIX ".wh."
#define WH_OPAQUE ".wh..wh..opq"

/* overlayfs's names (fs/overlayfs/overlayfs.h, trusted namespace, which
 * is what mkfs.erofs writes). */
#define OVL_OPAQUE "trusted.overlay.opaque"
#define OVL_ORIGIN "trusted.overlay.origin"

struct writer_ovl_mark {
	char *dir;      /* the directory's path in the image */
	int opaque;     /* 1: opaque, 0: holds a whiteout (origin) */
};

/* Keep directory dir (dir_len bytes of the marker's path) for an xattr,
 * renamed and below the prefix as its own entry was. */
static int mark(struct sqp_writer *w, const char *dir, size_t dir_len, int opaque)
{
	struct sqp_entry d = { .struct_size = sizeof(d), .mode = S_IFDIR | 0755 };
	struct writer_ovl_mark *m;
	char *path = malloc(dir_len + 1);
	int ret = 0;

	if (path == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	memcpy(path, dir, dir_len);
	path[dir_len] = '\0';
	d.path = path;
	if (w->ren_count > 0)
		ret = writer_rename_entry(w, &d);
	if (ret == 0 && w->desc.prefix != NULL)
		ret = writer_prefix_path(w, &d.path);
	if (ret == 0 && d.path != path) {
		char *p = strdup(d.path);

		free(path);
		if ((path = p) == NULL)
			ret = writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	if (ret != 0) {
		free(path);
		return ret;
	}
	m = sqp_array_grow(w->ovl, &w->ovl_cap, w->ovl_count + 1, sizeof(*m), 16);
	if (m == NULL) {
		free(path);
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	w->ovl = m;
	m[w->ovl_count].dir = path;
	m[w->ovl_count++].opaque = opaque;
	return 0;
}

int writer_ovl_marker(struct sqp_writer *w, struct sqp_entry *e)
{
	const char *slash = strrchr(e->path, '/');
	const char *name = slash ? slash + 1 : e->path;
	size_t dir_len = slash ? (size_t)(slash - e->path) : 0, need;
	char *p;
	int ret, strip;

	if (strncmp(name, WH_PREFIX, strlen(WH_PREFIX)) != 0)
		return 0;
	strip = (w->desc.flags & SQP_WRITE_OVERLAY_STRIP) != 0;
	if (strcmp(name, WH_OPAQUE) == 0) {
		/* stripped too, its directory is still implied */
		ret = mark(w, e->path, dir_len, 1);
		return ret != 0 ? ret : 2;
	}
	name += strlen(WH_PREFIX);
	if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return writer_fail(w, SQP_ERR_BAD_TAR, "'%s': a whiteout without a name",
				   e->path);
	if (strip)
		return 2;
	if ((ret = mark(w, e->path, dir_len, 0)) != 0)
		return ret;
	need = dir_len + 1 + strlen(name) + 1;
	if (need > w->opath_cap) {
		if ((p = realloc(w->opath, need)) == NULL)
			return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
		w->opath = p;
		w->opath_cap = need;
	}
	memcpy(w->opath, e->path, dir_len);
	strcpy(w->opath + dir_len + (dir_len > 0), name);
	if (dir_len > 0)
		w->opath[dir_len] = '/';
	/* No permission bits, as overlayfs makes its own whiteouts and
	 * mkfs.erofs 1.9 stores them; the marker's owner, time and xattrs
	 * stay. A marker stored as a hard link is one whiteout more, not
	 * a link. */
	e->path = w->opath;
	e->mode = S_IFCHR;
	e->size = 0;
	e->dev_major = e->dev_minor = 0;
	e->link_target = NULL;
	e->is_hardlink = 0;
	e->sparse = NULL;
	e->sparse_count = 0;
	return 1;
}

int writer_ovl_strip(struct sqp_writer *w, struct sqp_entry *e)
{
	struct sqp_xattr *kept;
	size_t i, n = 0;

	/* overlayfs's whiteout; a hard link to one is left to fail as a
	 * link to a name that is not there. */
	if (S_ISCHR(e->mode) && e->dev_major == 0 && e->dev_minor == 0 && !e->is_hardlink)
		return 1;
	for (i = 0; i < e->xattr_count; i++)
		if (strcmp(e->xattrs[i].key, OVL_OPAQUE) == 0)
			break;
	if (i == e->xattr_count)
		return 0;
	kept = sqp_array_grow(w->oxattrs, &w->oxattrs_cap, e->xattr_count,
			      sizeof(*kept), 8);
	if (kept == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	w->oxattrs = kept;
	for (i = 0; i < e->xattr_count; i++)
		if (strcmp(e->xattrs[i].key, OVL_OPAQUE) != 0)
			kept[n++] = e->xattrs[i];
	e->xattrs = kept;
	e->xattr_count = n;
	return 0;
}

int writer_ovl_apply(struct sqp_writer *w)
{
	static const uint8_t yes[] = "y";
	struct writer_ovl_mark *m;
	struct fs_irec *ino;
	struct fs_attr attr;
	uint32_t node;
	size_t i;
	int ret;

	for (i = 0; i < w->ovl_count; i++) {
		m = &w->ovl[i];
		/* An opaque marker alone implies its directory, as in
		 * mkfs.erofs. Else not there: excluded by the policy, or
		 * not a directory (a later entry replaced it); nothing to
		 * mark. */
		ino = fstree_find(&w->tree, m->dir);
		if (ino == NULL && m->opaque) {
			if (fstree_dir(&w->tree, m->dir, strlen(m->dir), m->dir, &node) != 0)
				return w->err.code;
			ino = fstree_find(&w->tree, m->dir);
		}
		if (ino == NULL || !S_ISDIR(ino->mode) ||
		    (w->desc.flags & (SQP_WRITE_NO_XATTRS | SQP_WRITE_OVERLAY_STRIP)))
			continue;
		attr.mode = ino->mode;
		attr.uid = ino->uid;
		attr.gid = ino->gid;
		attr.mtime = ino->mtime;
		attr.mtime_nsec = ino->mtime_nsec;
		ret = xattr_store_with(&w->xattrs, m->dir, ino->xattr_set,
				       m->opaque ? OVL_OPAQUE : OVL_ORIGIN, yes,
				       m->opaque ? 1 : 0, &attr.xattr_set);
		if (ret != 0)
			return w->err.code ? w->err.code : ret;
		fstree_set_attr(ino, &attr);
	}
	return 0;
}

void writer_ovl_free(struct sqp_writer *w)
{
	for (size_t i = 0; i < w->ovl_count; i++)
		free(w->ovl[i].dir);
	free(w->ovl);
	free(w->opath);
	free(w->oxattrs);
}
