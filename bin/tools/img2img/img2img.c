/* SPDX-License-Identifier: MIT */
/*
 * img2img.c - img2img: a new image from a base image plus tar,
 * directory or image layers, with the packers' entry options applied to
 * the result, or the same tree in another codec or block size.
 *
 * The base is opened with the reader and added by sqp_writer_add_image
 * (lib/rebuild), which hands the writer the base's blocks as they are
 * when codec and block size stay; an image layer goes the same way.
 * Unless -c, -X or -b say otherwise, the new image keeps the base's
 * codec, options and block size, so that nothing is compressed again
 * but what the layers bring. The LAYERs are container layers over the
 * base (whiteouts, shadowing: writer.h).
 * tool_run.c writes a temporary file renamed into place, so OUTPUT may
 * be BASE.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/image_info.h"
#include "sqpack/merge.h"
#include "../common/tool_mains.h"
#include "../common/tool_optvals.h"
#include "../common/tool_run.h"
#include "shard_opts.h"
#include "shard_plan.h"

static int open_base(const struct tool_options *opt, int *fd,
		     struct sqp_image **img)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = opt->base, .warn = tool_warn,
				    .offset = opt->desc.offset };
	int ret;

	*img = NULL;
	*fd = open(opt->base, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), opt->base,
			strerror(errno));
		return 1;
	}
	d.fd = *fd;
	ret = sqp_image_create(&d, img);
	if (ret != 0 && *img != NULL)  /* its message names the image */
		fprintf(stderr, "%s: %s\n", tool_progname(), sqp_image_error(*img));
	else if (ret != 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), opt->base,
			sqp_strerror(ret));
	return ret == 0 ? 0 : 1;
}

/* --format erofs: the base's codec when EROFS can write it (kept with
 * its options, in -b's blocks, else an EROFS base's, else 4 KiB), else
 * the one -c names; a base whose
 * codec EROFS cannot write needs -c. --shards: the codec, pcluster size
 * and layout the shards (img and the n others, opened) show, unless
 * given (shard_opts.c). */
static int erofs_codec(struct tool_options *opt, const struct sqp_image_layout *lay,
		       const struct sqp_image_info *ii, struct sqp_image *img,
		       struct sqp_image *const *shards, size_t n)
{
	const char *name = sqp_codec_name(ii->codec);
	struct shards_shown shown = { 0 };
	uint32_t bs = opt->block_size;
	int ret;

	/* an EROFS base's blocks stay, so that its clusters can be copied */
	if (bs == 0 && ii->format == SQP_FORMAT_EROFS)
		bs = ii->block_size;

	if (opt->shards) {
		img2img_shards_shown(img, shards, n, &shown);
		img2img_shards_layout(opt, &shown);
	}
	if (opt->codec_name != NULL || opt->comp_opts != NULL)
		return tool_erofs_options(opt, opt->codec_name, opt->comp_opts, bs);
	if (ii->codecs != 0 && (ii->codecs & (ii->codecs - 1)) == 0 &&
	    !(sqp_codec_formats(ii->codec) & SQP_CODEC_FOR_EROFS))
		return tool_bad_usage("--format erofs: the base's compressor '%s' "
				      "cannot write EROFS here; give -c", name);
	if (ii->codecs != 0 && (ii->codecs & (ii->codecs - 1)) != 0)
		return tool_bad_usage("%s", "--format erofs: the base uses several "
				      "compressors; give -c");
	if (ii->codecs == 0 && shown.codec != 0)
		name = sqp_codec_name(shown.codec);
	else if (ii->codecs == 0)
		name = NULL;
	ret = tool_erofs_options(opt, name, NULL, bs);
	if (ret == 0 && ii->format == SQP_FORMAT_SQUASHFS) {
		opt->desc.codec = lay->codec;
		opt->desc.codec.block_size = bs != 0 ? bs : 4096;
	}
	return ret;
}

/* The new image's codec: the base's, unless -c, -X or -b change it (a
 * change starts from the codec's defaults, as tar2img's options do).
 * From an EROFS base to SquashFS: the base's codec (zstd for an
 * uncompressed one) in 128 KiB blocks unless -b says otherwise.
 * shards: --shards' other n shards, opened. */
static int resolve_codec(struct tool_options *opt, struct sqp_image *img,
			 struct sqp_image *const *shards, size_t n)
{
	struct sqp_image_info ii = { .struct_size = sizeof(ii) };
	struct sqp_image_layout lay;
	const char *name;

	if (sqp_image_get_layout(img, &lay) != 0 || sqp_image_get_info(img, &ii) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), opt->base,
			sqp_image_error(img));
		return 1;
	}
	/* --shards: the first shard's format unless --format says */
	if (opt->shards && !opt->format_given)
		opt->desc.format = ii.format;
	if (tool_erofs_only(opt) != 0)
		return 2;
	if (opt->desc.format == SQP_FORMAT_EROFS)
		return erofs_codec(opt, &lay, &ii, img, shards, n);
	if (ii.format == SQP_FORMAT_EROFS) {
		name = opt->codec_name ? opt->codec_name :
		       ii.codec ? sqp_codec_name(ii.codec) : NULL;
		return tool_finish_codec(&opt->desc, name, opt->comp_opts,
					 opt->block_size ? opt->block_size : 128 * 1024);
	}
	if (opt->codec_name == NULL && opt->comp_opts == NULL &&
	    (opt->block_size == 0 || opt->block_size == lay.codec.block_size)) {
		opt->desc.codec = lay.codec;
		return 0;
	}
	name = opt->codec_name ? opt->codec_name : sqp_codec_name(lay.codec.id);
	return tool_finish_codec(&opt->desc, name, opt->comp_opts,
				 opt->block_size ? opt->block_size : lay.codec.block_size);
}

/* The tar layers' one reader and the input it reads: reset for each
 * later tar layer (as tar2img does), its read-ahead (8 MiB) mapped and
 * faulted in once. Its thread may still read ahead in the last input
 * after the layer is in, so that input closes only once the reader has
 * moved on (reset) or is gone. */
struct tar_in {
	struct sqp_tar_reader *tr;
	int fd;
};

static void tar_in_close(struct tar_in *in)
{
	sqp_tar_reader_destroy(in->tr);
	if (in->fd >= 0)
		close(in->fd);
}

static int add_tar(struct tool_run *r, struct tar_in *in, const char *path, int fd)
{
	struct sqp_tar_reader_desc d = { .struct_size = sizeof(d), .name = path, .warn = tool_warn,
					 .fd = fd };
	int ret;

	if (in->tr != NULL)
		ret = sqp_tar_reader_reset(in->tr, d.fd, path);
	else
		ret = sqp_tar_reader_create(&d, &in->tr);
	if (in->fd >= 0)
		close(in->fd); /* the reader has stopped reading it */
	in->fd = d.fd;
	if (ret != 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), path,
			in->tr ? sqp_tar_reader_error(in->tr) : sqp_strerror(ret));
	else if ((ret = sqp_writer_add_tar(r->w, in->tr)) != 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
			sqp_writer_error(r->w));
	return ret == 0 ? 0 : 1;
}

static int add_dir(struct tool_run *r, const char *path)
{
	const char *dirs[1] = { path };
	struct sqp_dirscan_desc d = {
		.dirs = dirs, .dir_count = 1, .flags = r->opt->scan_flags,
		.policy = r->policy, .readers = r->opt->desc.jobs,
		.warn = tool_warn,
	};
	struct sqp_dirscan *s = NULL;
	const char *msg;
	int ret;

	ret = sqp_dirscan_create(&d, &s);
	if (ret == 0)
		ret = sqp_dirscan_feed(s, r->w);
	if (ret != 0) {
		msg = s ? sqp_dirscan_error(s) : "";
		if (msg[0] != '\0')
			fprintf(stderr, "%s: %s\n", tool_progname(), msg);
		else
			fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
				r->w ? sqp_writer_error(r->w) : sqp_strerror(ret));
	}
	sqp_dirscan_destroy(s);
	return ret == 0 ? 0 : 1;
}

/* The image layers, open until the image is written: the workers read
 * their stored blocks (by descriptor) and recode with their codec
 * configuration until the writer finishes. */
struct img_layers {
	struct sqp_image **img;
	int *fd;
	size_t n;
};

static void img_layers_close(struct img_layers *il)
{
	for (size_t i = 0; i < il->n; i++) {
		sqp_image_destroy(il->img[i]);
		close(il->fd[i]);
	}
	free(il->img);
	free(il->fd);
}

/* Whether the 512 bytes at h are a tar header: its checksum, the sum of
 * its bytes with the checksum field (148, 8 bytes) taken as spaces,
 * matches the octal number in that field. */
static int tar_header(const uint8_t *h)
{
	unsigned long sum = 0, want = 0;
	int i = 148;

	for (int j = 0; j < 512; j++)
		sum += j >= 148 && j < 156 ? ' ' : h[j];
	while (i < 156 && h[i] == ' ')
		i++;
	if (i == 156 || h[i] < '0' || h[i] > '7')
		return 0;
	while (i < 156 && h[i] >= '0' && h[i] <= '7')
		want = want * 8 + (unsigned long)(h[i++] - '0');
	return sum == want;
}

/* Whether fd holds an image, by its magic: SquashFS's at 0, EROFS's
 * 1 KiB in. Looked at before a tar parser sees it: an EROFS image
 * starts with zeros, which once read as an empty tar. A pipe or a
 * short file is no image (and goes to the tar reader), nor is a tar
 * whose first name starts "hsqs" (a header with a good checksum). */
static int is_image(int fd)
{
	static const uint8_t erofs[4] = { 0xe2, 0xe1, 0xf5, 0xe0 };
	uint8_t b[1028];
	ssize_t n = pread(fd, b, sizeof(b), 0);

	if (n >= 512 && tar_header(b))
		return 0;
	if (n >= 4 && memcmp(b, "hsqs", 4) == 0)
		return 1;
	return n == (ssize_t)sizeof(b) && memcmp(b + 1024, erofs, 4) == 0;
}

/* --shards: the images share nothing but directories. */
static unsigned image_flags(const struct tool_options *opt)
{
	return opt->shards ? SQP_ADD_IMAGE_DISJOINT : 0;
}

/* An image layer: every entry of the image, through the same path as
 * the base's (lib/rebuild), so its blocks are copied as they are stored
 * when its format, codec and block size are the output's, else
 * converted; whiteout markers among its files count as a tar's do. */
static int open_image(struct img_layers *il, const char *path, int fd)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .name = path, .warn = tool_warn,
				    .fd = fd };
	struct sqp_image *img = NULL;
	int ret = sqp_image_create(&d, &img);

	il->img[il->n] = img;
	il->fd[il->n++] = fd;
	if (ret != 0 && img != NULL)  /* its message names the image */
		fprintf(stderr, "%s: %s\n", tool_progname(), sqp_image_error(img));
	else if (ret != 0)
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), path, sqp_strerror(ret));
	return ret == 0 ? 0 : 1;
}

static int add_opened(struct tool_run *r, struct sqp_image *img, const char *path)
{
	if (sqp_writer_add_image(r->w, img, "", image_flags(r->opt)) == 0)
		return 0;
	fprintf(stderr, "%s: %s: layer %s: %s\n", tool_progname(), r->opt->output,
		path, sqp_writer_error(r->w));
	return 1;
}

static int add_image(struct tool_run *r, struct img_layers *il, const char *path, int fd)
{
	if (open_image(il, path, fd) != 0)
		return 1;
	return add_opened(r, il->img[il->n - 1], path);
}

static int add_layer(struct tool_run *r, struct tar_in *in, struct img_layers *il,
		     const char *layer)
{
	struct stat st;
	int fd;

	if (stat(layer, &st) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), layer, strerror(errno));
		return 1;
	}
	if (S_ISDIR(st.st_mode))
		return add_dir(r, layer);
	fd = open(layer, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), layer, strerror(errno));
		return 1;
	}
	return is_image(fd) ? add_image(r, il, layer, fd) : add_tar(r, in, layer, fd);
}

/* --delete: a layer just above the base that whites out each entry of
 * the base a pattern matches (and so what is below it), found by a walk
 * of the base's metadata; the LAYERs above may add those paths again. */
static int delete_layer(struct tool_run *r, struct sqp_image *img)
{
	struct sqp_policy_desc pd = { .warn = tool_warn };
	struct sqp_walk_desc wd = { .struct_size = sizeof(wd), .img = img };
	struct sqp_policy *del = NULL;
	struct sqp_walk *walk = NULL;
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	size_t i;
	int ret;

	ret = sqp_policy_create(&pd, &del);
	for (i = 0; ret == 0 && i < r->opt->pargs.n; i++)
		if (r->opt->pargs.v[i].kind == PARG_DELETE)
			ret = sqp_policy_add_exclude(del, r->opt->pargs.v[i].arg);
	if (ret != 0) {
		fprintf(stderr, "%s: --delete: %s\n", tool_progname(),
			del ? sqp_policy_error(del) : sqp_strerror(ret));
		sqp_policy_destroy(del);
		return 1;
	}
	if ((ret = sqp_walk_create(&wd, &walk)) == 0) {
		while ((ret = sqp_walk_next(walk, &e)) > 0) {
			if (e.path[0] == '\0' || !sqp_policy_excluded(del, e.path))
				continue;
			if ((ret = sqp_writer_whiteout(r->w, e.path, 0)) != 0)
				break;
			if (S_ISDIR(e.info.mode))
				sqp_walk_skip(walk);
		}
	}
	if (ret < 0)
		fprintf(stderr, "%s: %s\n", tool_progname(), r->w && sqp_writer_error(r->w)[0] ?
			sqp_writer_error(r->w) : walk ? sqp_walk_error(walk) : sqp_strerror(ret));
	sqp_walk_destroy(walk);
	sqp_policy_destroy(del);
	return ret < 0 ? 1 : 0;
}

static int begin_layer(struct tool_run *r)
{
	if (sqp_writer_begin_layer(r->w) == 0)
		return 0;
	fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
		sqp_writer_error(r->w));
	return 1;
}

static int has_deletes(const struct tool_options *opt)
{
	for (size_t i = 0; i < opt->pargs.n; i++)
		if (opt->pargs.v[i].kind == PARG_DELETE)
			return 1;
	return 0;
}

/* --plan: the shards' names in the order given, then the check. */
static int check_plan(const struct tool_options *opt, struct sqp_image *const *all,
		      size_t n)
{
	const char **names = malloc(n * sizeof(*names));
	int ret;

	if (names == NULL) {
		fprintf(stderr, "%s: out of memory\n", tool_progname());
		return 1;
	}
	names[0] = opt->base;
	for (size_t i = 1; i < n; i++)
		names[i] = opt->dirs[i - 1];
	ret = img2img_check_plan(opt->plan, all, names, n);
	free(names);
	return ret;
}

/* --shards: every SHARD after the first opened, as an image, once: what
 * they show sets the EROFS options (shard_opts.c), and the writer reads
 * them. */
static int open_shards(const struct tool_options *opt, struct img_layers *il)
{
	int fd, ret = 0;

	for (size_t i = 0; ret == 0 && i < opt->dir_count; i++) {
		fd = open(opt->dirs[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "%s: %s: %s\n", tool_progname(), opt->dirs[i],
				strerror(errno));
			return 1;
		}
		if (!is_image(fd)) {
			fprintf(stderr, "%s: %s: not a SquashFS or EROFS image; --shards "
				"merges the images of dir2img and tar2img --shard\n",
				tool_progname(), opt->dirs[i]);
			close(fd);
			return 1;
		}
		ret = open_image(il, opt->dirs[i], fd);
	}
	return ret;
}

/* --shards: before any shard is added, the writer learns which file
 * sizes repeat among all of them (merge.h): files equal across shards
 * are then stored once; with --plan, they are checked against it first. */
static int expect_shards(struct tool_run *r, struct sqp_image *base, struct img_layers *il)
{
	const struct tool_options *opt = r->opt;
	struct sqp_image **all = malloc((il->n + 1) * sizeof(*all));
	size_t i;
	int ret = 0;

	if (all == NULL) {
		fprintf(stderr, "%s: out of memory\n", tool_progname());
		return 1;
	}
	all[0] = base;
	for (i = 0; i < il->n; i++)
		all[i + 1] = il->img[i];
	if (opt->plan != NULL)
		ret = check_plan(opt, all, il->n + 1);
	if (ret == 0 && sqp_writer_expect_images(r->w, all, il->n + 1) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), opt->output,
			sqp_writer_error(r->w));
		ret = 1;
	}
	free(all);
	return ret;
}

/* --shards: as layers, the last first, each an image that shares
 * nothing with those above it but directories. */
static int feed_shards(struct tool_run *r, struct sqp_image *img, struct img_layers *il)
{
	size_t i;
	int ret = expect_shards(r, img, il);

	for (i = il->n; ret == 0 && i-- > 0;) {
		ret = begin_layer(r);
		if (ret == 0)
			ret = add_opened(r, il->img[i], r->opt->dirs[i]);
	}
	if (ret == 0 && il->n > 0)
		ret = begin_layer(r);
	if (ret == 0)
		ret = add_opened(r, img, r->opt->base);
	return ret;
}

/* Layers go in topmost first (the last LAYER first), each its own layer,
 * then --delete's whiteouts, then the base: what an upper layer replaces
 * or deletes is never read or copied (sqp_writer_begin_layer). Without
 * either, the base alone needs no layers. */
static int feed(struct tool_run *r, struct sqp_image *img, struct img_layers *il)
{
	int layered = r->opt->dir_count > 0 || has_deletes(r->opt);
	struct tar_in in = { NULL, -1 };
	size_t i = r->opt->dir_count;
	int ret = 0;

	if (r->opt->shards)
		return feed_shards(r, img, il);
	while (ret == 0 && i-- > 0) {
		ret = begin_layer(r);
		if (ret == 0)
			ret = add_layer(r, &in, il, r->opt->dirs[i]);
	}
	tar_in_close(&in);
	if (ret == 0 && has_deletes(r->opt) && (ret = begin_layer(r)) == 0)
		ret = delete_layer(r, img);
	if (ret == 0 && layered)
		ret = begin_layer(r);
	if (ret == 0 && sqp_writer_add_image(r->w, img, "", image_flags(r->opt)) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
			sqp_writer_error(r->w));
		ret = 1;
	}
	return ret;
}

int img2img_main(int argc, char **argv)
{
	struct img_layers il = { NULL, NULL, 0 };
	struct sqp_image *img = NULL;
	struct tool_options opt;
	struct tool_run run;
	char what[64];
	int fd = -1, ret;

	ret = tool_parse_options(TOOL_IMG2IMG, argc, argv, &opt);
	if (ret != 0) {
		tool_options_free(&opt);
		return ret < 0 ? 0 : ret;
	}
	if (opt.plan != NULL && !opt.shards) {
		tool_options_free(&opt);
		return tool_bad_usage("%s", "--plan checks the shards of --shards");
	}
	if (opt.shards && has_deletes(&opt)) {
		tool_options_free(&opt);
		return tool_bad_usage("%s", "--shards merges shards as they are: no --delete");
	}
	ret = open_base(&opt, &fd, &img);
	if (ret == 0) {
		il.img = calloc(opt.dir_count + 1, sizeof(*il.img));
		il.fd = calloc(opt.dir_count + 1, sizeof(*il.fd));
		if (il.img == NULL || il.fd == NULL) {
			fprintf(stderr, "%s: out of memory\n", tool_progname());
			ret = 1;
		}
	}
	if (ret == 0 && opt.shards)
		ret = open_shards(&opt, &il);
	if (ret == 0)
		ret = resolve_codec(&opt, img, il.img, il.n);
	if (ret != 0) {
		img_layers_close(&il);
		sqp_image_destroy(img);
		if (fd >= 0)
			close(fd);
		tool_options_free(&opt);
		return ret;
	}
	ret = tool_run_begin(&run, &opt);
	if (ret == 0)
		ret = tool_run_writer(&run);
	if (ret == 0) {
		ret = feed(&run, img, &il);
		snprintf(what, sizeof(what), "an image and %zu layer%s", opt.dir_count,
			 opt.dir_count == 1 ? "" : "s");
		ret = tool_run_finish(&run, ret, what);
	}
	tool_run_end(&run);
	img_layers_close(&il);
	sqp_image_destroy(img);
	close(fd);
	return ret;
}
