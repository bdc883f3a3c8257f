/* SPDX-License-Identifier: MIT */
/*
 * imginfo.h - what the imginfo subcommands share: their entry points
 * (each parses its own options from argv[0] = the command's name) and the
 * helpers of imginfo_util.c for opening images, messages and formatting.
 * Options are parsed by tool_args.c, as img2tar's and img2dir's are.
 */
#ifndef IMGINFO_H
#define IMGINFO_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "sqpack/sqpack.h"
#include "../common/tool_args.h"

int imginfo_summary_main(int argc, char **argv);
int imginfo_ls_main(int argc, char **argv);
int imginfo_cat_main(int argc, char **argv);
int imginfo_stat_main(int argc, char **argv);
int imginfo_diff_main(int argc, char **argv);

/* imginfo --offset N: where the images start in their files (an image
 * appended to an AppImage); imginfo_open and check use it. */
void imginfo_set_offset(uint64_t offset);
uint64_t imginfo_offset(void);
/* imginfo --device FILE: EROFS's extra device, for imginfo_open. */
void imginfo_set_device(const char *path);
const char *imginfo_device(void);

/* Open path read-only as an image; on failure print why and return 1. */
int imginfo_open(const char *path, struct sqp_image **img, int *fd);
void imginfo_close(struct sqp_image *img, int fd);

/* "imginfo: what: why" on stderr; returns 1. */
int imginfo_fail(const char *what, const char *why);
/* The image's message for error ret, or the generic text. */
const char *imginfo_why(const struct sqp_image *img, int ret);
/* A usage error: message, a hint to --help; returns 2. */
int imginfo_bad_usage(const char *fmt, const char *arg);
/* Run a command of the form `imginfo CMD IMAGE PATH...` that has no
 * option but --help: fn(img, path, n, user) for the n-th PATH (from 0);
 * returns the exit status (1 when any fn returned 1). */
typedef int (*imginfo_path_fn)(struct sqp_image *img, const char *path,
			       int n, void *user);
int imginfo_each_path(int argc, char **argv, const char *help,
		      imginfo_path_fn fn, void *user);

/* Flush stdout; 0, or 1 after a message when writing failed. */
int imginfo_flush(void);

/* mtime as "YYYY-MM-DD HH:MM" in local time. */
void imginfo_time(int64_t t, char *buf, size_t size);
/* Bytes with control characters and '\\' as C escapes; bytes above
 * 0x7F (UTF-8 names) pass through unless binary, which also escapes '"'
 * (for quoted values such as xattrs). */
void imginfo_escape(FILE *f, const void *data, size_t len, int binary);
const char *imginfo_type_name(uint32_t mode);
/* The size stat shows: a directory's listing bytes + 3, as the kernel. */
uint64_t imginfo_size(const struct sqp_inode_info *in);

#endif
