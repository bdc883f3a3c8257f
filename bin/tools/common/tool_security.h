/* SPDX-License-Identifier: MIT */
/*
 * tool_security.h - Android's options, one spelling for every packer:
 * --file-contexts (SELinux labels, through libselinux), --fs-config-file
 * (owners, modes, capabilities), --mount-point and --product-out, with
 * mkfs.erofs 1.9's meaning (policy.h says how paths are looked up).
 */
#ifndef SQP_BIN_TOOL_SECURITY_H
#define SQP_BIN_TOOL_SECURITY_H

#include "sqpack/policy.h"

struct tool_security {
	const char *file_contexts;    /* NULL: none; borrowed from argv */
	const char *fs_config;
	const char *mount_point;
	const char *product_out;
};

/* One of the options (enum tool_security_opt) with its value: 0. */
enum tool_security_opt { SEC_FILE_CONTEXTS, SEC_FS_CONFIG, SEC_MOUNT_POINT, SEC_PRODUCT_OUT };
int tool_security_option(struct tool_security *s, int which, const char *arg);

/* 1 when any of the options was given (the packer needs a policy). */
int tool_security_wanted(const struct tool_security *s);

/* The options as a whole, once all are read: 0, or 2 after a message
 * (--file-contexts in a build without libselinux). */
int tool_security_check(const struct tool_security *s);

/* Load the files into p and set its labeler: 0, or 1 after a message
 * (a file that cannot be read, a bad line: its name and line number; a
 * bad record of --product-out's tables: its file and offset). */
int tool_security_policy(const struct tool_security *s, struct sqp_policy *p);

#endif
