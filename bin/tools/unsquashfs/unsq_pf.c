/* SPDX-License-Identifier: MIT */
/*
 * unsq_pf.c - `-pf FILE`: the image as a pseudo file with its data inline,
 * the stream mksquashfs reads back with `-pf` (and sqpack-mksquashfs
 * with `- OUT -pf FILE`), so an image can be rebuilt, or edited as text,
 * without extracting it.
 *
 * The lines are unsquashfs 4.5.1's byte for byte: "PATH TYPE MTIME MODE
 * UID GID ..." in walk order (the root is "/", spaces and backslashes in
 * names escaped with a backslash), R with the file's size and the offset
 * of its bytes in the data part, L (a hard link) with the first path of
 * its inode, S with the target, I with f or s, B and C with the stored
 * device word split at bit 8 (as the listings show it); then the data
 * marker and every R file's bytes in the same order. Two walks, the
 * second only for the data, so memory does not grow with the image,
 * apart from the first paths of inodes with more than one link.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/sqpack.h"
#include "unsq.h"

#define PF_CHUNK (128u * 1024)

/* First paths of inodes met with more than one link, by inode number. */
struct firsts {
	uint32_t *num;
	char **path;
	size_t count, cap;
};

static const char *first_path(const struct firsts *f, uint32_t n)
{
	for (size_t i = f->count; i-- > 0;)
		if (f->num[i] == n)
			return f->path[i];
	return NULL;
}

static int remember(struct firsts *f, uint32_t n, const char *path)
{
	if (f->count == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		uint32_t *num = realloc(f->num, cap * sizeof(*num));
		char **p;

		if (num == NULL)
			return -1;
		f->num = num;
		if ((p = realloc(f->path, cap * sizeof(*p))) == NULL)
			return -1;
		f->path = p;
		f->cap = cap;
	}
	if ((f->path[f->count] = strdup(path)) == NULL)
		return -1;
	f->num[f->count++] = n;
	return 0;
}

static void put_name(FILE *out, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == ' ' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* Whether the walk's entry e is written: selected, and not a directory
 * at -max-depth's last level (unsquashfs 4.5.1 leaves those out, the
 * root too at -max-depth 0). */
static int wanted(const struct unsq_opts *o, const struct sqp_walk_entry *e)
{
	int isdir = S_ISDIR(e->info.mode);

	if (o->max_depth && (e->depth >= o->max_depth ||
			     (isdir && e->depth + 1 == o->max_depth)))
		return 0;
	return unsq_select(o, e->path, isdir) != UNSQ_OUT;
}

/* One definition line; 0, or a negative error. */
static int put_line(struct sqp_image *img, FILE *out, struct firsts *f,
		    const struct sqp_walk_entry *e, uint64_t *offset,
		    uint64_t *blocks, uint32_t bs)
{
	const struct sqp_inode_info *in = &e->info;
	const char *first = e->hardlink ? first_path(f, in->inode_number) : NULL;
	uint32_t m = in->mode;

	if (e->path[0] == '\0')
		fputc('/', out);
	else
		put_name(out, e->path);
	if (first != NULL) {
		fputs(" L ", out);
		put_name(out, first);
		fputc('\n', out);
		return 0;
	}
	if (!S_ISDIR(m) && in->nlink > 1 && first_path(f, in->inode_number) == NULL &&
	    remember(f, in->inode_number, e->path) != 0)
		return SQP_ERR_NOMEM;
	/* Owners as signed numbers: unsquashfs 4.5.1 prints them so. */
	fprintf(out, " %c %lld %o %d %d", S_ISDIR(m) ? 'D' : S_ISREG(m) ? 'R' :
		S_ISLNK(m) ? 'S' : S_ISCHR(m) ? 'C' : S_ISBLK(m) ? 'B' : 'I',
		(long long)in->mtime, (unsigned)(m & 07777), (int)in->uid,
		(int)in->gid);
	if (S_ISREG(m)) {
		fprintf(out, " %llu %llu", (unsigned long long)in->size,
			(unsigned long long)*offset);
		*offset += in->size;
		*blocks += (in->size + bs - 1) / bs;
	} else if (S_ISCHR(m) || S_ISBLK(m)) {
		uint32_t word = (in->dev_major << 8) | (in->dev_minor & 0xffu) |
				((in->dev_minor & 0xfff00u) << 12);

		fprintf(out, " %u %u", (unsigned)(word >> 8), (unsigned)(word & 0xff));
	} else if (S_ISLNK(m)) {
		char *target = malloc((size_t)in->size + 1);
		int len;

		if (target == NULL)
			return SQP_ERR_NOMEM;
		len = sqp_image_readlink(img, in->ref, target, (size_t)in->size + 1);
		if (len >= 0) {
			fputc(' ', out);
			fputs(target, out);
		}
		free(target);
		if (len < 0)
			return len;
	} else if (!S_ISDIR(m)) {
		fputs(S_ISFIFO(m) ? " f" : " s", out);
	}
	fputc('\n', out);
	return 0;
}

static int put_data(struct sqp_image *img, FILE *out, uint64_t ref, char *buf)
{
	struct sqp_file *f = NULL;
	uint64_t off = 0;
	size_t got;
	int ret = sqp_file_open(img, ref, &f);

	while (ret == 0 && (ret = sqp_file_pread(f, buf, PF_CHUNK, off, &got)) == 0 &&
	       got > 0) {
		if (fwrite(buf, 1, got, out) != got)
			ret = SQP_ERR_IO;
		off += got;
	}
	sqp_file_close(f);
	return ret;
}

/* Walk once: the lines (data == NULL) or the data. */
static int pass(struct sqp_image *img, const struct unsq_opts *o, FILE *out,
		struct firsts *f, char *data, uint64_t *blocks)
{
	struct sqp_walk_desc wd = { sizeof(wd), img, NULL, o->max_depth };
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	struct sqp_walk *w = NULL;
	struct sqp_image_info ii = { .struct_size = sizeof(ii) };
	uint64_t offset = 0;
	int ret = sqp_image_get_info(img, &ii);

	if (ret == 0)
		ret = sqp_walk_create(&wd, &w);
	while (ret == 0 && (ret = sqp_walk_next(w, &e)) == 1) {
		ret = 0;
		if (!wanted(o, &e))
			continue;
		if (data == NULL) {
			ret = put_line(img, out, f, &e, &offset, blocks,
				       ii.block_size);
		} else if (S_ISREG(e.info.mode)) {
			/* Data for the path written in full: the first of
			 * its inode, or one whose first was left out. */
			const char *first = first_path(f, e.info.inode_number);

			if (first == NULL || strcmp(first, e.path) == 0)
				ret = put_data(img, out, e.info.ref, data);
		}
	}
	if (ret < 0 && ret != SQP_ERR_IO)
		fprintf(stderr, "%s: %s\n", unsq_prog(o), w != NULL &&
			sqp_walk_error(w)[0] ? sqp_walk_error(w) :
			sqp_image_error(img)[0] ? sqp_image_error(img) :
			sqp_strerror(ret));
	sqp_walk_destroy(w);
	return ret;
}

int unsq_pf(struct sqp_image *img, const struct unsq_opts *o)
{
	int to_stdout = strcmp(o->pf, "-") == 0, ret;
	FILE *out = to_stdout ? stdout : fopen(o->pf, "w");
	struct firsts f = { NULL, NULL, 0, 0 };
	char *buf = malloc(PF_CHUNK);
	uint64_t blocks = 0;

	if (out == NULL || buf == NULL) {
		fprintf(stderr, "%s: %s: %s\n", unsq_prog(o), o->pf,
			buf == NULL ? "out of memory" : strerror(errno));
		free(buf);
		if (out != NULL && !to_stdout)
			fclose(out);
		return 1;
	}
	ret = pass(img, o, out, &f, NULL, &blocks);
	if (ret == 0) {
		fputs("#\n# START OF DATA - DO NOT MODIFY\n#\n", out);
		ret = pass(img, o, out, &f, buf, &blocks);
	}
	/* The bar counts the blocks written; none on a stdout that
	 * carries the stream. */
	if (ret == 0 && !to_stdout && (!o->no_progress || o->percentage)) {
		struct unsq_progress pg;

		unsq_progress_init(&pg, o, blocks);
		unsq_progress_end(&pg);
	}
	for (size_t i = 0; i < f.count; i++)
		free(f.path[i]);
	free(f.path);
	free(f.num);
	free(buf);
	if (fflush(out) != 0 || ferror(out) || ret == SQP_ERR_IO) {
		fprintf(stderr, "%s: writing %s failed\n", unsq_prog(o),
			to_stdout ? "to stdout" : o->pf);
		ret = SQP_ERR_IO;
	}
	if (!to_stdout && fclose(out) != 0 && ret == 0) {
		fprintf(stderr, "%s: writing %s failed\n", unsq_prog(o), o->pf);
		ret = SQP_ERR_IO;
	}
	return ret == 0 ? 0 : 1;
}
