/* SPDX-License-Identifier: MIT */
/*
 * unsq_list.c - which entries the PATH arguments select, and the lines
 * unsquashfs prints for them (-l, -ll, -lln, -lc, -llc, and -i/-li while
 * extracting).
 *
 * Why here and not in imginfo: installers and image builders parse
 * unsquashfs's lines, so these are byte for byte unsquashfs 4.5.1's:
 * the destination's name before each path (the root is the destination
 * itself), the ls-like mode, "user/group" left-aligned with the size
 * right-aligned in 25 columns between them, devices as the stored
 * device word split at bit 8, and minutes in the local zone (or UTC).
 * Selection follows unsquashfs too: a PATH matches component by
 * component (shell wildcards, literal names or regexes), a match takes
 * its whole subtree, and the directories on the way to a match are
 * listed even when nothing below them matches.
 */
#include "config.h"

#include <fnmatch.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "sqpack/sqpack.h"
#include "../common/tool_mode.h"
#include "unsq.h"

#define TOTALCHARS 25

/* How many leading components of p match path's; stops at the first
 * mismatch or at the shorter of the two. */
static size_t matched(const struct unsq_opts *o, const struct unsq_pattern *p,
		      const char *path, size_t *path_comps)
{
	size_t i = 0, n = 0;
	char name[257];
	int all = 1;

	while (*path != '\0') {
		const char *slash = strchr(path, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);

		if (all && i < p->count) {
			int ok;

			if (len >= sizeof(name))
				len = sizeof(name) - 1;
			memcpy(name, path, len);
			name[len] = '\0';
			if (o->match == UNSQ_LITERAL)
				ok = strcmp(p->comp[i], name) == 0;
			else if (o->match == UNSQ_REGEX)
				ok = regexec(&p->re[i], name, 0, NULL, 0) == 0;
			else
				ok = fnmatch(p->comp[i], name, FNM_PATHNAME |
					     FNM_PERIOD | FNM_EXTMATCH) == 0;
			if (ok)
				i++;
			else
				all = 0;
		}
		n++;
		path = slash ? slash + 1 : path + strlen(path);
	}
	*path_comps = n;
	return i;
}

static int excluded(const struct unsq_opts *o, const char *path)
{
	size_t n;

	for (size_t k = 0; k < o->exclude.count; k++) {
		const struct unsq_pattern *p = &o->exclude.items[k];

		if (p->count > 0 && matched(o, p, path, &n) == p->count)
			return 1;
	}
	return 0;
}

enum unsq_sel unsq_select(const struct unsq_opts *o, const char *path,
			  int isdir)
{
	enum unsq_sel best = o->extract.count == 0 ? UNSQ_IN : UNSQ_OUT;
	size_t n, m;

	for (size_t k = 0; k < o->extract.count && best != UNSQ_IN; k++) {
		const struct unsq_pattern *p = &o->extract.items[k];

		m = matched(o, p, path, &n);
		if (m == p->count)
			best = UNSQ_IN;
		else if (m == n && isdir)
			best = UNSQ_ABOVE;
	}
	if (best != UNSQ_OUT && excluded(o, path))
		return UNSQ_OUT;
	return best;
}

int unsq_excludes_below(const struct unsq_opts *o, const char *path)
{
	size_t n;

	for (size_t k = 0; k < o->exclude.count; k++) {
		const struct unsq_pattern *p = &o->exclude.items[k];

		if (p->count > 0 && matched(o, p, path, &n) == n && p->count > n)
			return 1;
	}
	return 0;
}

/* A user or group name, or the number when it has none (or numeric);
 * the last answer is kept, as most entries share their owner. */
static const char *owner(uint32_t id, int group, int numeric, char *buf,
			 size_t size)
{
	static uint32_t last_id[2] = { ~0u, ~0u };
	static char last[2][64];
	const char *name = NULL;

	if (!numeric && id == last_id[group])
		return last[group];
	if (!numeric) {
		if (group) {
			struct group *g = getgrgid(id);

			name = g ? g->gr_name : NULL;
		} else {
			struct passwd *pw = getpwuid(id);

			name = pw ? pw->pw_name : NULL;
		}
	}
	if (name != NULL)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%u", (unsigned)id);
	if (!numeric) {
		snprintf(last[group], sizeof(last[group]), "%s", buf);
		last_id[group] = id;
	}
	return buf;
}

static void print_attrs(const struct unsq_opts *o,
			const struct sqp_inode_info *in, int numeric)
{
	char mode[11], ubuf[64], gbuf[64];
	const char *u = owner(in->uid, 0, numeric, ubuf, sizeof(ubuf));
	const char *g = owner(in->gid, 1, numeric, gbuf, sizeof(gbuf));
	int pad = TOTALCHARS - (int)strlen(u) - (int)strlen(g);
	time_t t = (time_t)in->mtime;
	struct tm tm;

	tool_mode_string(in->mode, mode);
	printf("%s %s/%s ", mode, u, g);
	if (S_ISCHR(in->mode) || S_ISBLK(in->mode)) {
		/* unsquashfs splits the stored word, not the numbers. */
		uint32_t word = (in->dev_major << 8) | (in->dev_minor & 0xffu) |
				((in->dev_minor & 0xfff00u) << 12);

		printf("%*s%3d,%3d ", pad - 7 > 0 ? pad - 7 : 0, " ",
		       (int)(word >> 8), (int)(word & 0xff));
	} else {
		/* Directories show the stored size, 3 over the listing's. */
		unsigned long long size = in->size + (S_ISDIR(in->mode) ? 3 : 0);

		printf("%*llu ", pad > 0 ? pad : 0, size);
	}
	if (o->utc)
		gmtime_r(&t, &tm);
	else
		localtime_r(&t, &tm);
	printf("%d-%02d-%02d %02d:%02d ", tm.tm_year + 1900, tm.tm_mon + 1,
	       tm.tm_mday, tm.tm_hour, tm.tm_min);
}

int unsq_print_entry(struct sqp_image *img, const struct unsq_opts *o,
		     const struct sqp_walk_entry *e, int lng)
{
	if (lng)
		print_attrs(o, &e->info, lng == 2);
	if (e->path[0] == '\0')
		printf("%s", o->dest);
	else
		printf("%s/%s", o->dest, e->path);
	if (lng && S_ISLNK(e->info.mode)) {
		size_t size = (size_t)e->info.size + 1;
		char *target = malloc(size);
		int len;

		if (target == NULL)
			return SQP_ERR_NOMEM;
		len = sqp_image_readlink(img, e->info.ref, target, size);
		if (len >= 0)
			printf(" -> %s", target);
		free(target);
		if (len < 0)
			return len;
	}
	putchar('\n');
	return 0;
}

int unsq_list(struct sqp_image *img, const struct unsq_opts *o)
{
	struct sqp_walk_desc wd = { sizeof(wd), img, NULL, o->max_depth };
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	struct sqp_walk *w = NULL;
	int ret;

	ret = sqp_walk_create(&wd, &w);
	while (ret == 0 && (ret = sqp_walk_next(w, &e)) == 1) {
		int isdir = S_ISDIR(e.info.mode);

		ret = 0;
		if (o->max_depth != 0 && e.depth >= o->max_depth)
			continue;
		if (unsq_select(o, e.path, isdir) == UNSQ_OUT)
			continue;
		if (o->concise && isdir && e.info.size != 0)
			continue;
		ret = unsq_print_entry(img, o, &e, o->lng);
	}
	if (ret < 0) {
		fflush(stdout);
		fprintf(stderr, "%s: %s\n", unsq_prog(o), w != NULL &&
			sqp_walk_error(w)[0] ? sqp_walk_error(w) :
			sqp_image_error(img)[0] ? sqp_image_error(img) :
			sqp_strerror(ret));
	}
	sqp_walk_destroy(w);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "%s: writing the listing failed\n", unsq_prog(o));
		return 1;
	}
	return ret < 0 ? 1 : 0;
}
