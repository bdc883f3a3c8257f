/* SPDX-License-Identifier: MIT */
/*
 * unsq_args.c - unsquashfs's command line: single-dash options, each under
 * its full name and the one abbreviation unsquashfs 4.5.1 accepts (-d,
 * -dest), options only before the image, then the PATHs.
 *
 * Why a parser of its own: scripts pass exactly these spellings, and
 * unsquashfs's abbreviations are not getopt's. Values are checked here,
 * so the modes never see a bad one.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqpack/sqpack.h"
#include "../common/tool_version.h"
#include "unsq.h"

enum opt_id {
	O_CAT, O_DEST, O_MAXDEPTH, O_EXCLUDES, O_EXLIST, O_QUIET, O_NOPROG,
	O_NOXATTR, O_XATTR, O_USERX, O_PROC, O_INFO, O_LINFO, O_LS, O_LLS,
	O_LLN, O_LC, O_LLC, O_OFFSET, O_FORCE, O_NOEXIT, O_STAT, O_UTC,
	O_MKFS, O_EXFILE, O_EXCLFILE, O_QUEUE, O_MEM, O_NOWILD, O_REGEX,
	O_STRICT, O_PF, O_XINC, O_XEXC, O_HELP, O_VERSION, O_PERCENT, O_FOLLOW,
	O_MISSING, O_IGNORE
};

struct opt {
	const char *name, *abbrev;  /* abbrev NULL: none */
	enum opt_id id;
	int has_arg;
};

static const struct opt opts[] = {
	{ "-cat", NULL, O_CAT, 0 }, { "-dest", "-d", O_DEST, 1 },
	{ "-max-depth", "-max", O_MAXDEPTH, 1 },
	{ "-excludes", NULL, O_EXCLUDES, 0 },
	{ "-exclude-list", "-ex", O_EXLIST, 0 },
	{ "-quiet", "-q", O_QUIET, 0 }, { "-no-progress", "-n", O_NOPROG, 0 },
	{ "-no-xattrs", "-no", O_NOXATTR, 0 }, { "-xattrs", "-x", O_XATTR, 0 },
	{ "-user-xattrs", "-u", O_USERX, 0 },
	{ "-processors", "-p", O_PROC, 1 }, { "-info", "-i", O_INFO, 0 },
	{ "-linfo", "-li", O_LINFO, 0 }, { "-ls", "-l", O_LS, 0 },
	{ "-lls", "-ll", O_LLS, 0 }, { "-llnumeric", "-lln", O_LLN, 0 },
	{ "-lc", NULL, O_LC, 0 }, { "-llc", NULL, O_LLC, 0 },
	{ "-offset", "-o", O_OFFSET, 1 }, { "-force", "-f", O_FORCE, 0 },
	{ "-no-exit-code", "-no-exit", O_NOEXIT, 0 },
	{ "-strict-errors", "-st", O_STRICT, 0 },
	{ "-pf", "-pseudo-file", O_PF, 1 },
	{ "-xattrs-include", NULL, O_XINC, 1 },
	{ "-xattrs-exclude", NULL, O_XEXC, 1 },
	{ "-stat", "-s", O_STAT, 0 }, { "-UTC", NULL, O_UTC, 0 },
	{ "-mkfs-time", "-fstime", O_MKFS, 0 },
	{ "-extract-file", "-e", O_EXFILE, 1 }, { "-ef", NULL, O_EXFILE, 1 },
	{ "-exclude-file", "-exc", O_EXCLFILE, 1 },
	{ "-excf", NULL, O_EXCLFILE, 1 },
	{ "-data-queue", "-da", O_QUEUE, 1 },
	{ "-frag-queue", "-fr", O_QUEUE, 1 }, { "-mem", NULL, O_MEM, 1 },
	{ "-no-wildcards", "-no-wild", O_NOWILD, 0 },
	{ "-regex", "-r", O_REGEX, 0 },
	{ "-help", "-h", O_HELP, 0 }, { "-version", "-v", O_VERSION, 0 },
	{ "-percentage", NULL, O_PERCENT, 0 },
	/* The spellings of sqpack's other tools, which unsquashfs lacks. */
	{ "--help", NULL, O_HELP, 0 }, { "--version", NULL, O_VERSION, 0 },
	{ "-follow-symlinks", "-follow", O_FOLLOW, 0 }, { "-L", NULL, O_FOLLOW, 0 },
	{ "-missing-symlinks", "-missing", O_MISSING, 0 },
	{ "-ignore-errors", "-ig", O_IGNORE, 0 },
};

static const struct opt *find(const char *arg)
{
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strcmp(arg, opts[i].name) == 0 ||
		    (opts[i].abbrev != NULL && strcmp(arg, opts[i].abbrev) == 0))
			return &opts[i];
	return NULL;
}

const char *unsq_prog(const struct unsq_opts *o)
{
	return o->sqfscat ? "sqfscat" : "sqpack-unsquashfs";
}

static int bad(const struct unsq_opts *o, const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", unsq_prog(o));
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	tool_try_help();
	return 1;
}

/* A count in decimal, optionally with a K, M or G suffix (unsquashfs's
 * -o and -mem). */
static int size_arg(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10, end++;
	else if (*end == 'M' || *end == 'm')
		shift = 20, end++;
	else if (*end == 'G' || *end == 'g')
		shift = 30, end++;
	if (*end != '\0' || (shift != 0 && v > (~0ull >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int unsq_add_pattern(struct unsq_patterns *ps, const char *path)
{
	struct unsq_pattern *p;
	char *copy, *tok, *save = NULL;

	if (ps->count == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 8;
		void *n = realloc(ps->items, cap * sizeof(*ps->items));

		if (n == NULL)
			return -1;
		ps->items = n;
		ps->cap = cap;
	}
	p = &ps->items[ps->count];
	memset(p, 0, sizeof(*p));
	if ((copy = strdup(path)) == NULL)
		return -1;
	for (tok = strtok_r(copy, "/", &save); tok != NULL;
	     tok = strtok_r(NULL, "/", &save)) {
		void *n = realloc(p->comp, (p->count + 1) * sizeof(char *));

		if (n == NULL || (((char **)n)[p->count] = strdup(tok)) == NULL) {
			if (n != NULL)
				p->comp = n;
			free(copy);
			ps->count++;
			return -1;
		}
		p->comp = n;
		p->count++;
	}
	free(copy);
	ps->count++;
	return 0;
}

/* With -r, each component is a POSIX extended regex, matched anywhere
 * in the name (unsquashfs does not anchor them). Compiled once the
 * whole line is read, as -r may come after -ef. */
static int compile(struct unsq_opts *o, struct unsq_patterns *ps)
{
	for (size_t k = 0; k < ps->count; k++) {
		struct unsq_pattern *p = &ps->items[k];

		if (p->count == 0)
			continue;
		if ((p->re = calloc(p->count, sizeof(regex_t))) == NULL) {
			fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
			return -1;
		}
		for (size_t i = 0; i < p->count; i++) {
			if (regcomp(&p->re[i], p->comp[i], REG_EXTENDED | REG_NOSUB) == 0)
				continue;
			for (size_t j = 0; j < i; j++)
				regfree(&p->re[j]);
			free(p->re);
			p->re = NULL;
			fprintf(stderr, "%s: invalid regex '%s'\n", unsq_prog(o),
				p->comp[i]);
			return -1;
		}
	}
	return 0;
}

/* -ef/-exclude-file: one path a line; blank lines are skipped. */
static int add_file(struct unsq_opts *o, struct unsq_patterns *ps,
		    const char *file)
{
	FILE *f = fopen(file, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int ret = 0;

	if (f == NULL) {
		fprintf(stderr, "%s: %s: %s\n", unsq_prog(o), file, strerror(errno));
		return 1;
	}
	while (ret == 0 && (n = getline(&line, &cap, f)) >= 0) {
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > 0 && unsq_add_pattern(ps, line) != 0)
			ret = 1;
	}
	if (ret == 0 && ferror(f)) {
		fprintf(stderr, "%s: %s: read error\n", unsq_prog(o), file);
		ret = 1;
	}
	free(line);
	fclose(f);
	return ret;
}

/* -xattrs-include/-exclude REGEX (squashfs-tools 4.6): a POSIX extended
 * regex over the xattr's full name; the last one given counts. */
static int xattr_regex(struct unsq_opts *o, regex_t **re, const char *v)
{
	if (*re != NULL) {
		regfree(*re);
		free(*re);
		*re = NULL;
	}
	if ((*re = malloc(sizeof(**re))) == NULL) {
		fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
		return 1;
	}
	if (regcomp(*re, v, REG_EXTENDED | REG_NOSUB) != 0) {
		free(*re);
		*re = NULL;
		return bad(o, "invalid regex '%s'", v);
	}
	return 0;
}

int unsq_xattr_keep(void *user, const char *key)
{
	const struct unsq_opts *o = user;

	if (o->xattr_inc != NULL && regexec(o->xattr_inc, key, 0, NULL, 0) != 0)
		return 0;
	return o->xattr_exc == NULL || regexec(o->xattr_exc, key, 0, NULL, 0) != 0;
}

static void usage(const struct unsq_opts *o, FILE *f)
{
	if (o->sqfscat) {
		fputs("Usage: sqfscat [-o OFFSET] IMAGE PATH...\n"
		      "Write the files PATH... of a SquashFS image to stdout.\n", f);
		return;
	}
	fputs("Usage: sqpack-unsquashfs [OPTIONS] IMAGE [PATH...]\n"
	      "Extract (or list, or cat) a SquashFS image, with unsquashfs's\n"
	      "options and output. PATHs (shell wildcards) select what to\n"
	      "extract; with -excludes, what to leave out.\n\n"
	      "  -d, -dest DIR         extract into DIR (default squashfs-root)\n"
	      "  -f, -force            overwrite existing files\n"
	      "  -n, -no-progress      no progress bar\n"
	      "  -percentage           print the progress as bare percentages,\n"
	      "                        one a line, and nothing else (a gauge)\n"
	      "  -q, -quiet            no output but the progress bar and -i's lines\n"
	      "  -i, -info             print the entries as they are extracted\n"
	      "  -li, -linfo           the same with attributes, as -ll\n"
	      "  -no, -no-xattrs       leave extended attributes out\n"
	      "  -x, -xattrs           extract extended attributes (default)\n"
	      "  -u, -user-xattrs      extract only user.* attributes\n"
	      "  -xattrs-include REGEX / -xattrs-exclude REGEX\n"
	      "                        extract only the attributes whose names\n"
	      "                        match / do not match REGEX\n"
	      "  -p, -processors N     decompression threads (default: CPUs)\n"
	      "  -o, -offset N[KMG]    the image starts N bytes into IMAGE\n"
	      "  -da, -data-queue N, -fr, -frag-queue N, -mem N[KMG]\n"
	      "                        accepted; memory stays bounded anyway\n"
	      "  -l, -ls / -ll, -lls / -lln, -llnumeric / -lc / -llc\n"
	      "                        list (names; with attributes; numeric\n"
	      "                        owners; only files and empty directories)\n"
	      "  -max, -max-depth N    list at most N levels below the root\n"
	      "  -s, -stat             print the superblock\n"
	      "  -mkfs-time, -fstime   print the image's time (seconds)\n"
	      "  -UTC                  times in UTC, not the local zone\n"
	      "  -cat                  write the files PATH... to stdout\n"
	      "  -pf, -pseudo-file FILE  write the image as a pseudo file with\n"
	      "                        its data inline (FILE -: stdout)\n"
	      "  -e, -ef, -extract-file FILE   PATHs to extract, one a line\n"
	      "  -exc, -excf, -exclude-file FILE  PATHs to leave out\n"
	      "  -excludes             the PATHs on the line are excluded\n"
	      "  -ex, -exclude-list P... ;  PATHs to leave out, up to ';'\n"
	      "  -no-wild, -no-wildcards  PATHs are literal names\n"
	      "  -r, -regex            PATH components are POSIX regexes\n"
	      "  -L, -follow, -follow-symlinks  resolve the symlinks on each PATH\n"
	      "                        in the image and extract them and what\n"
	      "                        they lead to (PATHs are literal names)\n"
	      "  -missing, -missing-symlinks  -follow-symlinks, and a PATH that\n"
	      "                        cannot be resolved is fatal, not a warning\n"
	      "  -no-exit, -no-exit-code  exit 0 after non-fatal errors\n"
	      "  -st, -strict-errors   every error is fatal: stop at the first\n"
	      "                        refused owner, device or xattr, exit 1\n"
	      "  -h, -help, --help / -v, -version, --version\n\n"
	      "  -ig, -ignore-errors   a file, directory or hard link that cannot be\n"
	      "                        made, a file that cannot be written, is a\n"
	      "                        non-fatal error (exit 2); what is below such\n"
	      "                        a directory is not extracted\n\n"
	      "Exit status: 0 ok, 1 fatal error or bad usage, 2 non-fatal errors.\n",
	      f);
}

/* One option with its value (NULL when it takes none). 0 to go on,
 * else the exit status (-1: exit 0). */
static int apply(struct unsq_opts *o, const struct opt *op, const char *v)
{
	uint64_t n;

	switch (op->id) {
	case O_CAT: o->mode = UNSQ_CAT; break;
	case O_DEST: o->dest = v; break;
	case O_MAXDEPTH:
		if (size_arg(v, &n) != 0 || strpbrk(v, "KkMmGg") || n > 65535)
			return bad(o, "-max-depth: '%s' is not a level count", v);
		o->max_depth = (unsigned)n + 1;
		break;
	case O_EXCLUDES: o->excludes_on_line = 1; break;
	case O_QUIET: o->quiet = 1; break;
	case O_NOPROG: o->no_progress = 1; break;
	case O_NOXATTR: o->no_xattrs = 1; o->user_xattrs = 0; break;
	case O_XATTR: o->no_xattrs = 0; break;
	case O_USERX: o->user_xattrs = 1; o->no_xattrs = 0; break;
	case O_PROC:
		if (size_arg(v, &n) != 0 || strpbrk(v, "KkMmGg") || n < 1 || n > 1024)
			return bad(o, "-processors: '%s' is not a thread count", v);
		o->jobs = (unsigned)n;
		break;
	case O_INFO: o->info = 1; break;
	case O_LINFO: o->info = 2; break;
	case O_LS: o->mode = UNSQ_LIST; o->lng = 0; o->concise = 0; break;
	case O_LLS: o->mode = UNSQ_LIST; o->lng = 1; o->concise = 0; break;
	case O_LLN: o->mode = UNSQ_LIST; o->lng = 2; o->concise = 0; break;
	case O_LC: o->mode = UNSQ_LIST; o->lng = 0; o->concise = 1; break;
	case O_LLC: o->mode = UNSQ_LIST; o->lng = 1; o->concise = 1; break;
	case O_OFFSET:
		if (size_arg(v, &o->offset) != 0)
			return bad(o, "-offset: '%s' is not a byte count", v);
		break;
	case O_FORCE: o->force = 1; break;
	case O_NOEXIT: o->no_exit_code = 1; break;
	case O_STRICT: o->strict = 1; break;
	case O_PERCENT: o->percentage = o->quiet = 1; break;
	case O_FOLLOW: o->follow = 1; break;
	case O_MISSING: o->missing_symlinks = 1; break;
	case O_IGNORE: o->ignore_errors = 1; break;
	case O_PF: o->mode = UNSQ_PF; o->pf = v; break;
	case O_XINC:
	case O_XEXC:
		return xattr_regex(o, op->id == O_XINC ? &o->xattr_inc : &o->xattr_exc, v);
	case O_STAT: o->mode = UNSQ_STAT; break;
	case O_UTC: o->utc = 1; break;
	case O_MKFS: o->mode = UNSQ_MKFS_TIME; break;
	case O_EXFILE: return add_file(o, &o->extract, v);
	case O_EXCLFILE: return add_file(o, &o->exclude, v);
	case O_QUEUE:
	case O_MEM:
		/* Our memory is bounded by construction: the values only
		 * have to be sizes. */
		if (size_arg(v, &n) != 0)
			return bad(o, "'%s' is not a size", v);
		break;
	case O_NOWILD: o->match = UNSQ_LITERAL; break;
	case O_REGEX: o->match = UNSQ_REGEX; break;
	case O_HELP: usage(o, stdout); return -1;
	case O_VERSION:
		/* sqpack's two lines, then the one scripts match (unsquashfs
		 * prints "unsquashfs version 4.5.1 (2022/03/17)"): the
		 * release whose command line and output this program has. */
		tool_print_version(unsq_prog(o));
		printf("%s version 4.5.1 compatible\n",
		       o->sqfscat ? "sqfscat" : "unsquashfs");
		return -1;
	case O_EXLIST: break;   /* read by exclude_list() */
	}
	return 0;
}

/* -ex P1 P2 ... ; : excludes up to the ';' argument. */
static int exclude_list(struct unsq_opts *o, int argc, char **argv, int *i)
{
	for ((*i)++; *i < argc && strcmp(argv[*i], ";") != 0; (*i)++)
		if (unsq_add_pattern(&o->exclude, argv[*i]) != 0) {
			fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
			return 1;
		}
	if (*i == argc)
		return bad(o, "%s", "-exclude-list: no ';' ends the list");
	return 0;
}

static int take_paths(struct unsq_opts *o, int argc, char **argv, int i)
{
	if (o->mode == UNSQ_CAT) {
		o->cat_paths = argv + i;
		o->cat_count = (size_t)(argc - i);
		return 0;
	}
	for (; i < argc; i++)
		if (unsq_add_pattern(o->excludes_on_line ? &o->exclude : &o->extract,
				argv[i]) != 0) {
			fprintf(stderr, "%s: out of memory\n", unsq_prog(o));
			return 1;
		}
	if (o->match == UNSQ_REGEX &&
	    (compile(o, &o->extract) != 0 || compile(o, &o->exclude) != 0))
		return 1;
	return 0;
}

int unsq_parse(int argc, char **argv, int sqfscat, struct unsq_opts *o)
{
	int i, ret;

	memset(o, 0, sizeof(*o));
	o->dest = "squashfs-root";
	o->sqfscat = sqfscat;
	if (o->sqfscat)
		o->mode = UNSQ_CAT;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const struct opt *op = find(argv[i]);

		if (op == NULL || (o->sqfscat && op->id != O_OFFSET &&
				   op->id != O_HELP && op->id != O_VERSION))
			return bad(o, "invalid option %s", argv[i]);
		if (op->id == O_EXLIST) {
			if ((ret = exclude_list(o, argc, argv, &i)) != 0)
				return ret;
			continue;
		}
		if (op->has_arg && i + 1 >= argc)
			return bad(o, "%s needs a value", argv[i]);
		ret = apply(o, op, op->has_arg ? argv[i + 1] : NULL);
		if (ret != 0)
			return ret < 0 ? 0 : ret;
		i += op->has_arg;
	}
	/* As unsquashfs: -missing-symlinks alone follows them too. */
	if (o->missing_symlinks)
		o->follow = 1;
	if (o->follow && o->match == UNSQ_REGEX)
		return bad(o, "%s", "-follow-symlinks takes literal names: not "
			   "with -regex");
	if (o->follow)
		o->match = UNSQ_LITERAL;
	if (o->strict && o->ignore_errors)
		return bad(o, "%s", "-strict-errors and -ignore-errors contradict "
			   "each other");
	if (o->strict && o->no_exit_code)
		return bad(o, "%s", "-strict-errors and -no-exit-code contradict "
			   "each other");
	if (i >= argc) {
		usage(o, stderr);
		return 1;
	}
	o->image = argv[i++];
	if (o->sqfscat && i >= argc)
		return bad(o, "%s", "no PATH to write");
	if ((ret = take_paths(o, argc, argv, i)) != 0)
		return ret;
	return -1;
}

static void free_patterns(struct unsq_patterns *ps)
{
	for (size_t k = 0; k < ps->count; k++) {
		struct unsq_pattern *p = &ps->items[k];

		for (size_t i = 0; i < p->count; i++) {
			if (p->re != NULL)
				regfree(&p->re[i]);
			free(p->comp[i]);
		}
		free(p->re);
		free(p->comp);
	}
	free(ps->items);
}

void unsq_opts_free(struct unsq_opts *o)
{
	regex_t *res[2] = { o->xattr_inc, o->xattr_exc };

	for (int i = 0; i < 2; i++)
		if (res[i] != NULL) {
			regfree(res[i]);
			free(res[i]);
		}
	free_patterns(&o->extract);
	free_patterns(&o->exclude);
}
