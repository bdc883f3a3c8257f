/* SPDX-License-Identifier: MIT */
/*
 * mksq_pseudo.c - `sqpack-mksquashfs - OUT -pf FILE`: a pseudo file with
 * its data inline (what `unsquashfs -pf` writes) becomes a tar stream,
 * which tar2img packs in the same process.
 *
 * Why a tar: tar2img already turns an entry stream into an image with
 * everything a pseudo file can say (owners, modes, times, hard links,
 * devices, holes found in zeros), and the stream keeps the order: the
 * definitions are read first (they are all before the data), then each
 * R file's bytes are copied from the data part as its entry is written,
 * so FILE may be a pipe. Only the definitions -pf writes (D R S L I B C)
 * are taken; an R whose data is not next in the stream is refused, as a
 * pipe cannot seek back. Sockets are left out (a tar cannot hold them)
 * and counted, for the caller to say so.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/sqpack.h"
#include "sqpack/tar_writer.h"
#include "mksq_pseudo.h"

#define MARKER "# START OF DATA - DO NOT MODIFY"
#define COPY_CHUNK (128u * 1024)

struct def {
	char *path;         /* unescaped; "" for the root */
	char *target;       /* S: the target; L: the first path */
	char type;
	uint32_t mode, uid, gid, major, minor;
	int64_t mtime;
	uint64_t size, offset;
};

struct defs {
	struct def *v;
	size_t n, cap;
};

struct mksq_pseudo {
	FILE *in;               /* borrowed; at the data part once read */
	const char *name;
	struct defs *defs;
	unsigned long sockets;  /* left out: a tar cannot hold them */
};

static int fail(char *msg, size_t size, const char *fmt, const char *arg)
{
	snprintf(msg, size, fmt, arg);
	return -1;
}

/* The name up to the first unescaped space (or the end, when to_end),
 * unescaped, into a new string; *rest after the space. NULL when it
 * does not end so. */
static char *take_name(char *line, char **rest, int to_end)
{
	char *out = malloc(strlen(line) + 1), *o = out;

	if (out == NULL)
		return NULL;
	for (; *line != '\0' && *line != ' '; line++) {
		if (*line == '\\' && line[1] != '\0')
			line++;
		*o++ = *line;
	}
	*o = '\0';
	if (*line != ' ' && !(to_end && *line == '\0')) {
		free(out);
		return NULL;
	}
	*rest = *line == ' ' ? line + 1 : line;
	return out;
}

/* The type's fields after "TYPE MTIME MODE UID GID". */
static int parse_tail(struct def *d, const char *t)
{
	unsigned long long a, b;
	int n = 0;

	switch (d->type) {
	case 'D': return *t == '\0' ? 0 : -1;
	case 'R':
		if (sscanf(t, "%llu %llu%n", &a, &b, &n) != 2 || t[n] != '\0')
			return -1;
		d->size = a, d->offset = b;
		d->mode |= S_IFREG;
		return 0;
	case 'B':
	case 'C':
		if (sscanf(t, "%llu %llu%n", &a, &b, &n) != 2 || t[n] != '\0' ||
		    a > 0xffffff || b > 0xff)
			return -1;
		/* The fields split the stored device word at bit 8. */
		a = (a << 8) | b;
		d->major = (uint32_t)((a >> 8) & 0xfff);
		d->minor = (uint32_t)((a & 0xff) | ((a >> 12) & 0xfff00));
		d->mode |= d->type == 'B' ? S_IFBLK : S_IFCHR;
		return 0;
	case 'I':
		if (strcmp(t, "f") != 0 && strcmp(t, "s") != 0)
			return -1;
		d->mode |= *t == 'f' ? S_IFIFO : S_IFSOCK;
		return 0;
	case 'S':
		d->mode |= S_IFLNK;
		return (d->target = strdup(t)) == NULL ? -2 : 0;
	}
	return -1;
}

static int parse_def(struct def *d, char *line)
{
	char *rest, type;
	long long mtime;
	unsigned mode;
	int uid, gid, n = 0;

	memset(d, 0, sizeof(*d));
	if ((d->path = take_name(line, &rest, 0)) == NULL)
		return -1;
	type = rest[0];
	if (type == 'L' && rest[1] == ' ') {
		d->type = 'L';
		return (d->target = take_name(rest + 2, &rest, 1)) &&
		       *rest == '\0' ? 0 : -1;
	}
	if (type == '\0' || rest[1] != ' ' ||
	    sscanf(rest + 2, "%lld %o %d %d%n", &mtime, &mode, &uid, &gid, &n) != 4 ||
	    mode > 07777 || (rest[2 + n] != '\0' && rest[2 + n] != ' '))
		return -1;
	d->type = type;
	d->mtime = mtime;
	d->mode = mode;
	d->uid = (uint32_t)uid;
	d->gid = (uint32_t)gid;
	if (type == 'D')
		d->mode |= S_IFDIR;
	return parse_tail(d, rest + 2 + n + (rest[2 + n] == ' '));
}

static void defs_free(struct defs *ds)
{
	for (size_t i = 0; i < ds->n; i++) {
		free(ds->v[i].path);
		free(ds->v[i].target);
	}
	free(ds->v);
}

/* The definitions, up to the data marker (and the "#" line after it). */
static int read_defs(FILE *in, const char *name, struct defs *ds, char *msg,
		     size_t size)
{
	char *line = NULL, *def;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	int ret = -1;

	while ((len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		while (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		for (def = line; *def == ' ' || *def == '\t'; def++)
			;
		if (strcmp(def, MARKER) == 0) {
			ret = fgetc(in) == '#' && fgetc(in) == '\n' ? 0 :
			      fail(msg, size, "%s: no '#' line after the data marker", name);
			break;
		}
		if (*def == '\0' || *def == '#')
			continue;
		if (ds->n == ds->cap) {
			size_t c = ds->cap ? ds->cap * 2 : 256;
			void *v = realloc(ds->v, c * sizeof(*ds->v));

			if (v == NULL) {
				fail(msg, size, "%s: out of memory", name);
				break;
			}
			ds->v = v;
			ds->cap = c;
		}
		if (parse_def(&ds->v[ds->n], def) != 0) {
			ds->n++;
			snprintf(msg, size, "%s: line %zu: not a definition -pf writes "
				 "(PATH D|R|S|L|I|B|C ...): %.80s", name, lineno, def);
			break;
		}
		ds->n++;
	}
	if (ret != 0 && len < 0 && msg[0] == '\0')
		fail(msg, size, "%s: no data marker ('" MARKER "')", name);
	free(line);
	return ret;
}

/* Copy n bytes of the data part into the tar. */
static int copy_data(FILE *in, struct sqp_tar_writer *w, uint64_t n, char *buf)
{
	while (n > 0) {
		size_t want = n < COPY_CHUNK ? (size_t)n : COPY_CHUNK;

		if (fread(buf, 1, want, in) != want ||
		    sqp_tar_write_data(w, buf, want) != 0)
			return -1;
		n -= want;
	}
	return 0;
}

static uint32_t target_mode(const struct defs *ds, size_t upto, const char *path)
{
	for (size_t i = upto; i-- > 0;)
		if (ds->v[i].type != 'L' && strcmp(ds->v[i].path, path) == 0)
			return ds->v[i].mode;
	return 0;
}

static int write_tar(struct mksq_pseudo *p, struct sqp_tar_writer *w,
		     char *msg, size_t size)
{
	const struct defs *ds = p->defs;
	const char *name = p->name;
	char *buf = malloc(COPY_CHUNK);
	uint64_t offset = 0;
	int ret = buf == NULL ? fail(msg, size, "%s: out of memory", name) : 0;

	for (size_t i = 0; ret == 0 && i < ds->n; i++) {
		const struct def *d = &ds->v[i];
		struct sqp_entry e;

		if (S_ISSOCK(d->mode)) {
			p->sockets++;
			continue;
		}
		memset(&e, 0, sizeof(e));
		e.struct_size = sizeof(e);
		e.path = strcmp(d->path, "/") == 0 ? "" : d->path;
		e.mode = d->mode, e.uid = d->uid, e.gid = d->gid;
		e.mtime = d->mtime, e.dev_major = d->major, e.dev_minor = d->minor;
		e.link_target = d->target;
		if (d->type == 'L') {
			e.is_hardlink = 1;
			if ((e.mode = target_mode(ds, i, d->target)) == 0)
				ret = fail(msg, size, "%s: a hard link to a path that "
					   "comes nowhere before it", name);
		}
		if (d->type == 'R') {
			if (d->offset != offset)
				ret = fail(msg, size, "%s: a file's data is not next in "
					   "the stream (a pipe cannot seek)", name);
			e.size = d->size;
			offset += d->size;
		}
		if (ret == 0 && sqp_tar_write_header(w, &e) != 0)
			ret = fail(msg, size, "%s", sqp_tar_writer_error(w));
		if (ret == 0 && d->type == 'R' && copy_data(p->in, w, d->size, buf) != 0)
			ret = fail(msg, size, "%s: the data part ends early, or the "
				   "tar cannot be written", name);
	}
	if (ret == 0 && sqp_tar_writer_finish(w) != 0)
		ret = fail(msg, size, "%s", sqp_tar_writer_error(w));
	free(buf);
	return ret;
}

int mksq_pseudo_read(FILE *in, const char *name, struct mksq_pseudo **out,
		     char *msg, size_t size)
{
	struct mksq_pseudo *p = calloc(1, sizeof(*p));
	struct defs *ds;

	msg[0] = '\0';
	*out = p;
	if (p == NULL)
		return fail(msg, size, "%s: out of memory", name);
	p->in = in;
	p->name = name;
	if ((ds = calloc(1, sizeof(*ds))) == NULL)
		return fail(msg, size, "%s: out of memory", name);
	p->defs = ds;
	return read_defs(in, name, ds, msg, size);
}

int mksq_pseudo_root(const struct mksq_pseudo *p, uint32_t *mode,
		     uint32_t *uid, uint32_t *gid, int64_t *mtime)
{
	for (size_t i = 0; i < p->defs->n; i++) {
		const struct def *d = &p->defs->v[i];

		if (strcmp(d->path, "/") == 0 && d->type == 'D') {
			*mode = d->mode & 07777, *uid = d->uid, *gid = d->gid;
			*mtime = d->mtime;
			return 1;
		}
	}
	return 0;
}

int mksq_pseudo_write(struct mksq_pseudo *p, int out_fd, char *msg, size_t size)
{
	struct sqp_tar_writer_desc td = { sizeof(td), out_fd, SQP_TAR_RAW, 0, NULL, NULL };
	struct sqp_tar_writer *w = NULL;
	int ret = 0;

	msg[0] = '\0';
	if (sqp_tar_writer_create(&td, &w) != 0)
		ret = fail(msg, size, "%s", w != NULL ? sqp_tar_writer_error(w) :
			   "out of memory");
	if (ret == 0)
		ret = write_tar(p, w, msg, size);
	sqp_tar_writer_destroy(w);
	return ret;
}

void mksq_pseudo_free(struct mksq_pseudo *p)
{
	if (p == NULL)
		return;
	if (p->defs != NULL)
		defs_free(p->defs);
	free(p->defs);
	free(p);
}

unsigned long mksq_pseudo_sockets(const struct mksq_pseudo *p)
{
	return p->sockets;
}
