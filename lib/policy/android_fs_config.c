/* SPDX-License-Identifier: MIT */
/*
 * android_fs_config.c - Android's fs_config without a canned file: the
 * owners, modes and capabilities that mkfs.erofs built for Android takes
 * from libcutils' fs_config() when it has --product-out and no
 * --fs-config-file.
 *
 * libcutils reads, in this order, the binary fs_config_files (or, for a
 * directory, fs_config_dirs) that the build generated for system,
 * vendor, oem, odm, product and system_ext under PRODUCT_OUT/<part>/etc/,
 * then its own table (below); the first rule whose prefix matches wins,
 * and a path no rule matches is root's, 0755 or 0644, no capabilities.
 * A prefix is an fnmatch pattern whose '*' crosses '/'; a directory's
 * prefix names the directory and all below it. A path under
 * system/product/, system/system_ext/, system/vendor/ or vendor/odm/ is
 * also tried without its first component, so that a partition's rules
 * hold where it sits inside another.
 *
 * Where we part from libcutils, and why: it skips the rest of a file at
 * a record it cannot read, and opens the build host's own
 * /system/etc/fs_config_* when PRODUCT_OUT has none; a typo or the build
 * machine would then change the image unseen, so a bad record fails with
 * the file and its offset, and nothing outside PRODUCT_OUT is read.
 *
 * The table is written from AOSP's public definitions (libcutils
 * fs_config.cpp, the AID_* numbers of android_filesystem_config.h) as a
 * 64-bit host build has it.
 */
#include "config.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy_impl.h"
#include "util/endian.h"

/* The user and group ids the table names. */
enum {
	AID_ROOT = 0, AID_SYSTEM = 1000, AID_DHCP = 1014, AID_MEDIA_RW = 1023,
	AID_SDCARD_R = 1028, AID_LOGD = 1036, AID_SHARED_RELRO = 1037,
	AID_SHELL = 2000, AID_CACHE = 2001, AID_MISC = 9998, AID_APP = 10000,
};

/* Capability bits (linux/capability.h). */
#define CAP(n) (UINT64_C(1) << (n))
#define CAP_SETGID 6
#define CAP_SETUID 7
#define CAP_BLOCK_SUSPEND 36

/* A generated file's record head: len (of the whole record), mode, uid,
 * gid (16 bits each), capabilities (64), little endian; the prefix and
 * its NUL follow, padded to 8 bytes. */
#define REC_HEAD 16

/* Directories: the most specific first, as libcutils lists them. */
static const struct android_rule builtin_dirs[] = {
	{ "cache", 00770, AID_SYSTEM, AID_CACHE, 0 },
	{ "config", 00555, AID_ROOT, AID_ROOT, 0 },
	{ "data/app", 00771, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "data/app-private", 00771, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "data/app-ephemeral", 00771, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "data/dalvik-cache", 00771, AID_ROOT, AID_ROOT, 0 },
	{ "data/data", 00771, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "data/local/tmp", 00771, AID_SHELL, AID_SHELL, 0 },
	{ "data/local", 00771, AID_SHELL, AID_SHELL, 0 },
	{ "data/misc/dhcp", 00770, AID_DHCP, AID_DHCP, 0 },
	{ "data/misc/shared_relro", 00771, AID_SHARED_RELRO, AID_SHARED_RELRO, 0 },
	{ "data/misc", 01771, AID_SYSTEM, AID_MISC, 0 },
	{ "data/media/Music", 00775, AID_MEDIA_RW, AID_MEDIA_RW, 0 },
	{ "data/media", 00775, AID_MEDIA_RW, AID_MEDIA_RW, 0 },
	{ "data/preloads", 00775, AID_ROOT, AID_ROOT, 0 },
	{ "data", 00771, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "mnt", 00755, AID_ROOT, AID_SYSTEM, 0 },
	{ "product/bin", 00751, AID_ROOT, AID_SHELL, 0 },
	{ "sdcard", 00777, AID_ROOT, AID_ROOT, 0 },
	{ "storage", 00751, AID_ROOT, AID_SDCARD_R, 0 },
	{ "system/bin", 00751, AID_ROOT, AID_SHELL, 0 },
	{ "system/etc/ppp", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "system/vendor", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "system/xbin", 00750, AID_ROOT, AID_SHELL, 0 },
	{ "system_ext/bin", 00751, AID_ROOT, AID_SHELL, 0 },
	{ "vendor/bin", 00751, AID_ROOT, AID_SHELL, 0 },
	{ "vendor", 00755, AID_ROOT, AID_SHELL, 0 },
};

/* Files: exact paths, then the wildcards, then the generic defaults. */
static const struct android_rule builtin_files[] = {
	{ "data/app/*", 00644, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "data/app-ephemeral/*", 00644, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "data/app-private/*", 00644, AID_SYSTEM, AID_SYSTEM, 0 },
	{ "data/data/*", 00644, AID_APP, AID_APP, 0 },
	{ "data/media/*", 00644, AID_MEDIA_RW, AID_MEDIA_RW, 0 },
	{ "default.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "system/etc/prop.default", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "odm/build.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "odm/default.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "odm/etc/build.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "odm/etc/fs_config_dirs", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "odm/etc/fs_config_files", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "oem/etc/fs_config_dirs", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "oem/etc/fs_config_files", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "product/build.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "product/etc/fs_config_dirs", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "product/etc/fs_config_files", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "system_ext/build.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "system_ext/etc/fs_config_dirs", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "system_ext/etc/fs_config_files", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "system/bin/crash_dump32", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "system/bin/crash_dump64", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "system/bin/debuggerd", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "system/bin/logd", 00550, AID_LOGD, AID_LOGD, 0 },
	{ "system/bin/secilc", 00700, AID_ROOT, AID_ROOT, 0 },
	{ "system/bin/uncrypt", 00750, AID_ROOT, AID_ROOT, 0 },
	{ "system/build.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "system/etc/fs_config_dirs", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "system/etc/fs_config_files", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "system/etc/init.goldfish.rc", 00440, AID_ROOT, AID_SHELL, 0 },
	{ "system/etc/init.goldfish.sh", 00550, AID_ROOT, AID_SHELL, 0 },
	{ "system/etc/init.ril", 00550, AID_ROOT, AID_SHELL, 0 },
	{ "system/etc/ppp/*", 00555, AID_ROOT, AID_ROOT, 0 },
	{ "system/etc/rc.*", 00555, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/bin/install-recovery.sh", 00750, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/build.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/default.prop", 00600, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/etc/recovery.img", 00440, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/etc/fs_config_dirs", 00444, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/etc/fs_config_files", 00444, AID_ROOT, AID_ROOT, 0 },
	/* set-uid on purpose; user builds leave them out */
	{ "system/xbin/procmem", 06755, AID_ROOT, AID_ROOT, 0 },
	{ "system/xbin/su", 04750, AID_ROOT, AID_SHELL, 0 },
	/* capabilities, in user builds too */
	{ "system/bin/inputflinger", 00700, AID_SYSTEM, AID_SHELL, CAP(CAP_BLOCK_SUSPEND) },
	{ "system/bin/run-as", 00750, AID_ROOT, AID_SHELL, CAP(CAP_SETUID) | CAP(CAP_SETGID) },
	{ "system/bin/simpleperf_app_runner", 00750, AID_ROOT, AID_SHELL,
	  CAP(CAP_SETUID) | CAP(CAP_SETGID) },
	{ "first_stage_ramdisk/system/bin/e2fsck", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "first_stage_ramdisk/system/bin/linker64", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "first_stage_ramdisk/system/bin/resize2fs", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "first_stage_ramdisk/system/bin/snapuserd", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "first_stage_ramdisk/system/bin/snapuserd_ramdisk", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "first_stage_ramdisk/system/bin/tune2fs", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "first_stage_ramdisk/system/bin/fsck.f2fs", 00755, AID_ROOT, AID_ROOT, 0 },
	/* the generic defaults */
	{ "bin/*", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "first_stage.sh", 00755, AID_ROOT, AID_ROOT, 0 },
	{ "fstab.*", 00640, AID_ROOT, AID_SHELL, 0 },
	{ "init*", 00750, AID_ROOT, AID_SHELL, 0 },
	{ "*.rc", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "odm/bin/*", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "odm/framework/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "odm/app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "odm/priv-app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "product/bin/*", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "product/framework/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "product/app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "product/priv-app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "system/bin/*", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "system/xbin/*", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "system/framework/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "system/app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "system/priv-app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "system_ext/bin/*", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "system_ext/framework/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "system_ext/app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "system_ext/priv-app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/bin/*", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "vendor/xbin/*", 00755, AID_ROOT, AID_SHELL, 0 },
	{ "vendor/framework/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/app/*", 00644, AID_ROOT, AID_ROOT, 0 },
	{ "vendor/priv-app/*", 00644, AID_ROOT, AID_ROOT, 0 },
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* What makes a directory's prefix a pattern for the directory and all
 * below it: "a/b" and "a/b/" become "a/b/" and a star. */
static const char *dir_more(const char *prefix)
{
	size_t n = strlen(prefix);

	return n >= 2 && strcmp(prefix + n - 2, "/*") == 0 ? "" :
	       n >= 1 && prefix[n - 1] == '/' ? "*" : "/*";
}

/* prefix and dir_more's into buf (NULL: no room). */
static const char *dir_pattern(const char *prefix, char *buf, size_t size)
{
	size_t n = strlen(prefix);
	const char *more = dir_more(prefix);

	if (n + strlen(more) + 1 > size)
		return NULL;
	memcpy(buf, prefix, n);
	strcpy(buf + n, more);
	return buf;
}

static int starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Whether pattern matches input, or, for a path of a partition inside
 * another ("system/vendor/..."), the same path from the inner one. */
static int rule_matches(const char *pattern, const char *input)
{
	static const char *const outer[] = { "system/product/", "system/system_ext/",
					     "system/vendor/", "vendor/odm/" };
	static const char *const parts[] = { "odm/", "oem/", "product/", "system_ext/",
					     "vendor/" };
	size_t i, k;

	if (fnmatch(pattern, input, FNM_NOESCAPE) == 0)
		return 1;
	for (i = 0; i < COUNT(outer); i++) {
		const char *inner;

		if (!starts(input, outer[i]))
			continue;
		inner = strchr(input, '/') + 1;
		for (k = 0; k < COUNT(parts); k++)
			if (starts(inner, parts[k]) && fnmatch(pattern, inner, FNM_NOESCAPE) == 0)
				return 1;
	}
	return 0;
}

/* The first of n rules that input matches, or NULL. Loaded directory
 * rules hold their pattern already; the table's are made here. */
static const struct android_rule *first_match(const struct android_rule *r, size_t n, int dir,
					      int loaded, const char *input)
{
	char buf[64];
	size_t i;

	for (i = 0; i < n; i++) {
		const char *pat = dir && !loaded ? dir_pattern(r[i].prefix, buf, sizeof(buf)) :
				  r[i].prefix;

		if (pat != NULL && rule_matches(pat, input))
			return &r[i];
	}
	return NULL;
}

void policy_android_lookup(const struct sqp_policy *p, const char *input, int dir,
			   struct fs_config_hit *hit)
{
	const struct android_rule *r = first_match(p->droid[dir], p->droid_count[dir], dir, 1,
						   input);

	if (r == NULL)
		r = dir ? first_match(builtin_dirs, COUNT(builtin_dirs), 1, 0, input) :
		    first_match(builtin_files, COUNT(builtin_files), 0, 0, input);
	if (r == NULL) {
		*hit = (struct fs_config_hit){ 0, 0, dir ? 0755 : 0644, 0 };
		return;
	}
	*hit = (struct fs_config_hit){ r->uid, r->gid, r->mode, r->caps };
}

static int bad_record(struct sqp_policy *p, int code, const char *file, long off,
		      const char *why)
{
	return sqp_err(&p->err, code, "fs_config file '%s' offset %ld: %s", file, off, why);
}

/* One record at off in f, its head read already into head: the prefix
 * read and checked, the rule appended to p->droid[dir]. */
static int add_record(struct sqp_policy *p, FILE *f, const char *file, long off,
		      const uint8_t *head, int dir)
{
	uint16_t len = sqp_get16(head), mode = sqp_get16(head + 2);
	struct android_rule r = { NULL, mode, sqp_get16(head + 4), sqp_get16(head + 6),
				  sqp_get64(head + 8) };
	size_t body, n;
	char *prefix;

	if (len <= REC_HEAD)
		return bad_record(p, SQP_ERR_ARG, file, off, "a record's length is no more "
				  "than its 16-byte head");
	if (mode > 07777)
		return bad_record(p, SQP_ERR_ARG, file, off, "a mode beyond the permission "
				  "bits (07777)");
	body = (size_t)len - REC_HEAD;
	/* room for the two bytes dir_more adds */
	if ((prefix = malloc(body + 2)) == NULL)
		return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
	n = fread(prefix, 1, body, f);
	if (n != body || memchr(prefix, '\0', body) == NULL) {
		free(prefix);
		return ferror(f) ? sqp_err(&p->err, sqp_errno_code(errno), "fs_config file "
					   "'%s': %s", file, strerror(errno)) :
		       bad_record(p, n != body ? SQP_ERR_TRUNCATED : SQP_ERR_ARG, file, off,
				  n != body ? "the record is cut short" :
				  "the prefix has no terminating NUL");
	}
	if (dir)
		strcat(prefix, dir_more(prefix));
	r.prefix = prefix;
	if (policy_grow(p, (void **)&p->droid[dir], &p->droid_cap[dir], p->droid_count[dir],
			sizeof(r)) != 0) {
		free(prefix);
		return p->err.code;
	}
	p->droid[dir][p->droid_count[dir]++] = r;
	return 0;
}

/* A generated fs_config_dirs (dir 1) or fs_config_files (dir 0): its
 * records after those loaded before; none when there is no such file. */
static int load_file(struct sqp_policy *p, const char *file, int dir)
{
	FILE *f = fopen(file, "rbe");
	uint8_t head[REC_HEAD];
	long off = 0;
	size_t n;
	int ret = 0;

	if (f == NULL)
		return errno == ENOENT ? 0 : sqp_err(&p->err, sqp_errno_code(errno),
						     "fs_config file '%s': %s", file,
						     strerror(errno));
	while (ret == 0 && (n = fread(head, 1, REC_HEAD, f)) == REC_HEAD) {
		ret = add_record(p, f, file, off, head, dir);
		off += sqp_get16(head);
	}
	if (ret == 0 && ferror(f))
		ret = sqp_err(&p->err, sqp_errno_code(errno), "fs_config file '%s': %s", file,
			      strerror(errno));
	else if (ret == 0 && n != 0)
		ret = bad_record(p, SQP_ERR_TRUNCATED, file, off, "the record's head is cut "
				 "short");
	fclose(f);
	return ret;
}

int sqp_policy_load_android_fs_config(struct sqp_policy *p, const char *product_out)
{
	static const char *const parts[] = { "system", "vendor", "oem", "odm", "product",
					     "system_ext" };
	size_t len = product_out != NULL ? strlen(product_out) : 0, i;
	char *file;
	int ret = 0, dir;

	if (p->err.code != 0)
		return p->err.code;
	/* PRODUCT_OUT, or its system/ directory: libcutils takes both */
	if (len > 0 && product_out[len - 1] == '/')
		len--;
	if (len >= 7 && strncmp(product_out + len - 7, "/system", 7) == 0)
		len -= 7;
	for (i = 0; ret == 0 && product_out != NULL && product_out[0] != '\0' &&
		    i < COUNT(parts); i++)
		for (dir = 0; ret == 0 && dir < 2; dir++) {
			size_t size = len + strlen(parts[i]) + 32;

			if ((file = malloc(size)) == NULL)
				return sqp_err(&p->err, SQP_ERR_NOMEM, "out of memory");
			snprintf(file, size, "%.*s/%s/etc/fs_config_%s", (int)len, product_out,
				 parts[i], dir ? "dirs" : "files");
			ret = load_file(p, file, dir);
			free(file);
		}
	if (ret == 0)
		p->has_droid = 1;
	return ret;
}

void policy_android_free(struct sqp_policy *p)
{
	size_t i;
	int dir;

	for (dir = 0; dir < 2; dir++) {
		for (i = 0; i < p->droid_count[dir]; i++)
			free((char *)p->droid[dir][i].prefix);
		free(p->droid[dir]);
	}
}
