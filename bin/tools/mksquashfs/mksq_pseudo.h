/* SPDX-License-Identifier: MIT */
/*
 * mksq_pseudo.h - a pseudo file with inline data (unsquashfs -pf's) read
 * as a tar stream, for `sqpack-mksquashfs - OUT -pf FILE`.
 */
#ifndef SQP_BIN_MKSQ_PSEUDO_H
#define SQP_BIN_MKSQ_PSEUDO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct mksq_pseudo;

/* Read the definitions from in (name for messages), up to the data part.
 * 0, or -1 with a message in msg; *out is set either way (free it). */
int mksq_pseudo_read(FILE *in, const char *name, struct mksq_pseudo **out,
		     char *msg, size_t size);
/* The "/" line's attributes: 1 and the values, or 0 when it has none. */
int mksq_pseudo_root(const struct mksq_pseudo *p, uint32_t *mode,
		     uint32_t *uid, uint32_t *gid, int64_t *mtime);
/* Write every definition to out_fd as an uncompressed tar, copying the R
 * files' bytes from the data part. 0, or -1 with a message in msg. */
int mksq_pseudo_write(struct mksq_pseudo *p, int out_fd, char *msg,
		      size_t size);
/* Sockets left out by mksq_pseudo_write(). */
unsigned long mksq_pseudo_sockets(const struct mksq_pseudo *p);
void mksq_pseudo_free(struct mksq_pseudo *p);

#endif
