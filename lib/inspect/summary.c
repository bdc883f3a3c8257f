/* SPDX-License-Identifier: MIT */
/*
 * summary.c - counts over an image's whole tree for `imginfo IMAGE`:
 * entries of each type, hard links, file bytes, and how the files' data
 * is stored (blocks, holes, uncompressed blocks, fragment tails).
 *
 * Built on the reader's walk (sqp_walk) and the file layout query
 * (image_info.h), so it streams: memory is the walk's, whatever the
 * image holds. An
 * inode reached through several names is counted once; its other names
 * count as hard links, so sums of sizes are sums over distinct files.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "sqpack/image_info.h"
#include "sqpack/inspect.h"

static uint64_t *type_counter(struct sqp_image_summary *s, uint32_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR: return &s->dirs;
	case S_IFREG: return &s->files;
	case S_IFLNK: return &s->symlinks;
	case S_IFBLK: return &s->blockdevs;
	case S_IFCHR: return &s->chardevs;
	case S_IFIFO: return &s->fifos;
	default: return &s->sockets;
	}
}

static int add_file(struct sqp_image *img, const struct sqp_walk_entry *e,
		    struct sqp_image_summary *s)
{
	struct sqp_file_layout fl;
	int ret = sqp_image_file_layout(img, e->info.ref, &fl);

	if (ret != 0)
		return ret;
	s->file_bytes += e->info.size;
	s->blocks += fl.block_count;
	s->block_bytes += fl.stored_bytes;
	s->hole_blocks += fl.hole_blocks;
	s->raw_blocks += fl.raw_blocks;
	if (fl.frag_index != SQP_NO_FRAGMENT) {
		s->tails++;
		s->tail_bytes += fl.tail_bytes;
	}
	return 0;
}

/* Walk everything; on failure the message of whoever failed. */
static int summarize(struct sqp_image *img, struct sqp_walk *w,
		     struct sqp_image_summary *s, char *msg, size_t msg_size)
{
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	int ret;

	while ((ret = sqp_walk_next(w, &e)) == 1) {
		s->entries++;
		if (e.hardlink) {
			s->hardlinks++;
			continue;
		}
		s->inodes++;
		(*type_counter(s, e.info.mode))++;
		s->xattr_inodes += e.info.has_xattrs != 0;
		if (S_ISREG(e.info.mode) && (ret = add_file(img, &e, s)) != 0) {
			if (msg != NULL && msg_size > 0)
				snprintf(msg, msg_size, "'%s': %s", e.path,
					 sqp_image_error(img)[0] ?
					 sqp_image_error(img) :
					 sqp_strerror(ret));
			return ret;
		}
	}
	if (ret < 0 && msg != NULL && msg_size > 0)
		snprintf(msg, msg_size, "%s", sqp_walk_error(w));
	return ret;
}

SQP_API int sqp_image_summarize(struct sqp_image *img,
				struct sqp_image_summary *s,
				char *msg, size_t msg_size)
{
	struct sqp_walk_desc wd = { .struct_size = sizeof(wd), .img = img };
	struct sqp_walk *w;
	int ret;

	memset(s, 0, sizeof(*s));
	ret = sqp_walk_create(&wd, &w);
	if (ret != 0 && msg != NULL && msg_size > 0)
		snprintf(msg, msg_size, "%s", w != NULL ? sqp_walk_error(w) :
			 sqp_strerror(ret));
	if (ret == 0)
		ret = summarize(img, w, s, msg, msg_size);
	sqp_walk_destroy(w);
	return ret;
}
