/* SPDX-License-Identifier: MIT */
/*
 * tool_security.c - file_contexts through libselinux's selabel (the
 * library takes the labels from a callback, so libsqpack does not link
 * libselinux), and the fs_config file or Android's built-in fs_config,
 * into a packer's policy.
 *
 * Why libselinux: file_contexts is a list of PCRE regexes with file
 * types, ordered by rules of libselinux's own (exact paths before
 * regexes, the last match among equals), and mkfs.erofs asks selabel;
 * any other reader would label differently at the edges.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef WITH_SELINUX
#include <selinux/label.h>
#include <selinux/selinux.h>
#endif

#include "sqpack/error.h"
#include "tool_msg.h"
#include "tool_security.h"

int tool_security_option(struct tool_security *s, int which, const char *arg)
{
	const char **field[] = { &s->file_contexts, &s->fs_config, &s->mount_point,
				 &s->product_out };

	*field[which] = arg;   /* a later one wins, as in mkfs.erofs */
	return 0;
}

int tool_security_wanted(const struct tool_security *s)
{
	return s->file_contexts != NULL || s->fs_config != NULL || s->mount_point != NULL ||
	       s->product_out != NULL;
}

int tool_security_check(const struct tool_security *s)
{
#ifndef WITH_SELINUX
	if (s->file_contexts != NULL)
		return tool_bad_usage("%s", "--file-contexts: this build has no libselinux "
				      "(configure --with-selinux; Debian: libselinux1-dev)");
#endif
	(void)s;
	return 0;
}

#ifdef WITH_SELINUX
/* libselinux's messages (a bad line: the file, its line number and
 * why) in our form, each once (3.4 reports a bad line twice, as we
 * see it); its notes stay quiet. */
static int selinux_log(int type, const char *fmt, ...)
{
	static char last[512];
	char msg[512];
	va_list ap;

	if (type == SELINUX_INFO || type == SELINUX_AVC)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (strcmp(msg, last) == 0)
		return 0;
	memcpy(last, msg, sizeof(last));
	fprintf(stderr, "%s: file_contexts: %s", tool_progname(), msg);
	return 0;
}

static int label(void *user, const char *path, uint32_t mode, char **out)
{
	char *con;

	if (selabel_lookup(user, &con, path, (mode_t)mode) != 0)
		return errno == ENOENT ? 1 : errno == ENOMEM ? SQP_ERR_NOMEM : SQP_ERR_ARG;
	*out = strdup(con);
	freecon(con);
	return *out != NULL ? 0 : SQP_ERR_NOMEM;
}

static void release(void *user)
{
	selabel_close(user);
}

static int open_contexts(const char *file, struct sqp_policy *p)
{
	struct selinux_opt opts[] = { { SELABEL_OPT_PATH, file } };
	struct selabel_handle *h;

	selinux_set_callback(SELINUX_CB_LOG, (union selinux_callback){ .func_log = selinux_log });
	errno = 0;
	h = selabel_open(SELABEL_CTX_FILE, opts, 1);
	if (h == NULL) {
		fprintf(stderr, "%s: --file-contexts '%s': %s\n", tool_progname(), file,
			errno == EINVAL || errno == 0 ? "not a valid file_contexts file" :
			strerror(errno));
		return 1;
	}
	sqp_policy_set_labeler(p, label, h, release);
	return 0;
}
#endif

int tool_security_policy(const struct tool_security *s, struct sqp_policy *p)
{
	int ret = 0;

	if (s->mount_point != NULL)
		ret = sqp_policy_set_mount_point(p, s->mount_point);
	if (ret == 0 && s->fs_config != NULL)
		ret = sqp_policy_load_fs_config(p, s->fs_config);
	/* Android's built-in fs_config and the tables the build generated
	 * under --product-out, as mkfs.erofs built for Android reads them:
	 * only under a mount point, and only when no canned file replaces
	 * them. --mount-point alone keeps to what other builds of
	 * mkfs.erofs do (labels only): --product-out says the line is
	 * Android's. */
	else if (ret == 0 && s->product_out != NULL && s->mount_point != NULL)
		ret = sqp_policy_load_android_fs_config(p, s->product_out);
	if (ret != 0) {
		fprintf(stderr, "%s: %s\n", tool_progname(), sqp_policy_error(p));
		return 1;
	}
#ifdef WITH_SELINUX
	if (s->file_contexts != NULL)
		return open_contexts(s->file_contexts, p);
#endif
	return 0;
}
