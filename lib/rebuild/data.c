/* SPDX-License-Identifier: MIT */
/*
 * data.c - a base file's data into the writer, two ways (three).
 *
 * As it is stored (the rule when the writer's format, codec
 * configuration, block size and storage flags equal the base's and the
 * base's back end describes stored files, SquashFS's): the file's block
 * list and tail block, from the base's back end (rd_format.stored), go to
 * the writer (writer_add_base, lib/write/basecopy.c), which copies the
 * stored bytes without decompressing them. Data then costs reading and
 * writing, not the codec: an xz image rewritten with one file changed
 * recompresses that file alone.
 *
 * Converted block for block (another codec, options or storage flags,
 * the same block size): the same description, the writer's workers
 * decode each block with the base's codec and compress it with the new
 * one, in parallel; fragment blocks keep their tails where they were.
 *
 * By the writer's back end (when the base's format is the writer's and
 * the back end's base_fits takes the base: EROFS's, for lz4): the
 * image and the inode go to its add_base, which copies the file's
 * clusters as they are stored and decodes what it cannot copy through
 * the data source below; the core never learns which format it was.
 *
 * Decompressed and compressed again as a stream (another block size; an
 * EROFS base the back end does not take, whose clusters are not
 * SquashFS blocks; a tail the writer's fragment mode keeps out of
 * fragments): the file is read through the reader (sqp_file_pread) and
 * given to sqp_writer_add as a data source, so the writer cuts,
 * deduplicates and compresses it as any other file's; the source is
 * read only if the writer takes the entry. A base file of the size of a
 * file a layer brought goes this way too (writer_size_seen): dedup then
 * sees its contents, and an equal layer file costs only metadata. Not
 * when merging shards (rb->disjoint), whose equal files are all stored
 * ones: such a file is copied, keyed by its stored bytes (by_bytes).
 */
#include "config.h"

#include <stdlib.h>
#include <sys/stat.h>

#include "rebuild/rebuild.h"
#include "sqpack/error.h"
#include "write/basecopy.h"
#include "write/writer_impl.h"

struct base_source {
	struct rebuild *rb;
	const struct rd_walk_node *node;
	struct sqp_file *f;      /* opened at the first read */
	uint64_t off;
};

static int base_read(void *user, void *buf, size_t n)
{
	struct base_source *s = user;
	size_t got = 0;
	int ret;

	if (s->f == NULL &&
	    (ret = sqp_file_open(s->rb->img, s->node->ref, &s->f)) != 0)
		return ret;
	if ((ret = sqp_file_pread(s->f, buf, n, s->off, &got)) != 0)
		return ret;
	if (got != n)
		return SQP_ERR_CORRUPT;
	s->off += n;
	return 0;
}

/* Past n bytes without reading them: their blocks were copied as the
 * base stores them (the back end's copy of a flat file's blocks). */
static int base_skip(void *user, uint64_t n)
{
	struct base_source *s = user;

	s->off += n;
	return 0;
}

static int same_codec(const struct sqp_codec_config *a,
		      const struct sqp_codec_config *b)
{
	return a->id == b->id && a->block_size == b->block_size &&
	       a->level == b->level && a->window == b->window &&
	       a->strategies == b->strategies && a->filters == b->filters &&
	       a->dict_size == b->dict_size && a->algorithm == b->algorithm &&
	       a->flags == b->flags;
}

/* The fragment blocks of the base to repack, as the census of
 * sqp_writer_expect_images marked them; NULL (all) for an image it did
 * not see. */
static const uint8_t *repack_map(const struct rebuild *rb)
{
	for (size_t i = 0; i < rb->w->expect_count; i++)
		if (rb->w->expect[i].img == rb->img &&
		    rb->w->expect[i].frag_count == rb->img->fmt->stored_tails(rb->img))
			return rb->w->expect[i].repack;
	return NULL;
}

int rebuild_init(struct rebuild *rb)
{
	const struct sqp_writer_desc *d = &rb->w->desc;
	struct sqp_image *img = rb->img;
	const struct sqp_codec_config *recode = NULL;

	if (d->format == img->fmt->format && rb->w->fmt->base_fits != NULL &&
	    rb->w->fmt->base_fits(rb->w, img)) {
		rb->by_backend = 1;
		return 0;
	}
	/* Stored blocks are copied or recoded only into an image of the
	 * base's format, and only where its back end describes them. */
	if (img->fmt->stored == NULL || d->format != img->fmt->format ||
	    d->codec.block_size != img->block_size)
		return 0;
	if (!same_codec(&d->codec, &img->codec_cfg) ||
	    (d->flags & (SQP_WRITE_RAW_DATA | SQP_WRITE_RAW_FRAGMENTS)))
		recode = &img->codec_cfg;
	/* Tails are repacked only to be shared: without dedup (--no-dedup)
	 * every fragment block is copied as it is. */
	if (basecopy_create(&rb->w->pipe, img->fd, img->base, img->end,
			    img->fmt->stored_tails(img), recode, &rb->copy) != 0 ||
	    (rb->disjoint && rb->w->pipe.dedup &&
	     basecopy_repack_tails(rb->copy, repack_map(rb)) != 0))
		return rb->w->err.code ? rb->w->err.code :
			writer_fail(rb->w, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

int rebuild_end(struct rebuild *rb)
{
	return rb->copy != NULL ? basecopy_end(rb->copy) : 0;
}

void rebuild_cleanup(struct rebuild *rb)
{
	basecopy_destroy(rb->copy);
	free(rb->st.words);
	free(rb->path);
}

/* f: node's file as the base stores it (block list in rb->st). */
static int describe(struct rebuild *rb, const struct rd_walk_node *n,
		    struct base_file *f)
{
	struct rd_stored *s = &rb->st;
	int ret = rb->img->fmt->stored(rb->img, n->ino, s);

	if (ret != 0)
		return ret;
	*f = (struct base_file){
		.size = s->size, .blocks_start = s->blocks_start,
		.words = s->words, .block_count = (uint32_t)s->count,
		.frag_index = s->tail_index, .frag_offset = s->tail_offset,
		.frag_start = s->tail_start, .frag_word = s->tail_word,
	};
	return 0;
}

int rebuild_add(struct rebuild *rb, const struct sqp_entry *e,
		const struct rd_walk_node *n)
{
	struct base_source s = { rb, n, NULL, 0 };
	struct sqp_data_source src = { base_read, NULL, base_skip, &s };
	struct writer_base b;
	struct base_file f;
	int seen, ret;

	if (n == NULL || !S_ISREG(e->mode))
		return sqp_writer_add(rb->w, e, NULL);
	seen = writer_size_seen(rb->w, e->size);
	if (rb->by_backend && (!seen || rb->disjoint)) {
		b = (struct writer_base){ .img = rb->img, .ino = n->ino, .src = &src };
		ret = writer_add_base(rb->w, e, &b);
		sqp_file_close(s.f);
		return ret;
	}
	if (rb->copy != NULL && (!seen || rb->disjoint)) {
		if ((ret = describe(rb, n, &f)) != 0)
			return ret;
		f.by_bytes = seen;
		if (basecopy_fits(&rb->w->pipe, &f)) {
			b = (struct writer_base){ .copy = rb->copy, .file = &f };
			return writer_add_base(rb->w, e, &b);
		}
	}
	ret = sqp_writer_add(rb->w, e, &src);
	sqp_file_close(s.f);
	return ret;
}
