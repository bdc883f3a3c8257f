/* SPDX-License-Identifier: MIT */
/*
 * writer_policy.c - the policy's transforms on the entries the writer
 * takes, and its security attributes (policy.h: fs_config, SELinux
 * labels) on the directories no entry named.
 *
 * Why the implied directories too: a tar need not list the root or a
 * file's parents, and an Android or SELinux image must not have
 * directories the two files never saw (an unlabeled root is refused
 * access under an enforcing policy). The owner and time options keep
 * leaving them alone, as before.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "sqpack/policy.h"
#include "write/writer_impl.h"

/* The labels and capabilities of e into w->pxattrs (e->xattrs point
 * there after). */
static int security_xattrs(struct sqp_writer *w, struct sqp_entry *e)
{
	int ret;

	if (w->pxattrs == NULL && (w->pxattrs = calloc(1, sizeof(*w->pxattrs))) == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	ret = sqp_policy_xattrs(w->desc.policy, e, w->pxattrs);
	if (ret != 0)
		return writer_fail(w, ret, "'%s': its SELinux label: %s", e->path,
				   sqp_strerror(ret));
	return 0;
}

int writer_apply_policy(struct sqp_writer *w, struct sqp_entry *e)
{
	const struct sqp_policy *p = w->desc.policy;
	int ret = sqp_policy_apply(p, e);

	if (ret == SQP_ERR_NOT_FOUND)
		return writer_fail(w, ret, "'%s' is not in the fs_config file", e->path);
	if (ret != 0 || e->is_hardlink || !sqp_policy_has_xattrs(p))
		return ret;
	return security_xattrs(w, e);
}

/* The path of node i (the root's is ""), malloc'ed; NULL when out of
 * memory. Built backwards: each name goes in front of its children's. */
static char *node_path(const struct sqp_writer *w, uint32_t i)
{
	size_t len = 0, cap = 64, n;
	char *buf = malloc(cap), *grown;
	const struct fs_node *node;

	for (; buf != NULL && i != 0; i = node->parent) {
		const char *name;

		node = fstree_node(&w->tree, i);
		name = fstree_name(&w->tree, node);
		n = strlen(name);
		if (len + n + 2 > cap) {
			cap = 2 * (len + n + 2);
			if ((grown = realloc(buf, cap)) == NULL)
				free(buf);
			buf = grown;
			if (buf == NULL)
				return NULL;
		}
		memmove(buf + n + 1, buf, len);
		buf[0] = '/';
		memcpy(buf + 1, name, n);
		len += n + 1;
	}
	if (buf == NULL)
		return NULL;
	buf[len] = '\0';
	if (len > 0)
		memmove(buf, buf + 1, len);   /* no leading '/' */
	return buf;
}

/* One implied directory, as an entry of the tree's defaults would be. */
static int implied_dir(struct sqp_writer *w, struct fs_irec *ino, const char *path)
{
	struct sqp_entry e = { .struct_size = sizeof(e), .path = path, .mode = ino->mode,
			       .uid = ino->uid, .gid = ino->gid };
	struct fs_attr attr;
	int ret = sqp_policy_fs_config(w->desc.policy, &e);

	if (ret != 0)
		return writer_fail(w, ret, "'%s' (a directory the input implies) is not in "
				   "the fs_config file", path);
	if ((ret = security_xattrs(w, &e)) != 0)
		return ret;
	attr.mode = e.mode;
	attr.uid = (uint32_t)e.uid;
	attr.gid = (uint32_t)e.gid;
	attr.mtime = ino->mtime;
	attr.mtime_nsec = ino->mtime_nsec;
	attr.xattr_set = WR_NO_XATTR;
	if (e.xattr_count > 0 && !(w->desc.flags & SQP_WRITE_NO_XATTRS) &&
	    (ret = xattr_store_intern(&w->xattrs, path, e.xattrs, e.xattr_count,
				      &attr.xattr_set)) != 0)
		return w->err.code ? w->err.code : writer_fail(w, ret, "'%s': %s", path,
							       sqp_strerror(ret));
	if (w->fmt->check_owners(w, path, attr.uid, attr.gid) != 0)
		return w->err.code;
	fstree_set_attr(ino, &attr);
	return 0;
}

int writer_policy_implied(struct sqp_writer *w)
{
	const struct sqp_policy *p = w->desc.policy;
	struct fs_irec *ino;
	uint32_t i;
	char *path;
	int ret;

	if (p == NULL || !sqp_policy_has_xattrs(p))
		return 0;
	for (i = 0; i < w->tree.nodes.count; i++) {
		const struct fs_node *n = fstree_node(&w->tree, i);

		if (n->inode >= FS_DEAD)
			continue;
		ino = fstree_inode(&w->tree, n->inode);
		if (!ino->implied || !S_ISDIR(ino->mode))
			continue;
		if ((path = node_path(w, i)) == NULL)
			return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
		ret = implied_dir(w, ino, path);
		free(path);
		if (ret != 0)
			return ret;
	}
	return 0;
}

void writer_policy_free(struct sqp_writer *w)
{
	if (w->pxattrs != NULL)
		sqp_policy_xattrs_free(w->pxattrs);
	free(w->pxattrs);
}
