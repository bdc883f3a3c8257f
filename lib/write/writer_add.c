/* SPDX-License-Identifier: MIT */
/*
 * writer_add.c - taking one entry into the image.
 *
 * Attributes are checked against what the tree can hold (32-bit owners,
 * 64-bit times with nanoseconds, 32-bit device numbers), then against the
 * format's own limits (the back end's check_entry), before anything is
 * stored, so a bad entry fails with its own name in the message.
 *
 * A policy (policy.h), when given, sees every entry here, in the one place
 * both packers go through; only the policy's own spec entries, added by
 * finish, bypass it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "sqpack/policy.h"
#include "util/abi.h"
#include "write/basecopy.h"
#include "write/words.h"
#include "write/writer_impl.h"

static void warn(struct sqp_writer *w, const char *fmt, const char *path)
{
	char msg[600];

	if (w->desc.warn == NULL)
		return;
	snprintf(msg, sizeof(msg), fmt, path);
	w->desc.warn(w->desc.warn_user, msg);
}

static int convert_attrs(struct sqp_writer *w, const struct sqp_entry *e,
			 struct fs_attr *a)
{
	int ret;

	if (e->uid > UINT32_MAX || e->gid > UINT32_MAX)
		return writer_fail(w, SQP_ERR_LIMIT, "'%s': uid/gid %llu/%llu does not fit "
				   "in 32 bits", e->path, (unsigned long long)e->uid,
				   (unsigned long long)e->gid);
	if (e->mtime_nsec >= 1000000000u)
		return writer_fail(w, SQP_ERR_ARG, "'%s': %u nanoseconds is more than a "
				   "second", e->path, e->mtime_nsec);
	a->mode = e->mode;
	a->uid = (uint32_t)e->uid;
	a->gid = (uint32_t)e->gid;
	a->mtime = e->mtime;
	a->mtime_nsec = e->mtime_nsec;
	a->xattr_set = WR_NO_XATTR;
	if ((ret = w->fmt->check_entry(w, e, a)) != 0)
		return ret;
	if (a->mtime > w->newest_mtime)
		w->newest_mtime = a->mtime;
	if (e->xattr_count > 0 && !(w->desc.flags & SQP_WRITE_NO_XATTRS))
		return xattr_store_intern(&w->xattrs, e->path, e->xattrs,
					  e->xattr_count, &a->xattr_set);
	return 0;
}

static int fill_special(struct sqp_writer *w, const struct sqp_entry *e,
			struct fs_irec *ino)
{
	switch (e->mode & S_IFMT) {
	case S_IFLNK:
		if (e->link_target == NULL || e->link_target[0] == '\0')
			return writer_fail(w, SQP_ERR_BAD_TAR, "'%s': symlink without a target",
					   e->path);
		return fstree_set_target(&w->tree, ino, e->link_target);
	case S_IFBLK:
	case S_IFCHR:
		ino->u.dev.major = e->dev_major;
		ino->u.dev.minor = e->dev_minor;
		return 0;
	case S_IFDIR:
	case S_IFIFO:
	case S_IFSOCK:
		return 0;
	default:
		return writer_fail(w, SQP_ERR_UNSUPPORTED, "'%s': unknown file type 0%o",
				   e->path, (unsigned)(e->mode & S_IFMT));
	}
}

/* The data source as the pipe sees it: counts bytes for the progress
 * callback. */
struct counted_source {
	struct sqp_writer *w;
	const struct sqp_data_source *inner;
};

static int counted_read(void *user, void *buf, size_t n)
{
	struct counted_source *c = user;
	int ret = c->inner->read(c->inner->user, buf, n);

	if (ret == 0) {
		c->w->bytes_read += n;
		c->w->desc.progress(c->w->desc.progress_user, c->w->entries_added,
				    c->w->bytes_read);
	}
	return ret;
}

static uint64_t counted_hole(void *user)
{
	struct counted_source *c = user;

	return c->inner->hole ? c->inner->hole(c->inner->user) : 0;
}

static int counted_skip(void *user, uint64_t n)
{
	struct counted_source *c = user;
	int ret = c->inner->skip(c->inner->user, n);

	if (ret == 0)
		c->w->bytes_read += n;
	return ret;
}

int writer_read_filled(const struct sqp_data_source *src, void *buf, size_t n)
{
	uint8_t *p = buf;
	uint64_t hole;
	size_t k;
	int ret;

	while (n > 0) {
		hole = src->hole != NULL && src->skip != NULL ? src->hole(src->user) : 0;
		if (hole == 0)    /* data next: read the rest, holes in it too */
			return src->read(src->user, p, n);
		k = hole < n ? (size_t)hole : n;
		if ((ret = src->skip(src->user, k)) != 0)
			return ret;
		memset(p, 0, k);
		p += k;
		n -= k;
	}
	return 0;
}

int writer_size_seen(const struct sqp_writer *w, uint64_t size)
{
	return hchain_first(&w->layer_sizes, size) != HCHAIN_END;
}

static int note_size(struct sqp_writer *w, uint64_t size)
{
	if (size == 0 || !w->tree.layered || !w->pipe.dedup || writer_size_seen(w, size))
		return 0;
	if ((w->layer_sizes.buckets == 0 && hchain_init(&w->layer_sizes, NULL) != 0) ||
	    hchain_insert(&w->layer_sizes, size) != 0)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

static int add_file_data(struct sqp_writer *w, const struct sqp_entry *e,
			 struct fs_irec *ino, const struct sqp_data_source *data)
{
	struct counted_source cs = { .w = w, .inner = data };
	struct sqp_data_source wrapped = {
		.read = counted_read, .user = &cs,
		.hole = data && data->hole ? counted_hole : NULL,
		.skip = data && data->skip ? counted_skip : NULL,
	};
	struct fs_inode file;
	int ret;

	if (e->size > 0 && (data == NULL || data->read == NULL))
		return writer_fail(w, SQP_ERR_ARG, "'%s': no data source", e->path);
	if (w->desc.progress != NULL && data != NULL)
		data = &wrapped;
	/* The pipe fills in the full record; the tree keeps it packed. */
	memset(&file, 0, sizeof(file));
	ret = w->fmt->add_file(w, e, ino, data, &file);
	if (fstree_file_set(&w->tree, ino, &file) != 0 && ret == 0)
		ret = w->err.code;
	if (ret != 0 && w->err.code == 0)
		writer_fail(w, ret, "'%s': reading the file's data: %s", e->path,
			    sqp_strerror(ret));
	if (ret == 0)
		ret = note_size(w, e->size);
	return ret != 0 ? w->err.code : 0;
}

/* A base image's file: its stored blocks as they are (basecopy.h, or
 * the back end's add_base). */
static int add_base_data(struct sqp_writer *w, const struct sqp_entry *e,
			 struct fs_irec *ino, const struct writer_base *b)
{
	struct fs_inode file;
	int ret;

	memset(&file, 0, sizeof(file));
	ret = b->copy != NULL ? datapipe_add_base(&w->pipe, b->copy, &file, b->file) :
	      w->fmt->add_base(w, e, ino, b, &file);
	if (fstree_file_set(&w->tree, ino, &file) != 0 && ret == 0)
		ret = w->err.code;
	if (ret == SQP_ERR_CORRUPT && w->err.code == 0)
		return writer_fail(w, ret, "'%s': the base image's block list or "
				   "fragment does not fit the base image", e->path);
	if (ret != 0)
		return writer_fail(w, ret, "'%s': %s", e->path, sqp_strerror(ret));
	w->bytes_read += e->size;
	return 0;
}

int writer_add_entry(struct sqp_writer *w, const struct sqp_entry *e,
		     const struct sqp_data_source *data)
{
	struct fs_irec *ino;
	struct fs_attr attr;
	int ret;

	if (e->is_hardlink && w->tree.layered)
		return writer_link(w, e);
	if (e->is_hardlink)
		return fstree_link(&w->tree, e->path, e->link_target ? e->link_target : "");

	ret = convert_attrs(w, e, &attr);
	if (ret == 0)
		ret = fstree_add(&w->tree, e->path, &attr, &ino);
	if (ret != 0)
		return w->err.code ? w->err.code : writer_fail(w, ret, "'%s': %s",
							      e->path, sqp_strerror(ret));
	if (!S_ISREG(e->mode))
		return fill_special(w, e, ino);
	if (w->base_file != NULL)
		return add_base_data(w, e, ino, w->base_file);
	return add_file_data(w, e, ino, data);
}

int sqp_writer_add(struct sqp_writer *w, const struct sqp_entry *e,
		   const struct sqp_data_source *data)
{
	struct sqp_entry copy;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (w->finished)
		return writer_fail(w, SQP_ERR_SEQUENCE, "entry added after finish");
	if ((ret = sqp_abi_in(&w->err, "sqp_entry", &copy, sizeof(copy),
			      SQP_SIZE_TO(struct sqp_entry, sparse_count), e)) != 0)
		return ret;
	e = &copy; /* the caller's struct only up to its size */
	if (e->path == NULL)
		return writer_fail(w, SQP_ERR_ARG, "entry without a path");
	/* entry.h's contract, checked here for every format: a path of
	 * ".." parts would name something outside the image's root. */
	if (!writer_path_ok(e->path))
		return writer_fail(w, SQP_ERR_ARG, "'%s': not a normalised relative path",
				   e->path);
	if (e->is_hardlink && e->link_target != NULL && !writer_path_ok(e->link_target))
		return writer_fail(w, SQP_ERR_ARG, "hard link '%s' -> '%s': the target is "
				   "not a normalised relative path", e->path, e->link_target);
	if ((w->desc.flags & SQP_WRITE_OCI_WHITEOUTS) && !w->adding_extras) {
		ret = writer_oci_marker(w, e);
		if (ret != 0)
			return ret < 0 ? ret : 0;
	} else if ((w->desc.flags & SQP_WRITE_OVERLAY_WHITEOUTS) && !w->adding_extras) {
		ret = writer_ovl_marker(w, &copy);
		if (ret != 0 && ret != 1)
			return ret < 0 ? ret : 0;
	}
	if ((w->desc.flags & SQP_WRITE_OVERLAY_STRIP) && !w->adding_extras &&
	    (ret = writer_ovl_strip(w, &copy)) != 0)
		return ret < 0 ? ret : 0;
	if (w->desc.policy != NULL && !w->adding_extras && !w->policy_off) {
		ret = writer_apply_policy(w, &copy);
		if (ret != 0)
			return ret < 0 ? ret : 0;  /* excluded: a tar reader skips the data */
	}
	if (w->ren_count > 0 && !w->adding_extras &&
	    (ret = writer_rename_entry(w, &copy)) != 0)
		return ret;
	if (w->desc.prefix != NULL && !w->adding_extras) {
		ret = writer_prefix_entry(w, &copy);
		if (ret != 0)
			return ret;
	}
	/* The spec's entries come last but stand above every layer. */
	if (w->tree.layered && !w->adding_extras) {
		ret = writer_shadowed(w, e);
		if (ret < 0)
			return ret;
		if (writer_links_wanted(w, e->path))
			ret = writer_add_wanted(w, e, data, ret == SQP_ADD_SHADOWED);
		else if (ret == SQP_ADD_SHADOWED)
			return writer_skip(w, e, data);
		else
			ret = writer_add_entry(w, e, data);
	} else {
		ret = writer_add_entry(w, e, data);
	}
	w->entries_added++;
	if (ret == 0 && w->desc.progress != NULL)
		w->desc.progress(w->desc.progress_user, w->entries_added, w->bytes_read);
	return ret;
}

int writer_add_base(struct sqp_writer *w, const struct sqp_entry *e,
		    const struct writer_base *b)
{
	int ret;

	w->base_file = b;
	ret = sqp_writer_add(w, e, NULL);
	w->base_file = NULL;
	return ret;
}

/* The spec's "m" lines, on the inodes their paths name once every entry
 * is in (before the tree is finalized: lookups end there): hard links
 * share the change whichever name arrived first. */
static int apply_mods(struct sqp_writer *w)
{
	size_t i, n = sqp_policy_mod_count(w->desc.policy);
	const struct sqp_entry *m;
	struct fs_irec *ino;
	struct fs_attr attr;

	for (i = 0; i < n; i++) {
		m = sqp_policy_mod(w->desc.policy, i);
		ino = fstree_find(&w->tree, m->path);
		if (ino == NULL) {
			warn(w, "spec: '%s' (m) is not in the image; ignored", m->path);
			continue;
		}
		if (m->uid > UINT32_MAX || m->gid > UINT32_MAX)
			return writer_fail(w, SQP_ERR_LIMIT, "spec: '%s': uid/gid %llu/%llu "
					   "does not fit in 32 bits", m->path,
					   (unsigned long long)m->uid,
					   (unsigned long long)m->gid);
		attr.mode = (ino->mode & S_IFMT) | (m->mode & 07777);
		attr.uid = (uint32_t)m->uid;
		attr.gid = (uint32_t)m->gid;
		attr.mtime = ino->mtime;
		attr.mtime_nsec = ino->mtime_nsec;
		attr.xattr_set = ino->xattr_set;
		if (w->fmt->check_owners(w, m->path, attr.uid, attr.gid) != 0)
			return w->err.code;
		if (m->mtime != SQP_POLICY_IMAGE_TIME) {
			attr.mtime = m->mtime;
			attr.mtime_nsec = 0;
			if (attr.mtime > w->newest_mtime)
				w->newest_mtime = attr.mtime;
			/* an implied directory (the root of several sources)
			 * would take the image time when finalized */
			ino->implied = 0;
		}
		fstree_set_attr(ino, &attr);
	}
	return 0;
}

int writer_add_extras(struct sqp_writer *w)
{
	const struct sqp_entry *x;
	struct sqp_entry e;
	size_t i, n;
	int ret = 0;

	if (w->desc.flags & SQP_WRITE_IMPLIED_FROM_PARENT)
		fstree_imply_from_parents(&w->tree);
	if (w->desc.policy == NULL)
		return 0;
	n = sqp_policy_extra_count(w->desc.policy);
	w->adding_extras = 1;
	for (i = 0; i < n && ret == 0; i++) {
		x = sqp_policy_extra(w->desc.policy, i);
		e = *x;
		if (e.mtime == SQP_POLICY_IMAGE_TIME)
			e.mtime = w->desc.mod_time >= 0 ? w->desc.mod_time : w->newest_mtime;
		ret = sqp_writer_add(w, &e, NULL);
	}
	w->adding_extras = 0;
	/* the directories no entry named: fs_config and labels too */
	if (ret == 0)
		ret = writer_policy_implied(w);
	if (ret == 0)
		ret = apply_mods(w);
	return ret;
}
