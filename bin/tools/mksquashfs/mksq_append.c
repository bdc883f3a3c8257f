/* SPDX-License-Identifier: MIT */
/*
 * mksq_append.c - mksquashfs appends to an existing image unless told
 * -noappend, and build systems rely on it (GNU Guix's `guix pack -f
 * squashfs` makes its image in four appending runs). This is the part of
 * sqpack-mksquashfs that does the same: DEST is opened with the reader,
 * its codec (with its options), block size and export table decide the
 * new image's, and the packer gets the whole image as its first input
 * (its options' before_input), with -root-becomes NAME putting its root
 * at NAME.
 *
 * The image is never written in place: the packer writes a new one beside
 * it and renames it over DEST when complete (tool_run.c), so an append
 * that fails for any reason leaves DEST as it was.
 *
 * Names: mksquashfs keeps the image's entries and renames a new top-level
 * entry whose name is taken (NAME_1, NAME_2...): mksq_rename.c; the
 * renames of one source directory's entries are handed to the writer
 * here, after the image's entries are in.
 *
 * What mksquashfs prints on stdout when it appends is printed the same
 * (mksq_append_tell), -quiet or not, as there, but for its recovery
 * file lines: no recovery file is needed, DEST is replaced only whole.
 *
 * The image's entries enter the writer as they are
 * (SQP_ADD_IMAGE_AS_IS): the line's owner, time and exclude options
 * apply to the new sources only, as in mksquashfs. Its root directory
 * does not (SQP_ADD_IMAGE_NEW_ROOT): mksquashfs makes the root anew, from
 * the one source directory or as a root of its own (mksq_emit.c), so its
 * time is never the old root's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mksq_append.h"
#include "../common/tool_options.h"

#define PROG "sqpack-mksquashfs"

static int names_push(struct mksq_base *b, const char *name)
{
	char **v = realloc(b->names, (b->count + 1) * sizeof(*v));

	if (v == NULL)
		return -1;
	b->names = v;
	if ((v[b->count] = strdup(name)) == NULL)
		return -1;
	b->count++;
	return 0;
}

/* The names in the root: those the new sources must not take. */
static int root_names(struct mksq_append *ap)
{
	struct sqp_dir *dir = NULL;
	struct sqp_dirent e = { .struct_size = sizeof(e) };
	int r;

	if (ap->under[0] != '\0')
		return names_push(&ap->base, ap->under) == 0 ? 0 : SQP_ERR_NOMEM;
	/* the reader refuses a listing not sorted by strcmp, so the names
	 * come in the order bsearch needs */
	r = sqp_dir_open(ap->img, sqp_image_root(ap->img), &dir);
	while (r == 0 && (r = sqp_dir_next(dir, &e)) == 1)
		r = names_push(&ap->base, e.name) == 0 ? 0 : SQP_ERR_NOMEM;
	sqp_dir_close(dir);
	return r;
}

int mksq_append_open(struct mksq_append *ap, const struct mksq_args *args)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = args->dest, .offset = args->offset };
	int r;

	memset(ap, 0, sizeof(*ap));
	ap->under = args->root_becomes ? args->root_becomes : "";
	ap->fd = d.fd = open(args->dest, O_RDONLY | O_CLOEXEC);
	if (ap->fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", args->dest, strerror(errno));
		return 1;
	}
	r = sqp_image_create(&d, &ap->img);
	if (r == 0)
		r = sqp_image_get_layout(ap->img, &ap->lay);
	if (r == 0)
		r = root_names(ap);
	if (r != 0) {
		/* the reader's message names DEST; then mksquashfs's words,
		 * which say what to do */
		if (ap->img != NULL && sqp_image_error(ap->img)[0] != '\0')
			fprintf(stderr, PROG ": %s\n", sqp_image_error(ap->img));
		else
			fprintf(stderr, PROG ": %s: %s\n", args->dest, sqp_strerror(r));
		fputs("Failed to read existing filesystem - will not overwrite - ABORTING!\n"
		      "To force " PROG " to write to this file use -noappend\n", stderr);
		return 1;
	}
	ap->info.struct_size = sizeof(ap->info);
	sqp_image_get_info(ap->img, &ap->info);
	ap->base.comp = sqp_codec_name(ap->info.codec);
	ap->base.block = ap->info.block_size;
	ap->codec = ap->lay.codec;
	ap->base.exportable = ap->lay.has_export;
	ap->base.no_xattrs = (ap->lay.flags & SQP_SB_NO_XATTRS) != 0;
	return 0;
}

/* "are" + "" or "un" + "compressed", as mksquashfs words its flags. */
static const char *un(uint16_t flags, uint16_t bit)
{
	return (flags & bit) ? "un" : "";
}

static const char *not_if(uint16_t flags, uint16_t bit, int set_is_not)
{
	return ((flags & bit) != 0) == set_is_not ? "not " : "";
}

void mksq_append_tell(const struct mksq_append *ap, const char *dest)
{
	uint16_t f = ap->lay.flags;
	double used = (double)ap->info.bytes_used;

	printf("Found a valid %sSQUASHFS superblock on %s.\n",
	       (f & SQP_SB_EXPORTABLE) ? "exportable " : "", dest);
	printf("\tCompression used %s\n", ap->base.comp);
	printf("\tInodes are %scompressed\n", un(f, SQP_SB_UNCOMPRESSED_INODES));
	printf("\tData is %scompressed\n", un(f, SQP_SB_UNCOMPRESSED_DATA));
	printf("\tFragments are %scompressed\n", un(f, SQP_SB_UNCOMPRESSED_FRAGMENTS));
	printf("\tXattrs are %scompressed\n", un(f, SQP_SB_UNCOMPRESSED_XATTRS));
	printf("\tFragments are %spresent in the filesystem\n", not_if(f, SQP_SB_NO_FRAGMENTS, 1));
	printf("\tAlways-use-fragments option is %sspecified\n",
	       not_if(f, SQP_SB_ALWAYS_FRAGMENTS, 0));
	printf("\tDuplicates are %sremoved\n", not_if(f, SQP_SB_DEDUPLICATED, 0));
	printf("\tXattrs are %sstored\n", not_if(f, SQP_SB_NO_XATTRS, 1));
	printf("\tFilesystem size %.2f Kbytes (%.2f Mbytes)\n", used / 1024,
	       used / (1024 * 1024));
	printf("\tBlock size %u\n", ap->info.block_size);
	printf("\tNumber of fragments %u\n", ap->lay.frag_count);
	printf("\tNumber of inodes %u\n", ap->info.inode_count);
	printf("\tNumber of ids %u\n\n", ap->lay.id_count);
	/* the root is not counted as scanned */
	printf("Scanning existing filesystem...\n"
	       "Read existing filesystem, %u inodes scanned\n",
	       ap->info.inode_count > 0 ? ap->info.inode_count - 1 : 0);
	printf("Appending to existing 4.0 filesystem on %s, block size %u\n",
	       dest, ap->info.block_size);
	printf("All -b, -noI, -noD, -noF, -noX, -noId, -no-duplicates, -no-fragments,\n"
	       "-always-use-fragments, -exportable and -comp options ignored\n\n"
	       "If appending is not wanted, please re-run with -noappend specified!\n\n");
	fflush(stdout);
}

int mksq_append_add(struct sqp_writer *w, void *user)
{
	struct mksq_append *ap = user;

	int r;

	/* The packer scans before it makes the writer, and the scan holds
	 * the sources open: the links can go now, so that a signal during
	 * the long part of the run leaves none behind. */
	mksq_rename_cleanup(ap);
	r = sqp_writer_add_image(w, ap->img, ap->under,
				 SQP_ADD_IMAGE_AS_IS | SQP_ADD_IMAGE_NEW_ROOT);
	for (size_t i = 0; r == 0 && i < ap->nren; i += 2)
		r = sqp_writer_rename(w, ap->ren[i], ap->ren[i + 1]);
	return r;
}

void mksq_append_close(struct mksq_append *ap)
{
	mksq_rename_cleanup(ap);
	for (size_t i = 0; i < ap->base.count; i++)
		free(ap->base.names[i]);
	for (size_t i = 0; i < ap->nren; i++)
		free(ap->ren[i]);
	for (size_t i = 0; i < ap->base.ntop; i++) {
		free(ap->base.top[i]);
		free(ap->base.top_as[i]);
	}
	free(ap->base.top);
	free(ap->base.top_as);
	free(ap->base.drop);
	free(ap->ren);
	free(ap->ren_src);
	free(ap->base.names);
	sqp_image_destroy(ap->img);
	if (ap->fd >= 0)
		close(ap->fd);
	memset(ap, 0, sizeof(*ap));
	ap->fd = -1;
}
