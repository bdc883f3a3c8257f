/* SPDX-License-Identifier: MIT */
/*
 * mksq_args.c - mksquashfs's options, one table row each, read into what
 * they set (struct mksq_state; mksq_emit.c turns that into the packer's
 * options). Build systems call mksquashfs with a fixed line; this is what
 * lets them switch by changing the program name. Every option mksquashfs
 * documents is either translated, accepted because our images already do
 * what it asks (-reproducible, -no-recovery, -exit-on-error), or
 * refused with exit status 2 naming it; nothing is silently dropped.
 *
 * Invariant: argv is only read; the table is the single list of what is
 * taken, and an option not in it is a usage error (exit status 2).
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mksq_state.h"

enum kind { SET, STR, CALL };
enum call {
	C_B, C_OFFSET, C_MEM, C_FUID, C_FGID, C_RUID, C_RGID, C_ROOT, C_P, C_PF, C_EF, C_E,
	C_HELP, C_VERSION, C_NOOP,
};

struct opt {
	const char *name;
	unsigned char kind, arg;
	size_t field;                /* SET: int, STR: const char * */
	int value;                   /* SET: the value; CALL: enum call */
};

#define F(f) offsetof(struct mksq_state, f)
static const struct opt opts[] = {
	{ "-comp", STR, 1, F(comp), 0 },
	{ "-b", CALL, 1, 0, C_B },
	{ "-processors", STR, 1, F(jobs), 0 },
	{ "-noappend", SET, 0, F(noappend), 1 },
	{ "-Xcompression-level", STR, 1, F(level), 0 },
	{ "-Xbcj", STR, 1, F(bcj), 0 },
	{ "-Xdict-size", STR, 1, F(dict), 0 },
	{ "-Xhc", SET, 0, F(hc), 1 },
	{ "-Xwindow-size", STR, 1, F(window), 0 },
	{ "-Xstrategy", STR, 1, F(strategy), 0 },
	{ "-Xalgorithm", STR, 1, F(algo), 0 },
	{ "-all-root", CALL, 0, 0, C_ROOT },
	{ "-root-owned", CALL, 0, 0, C_ROOT },
	{ "-force-uid", CALL, 1, 0, C_FUID },
	{ "-force-gid", CALL, 1, 0, C_FGID },
	{ "-e", CALL, 0, 0, C_E },
	{ "-ef", CALL, 1, 0, C_EF },
	{ "-wildcards", SET, 0, F(wildcards), 1 },
	{ "-sort", STR, 1, F(sort), 0 },
	{ "-offset", CALL, 1, 0, C_OFFSET },
	{ "-o", CALL, 1, 0, C_OFFSET },
	{ "-no-progress", SET, 0, F(progress), 1 },
	{ "-progress", SET, 0, F(progress), 2 },
	{ "-quiet", SET, 0, F(quiet), 1 },
	{ "-info", SET, 0, F(info), 1 },
	{ "-no-fragments", SET, 0, F(no_fragments), 1 },
	{ "-always-use-fragments", SET, 0, F(tailends), 1 },
	{ "-tailends", SET, 0, F(tailends), 1 },
	{ "-no-tailends", SET, 0, F(tailends), 0 },
	{ "-no-xattrs", SET, 0, F(no_xattrs), 1 },
	{ "-xattrs", SET, 0, F(no_xattrs), 0 },
	{ "-nopad", SET, 0, F(no_pad), 1 },
	{ "-mkfs-time", STR, 1, F(mkfs_time), 0 },
	{ "-fstime", STR, 1, F(mkfs_time), 0 },
	{ "-all-time", STR, 1, F(all_time), 0 },
	{ "-no-hardlinks", SET, 0, F(no_hardlinks), 1 },
	{ "-keep-as-directory", SET, 0, F(keep_dir), 1 },
	{ "-no-strip", SET, 0, F(no_strip), 1 },
	{ "-root-mode", STR, 1, F(root_mode), 0 },
	{ "-root-time", STR, 1, F(root_time), 0 },
	{ "-root-uid", CALL, 1, 0, C_RUID },
	{ "-root-gid", CALL, 1, 0, C_RGID },
	{ "-no-exports", SET, 0, F(exports), 0 },
	{ "-exports", SET, 0, F(exports), 1 },
	{ "-noI", SET, 0, F(noI), 1 },
	{ "-noInodeCompression", SET, 0, F(noI), 1 },
	{ "-noD", SET, 0, F(noD), 1 },
	{ "-noDataCompression", SET, 0, F(noD), 1 },
	{ "-noF", SET, 0, F(noF), 1 },
	{ "-noFragmentCompression", SET, 0, F(noF), 1 },
	{ "-noX", SET, 0, F(noX), 1 },
	{ "-noXattrCompression", SET, 0, F(noX), 1 },
	{ "-no-duplicates", SET, 0, F(no_dedup), 1 },
	{ "-one-file-system", SET, 0, F(one_fs), 1 },
	{ "-root-becomes", STR, 1, F(root_becomes), 0 },
	{ "-p", CALL, 1, 0, C_P },
	{ "-pf", CALL, 1, 0, C_PF },
	{ "-tar", SET, 0, F(tar), 1 },
	{ "-shard", STR, 1, F(shard), 0 },
	{ "-shard-plan", STR, 1, F(shard_plan), 0 },
	/* Our images are always reproducible, never leave a recovery file,
	 * always stop at the first error and stay within tens of MiB. */
	{ "-reproducible", CALL, 0, 0, C_NOOP },
	{ "-no-recovery", CALL, 0, 0, C_NOOP },
	{ "-exit-on-error", CALL, 0, 0, C_NOOP },
	{ "-mem", CALL, 1, 0, C_MEM },
	{ "-help", CALL, 0, 0, C_HELP },
	{ "-h", CALL, 0, 0, C_HELP },
	{ "-version", CALL, 0, 0, C_VERSION },
	/* dir2img's usage messages point to --help */
	{ "--help", CALL, 0, 0, C_HELP },
	{ "--version", CALL, 0, 0, C_VERSION },
};
#undef F

int mksq_fail(char *msg, size_t size, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, size, fmt, ap);
	va_end(ap);
	return status;
}

/* N with an optional K, M or G suffix (powers of 1024), as mksquashfs. */
int mksq_parse_size(const char *s, int allow_g, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || v > (1ull << 40))
		return -1;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	else if (allow_g && (*end == 'g' || *end == 'G'))
		v <<= 30, end++;
	if (*end != '\0')
		return -1;
	*out = v;
	return 0;
}

/* A uid or gid: a number, or a name looked up in the user database. */
static int parse_id(const char *s, int group, long long *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] >= '0' && s[0] <= '9' && errno == 0 && *end == '\0') {
		if (v > UINT32_MAX)
			return -1;
		*out = (long long)v;
		return 0;
	}
	if (group) {
		struct group *gr = getgrnam(s);

		if (gr == NULL)
			return -1;
		*out = gr->gr_gid;
	} else {
		struct passwd *pw = getpwnam(s);

		if (pw == NULL)
			return -1;
		*out = pw->pw_uid;
	}
	return 0;
}

static int set_id(const char *name, const char *arg, int group, long long *out,
		  char *msg, size_t size)
{
	if (parse_id(arg, group, out) == 0)
		return 0;
	return mksq_fail(msg, size, 2, "%s '%s': no such %s, and not a number "
			 "below 2^32", name, arg, group ? "group" : "user");
}

/* The first component of a pseudo definition's path (quoted or with \
 * escapes, as the policy reads it), into buf. */
static void pseudo_top(const char *line, char *buf, size_t size)
{
	size_t n = 0;
	int quoted = 0;

	while (*line == ' ' || *line == '\t')
		line++;
	while (*line == '/')
		line++;
	for (; *line != '\0' && n + 1 < size; line++) {
		if (*line == '"') {
			quoted = !quoted;
			continue;
		}
		if (*line == '\\' && line[1] != '\0')
			line++;
		else if (*line == '/' || (!quoted && (*line == ' ' || *line == '\t')))
			break;
		buf[n++] = *line;
	}
	buf[n] = '\0';
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* On append, mksquashfs leaves the image's entries as they are: a -p
 * line under one of its root's names is ignored with a warning. 1 when
 * arg is such a line (told in st->warn). */
static int pseudo_on_base(struct mksq_state *st, const char *arg)
{
	char top[260], *key = top;

	if (st->base == NULL)
		return 0;
	pseudo_top(arg, top, sizeof(top));
	if (top[0] == '\0' || bsearch(&key, st->base->names, st->base->count,
				      sizeof(char *), name_cmp) == NULL)
		return 0;
	if (mksq_argv_pushf(st->warn, "pseudo definition '%s': '%s' is in the image "
			    "being appended to and cannot be changed; ignored",
			    arg, top) != 0)
		return -1;
	return 1;
}

/* On append, -pf FILE's definitions one line at a time, so the lines
 * on the image's names can be dropped as mksquashfs drops them. 0, or 1
 * with msg set. */
static int pseudo_file(struct mksq_state *st, const char *file, char *msg,
		       size_t size)
{
	FILE *f = fopen(file, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int r = 0;

	if (f == NULL)
		return mksq_fail(msg, size, 1, "-pf %s: %s", file, strerror(errno));
	while (r == 0 && (n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		r = pseudo_on_base(st, line);
		if (r == 0)
			r = tool_pargs_add(&st->spec, PARG_SPEC_LINE, line, 1);
		r = r == 1 ? 0 : r;
	}
	if (r == 0 && ferror(f))
		r = mksq_fail(msg, size, 1, "-pf %s: read error", file);
	else if (r != 0)
		r = mksq_fail(msg, size, 1, "out of memory");
	free(line);
	fclose(f);
	return r;
}

static int run_call(struct mksq_state *st, struct mksq_args *args, int id,
		    const char *name, const char *arg, char *msg, size_t size)
{
	int r = 0;

	switch (id) {
	case C_B:
		if (mksq_parse_size(arg, 0, &st->block) != 0 || st->block < 4096 ||
		    st->block > (1u << 20) || (st->block & (st->block - 1)) != 0)
			return mksq_fail(msg, size, 2, "-b '%s': the block size must be a "
				    "power of two between 4K and 1M", arg);
		return 0;
	case C_OFFSET:
		if (mksq_parse_size(arg, 1, &st->offset) != 0)
			return mksq_fail(msg, size, 2, "%s '%s' is not a size", name, arg);
		return 0;
	case C_MEM:
		if (mksq_parse_size(arg, 1, &st->mem) != 0 || st->mem < ((uint64_t)1 << 20))
			return mksq_fail(msg, size, 2, "-mem '%s' is not a size of at least 1M",
					 arg);
		return 0;
	case C_FUID:
		return set_id(name, arg, 0, &st->uid, msg, size);
	case C_FGID:
		return set_id(name, arg, 1, &st->gid, msg, size);
	case C_RUID:
		return set_id(name, arg, 0, &st->root_uid, msg, size);
	case C_RGID:
		return set_id(name, arg, 1, &st->root_gid, msg, size);
	case C_ROOT:
		st->uid = st->gid = 0;
		return 0;
	case C_P:
		r = pseudo_on_base(st, arg);
		if (r == 1)
			return 0;
		if (r == 0)
			r = tool_pargs_add(&st->spec, PARG_SPEC_LINE, arg, 0);
		break;
	case C_PF:
		if (st->base != NULL && strcmp(arg, "-") != 0)
			return pseudo_file(st, arg, msg, size);
		r = tool_pargs_add(&st->spec, PARG_SPEC, arg, 0);
		break;
	case C_EF:
		r = mksq_argv_push(&st->ef, arg);
		break;
	case C_HELP:
		args->action = MKSQ_HELP;
		return 0;
	case C_VERSION:
		args->action = MKSQ_VERSION;
		return 0;
	default: /* C_NOOP; C_E is handled by the caller */
		return 0;
	}
	return r == 0 ? 0 : mksq_fail(msg, size, 1, "out of memory");
}

static const struct opt *find_opt(const char *name)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		if (strcmp(opts[i].name, name) == 0)
			return &opts[i];
	}
	return NULL;
}

/*
 * sqpack's own --verity options (mksquashfs has no dm-verity), spelled as
 * dir2img's and given to the packer's options, which check the values
 * (a bad one is reported on stderr, msg left empty). Returns 0 and
 * advances *i past a separate value, 1 when argv[*i] is not one of them,
 * or an exit status.
 */
static int verity_opt(struct mksq_state *st, int argc, char **argv, int *i, char *msg,
		      size_t size)
{
	/* in enum tool_verity_opt order; 1: takes a value */
	static const struct { const char *name; int value; } names[] = {
		{ "--verity", 0 }, { "--verity-block-size", 1 }, { "--verity-salt", 1 },
		{ "--verity-no-superblock", 0 }, { "--verity-roothash", 1 },
	};
	const char *a = argv[*i], *value = NULL;
	size_t n = strcspn(a, "=");

	if (strncmp(a, "--verity", 8) != 0)
		return 1;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		if (strlen(names[k].name) != n || strncmp(a, names[k].name, n) != 0)
			continue;
		if (a[n] == '=')
			value = a + n + 1;
		else if (names[k].value && *i + 1 >= argc)
			return mksq_fail(msg, size, 2, "option '%s' needs a value", a);
		else if (names[k].value)
			value = argv[++*i];
		if (a[n] == '=' && !names[k].value && k != TOOL_VERITY)
			return mksq_fail(msg, size, 2, "option '%.*s' takes no value",
					 (int)n, a);
		msg[0] = '\0';
		return tool_verity_option(st->verity, (int)k, value);
	}
	return mksq_fail(msg, size, 2, "unknown option '%s'", a);
}

/* Walk the options after DEST; stops at -e, whose arguments are the rest. */
static int parse_opts(struct mksq_state *st, struct mksq_args *args, int argc,
		      char **argv, int i, char *msg, size_t size)
{
	for (; i < argc && args->action == MKSQ_RUN; i++) {
		const struct opt *o = find_opt(argv[i]);
		const char *arg = NULL;
		int r = verity_opt(st, argc, argv, &i, msg, size);

		if (r != 1) {
			if (r != 0)
				return r;
			continue;
		}
		if (o == NULL)
			return mksq_fail(msg, size, 2, "unknown or unsupported option '%s'",
				    argv[i]);
		if (o->arg) {
			if (i + 1 >= argc)
				return mksq_fail(msg, size, 2, "option '%s' needs a value",
					    argv[i]);
			arg = argv[++i];
		}
		if (o->kind == SET) {
			*(int *)((char *)st + o->field) = o->value;
		} else if (o->kind == STR) {
			*(const char **)((char *)st + o->field) = arg;
		} else if (o->value == C_E) {
			st->first_exclude = i + 1;
			return 0;
		} else if ((r = run_call(st, args, o->value, o->name, arg, msg,
					 size)) != 0) {
			return r;
		}
	}
	return 0;
}

/* SOURCE... DEST come first; "-" is a source (the tar on stdin), not an option. */
static int count_positionals(int argc, char **argv)
{
	int i = 1;

	while (i < argc && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0))
		i++;
	return i - 1;
}

static int check_positionals(const struct mksq_state *st, int npos, char **pos,
			     char *msg, size_t size)
{
	if (st->tar) {
		if (npos < 1)
			return mksq_fail(msg, size, 2, "missing DEST: -tar takes "
				    "'[-] DEST -tar' and reads the tar from stdin");
		if (npos > 2 || (npos == 2 && strcmp(pos[0], "-") != 0))
			return mksq_fail(msg, size, 2, "-tar reads the tar from stdin: "
				    "'%s' cannot be a source", pos[0]);
		return 0;
	}
	if (st->shard_plan != NULL && npos < 1)
		return mksq_fail(msg, size, 2, "need SOURCE... before -shard-plan");
	if (npos < 2 && st->shard_plan == NULL)
		return mksq_fail(msg, size, 2, "need SOURCE... DEST before the options");
	return 0;
}

int mksq_translate(int argc, char **argv, const char *sde,
		   const struct mksq_base *base, struct mksq_args *args,
		   char *msg, size_t msg_size)
{
	struct mksq_state st;
	int npos = argc > 0 ? count_positionals(argc, argv) : 0;
	int r;

	memset(args, 0, sizeof(*args));
	tool_options_init(&args->opt, TOOL_DIR2IMG);
	memset(&st, 0, sizeof(st));
	st.verity = &args->opt.verity;
	st.comp = "gzip";
	st.block = 128 * 1024;
	st.uid = st.gid = st.root_uid = st.root_gid = -1;
	st.exports = st.tailends = -1;
	st.base = base;
	st.warn = &args->warn;
	r = parse_opts(&st, args, argc, argv, npos + 1, msg, msg_size);
	if (r == 0 && args->action == MKSQ_RUN)
		r = check_positionals(&st, npos, argv + 1, msg, msg_size);
	/* -shard-plan writes no image: every positional is a SOURCE */
	if (r == 0 && args->action == MKSQ_RUN && st.shard_plan != NULL && !st.tar)
		npos++;
	if (r == 0 && args->action == MKSQ_RUN) {
		args->dest = st.shard_plan != NULL ? NULL : argv[npos];
		args->tar = st.tar;
		args->noappend = st.noappend;
		args->keep_dir = st.keep_dir;
		args->no_strip = st.no_strip && !st.tar;
		args->wildcards = st.wildcards;
		args->one_fs = st.one_fs;
		args->offset = st.offset;
		args->root_becomes = st.root_becomes;
		args->src = argv + 1;
		args->nsrc = npos - 1;
		r = mksq_emit(&st, args, argv + 1, npos - 1, argc, argv, sde, msg, msg_size);
	}
	tool_pargs_free(&st.spec);
	mksq_argv_free(&st.ef);
	if (r != 0)
		mksq_args_free(args);
	return r;
}

