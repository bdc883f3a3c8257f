/* SPDX-License-Identifier: MIT */
/*
 * mkfs_erofs.h - what sqpack-mkfs.erofs's files share: the message for a
 * refused option, and the readers of -z and -E (mkfs_erofs_z.c).
 */
#ifndef SQP_MKFS_EROFS_H
#define SQP_MKFS_EROFS_H

#include "sqpack/codec.h"

#define PROG "sqpack-mkfs.erofs"

/* A message naming option what and why, then the help hint: 2. */
int mkfs_refuse(const char *what, const char *why);

/* -zX[,Y] (what, as typed; arg X[,Y]) into cfg: 0, or the exit status
 * after a message. */
int mkfs_compressor(struct sqp_codec_config *cfg, const char *what, const char *arg);
/* -zX[,Y][:X2[,Y2]] (what, as typed) into d's codec and, for X2, its
 * second codec (erofs_codec2, which --compress-hints names by index
 * 1): 0, or the exit status after a message. */
struct sqp_writer_desc;
int mkfs_compressors(struct sqp_writer_desc *d, const char *what, const char *arg);

/* -E X[,Y...] (what, as typed) into the SQP_WRITE_* flags (*blockmap:
 * whether force-inode-blockmap was the last chunk form given): 0, or
 * the exit status after a message. */
int mkfs_extended(unsigned *flags, int *blockmap, const char *what, const char *arg);

#endif
