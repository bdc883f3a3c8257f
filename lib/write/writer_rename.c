/* SPDX-License-Identifier: MIT */
/*
 * writer_rename.c - sqp_writer_rename (writer.h): top-level names that
 * the entries added later take instead of their own.
 *
 * Why: mksquashfs, appending one source directory to an image, renames
 * each entry of that directory whose name the image's root already has
 * (NAME_1, NAME_2...). The directory packer scans and feeds the directory
 * as it is, its paths starting with the entry's own name, so the rename
 * happens here, where every entry enters the writer: after the policy has
 * seen the entry's own path, before desc.prefix moves it.
 *
 * Invariant: a renamed path is the new name followed by the rest of the
 * path, and a hard link's target is renamed the same way, so a link in a
 * renamed tree still finds its target. The spec's own entries are never
 * renamed (sqp_writer_add does not call this for them).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/array.h"
#include "write/writer_impl.h"

/* One path component: not empty, ".", ".." and without '/'. */
static int component_ok(const char *name)
{
	return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int sqp_writer_rename(struct sqp_writer *w, const char *name, const char *new_name)
{
	char **from, **to;
	size_t n = w->ren_count;

	if (w->err.code != 0)
		return w->err.code;
	if (w->finished)
		return writer_fail(w, SQP_ERR_SEQUENCE, "rename after finish");
	if (!component_ok(name) || !component_ok(new_name))
		return writer_fail(w, SQP_ERR_ARG, "rename '%s' to '%s': not names of "
				   "one path component", name ? name : "(null)",
				   new_name ? new_name : "(null)");
	if ((from = realloc(w->ren_from, (n + 1) * sizeof(*from))) == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	w->ren_from = from;
	if ((to = realloc(w->ren_to, (n + 1) * sizeof(*to))) == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	w->ren_to = to;
	from[n] = strdup(name);
	to[n] = strdup(new_name);
	if (from[n] == NULL || to[n] == NULL) {
		free(from[n]);
		free(to[n]);
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	}
	w->ren_count = n + 1;
	return 0;
}

/* *path renamed into *buf when its first component is renamed; the
 * last rename of a name counts. */
static int rename_path(struct sqp_writer *w, const char **path, char **buf,
		       size_t *cap)
{
	size_t len = strcspn(*path, "/"), i, to_len, need;
	char *p;

	for (i = w->ren_count; i-- > 0;)
		if (strlen(w->ren_from[i]) == len &&
		    memcmp(w->ren_from[i], *path, len) == 0)
			break;
	if (i == (size_t)-1)
		return 0;
	to_len = strlen(w->ren_to[i]);
	need = to_len + strlen(*path + len) + 1;
	if ((p = sqp_array_grow(*buf, cap, need, 1, 256)) == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	*buf = p;
	memcpy(*buf, w->ren_to[i], to_len);
	strcpy(*buf + to_len, *path + len);
	*path = *buf;
	return 0;
}

int writer_rename_entry(struct sqp_writer *w, struct sqp_entry *e)
{
	int ret = rename_path(w, &e->path, &w->rpath, &w->rpath_cap);

	if (ret != 0 || !e->is_hardlink || e->link_target == NULL)
		return ret;
	return rename_path(w, &e->link_target, &w->rtarget, &w->rtarget_cap);
}

void writer_rename_free(struct sqp_writer *w)
{
	for (size_t i = 0; i < w->ren_count; i++) {
		free(w->ren_from[i]);
		free(w->ren_to[i]);
	}
	free(w->ren_from);
	free(w->ren_to);
	free(w->rpath);
	free(w->rtarget);
}
