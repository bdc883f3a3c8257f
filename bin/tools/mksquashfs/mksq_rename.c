/* SPDX-License-Identifier: MIT */
/*
 * mksq_rename.c - new entries renamed as mksquashfs renames them: a
 * top-level name already taken becomes NAME_1, NAME_2... (the first not
 * taken, counting from NAME again each time), with mksquashfs's message
 * "Source directory entry NAME already used! - trying NAME_1" on stderr.
 * Taken means: in the image's root when appending, or given to an entry
 * met before (its own name or the one it was renamed to).
 *
 * Two mechanisms, because the packer names entries two ways. A source
 * directory that becomes a top-level entry (several sources, or
 * -keep-as-directory) is named after the path it is given, so it is
 * renamed by packing it through a symbolic link of the new name in a
 * directory of our own, removed as soon as the scan holds the sources.
 * The entries of one source directory that join the root are scanned as
 * they are, so the writer renames them as they come (sqp_writer_rename),
 * decided here in readdir order, the order mksquashfs decides in.
 *
 * mksquashfs names an entry first and asks its excludes after (by the
 * new name with -wildcards), and an entry it leaves out frees the name
 * it was given. So an entry or a source is decided here the same way,
 * and one left out takes no name: a source is then not given to the
 * packer at all (mksq_base.drop).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/policy.h"
#include "mksq_append.h"
#include "../common/tool_run.h"

#define PROG "sqpack-mksquashfs"

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int taken(const struct mksq_base *b, char **mine, int n, const char *name)
{
	/* no names (an empty or new root): names is NULL, which bsearch
	 * must not be given even with a count of 0 */
	if (b->count > 0 &&
	    bsearch(&name, b->names, b->count, sizeof(char *), name_cmp) != NULL)
		return 1;
	for (int i = 0; i < n; i++)
		if (mine[i] != NULL && strcmp(mine[i], name) == 0)
			return 1;
	return 0;
}

/* One directory's entries, in readdir order, and sorted (by strcmp)
 * with their places in that order. */
struct listing {
	char **name;
	size_t *pos;     /* pos[i]: where sorted[i] comes in name[] */
	char **sorted;
	unsigned char *out; /* out[i]: name[i] is excluded, takes no name */
	char **as;       /* as[i]: name[i]'s new name, or NULL */
	size_t n;
};

static void listing_free(struct listing *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->name[i]);
		if (l->as != NULL)
			free(l->as[i]);
	}
	free(l->name);
	free(l->pos);
	free(l->sorted);
	free(l->out);
	free(l->as);
}

static int read_listing(DIR *d, struct listing *l)
{
	struct dirent *e;
	size_t cap = 0;

	for (errno = 0; (e = readdir(d)) != NULL; errno = 0) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (l->n == cap) {
			char **v = realloc(l->name, (cap = cap ? cap * 2 : 64) * sizeof(*v));

			if (v == NULL)
				return -1;
			l->name = v;
		}
		if ((l->name[l->n] = strdup(e->d_name)) == NULL)
			return -1;
		l->n++;
	}
	if (errno != 0)
		return -1;
	l->sorted = malloc((l->n + 1) * sizeof(*l->sorted));
	l->pos = malloc((l->n + 1) * sizeof(*l->pos));
	l->out = calloc(l->n + 1, 1);
	l->as = calloc(l->n + 1, sizeof(*l->as));
	if (l->sorted == NULL || l->pos == NULL || l->out == NULL || l->as == NULL)
		return -1;
	if (l->n > 0) { /* an empty directory's name[] is NULL */
		memcpy(l->sorted, l->name, l->n * sizeof(*l->sorted));
		qsort(l->sorted, l->n, sizeof(*l->sorted), name_cmp);
	}
	for (size_t i = 0; i < l->n; i++) {
		char **at = bsearch(&l->name[i], l->sorted, l->n, sizeof(char *), name_cmp);

		l->pos[at - l->sorted] = i;
	}
	return 0;
}

/* Taken before entry `cur` comes: the image's root has it, an earlier
 * entry kept has it as its own, or an earlier entry was renamed to it. */
static int flat_taken(const struct mksq_append *ap, const struct listing *l,
		      size_t cur, const char *name)
{
	char **at;

	if (ap->base.count > 0 &&
	    bsearch(&name, ap->base.names, ap->base.count, sizeof(char *), name_cmp))
		return 1;
	at = bsearch(&name, l->sorted, l->n, sizeof(char *), name_cmp);
	if (at != NULL && l->pos[at - l->sorted] < cur && !l->out[l->pos[at - l->sorted]])
		return 1;
	for (size_t i = 1; i < ap->nren; i += 2)
		if (strcmp(ap->ren[i], name) == 0)
			return 1;
	return 0;
}

/* NAME_k, the k-th try for orig after `used` was found taken, told in
 * mksquashfs's words; NULL when out of memory. */
static char *try_next(const char *orig, const char *used, int k)
{
	char *next;

	if (asprintf(&next, "%s_%d", orig, k) < 0)
		return NULL;
	fprintf(stderr, "Source directory entry %s already used! - trying %s\n",
		used, next);
	return next;
}

/*
 * Entry `cur` as mksquashfs's scan meets it: a taken name becomes NAME_1,
 * NAME_2... until one is not, told as mksquashfs tells it; then it is
 * left out when `gone` (it cannot be statted, or lies on another file
 * system with -one-file-system: mksquashfs ignores it) or excluded, on
 * the new name with -wildcards (mksquashfs matches the name the entry
 * has by then), else on the entry's own path (an exact exclude names the
 * file). One left out frees its new name; one kept and renamed is kept
 * as a rename for the writer. 0 or -1 (memory).
 */
static int flat_one(struct mksq_append *ap, struct listing *l, size_t cur,
		    int gone, const struct sqp_policy *p, int wildcards)
{
	const char *orig = l->name[cur];
	char *name = NULL, *next, **v;

	for (int k = 1; flat_taken(ap, l, cur, name ? name : orig); k++) {
		if ((next = try_next(orig, name ? name : orig, k)) == NULL) {
			free(name);
			return -1;
		}
		free(name);
		name = next;
	}
	l->as[cur] = name;
	l->out[cur] = gone || sqp_policy_excluded(p, wildcards && name ? name : orig) == 1;
	if (name == NULL || l->out[cur])
		return 0;
	if ((v = realloc(ap->ren, (ap->nren + 2) * sizeof(*v))) == NULL)
		return -1;
	ap->ren = v;
	if ((v[ap->nren] = strdup(orig)) == NULL ||
	    (v[ap->nren + 1] = strdup(name)) == NULL) {
		free(v[ap->nren]);
		return -1;
	}
	ap->nren += 2;
	return 0;
}

/* The excludes of the line, asked by a policy with the same exclude
 * patterns the packer gets (they name an entry of one source directory
 * by its path from the root). NULL after a message. */
static struct sqp_policy *excludes(const struct mksq_args *args)
{
	struct sqp_policy_desc pd = { 0 };
	struct sqp_policy *p = NULL;
	int r = sqp_policy_create(&pd, &p);

	for (size_t i = 0; r == 0 && i < args->opt.pargs.n; i++)
		if (args->opt.pargs.v[i].kind == PARG_EXCLUDE)
			r = sqp_policy_add_exclude(p, args->opt.pargs.v[i].arg);
	if (r == 0)
		return p;
	fprintf(stderr, PROG ": %s\n", p != NULL && sqp_policy_error(p)[0] != '\0' ?
		sqp_policy_error(p) : sqp_strerror(r));
	sqp_policy_destroy(p);
	return NULL;
}

/* With -wildcards and an entry renamed: every entry with the name it
 * takes, for the translation of the excludes (mksq_exclude.c). */
static int keep_top(struct mksq_base *b, const struct listing *l)
{
	size_t renamed = 0;

	for (size_t i = 0; i < l->n; i++)
		renamed += l->as[i] != NULL;
	if (renamed == 0)
		return 0;
	if ((b->top = calloc(l->n, sizeof(*b->top))) == NULL ||
	    (b->top_as = calloc(l->n, sizeof(*b->top_as))) == NULL)
		return -1;
	b->ntop = l->n;
	for (size_t i = 0; i < l->n; i++)
		if ((b->top[i] = strdup(l->name[i])) == NULL ||
		    (b->top_as[i] = strdup(l->as[i] ? l->as[i] : l->name[i])) == NULL)
			return -1;
	return 0;
}

/*
 * A single directory without -keep-as-directory: its entries join the
 * root. One whose name is taken (by the image's root, or before it in
 * readdir order by another entry, renamed or not) is renamed NAME_1,
 * NAME_2..., as mksquashfs's scan1_single_readdir does, in the same
 * order; the writer renames it as it is added (mksq_append_add).
 */
static int flat_renames(struct mksq_append *ap, const struct mksq_args *args)
{
	struct listing l = { 0 };
	const char *src = args->src[0];
	struct sqp_policy *p = NULL;
	DIR *d = opendir(src);
	struct stat sd;
	int r = 0;

	if (d == NULL)
		return 0; /* the packer says why it cannot read it */
	if (read_listing(d, &l) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", src, strerror(errno ? errno : ENOMEM));
		r = -1;
	} else if ((p = excludes(args)) == NULL) {
		r = -1;
	}
	if (r == 0 && fstat(dirfd(d), &sd) != 0) {
		fprintf(stderr, PROG ": %s: %s\n", src, strerror(errno));
		r = -1;
	}
	for (size_t i = 0; r == 0 && i < l.n; i++) {
		struct stat st;
		int gone = fstatat(dirfd(d), l.name[i], &st, AT_SYMLINK_NOFOLLOW) != 0 ||
			   (args->one_fs && st.st_dev != sd.st_dev);

		if ((r = flat_one(ap, &l, i, gone, p, args->wildcards)) != 0)
			fprintf(stderr, PROG ": out of memory\n");
	}
	if (r == 0 && args->wildcards && keep_top(&ap->base, &l) != 0) {
		fprintf(stderr, PROG ": out of memory\n");
		r = -1;
	}
	sqp_policy_destroy(p);
	listing_free(&l);
	closedir(d);
	return r == 0 ? 0 : 1;
}

/* The directory of our own in TMPDIR that holds the renamed sources'
 * links; left NULL when it cannot be made (errno says why). */
static void make_stage(struct mksq_append *ap)
{
	const char *tmp = getenv("TMPDIR");

	if (ap->stage != NULL)
		return;
	if (asprintf(&ap->stage, "%s/sqpack-mksquashfs.XXXXXX",
		     tmp && tmp[0] ? tmp : "/tmp") < 0) {
		ap->stage = NULL;
	} else if (mkdtemp(ap->stage) == NULL) {
		free(ap->stage);
		ap->stage = NULL;
	}
}

/* Link stage/name to source i and make it the path packed. */
static int stage_link(struct mksq_append *ap, int nsrc, int i, const char *src,
		      const char *name)
{
	char *real = realpath(src, NULL), *link;
	int r = -1;

	make_stage(ap);
	if (ap->base.src == NULL) {
		ap->base.src = calloc((size_t)nsrc, sizeof(char *));
		ap->nsrc = ap->base.src != NULL ? nsrc : 0;
	}
	/* the path packed ends in '/': the packer, which takes a symlink
	 * source as the link (lstat, as mksquashfs), opens the directory */
	if (real != NULL && ap->stage != NULL && ap->base.src != NULL &&
	    asprintf(&link, "%s/%s", ap->stage, name) >= 0) {
		if (asprintf(&ap->base.src[i], "%s/", link) < 0)
			ap->base.src[i] = NULL;
		else
			r = symlink(real, link);
		free(link);
	}
	if (r != 0)
		fprintf(stderr, PROG ": %s: cannot rename it %s: %s\n", src, name,
			strerror(errno));
	free(real);
	return r == 0 ? 0 : 1;
}

/* Source n, named `name` in the image, is left out: with -wildcards,
 * an exclude matches the name it takes (mksquashfs's dir_scan1 asks
 * excluded() after scan1_encomp_readdir named it), and its name is free
 * again. 1 when it is. */
static int source_out(struct mksq_append *ap, const struct mksq_args *args,
		      const struct sqp_policy *p, int n, const char *name)
{
	if (!args->wildcards || sqp_policy_excluded(p, name) != 1)
		return 0;
	if (ap->base.drop == NULL &&
	    (ap->base.drop = calloc((size_t)args->nsrc, 1)) == NULL)
		return -1;
	ap->base.drop[n] = 1;
	return 1;
}

/* Several sources, or -keep-as-directory: each a top-level entry named
 * after its path, renamed NAME_1... when the name is taken, through a
 * link of the new name (stage_link). */
static int named_sources(struct mksq_append *ap, const struct mksq_args *args,
			 char **mine, const struct sqp_policy *p)
{
	int r = 0, n, out;

	for (n = 0; r == 0 && n < args->nsrc; n++) {
		char *name = mksq_source_name(args->src[n]), *next;
		char *orig = name != NULL ? strdup(name) : NULL;
		int renamed = 0;

		for (int k = 1; orig != NULL && name != NULL &&
		     taken(&ap->base, mine, n, name); k++) {
			next = try_next(orig, name, k);
			free(name);
			name = next;
			renamed = 1;
		}
		out = orig != NULL && name != NULL ? source_out(ap, args, p, n, name) : -1;
		if (out < 0) {
			fprintf(stderr, PROG ": %s: %s\n", args->src[n], strerror(errno));
			free(orig);
			free(name);
			return 1;
		}
		if (out) {
			free(orig);
			free(name);
			continue;
		}
		mine[n] = name;
		if (renamed && mksq_leaf_is(args->src[n])) {
			if (mksq_leaf_rename(ap, n, orig, name) != 0) {
				fprintf(stderr, PROG ": out of memory\n");
				r = 1;
			}
		} else if (renamed) {
			r = stage_link(ap, args->nsrc, n, args->src[n], name);
		}
		free(orig);
	}
	return r != 0 ? r : mksq_leaf_check(ap, args, mine);
}

/* Sources left out: the packer gets the others, and when one is left it
 * stays a top-level directory (mksq_base.keep_dir); none left, an empty
 * directory of ours stands for them, packed as the root, so the image
 * has the root mksquashfs makes and nothing in it. 0 or 1 after a
 * message. */
static int all_out(struct mksq_append *ap, const struct mksq_args *args)
{
	int kept = 0;

	for (int i = 0; i < args->nsrc; i++)
		kept += !ap->base.drop[i];
	/* -keep-as-directory already says so */
	ap->base.keep_dir = kept == 1 && !args->keep_dir;
	if (kept > 0)
		return 0;
	make_stage(ap);
	if (ap->stage == NULL) {
		fprintf(stderr, PROG ": an empty directory in TMPDIR: %s\n", strerror(errno));
		return 1;
	}
	ap->base.empty = ap->stage;
	return 0;
}

int mksq_append_sources(struct mksq_append *ap, const struct mksq_args *args)
{
	struct sqp_policy *p;
	struct stat sb;
	char **mine;
	int r;

	if (args->tar || args->nsrc == 0)
		return 0;
	if (args->no_strip)
		return mksq_nostrip_append(ap, args);
	if (args->nsrc == 1 && !args->keep_dir &&
	    (lstat(args->src[0], &sb) != 0 || S_ISDIR(sb.st_mode)))
		return flat_renames(ap, args);
	if ((p = excludes(args)) == NULL)
		return 1;
	if ((mine = calloc((size_t)args->nsrc, sizeof(*mine))) == NULL) {
		fprintf(stderr, PROG ": out of memory\n");
		sqp_policy_destroy(p);
		return 1;
	}
	r = named_sources(ap, args, mine, p);
	if (r == 0 && ap->base.drop != NULL)
		r = all_out(ap, args);
	for (int i = 0; i < args->nsrc; i++)
		free(mine[i]);
	free(mine);
	sqp_policy_destroy(p);
	return r;
}

/* The options' before_input for a run without an image. */
static int unstage(struct sqp_writer *w, void *user)
{
	(void)w;
	/* as in mksq_append_add: the scan holds the sources open */
	mksq_rename_cleanup(user);
	return 0;
}

/* The translation's sources after those left out were taken away: the
 * one left kept a top-level directory, or an empty directory for none.
 * 0 or 1 after a message. */
static int patch_kept(const struct mksq_append *ap, struct mksq_args *args)
{
	if (ap->base.keep_dir)
		args->opt.scan_flags |= SQP_DIRSCAN_KEEP_DIR;
	if (ap->base.empty == NULL || mksq_argv_push(&args->dirs, ap->base.empty) == 0)
		return 0;
	fprintf(stderr, PROG ": out of memory\n");
	return 1;
}

int mksq_rename_sources(struct mksq_append *ap, struct mksq_args *args)
{
	struct mksq_argv *v = &args->dirs;
	int r;

	memset(ap, 0, sizeof(*ap));
	ap->fd = -1;
	ap->under = "";
	if (args->tar || args->nsrc < 2)
		return 0;
	r = mksq_append_sources(ap, args);
	/* the DIRs are the sources; last first, so that a source left out
	 * moves none still to be patched */
	for (int i = args->nsrc; r == 0 && i-- > 0;) {
		char **slot = &v->v[i], *copy;

		if (ap->base.drop != NULL && ap->base.drop[i]) {
			free(*slot);
			memmove(slot, slot + 1, (size_t)(&v->v[v->n] - slot) * sizeof(*slot));
			v->n--;
			continue;
		}
		if (ap->base.src == NULL || ap->base.src[i] == NULL)
			continue;
		if ((copy = strdup(ap->base.src[i])) == NULL) {
			fprintf(stderr, PROG ": out of memory\n");
			r = 1;
			break;
		}
		free(*slot);
		*slot = copy;
	}
	if (r == 0 && (ap->base.keep_dir || ap->base.empty != NULL))
		r = patch_kept(ap, args);
	mksq_args_dirs(args);
	if (r == 0 && (ap->base.src != NULL || ap->stage != NULL)) {
		args->opt.before_input = unstage;
		args->opt.before_input_user = ap;
	}
	return r;
}

void mksq_rename_cleanup(struct mksq_append *ap)
{
	for (int i = 0; ap->base.src != NULL && i < ap->nsrc; i++) {
		char *p = ap->base.src[i];

		if (p != NULL) { /* the link, without stage_link's '/' */
			p[strlen(p) - 1] = '\0';
			unlink(p);
		}
		free(p);
	}
	if (ap->stage != NULL)
		rmdir(ap->stage);
	free(ap->stage);
	free(ap->base.src);
	ap->stage = NULL;
	ap->base.src = NULL;
	ap->nsrc = 0;
}
