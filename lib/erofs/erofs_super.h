/* SPDX-License-Identifier: MIT */
/*
 * erofs_super.h - the EROFS superblock checks Linux makes at mount
 * (erofs_super.c), for rd_erofs_open.
 */
#ifndef SQP_EROFS_EROFS_SUPER_H
#define SQP_EROFS_EROFS_SUPER_H

#include "erofs/rd_erofs.h"

/* Each extension slot after the 128-byte superblock. */
#define EROFS_SB_EXTSLOT_SIZE 16u

/* The superblock's checksum (with the checksum feature), its extension
 * slots and its compression configuration records; sb's block size is
 * already known good. 0, or the error set in img. */
int rd_erofs_super_check(struct sqp_image *img, const struct erofs_super *sb);
/* The packed inode (fragments) and the root inode read as inodes, the
 * root a directory; img->ero is set up. 0, or the error set in img. */
int rd_erofs_mount_inodes(struct sqp_image *img);

#endif
