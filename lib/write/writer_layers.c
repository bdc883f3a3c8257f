/* SPDX-License-Identifier: MIT */
/*
 * writer_layers.c - the writer's side of layers: begin_layer, whiteouts
 * (called, or read from OCI markers among the entries) and the check
 * that drops an entry an upper layer hides before its data is read.
 *
 * The rules themselves are the tree's (fstree_layers.c); this file turns
 * them into the public calls and into messages that name the entry.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "write/writer_impl.h"

/* The marker prefix and the opaque marker's name (OCI image-spec,
 * layer.md, "Whiteouts"). */
#define WH_PREFIX ".wh."
#define WH_OPAQUE ".wh..wh..opq"

static int usable(struct sqp_writer *w)
{
	if (w->err.code != 0)
		return w->err.code;
	if (w->finished)
		return writer_fail(w, SQP_ERR_SEQUENCE, "layer or whiteout after finish");
	return 0;
}

static int tree_result(struct sqp_writer *w, int ret)
{
	if (ret == 0)
		return 0;
	return w->err.code ? w->err.code : writer_fail(w, ret, "%s", sqp_strerror(ret));
}

int sqp_writer_begin_layer(struct sqp_writer *w)
{
	int ret = usable(w);

	if (ret == 0)
		ret = tree_result(w, fstree_next_layer(&w->tree));
	if (ret == 0)
		writer_links_next_layer(w);
	return ret;
}

/* *buf (capacity *cap) = prefix/path, or prefix for the root path "". */
static int below(struct sqp_writer *w, char **buf, size_t *cap, const char *path)
{
	size_t plen = strlen(w->desc.prefix), len = strlen(path);
	char *p = sqp_array_grow(*buf, cap, plen + 1 + len + 1, 1, 256);

	if (p == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	*buf = p;
	memcpy(*buf, w->desc.prefix, plen);
	if (len > 0) {
		(*buf)[plen] = '/';
		memcpy(*buf + plen + 1, path, len + 1);
	} else {
		(*buf)[plen] = '\0';
	}
	return 0;
}

int writer_prefix_path(struct sqp_writer *w, const char **path)
{
	int ret = below(w, &w->ppath, &w->ppath_cap, *path);

	if (ret == 0)
		*path = w->ppath;
	return ret;
}

int writer_prefix_entry(struct sqp_writer *w, struct sqp_entry *e)
{
	int ret = writer_prefix_path(w, &e->path);

	if (ret != 0 || !e->is_hardlink || e->link_target == NULL)
		return ret;
	ret = below(w, &w->ptarget, &w->ptarget_cap, e->link_target);
	if (ret == 0)
		e->link_target = w->ptarget;
	return ret;
}

int writer_path_ok(const char *path)
{
	const char *p = path, *end;

	if (path[0] == '\0')
		return 1;
	for (;;) {
		end = strchr(p, '/');
		if (end == NULL)
			end = p + strlen(p);
		if (end == p || (end - p == 1 && p[0] == '.') ||
		    (end - p == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (*end == '\0')
			return 1;
		p = end + 1;
	}
}

int sqp_writer_whiteout(struct sqp_writer *w, const char *path, int opaque)
{
	int ret = usable(w);

	if (ret != 0)
		return ret;
	if (path == NULL)
		return writer_fail(w, SQP_ERR_ARG, "whiteout without a path");
	if (path[0] == '\0' && !opaque)
		return writer_fail(w, SQP_ERR_ARG, "a whiteout of the root directory");
	if (w->desc.prefix != NULL && (ret = writer_prefix_path(w, &path)) != 0)
		return ret;
	if (!opaque && (ret = writer_links_check(w, path)) != 0)
		return ret;
	return tree_result(w, fstree_whiteout(&w->tree, path, opaque));
}

/* w->lpath = path[0..dir_len) joined with name ("" dir: name alone). */
static int join(struct sqp_writer *w, const char *path, size_t dir_len, const char *name)
{
	size_t need = dir_len + 1 + strlen(name) + 1;

	if (need > w->lpath_cap) {
		char *p = realloc(w->lpath, need);

		if (p == NULL)
			return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
		w->lpath = p;
		w->lpath_cap = need;
	}
	memcpy(w->lpath, path, dir_len);
	if (dir_len > 0)
		w->lpath[dir_len++] = '/';
	strcpy(w->lpath + dir_len, name);
	return 0;
}

int writer_oci_marker(struct sqp_writer *w, const struct sqp_entry *e)
{
	const char *slash = strrchr(e->path, '/');
	const char *name = slash ? slash + 1 : e->path;
	size_t dir_len = slash ? (size_t)(slash - e->path) : 0;
	int ret;

	if (strncmp(name, WH_PREFIX, strlen(WH_PREFIX)) != 0)
		return 0;
	if (strcmp(name, WH_OPAQUE) == 0) {
		ret = join(w, e->path, dir_len, "");
		if (ret == 0 && dir_len > 0)
			w->lpath[dir_len] = '\0'; /* the directory itself */
		return ret != 0 ? ret : sqp_writer_whiteout(w, w->lpath, 1) == 0 ? 1 :
		       w->err.code;
	}
	name += strlen(WH_PREFIX);
	if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return writer_fail(w, SQP_ERR_BAD_TAR, "'%s': a whiteout without a name",
				   e->path);
	ret = join(w, e->path, dir_len, name);
	if (ret == 0)
		ret = sqp_writer_whiteout(w, w->lpath, 0);
	return ret != 0 ? ret : 1;
}

int writer_shadowed(struct sqp_writer *w, const struct sqp_entry *e)
{
	int ret = fstree_shadowed(&w->tree, e->path, S_ISDIR(e->mode) && !e->is_hardlink);

	if (ret < 0)
		return tree_result(w, ret);
	return ret > 0 ? SQP_ADD_SHADOWED : 0;
}

int writer_skip(struct sqp_writer *w, const struct sqp_entry *e,
		const struct sqp_data_source *data)
{
	int ret = 0;

	/* A later link of this layer to it must not bind to a lower file:
	 * it takes this one's data, kept (writer_kept.c) where it can be. */
	if (S_ISREG(e->mode) && !e->is_hardlink) {
		ret = writer_links_skipped(w, e->path);
		if (ret == 0)
			ret = writer_kept_add(w, e, data);
	}
	w->stats.entries_shadowed++;
	return ret != 0 ? ret : SQP_ADD_SHADOWED;
}
