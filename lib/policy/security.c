/* SPDX-License-Identifier: MIT */
/*
 * security.c - the attributes Android's builds set through mkfs.erofs:
 * owners, modes and capabilities from a canned fs_config file, SELinux
 * labels from a labeler (file_contexts), both looked up by the path the
 * file has once the image is mounted at --mount-point.
 *
 * The paths are built exactly as mkfs.erofs 1.9 builds them (see
 * policy.h), so that one fs_config or file_contexts serves both tools.
 * libselinux stays out of the library: the labeler is a callback, which
 * the tools back with selabel_lookup.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policy/policy_impl.h"

/* vfs_cap_data (linux/capability.h), revision 2: 20 little-endian bytes. */
#define CAP_REVISION_2  0x02000000u
#define CAP_EFFECTIVE   0x000001u

void policy_security_free(struct sqp_policy *p)
{
	size_t i;

	for (i = 0; i < p->fscfg_count; i++)
		free(p->fscfg[i].path);
	free(p->fscfg);
	policy_android_free(p);
	free(p->mount_point);
	if (p->label_release != NULL)
		p->label_release(p->label_user);
}

int sqp_policy_set_mount_point(struct sqp_policy *p, const char *mount_point)
{
	size_t len = strlen(mount_point);

	if (p->err.code != 0)
		return p->err.code;
	free(p->mount_point);
	p->mount_point = strdup(mount_point);
	if (p->mount_point == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	if (len > 0 && p->mount_point[len - 1] == '/')
		p->mount_point[len - 1] = '\0';
	return 0;
}

void sqp_policy_set_labeler(struct sqp_policy *p, sqp_label_fn fn, void *user,
			    void (*release)(void *user))
{
	if (p->label_release != NULL)
		p->label_release(p->label_user);
	p->label = fn;
	p->label_user = user;
	p->label_release = release;
}

int sqp_policy_has_xattrs(const struct sqp_policy *p)
{
	return p->label != NULL || p->has_fscfg || p->has_droid;
}

/* One unsigned number of a line: the whole token, in base, at most max. */
static int number(const char *tok, int base, uint64_t max, uint64_t *out)
{
	char *end;

	if (*tok < '0' || *tok > '9')
		return -1;
	errno = 0;
	*out = strtoull(tok, &end, base);
	return errno != 0 || *end != '\0' || *out > max ? -1 : 0;
}

static int bad_line(struct sqp_policy *p, const char *file, unsigned lineno, const char *why)
{
	return sqp_err(&p->err, SQP_ERR_ARG, "fs_config file '%s' line %u: %s", file, lineno,
		       why);
}

/* "PATH UID GID MODE [KEY=VALUE]...": libcutils' canned format, read as
 * load_canned_fs_config reads it, but every number checked (it takes
 * atoi's 0 for a typo). Keys other than capabilities are Android's to
 * ignore, and ignored here too. */
static int fs_config_line(struct sqp_policy *p, const char *line, const char *file,
			  unsigned lineno)
{
	char *copy, *tok[64], *save = NULL, *t;
	struct fs_config_rec r = { 0 };
	uint64_t v[3];
	size_t n = 0, i;
	int ret = 0;

	if (line[0] == '\0')
		return 0;
	/* The root written as " UID GID MODE": Android reads it as "/". */
	copy = malloc(strlen(line) + 2);
	if (copy == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	snprintf(copy, strlen(line) + 2, "%s%s", line[0] == ' ' ? "/" : "", line);
	for (t = strtok_r(copy, " ", &save); t != NULL && n < 64; t = strtok_r(NULL, " ", &save))
		tok[n++] = t;
	if (n < 4 || t != NULL)
		ret = bad_line(p, file, lineno, "expected 'PATH UID GID MODE [capabilities=N]'");
	else if (number(tok[1], 10, UINT32_MAX, &v[0]) || number(tok[2], 10, UINT32_MAX, &v[1]))
		ret = bad_line(p, file, lineno, "the uid and gid are decimal numbers below 2^32");
	else if (number(tok[3], 8, 07777, &v[2]))
		ret = bad_line(p, file, lineno, "the mode is octal, at most 07777");
	for (i = 4; ret == 0 && i < n; i++) {
		char *eq = strchr(tok[i], '=');

		if (eq == NULL || eq == tok[i])
			ret = bad_line(p, file, lineno, "expected KEY=VALUE after the mode");
		else if (strncmp(tok[i], "capabilities=", 13) == 0 &&
			 number(eq + 1, 0, UINT64_MAX, &r.caps))
			ret = bad_line(p, file, lineno, "capabilities=N: a number (0x for hex)");
	}
	if (ret == 0 && policy_grow(p, (void **)&p->fscfg, &p->fscfg_cap, p->fscfg_count,
				    sizeof(*p->fscfg)))
		ret = p->err.code;
	if (ret == 0 && (r.path = strdup(tok[0][0] == '/' ? tok[0] + 1 : tok[0])) == NULL)
		ret = sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0) {
		r.uid = (uint32_t)v[0];
		r.gid = (uint32_t)v[1];
		r.mode = (uint32_t)v[2];
		r.order = p->fscfg_count;
		p->fscfg[p->fscfg_count++] = r;
	}
	free(copy);
	return ret;
}

static int cmp_rec(const void *a, const void *b)
{
	const struct fs_config_rec *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : (x->order < y->order ? -1 : x->order > y->order);
}

int sqp_policy_load_fs_config(struct sqp_policy *p, const char *file)
{
	int ret = policy_each_line(p, file, fs_config_line, "fs_config file");

	if (ret != 0)
		return ret;
	/* sorted now, so that lookups only read: any thread may apply */
	qsort(p->fscfg, p->fscfg_count, sizeof(*p->fscfg), cmp_rec);
	p->has_fscfg = 1;
	return 0;
}

/* The fs_config key of an entry path, into buf: MOUNT_POINT/PATH, or
 * PATH without a mount point, without its leading '/'. The root's is
 * "" for a canned file (mkfs.erofs drops the mount point there) and
 * "MOUNT_POINT/" for Android's built-in one, where a directory's key
 * ends in '/' as libcutils compares it. NULL when it does not fit. */
static const char *fs_config_key(const struct sqp_policy *p, const char *path, int dir,
				 char *buf, size_t size)
{
	int droid = !p->has_fscfg, n;
	const char *key;
	size_t len;

	if (p->mount_point == NULL || (path[0] == '\0' && !droid))
		n = snprintf(buf, size, "%s", path);
	else
		n = snprintf(buf, size, "%s/%s", p->mount_point, path);
	if (n < 0 || (size_t)n + 1 >= size)
		return NULL;
	key = buf[0] == '/' ? buf + 1 : buf;
	len = strlen(key);
	if (droid && dir && (len == 0 || key[len - 1] != '/'))
		strcat(buf, "/");
	return key;
}

int policy_fs_config(const struct sqp_policy *p, const char *path, int dir,
		     struct fs_config_hit *hit, int *missing)
{
	char buf[8192];
	const char *key;
	const struct fs_config_rec *r;

	*missing = 0;
	if (!p->has_fscfg && !p->has_droid)
		return 0;
	key = fs_config_key(p, path, dir, buf, sizeof(buf));
	if (key != NULL && !p->has_fscfg) {
		policy_android_lookup(p, key, dir, hit);
		return 1;
	}
	r = key == NULL ? NULL :
	    policy_find_last(p->fscfg, p->fscfg_count, sizeof(*p->fscfg), key);
	if (r == NULL) {
		*missing = 1;
		return 0;
	}
	*hit = (struct fs_config_hit){ r->uid, r->gid, r->mode, r->caps };
	return 1;
}

int sqp_policy_fs_config(const struct sqp_policy *p, struct sqp_entry *e)
{
	struct fs_config_hit hit;
	int missing;

	if (!policy_fs_config(p, e->path, S_ISDIR(e->mode), &hit, &missing))
		return missing ? SQP_ERR_NOT_FOUND : 0;
	/* the file's type stays; its permission bits are the rule's */
	e->mode = (e->mode & S_IFMT) | hit.mode;
	e->uid = hit.uid;
	e->gid = hit.gid;
	return 0;
}

/* Room for the entry's xattrs and two more in x. */
static int reserve(struct sqp_policy_xattrs *x, size_t n)
{
	struct sqp_xattr *v;

	if (n <= x->cap)
		return 0;
	v = realloc(x->v, n * sizeof(*v));
	if (v == NULL)
		return SQP_ERR_NOMEM;
	x->v = v;
	x->cap = n;
	return 0;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* The labeler's answer for e, into x->label (NULL: no label). */
static int lookup_label(const struct sqp_policy *p, const struct sqp_entry *e,
			struct sqp_policy_xattrs *x)
{
	size_t len = strlen(e->path) + (p->mount_point ? strlen(p->mount_point) : 0) + 4;
	char *path = malloc(len);
	int ret;

	if (path == NULL)
		return SQP_ERR_NOMEM;
	/* "/%s/%s" as mkfs.erofs writes it: libselinux folds the "//" */
	if (p->mount_point != NULL)
		snprintf(path, len, "/%s/%s", p->mount_point, e->path);
	else
		snprintf(path, len, "/%s", e->path);
	ret = p->label(p->label_user, path, e->mode, &x->label);
	free(path);
	if (ret == 1)
		x->label = NULL;
	return ret < 0 ? ret : 0;
}

int sqp_policy_xattrs(const struct sqp_policy *p, struct sqp_entry *e,
		      struct sqp_policy_xattrs *x)
{
	struct fs_config_hit hit;
	int missing, has = policy_fs_config(p, e->path, S_ISDIR(e->mode), &hit, &missing);
	uint64_t caps = has ? hit.caps : 0;
	size_t i, n = 0;
	int ret;

	free(x->label);
	x->label = NULL;
	if (p->label != NULL && (ret = lookup_label(p, e, x)) != 0)
		return ret;
	if (p->label == NULL && caps == 0)
		return 0;
	if ((ret = reserve(x, e->xattr_count + 2)) != 0)
		return ret;
	for (i = 0; i < e->xattr_count; i++) {
		const char *key = e->xattrs[i].key;

		if (p->label != NULL && strcmp(key, "security.selinux") == 0)
			continue;
		if (caps != 0 && strcmp(key, "security.capability") == 0)
			continue;
		x->v[n++] = e->xattrs[i];
	}
	if (x->label != NULL)
		x->v[n++] = (struct sqp_xattr){ "security.selinux", (const uint8_t *)x->label,
						strlen(x->label) };
	if (caps != 0) {
		memset(x->caps, 0, sizeof(x->caps));
		put_le32(x->caps, CAP_REVISION_2 | CAP_EFFECTIVE);
		put_le32(x->caps + 4, (uint32_t)caps);           /* permitted, low */
		put_le32(x->caps + 12, (uint32_t)(caps >> 32));  /* permitted, high */
		x->v[n++] = (struct sqp_xattr){ "security.capability", x->caps, sizeof(x->caps) };
	}
	e->xattrs = x->v;
	e->xattr_count = n;
	return 0;
}

void sqp_policy_xattrs_free(struct sqp_policy_xattrs *x)
{
	free(x->v);
	free(x->label);
	memset(x, 0, sizeof(*x));
}
