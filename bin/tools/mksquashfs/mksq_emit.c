/* SPDX-License-Identifier: MIT */
/*
 * mksq_emit.c - the second half of the translation: mksquashfs's options,
 * parsed into a struct mksq_state, checked as a whole and set in the
 * packer's options (struct tool_options: dir2img's, or tar2img's),
 * compressor options and exclude patterns included. Every value is
 * checked here or in mksq_args.c, so a message names the option the
 * user typed, never a dir2img option.
 *
 * Invariant: mksquashfs's defaults are set explicitly (gzip, 128 KiB
 * blocks, exportable, tails not packed into fragments; with -tar not
 * exportable and tails packed), so dir2img's own defaults never leak
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
#include "../common/tool_optvals.h"

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

/* One compressor option, checked against the compressor it belongs to
 * and applied by the library's rules; value NULL for a flag. */
static int codec_opt(struct sqp_codec_config *cfg, const char *comp, const char *opt,
		     const char *owner, const char *key, const char *value,
		     char *msg, size_t size)
{
	/* mksquashfs's lists: -Xbcj x86,arm and -Xstrategy default,filtered */
	int list = strcmp(opt, "-Xbcj") == 0 || strcmp(opt, "-Xstrategy") == 0, r;

	if (owner != NULL && strcmp(comp, owner) != 0)
		return mksq_fail(msg, size, 2, "%s is an option of the %s compressor, "
			    "and the compressor is %s", opt, owner, comp);
	r = tool_codec_option(cfg, opt, key, value, list, msg, size);
	return r == 1 ? mksq_fail(msg, size, 1, "out of memory") : r;
}

/* -comp and -b, then the -X options: the codec the packer writes with. */
static int codec(const struct mksq_state *st, struct sqp_codec_config *cfg,
		 char *msg, size_t size)
{
	int id = sqp_codec_by_name(st->comp);
	char num[32];
	uint64_t dict;
	int r = 0;

	if (id < 0 || !sqp_codec_available(id) ||
	    sqp_codec_config_init(cfg, id, (uint32_t)st->block) != 0)
		return mksq_fail(msg, size, 2, "-comp %s: this build has no %s compressor",
				 st->comp, st->comp);
	if (st->level)
		r = codec_opt(cfg, st->comp, "-Xcompression-level", NULL, "level",
			      st->level, msg, size);
	if (r == 0 && st->bcj)
		r = codec_opt(cfg, st->comp, "-Xbcj", "xz", "filters", st->bcj, msg, size);
	if (r == 0 && st->dict) {
		if (dict_bytes(st->dict, st->block, &dict) != 0)
			return mksq_fail(msg, size, 2, "-Xdict-size '%s' is neither a size "
				    "nor a percentage of the block size", st->dict);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)dict);
		r = codec_opt(cfg, st->comp, "-Xdict-size", "xz", "dict-size", num,
			      msg, size);
	}
	if (r == 0 && st->hc)
		r = codec_opt(cfg, st->comp, "-Xhc", "lz4", "hc", NULL, msg, size);
	if (r == 0 && st->window)
		r = codec_opt(cfg, st->comp, "-Xwindow-size", "gzip", "window", st->window,
			      msg, size);
	if (r == 0 && st->strategy)
		r = codec_opt(cfg, st->comp, "-Xstrategy", "gzip", "strategy",
			      st->strategy, msg, size);
	if (r == 0 && st->algo)
		r = codec_opt(cfg, st->comp, "-Xalgorithm", "lzo", "algorithm", st->algo,
			      msg, size);
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

static int sources_init(struct mksq_sources *s, char **paths, int n, int keep_dir,
			int no_strip)
{
	struct stat sb;

	s->path = paths;
	s->n = n;
	/* one source that is not known to be anything but a directory (lstat,
	 * as mksquashfs: a symlink to one is a symlink): its contents are
	 * the root; with -no-strip every source is at its path */
	s->flat = n == 0 || (n == 1 && !keep_dir && !no_strip &&
			     (lstat(paths[0], &sb) != 0 || S_ISDIR(sb.st_mode)));
	s->name = calloc((size_t)n + 1, sizeof(*s->name));
	if (s->name == NULL)
		return -1;
	for (int i = 0; i < n; i++) {
		s->name[i] = s->flat ? strdup("") : no_strip ? mksq_nostrip_name(paths[i]) :
			     mksq_source_name(paths[i]);
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
 * root is left out: mksq_append.c). With -no-strip the root is the
 * directory the paths start in, or one of its own when they start in
 * different ones.
 */
static int emit_root(const struct mksq_state *st, const struct mksq_sources *src,
		     const char *sde, struct tool_pargs *o)
{
	char line[128];
	struct stat sb;

	/* -no-strip: the directory the paths start in, when they start in
	 * one (the packer's root then, as one source directory's) */
	int keep = st->no_strip && !st->tar ? mksq_nostrip_root(src->path, src->n, &sb) : -1;
	int own = keep >= 0 ? !keep : st->tar || !src->flat;
	unsigned long mode = 0777;
	long long uid = getuid(), gid = getgid();
	const char *time = root_time(st, own, sde);

	if (!own && !st->root_mode && st->root_uid < 0 && st->root_gid < 0 && !time)
		return 0;
	if (!own) {
		if (keep < 0 && stat(src->path[0], &sb) != 0)
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
		snprintf(line, sizeof(line), "/ M %s %lo %lld %lld", time, mode, uid, gid);
	else
		snprintf(line, sizeof(line), "/ m %lo %lld %lld", mode, uid, gid);
	return tool_pargs_add(o, PARG_SPEC_LINE, line, 1);
}

/* The simple flags. On append mksquashfs ignores -no-fragments,
 * -no-duplicates, -noI/-noD/-noF/-noX and the export options: the image
 * has them already. The values were checked (check_state). */
static void set_flags(const struct mksq_state *st, const char *sde,
		      struct tool_options *opt)
{
	static const unsigned unc[] = { SQP_WRITE_RAW_INODES, SQP_WRITE_RAW_DATA,
					SQP_WRITE_RAW_FRAGMENTS, SQP_WRITE_RAW_XATTRS };
	const int unc_on[] = { st->noI, st->noD, st->noF, st->noX };
	const struct mksq_base *base = st->base;
	struct sqp_writer_desc *d = &opt->desc;
	struct sqp_policy_desc *p = &opt->policy;

	d->jobs = st->jobs ? (unsigned)strtoul(st->jobs, NULL, 10) : 0;
	opt->quiet = st->quiet;
	opt->verbose = st->info;
	opt->progress = st->progress == 1 ? PROGRESS_NONE : PROGRESS_AUTO;
	if (st->no_fragments && !base)
		d->fragment_mode = SQP_FRAGMENTS_NONE;
	else
		d->fragment_mode = st->tailends == 1 || (st->tailends < 0 && st->tar) ?
				   SQP_FRAGMENTS_ALL : SQP_FRAGMENTS_SMALL;
	if (base ? base->exportable : st->exports == 1 || (st->exports < 0 && !st->tar))
		d->flags |= SQP_WRITE_EXPORTABLE;
	/* mksquashfs stores xattrs on append unless the image says it has
	 * none stored; our images say so whenever they have none, -no-xattrs
	 * or not, so then the line decides */
	if (base ? base->no_xattrs && st->no_xattrs : st->no_xattrs) {
		d->flags |= SQP_WRITE_NO_XATTRS;
		opt->scan_flags |= SQP_DIRSCAN_NO_XATTRS;
	}
	d->flags |= st->no_pad ? SQP_WRITE_NO_PAD : 0;
	d->flags |= st->no_dedup && !base ? SQP_WRITE_NO_DEDUP : 0;
	opt->scan_flags |= st->no_hardlinks ? SQP_DIRSCAN_NO_HARDLINKS : 0;
	opt->scan_flags |= st->keep_dir ? SQP_DIRSCAN_KEEP_DIR : 0;
	/* a tar's paths are its own: mksquashfs ignores -no-strip there */
	opt->scan_flags |= st->no_strip && !st->tar ? SQP_DIRSCAN_KEEP_PATH : 0;
	opt->scan_flags |= st->one_fs ? SQP_DIRSCAN_ONE_FS : 0;
	if (st->uid >= 0) {
		p->flags |= SQP_POLICY_SET_UID;
		p->uid = (uint32_t)st->uid;
	}
	if (st->gid >= 0) {
		p->flags |= SQP_POLICY_SET_GID;
		p->gid = (uint32_t)st->gid;
	}
	if (st->all_time) {
		p->flags |= SQP_POLICY_SET_MTIME;
		p->mtime = (int64_t)strtoull(st->all_time, NULL, 10);
	}
	if (st->mkfs_time)
		d->mod_time = (int64_t)strtoull(st->mkfs_time, NULL, 10);
	/* mksquashfs clamps newer mtimes to SOURCE_DATE_EPOCH */
	if (sde != NULL && sde[0] != '\0')
		p->flags |= SQP_POLICY_CLAMP_MTIME;
	d->offset = st->offset;
	d->mem_limit = st->mem;
	for (int i = 0; i < 4 && !base; i++)
		d->flags |= unc_on[i] ? unc[i] : 0;
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
	if ((st->shard || st->shard_plan) && st->tar)
		return mksq_fail(msg, size, 2, "%s splits SOURCE directories, not -tar",
				 st->shard ? "-shard" : "-shard-plan");
	if (st->shard && st->shard_plan)
		return mksq_fail(msg, size, 2, "-shard and -shard-plan: give one");
	/* a stream is stored in stream order, its entries as they come */
	if (st->tar && (st->sort || st->no_hardlinks || st->info))
		return mksq_fail(msg, size, 2, "%s is not done with -tar",
				 st->sort ? "-sort" : st->no_hardlinks ? "-no-hardlinks" : "-info");
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

/* The policy inputs, in the order the packer applied them when they were
 * its command line: the root's line, -sort, -p and -pf, the excludes. */
static int set_policy(const struct mksq_state *st, const struct mksq_sources *src,
		      int argc, char **argv, const char *sde, struct tool_pargs *o,
		      char *msg, size_t size)
{
	struct mksq_argv ex = { 0 };
	int r = emit_root(st, src, sde, o);

	if (r == 0 && st->sort)
		r = tool_pargs_add(o, PARG_SORT, st->sort, 0);
	for (size_t i = 0; r == 0 && i < st->spec.n; i++)
		r = tool_pargs_add(o, st->spec.v[i].kind, st->spec.v[i].arg, 1);
	if (r != 0)
		return mksq_fail(msg, size, 1, "out of memory");
	for (int i = 0; r == 0 && i < st->ef.n; i++)
		r = mksq_exclude_file(&ex, src, st->wildcards, st->ef.v[i], msg, size);
	for (int i = st->first_exclude; r == 0 && i > 0 && i < argc; i++)
		if (mksq_exclude_add(&ex, src, st->wildcards, argv[i]) != 0)
			r = mksq_fail(msg, size, 1, "out of memory");
	if (r == 0 && st->one_fs && !st->tar && mksq_exclude_mounts(&ex, src) != 0)
		r = mksq_fail(msg, size, 1, "out of memory");
	for (int i = 0; r == 0 && i < ex.n; i++)
		if (tool_pargs_add(o, PARG_EXCLUDE, ex.v[i], 1) != 0)
			r = mksq_fail(msg, size, 1, "out of memory");
	mksq_argv_free(&ex);
	return r;
}

/* OUTPUT and the DIRs: the sources (a renamed one's link in its place,
 * those left out dropped), after the directory standing for none. */
static int set_operands(const struct mksq_state *st, struct mksq_args *a,
			char **src_v, int nsrc)
{
	const struct mksq_base *base = st->base;

	a->opt.output = a->dest;
	if (st->tar) {
		a->opt.tool = TOOL_TAR2IMG;
		return 0;  /* the tar on stdin */
	}
	if (base && base->empty && mksq_argv_push(&a->dirs, base->empty) != 0)
		return -1;
	for (int i = 0; i < nsrc; i++) {
		if (base && base->drop && base->drop[i])
			continue;
		if (mksq_argv_push(&a->dirs, base && base->src && base->src[i] ?
				   base->src[i] : src_v[i]) != 0)
			return -1;
	}
	mksq_args_dirs(a);
	return 0;
}

/* Everything after the options are parsed: the packer's options. */
int mksq_emit(struct mksq_state *st, struct mksq_args *a, char **src_v,
	      int nsrc, int argc, char **argv, const char *sde, char *msg,
	      size_t size)
{
	struct tool_options *opt = &a->opt;
	struct mksq_sources src = { 0 };
	int r;

	r = check_state(st, sde, msg, size);
	if (r != 0)
		return r;
	if (st->base != NULL) {
		/* the image's codec, whose options the user's -X... were not
		 * for (the caller sets the image's own, options block and
		 * all, once it is open) */
		st->comp = st->base->comp;
		st->block = st->base->block;
		st->level = st->bcj = st->dict = st->window = st->strategy = st->algo = NULL;
		st->hc = 0;
		src.top = st->base->top;
		src.top_as = st->base->top_as;
		src.ntop = st->base->ntop;
	}
	r = codec(st, &opt->desc.codec, msg, size);
	if (r != 0)
		return r;
	if (st->shard && tool_shard_set(opt, 0, st->shard) != 0)
		return mksq_fail(msg, size, 2, "-shard '%s': I/N, shard I of N, "
				 "1 <= I <= N <= 65536", st->shard);
	if (st->shard_plan && tool_shard_set(opt, 1, st->shard_plan) != 0)
		return mksq_fail(msg, size, 2, "-shard-plan '%s': a number of shards, "
				 "1 to 65536", st->shard_plan);
	/* an append replaces DEST too, once the extended image is complete */
	opt->force = st->noappend || st->base;
	set_flags(st, sde, opt);
	if (sources_init(&src, src_v, st->tar ? 0 : nsrc, st->keep_dir,
			 st->no_strip) != 0) {
		r = mksq_fail(msg, size, 1, "out of memory");
		goto out;
	}
	r = set_policy(st, &src, argc, argv, sde, &opt->pargs, msg, size);
	if (r == 0 && st->base && st->base->keep_dir)
		opt->scan_flags |= SQP_DIRSCAN_KEEP_DIR;
	if (r == 0 && set_operands(st, a, src_v, nsrc) != 0)
		r = mksq_fail(msg, size, 1, "out of memory");
out:
	sources_free(&src);
	return r;
}

void mksq_args_dirs(struct mksq_args *args)
{
	args->opt.dirs = args->dirs.v;
	args->opt.dir_count = (size_t)args->dirs.n;
}

void mksq_args_free(struct mksq_args *args)
{
	tool_options_free(&args->opt);
	mksq_argv_free(&args->dirs);
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
