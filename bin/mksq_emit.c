/* SPDX-License-Identifier: MIT */
/*
 * mksq_emit.c - the second half of the translation: mksquashfs's options,
 * parsed into a struct mksq_state, checked as a whole and written out as
 * dir2img's (or tar2img's) argv, compressor options and exclude patterns
 * included.
 *
 * Invariant: mksquashfs's defaults are spelled out in the output (gzip,
 * 128 KiB blocks, exportable, tails not packed into fragments; with -tar
 * not exportable and tails packed), so dir2img's own defaults never leak
 * into an image that was asked for with mksquashfs's command line.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mksq_state.h"

/* -Xdict-size: bytes (K, M suffixes) or a percentage of the block size,
 * which mksquashfs allows with a fraction ("37.5%"); truncated as it does. */
static int dict_bytes(const char *s, uint64_t block, uint64_t *out)
{
	size_t n = strlen(s);
	uint64_t num = 0, den = 100;
	int dot = 0, digits = 0;

	if (n < 2 || s[n - 1] != '%')
		return mksq_parse_size(s, 0, out);
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] == '.' && !dot) {
			dot = 1;
			continue;
		}
		if (s[i] < '0' || s[i] > '9' || digits >= 9)
			return -1;
		num = num * 10 + (uint64_t)(s[i] - '0');
		digits++;
		if (dot)
			den *= 10;
	}
	if (num == 0 || num > den)
		return -1;
	*out = block * num / den;
	return 0;
}

/* One compressor option, checked against the compressor it belongs to. */
static int codec_opt(char *buf, size_t cap, const char *comp, const char *opt,
		     const char *owner, const char *key, const char *value,
		     char *msg, size_t size)
{
	size_t len = strlen(buf);
	int n;

	if (owner != NULL && strcmp(comp, owner) != 0)
		return mksq_fail(msg, size, 2, "%s is an option of the %s compressor, "
			    "and the compressor is %s", opt, owner, comp);
	n = snprintf(buf + len, cap - len, "%s%s%s%s", len ? "," : "", key,
		     value ? "=" : "", value ? value : "");
	if (n < 0 || (size_t)n >= cap - len)
		return mksq_fail(msg, size, 2, "%s: the compressor options are too long", opt);
	return 0;
}

static int codec_opts(const struct mksq_state *st, const char *comp,
		      struct mksq_argv *o, char *msg, size_t size)
{
	char buf[512] = "", num[32];
	uint64_t dict;
	int r = 0;

	if (st->level)
		r = codec_opt(buf, sizeof(buf), comp, "-Xcompression-level", NULL,
			      "level", st->level, msg, size);
	if (r == 0 && st->bcj)
		r = codec_opt(buf, sizeof(buf), comp, "-Xbcj", "xz", "filters",
			      st->bcj, msg, size);
	if (r == 0 && st->dict) {
		if (dict_bytes(st->dict, st->block, &dict) != 0)
			return mksq_fail(msg, size, 2, "-Xdict-size '%s' is neither a size "
				    "nor a percentage of the block size", st->dict);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)dict);
		r = codec_opt(buf, sizeof(buf), comp, "-Xdict-size", "xz",
			      "dict-size", num, msg, size);
	}
	if (r == 0 && st->hc)
		r = codec_opt(buf, sizeof(buf), comp, "-Xhc", "lz4", "hc", NULL,
			      msg, size);
	if (r == 0 && st->window)
		r = codec_opt(buf, sizeof(buf), comp, "-Xwindow-size", "gzip",
			      "window", st->window, msg, size);
	if (r == 0 && st->strategy)
		r = codec_opt(buf, sizeof(buf), comp, "-Xstrategy", "gzip",
			      "strategy", st->strategy, msg, size);
	if (r == 0 && st->algo)
		r = codec_opt(buf, sizeof(buf), comp, "-Xalgorithm", "lzo",
			      "algorithm", st->algo, msg, size);
	if (r == 0 && buf[0] != '\0' && mksq_argv_pushf(o, "--comp-opt=%s", buf) != 0)
		r = mksq_fail(msg, size, 1, "out of memory");
	return r;
}

/* mksq_args.h; the appender (mksq_append.c) renames by the same names. */
char *mksq_source_name(const char *path)
{
	char *copy = strdup(path), *real = NULL, *base, *name;
	size_t n;

	if (copy == NULL)
		return NULL;
	for (n = strlen(copy); n > 1 && copy[n - 1] == '/'; n--)
		copy[n - 1] = '\0';
	base = strrchr(copy, '/') ? strrchr(copy, '/') + 1 : copy;
	if (strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
		real = realpath(copy, NULL);
		base = real && strrchr(real, '/') ? strrchr(real, '/') + 1 : base;
	}
	name = strdup(base);
	free(real);
	free(copy);
	return name;
}

static void sources_free(struct mksq_sources *s)
{
	for (int i = 0; s->name != NULL && i < s->n; i++)
		free(s->name[i]);
	free(s->name);
}

static int sources_init(struct mksq_sources *s, char **paths, int n, int keep_dir)
{
	struct stat sb;

	s->path = paths;
	s->n = n;
	/* one source that is not known to be anything but a directory (lstat,
	 * as mksquashfs: a symlink to one is a symlink): its contents are
	 * the root */
	s->flat = n == 0 || (n == 1 && !keep_dir && (lstat(paths[0], &sb) != 0 ||
						     S_ISDIR(sb.st_mode)));
	s->name = calloc((size_t)n + 1, sizeof(*s->name));
	if (s->name == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		s->name[i] = s->flat ? strdup("") : mksq_source_name(paths[i]);
		if (s->name[i] == NULL)
			return -1;
	}
	return 0;
}

/*
 * The root's time as mksquashfs 4.5.1 and 4.7 give it: -root-time, else
 * the source directory's (one source) or its clock (a root of its own);
 * then -all-time replaces it and SOURCE_DATE_EPOCH clamps it, as every
 * time. NULL where the packer's own rule gives the same: one source
 * directory without -root-time (--mtime and --clamp-mtime reach it), or
 * a root of its own without a time option: the clock is not
 * reproducible, so that root takes the image time, as in dir2img.
 */
static const char *root_time(const struct mksq_state *st, int own, const char *sde)
{
	if (!own && !st->root_time)
		return NULL;
	if (st->all_time)
		return st->all_time;
	if (st->root_time && sde != NULL && sde[0] != '\0' &&
	    strtoull(st->root_time, NULL, 10) > strtoull(sde, NULL, 10))
		return sde;
	if (st->root_time)
		return st->root_time;
	return sde != NULL && sde[0] != '\0' ? sde : NULL;
}

/*
 * The root directory's attributes as a spec line, when they are not those
 * of one source directory: mksquashfs makes a root of its own for several
 * sources, -keep-as-directory and -tar, mode 0777 and owned by the user
 * who runs it, and -root-mode, -root-uid, -root-gid, -root-time set them.
 * Appending, mksquashfs makes the root anew the same way (the image's
 * root is left out: mksq_append.c).
 */
static int emit_root(const struct mksq_state *st, const struct mksq_sources *src,
		     const char *sde, struct mksq_argv *o)
{
	int own = st->tar || !src->flat;
	unsigned long mode = 0777;
	long long uid = getuid(), gid = getgid();
	const char *time = root_time(st, own, sde);
	struct stat sb;

	if (!own && !st->root_mode && st->root_uid < 0 && st->root_gid < 0 && !time)
		return 0;
	if (!own) {
		if (stat(src->path[0], &sb) != 0)
			return 0; /* dir2img says why it cannot read it */
		mode = sb.st_mode & 07777;
		uid = sb.st_uid;
		gid = sb.st_gid;
	}
	uid = st->root_uid >= 0 ? st->root_uid : st->uid >= 0 ? st->uid : uid;
	gid = st->root_gid >= 0 ? st->root_gid : st->gid >= 0 ? st->gid : gid;
	if (st->root_mode)
		mode = strtoul(st->root_mode, NULL, 8);
	if (time != NULL)
		return mksq_argv_pushf(o, "--spec-line=/ M %s %lo %lld %lld", time,
				       mode, uid, gid);
	return mksq_argv_pushf(o, "--spec-line=/ m %lo %lld %lld", mode, uid, gid);
}

/* The simple flags, in dir2img's spelling. On append mksquashfs ignores
 * -no-fragments, -no-duplicates, -noI/-noD/-noF/-noX and the export
 * options: the image has them already. */
static int emit_flags(const struct mksq_state *st, const char *sde,
		      struct mksq_argv *o)
{
	const struct mksq_base *base = st->base;
	static const char *const unc[] = { "inodes", "data", "fragments", "xattrs" };
	const int unc_on[] = { st->noI, st->noD, st->noF, st->noX };
	char list[64] = "";
	int r = 0;

	r |= st->jobs ? mksq_argv_pushf(o, "--jobs=%s", st->jobs) : 0;
	r |= st->quiet ? mksq_argv_push(o, "--quiet") : 0;
	r |= st->info ? mksq_argv_push(o, "--verbose") : 0;
	r |= st->progress ? mksq_argv_push(o, st->progress == 1 ?
					   "--progress=none" : "--progress=auto") : 0;
	if (st->no_fragments && !base)
		r |= mksq_argv_push(o, "--no-fragments");
	else
		r |= mksq_argv_push(o, st->tailends == 1 || (st->tailends < 0 && st->tar) ?
				    "--always-fragments" : "--no-tailends");
	if (base ? base->exportable : st->exports == 1 || (st->exports < 0 && !st->tar))
		r |= mksq_argv_push(o, "--exportable");
	/* mksquashfs stores xattrs on append unless the image says it has
	 * none stored; our images say so whenever they have none, -no-xattrs
	 * or not, so then the line decides */
	r |= (base ? base->no_xattrs && st->no_xattrs : st->no_xattrs) ?
		mksq_argv_push(o, "--no-xattrs") : 0;
	r |= st->no_pad ? mksq_argv_push(o, "--no-pad") : 0;
	r |= st->no_dedup && !base ? mksq_argv_push(o, "--no-dedup") : 0;
	r |= st->no_hardlinks ? mksq_argv_push(o, "--no-hardlinks") : 0;
	r |= st->keep_dir ? mksq_argv_push(o, "--keep-dir") : 0;
	r |= st->one_fs ? mksq_argv_push(o, "--one-file-system") : 0;
	r |= st->uid >= 0 ? mksq_argv_pushf(o, "--uid=%lld", st->uid) : 0;
	r |= st->gid >= 0 ? mksq_argv_pushf(o, "--gid=%lld", st->gid) : 0;
	r |= st->all_time ? mksq_argv_pushf(o, "--mtime=%s", st->all_time) : 0;
	r |= st->mkfs_time ? mksq_argv_pushf(o, "--image-time=%s", st->mkfs_time) : 0;
	/* mksquashfs clamps newer mtimes to SOURCE_DATE_EPOCH */
	r |= sde != NULL && sde[0] != '\0' ? mksq_argv_push(o, "--clamp-mtime") : 0;
	r |= st->offset ? mksq_argv_pushf(o, "--offset=%llu",
					  (unsigned long long)st->offset) : 0;
	r |= st->mem ? mksq_argv_pushf(o, "--mem=%llu", (unsigned long long)st->mem) : 0;
	r |= st->sort ? mksq_argv_pushf(o, "--sort=%s", st->sort) : 0;
	for (int i = 0; i < 4 && !base; i++) {
		if (unc_on[i])
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 "%s%s", list[0] ? "," : "", unc[i]);
	}
	r |= list[0] ? mksq_argv_pushf(o, "--uncompressed=%s", list) : 0;
	for (int i = 0; i < st->spec.n; i++)
		r |= mksq_argv_push(o, st->spec.v[i]);
	for (int i = 0; i < st->verity.n; i++)
		r |= mksq_argv_push(o, st->verity.v[i]);
	return r;
}

/* A time as mksquashfs takes it: an unsigned 32-bit number of seconds. */
static int check_time(const char *opt, const char *t, char *msg, size_t size)
{
	unsigned long long v;
	char *end;

	if (t == NULL)
		return 0;
	errno = 0;
	v = strtoull(t, &end, 10);
	if (t[0] < '0' || t[0] > '9' || errno != 0 || *end != '\0' || v > UINT32_MAX)
		return mksq_fail(msg, size, 2, "%s '%s' is not a number of seconds "
			    "between 0 and 2^32-1", opt, t);
	return 0;
}

/* What the options say, checked as a whole. */
static int check_state(const struct mksq_state *st, const char *sde,
		       char *msg, size_t size)
{
	static const char *const comps[] = { "gzip", "lzo", "lz4", "xz", "zstd", "lzma" };
	unsigned long long v;
	char *end;
	int known = 0;

	for (size_t i = 0; i < sizeof(comps) / sizeof(comps[0]); i++)
		known |= strcmp(st->comp, comps[i]) == 0;
	if (!known)
		return mksq_fail(msg, size, 2, "-comp '%s': unknown compressor (gzip, "
			    "lzo, lz4, xz, zstd or lzma)", st->comp);
	if (st->jobs != NULL) {
		errno = 0;
		v = strtoull(st->jobs, &end, 10);
		if (st->jobs[0] < '0' || st->jobs[0] > '9' || errno != 0 ||
		    *end != '\0' || v == 0 || v > 1024)
			return mksq_fail(msg, size, 2, "-processors '%s' is not a number "
				    "between 1 and 1024", st->jobs);
	}
	/* -root-time is not among them: SOURCE_DATE_EPOCH clamps it */
	if (sde != NULL && sde[0] != '\0' && (st->mkfs_time || st->all_time))
		return mksq_fail(msg, size, 2, "SOURCE_DATE_EPOCH and %s cannot be used "
			    "together (mksquashfs refuses them too)",
			    st->mkfs_time ? "-mkfs-time" : "-all-time");
	if (st->tar && (st->keep_dir || st->one_fs))
		return mksq_fail(msg, size, 2, "%s has no meaning with -tar",
			    st->keep_dir ? "-keep-as-directory" : "-one-file-system");
	if (st->root_mode != NULL) {
		v = strtoul(st->root_mode, &end, 8);
		if (st->root_mode[0] < '0' || st->root_mode[0] > '7' || *end != '\0' ||
		    v > 07777)
			return mksq_fail(msg, size, 2, "-root-mode '%s' is not an octal "
					 "mode", st->root_mode);
	}
	if (check_time("-mkfs-time", st->mkfs_time, msg, size) != 0 ||
	    check_time("-root-time", st->root_time, msg, size) != 0)
		return 2;
	return check_time("-all-time", st->all_time, msg, size);
}

static int emit_excludes(const struct mksq_state *st, const struct mksq_sources *src,
			 int argc, char **argv, struct mksq_argv *o,
			 char *msg, size_t size)
{
	int r;

	for (int i = 0; i < st->ef.n; i++) {
		r = mksq_exclude_file(o, src, st->wildcards, st->ef.v[i], msg, size);
		if (r != 0)
			return r;
	}
	for (int i = st->first_exclude; i > 0 && i < argc; i++) {
		if (mksq_exclude_add(o, src, st->wildcards, argv[i]) != 0)
			return mksq_fail(msg, size, 1, "out of memory");
	}
	if (st->one_fs && !st->tar && mksq_exclude_mounts(o, src) != 0)
		return mksq_fail(msg, size, 1, "out of memory");
	return 0;
}

/* Everything after the options are parsed: dir2img's argv. */
int mksq_emit(const struct mksq_state *st, struct mksq_args *a, char **src_v,
		int nsrc, int argc, char **argv, const char *sde, char *msg,
		size_t size)
{
	struct mksq_argv *o = &a->argv;
	struct mksq_sources src = { 0 };
	int r;

	r = check_state(st, sde, msg, size);
	if (r != 0)
		return r;
	/* an append replaces DEST too, once the extended image is complete */
	if (st->base != NULL) {
		src.top = st->base->top;
		src.top_as = st->base->top_as;
		src.ntop = st->base->ntop;
	}
	if (sources_init(&src, src_v, st->tar ? 0 : nsrc, st->keep_dir) != 0 ||
	    mksq_argv_push(o, st->tar ? "tar2img" : "dir2img") != 0 ||
	    ((st->noappend || st->base) && mksq_argv_push(o, "--force") != 0) ||
	    mksq_argv_pushf(o, "--compressor=%s", st->base ? st->base->comp : st->comp) != 0 ||
	    mksq_argv_pushf(o, "--block-size=%llu", st->base ? st->base->block :
			    (unsigned long long)st->block) != 0 ||
	    emit_root(st, &src, sde, o) != 0 || emit_flags(st, sde, o) != 0) {
		r = mksq_fail(msg, size, 1, "out of memory");
		goto out;
	}
	/* the image's codec, whose options the user's -X... were not for */
	r = st->base ? 0 : codec_opts(st, st->comp, o, msg, size);
	if (r == 0)
		r = emit_excludes(st, &src, argc, argv, o, msg, size);
	if (r == 0 && st->base && st->base->keep_dir && mksq_argv_push(o, "--keep-dir") != 0)
		r = mksq_fail(msg, size, 1, "out of memory");
	if (r == 0 && (mksq_argv_push(o, "--") != 0 || mksq_argv_push(o, a->dest) != 0))
		r = mksq_fail(msg, size, 1, "out of memory");
	if (r == 0 && st->base && st->base->empty && mksq_argv_push(o, st->base->empty) != 0)
		r = mksq_fail(msg, size, 1, "out of memory");
	for (int i = 0; r == 0 && i < nsrc && !st->tar; i++) {
		if (st->base && st->base->drop && st->base->drop[i])
			continue;
		if (mksq_argv_push(o, st->base && st->base->src && st->base->src[i] ?
				   st->base->src[i] : src_v[i]) != 0)
			r = mksq_fail(msg, size, 1, "out of memory");
	}
out:
	sources_free(&src);
	return r;
}

void mksq_args_free(struct mksq_args *args)
{
	mksq_argv_free(&args->argv);
	mksq_argv_free(&args->warn);
}

int mksq_argv_push(struct mksq_argv *a, const char *s)
{
	char *copy;

	if (a->n + 2 > a->cap) {
		int cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, (size_t)cap * sizeof(*v));

		if (v == NULL)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	copy = strdup(s);
	if (copy == NULL)
		return -1;
	a->v[a->n++] = copy;
	a->v[a->n] = NULL;
	return 0;
}

int mksq_argv_pushf(struct mksq_argv *a, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	r = mksq_argv_push(a, s);
	free(s);
	return r;
}

void mksq_argv_free(struct mksq_argv *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}
