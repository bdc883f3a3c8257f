/* SPDX-License-Identifier: MIT */
/*
 * words.h - the writer core's own words for a stored block's size, a file
 * with no tail fragment, an entry with no xattrs and a name's length.
 *
 * The core (the tree, the data pipe, the dedup store, base copies) knows
 * no format, yet its records need these values. They are SquashFS's, on
 * purpose: its back end (lib/squashfs) writes the tree's words as they
 * are, and checks at build time that they still agree; EROFS's back end
 * reads them as the core's and writes its own records.
 */
#ifndef SQP_WRITE_WORDS_H
#define SQP_WRITE_WORDS_H

/* A stored block's word: its length on disk in the low 24 bits, and this
 * bit when it is stored as it was (not compressed). */
#define WR_BLOCK_RAW        (1u << 24)
#define WR_BLOCK_SIZE_MASK  0x00FFFFFFu

/* A file whose tail is in no fragment; an entry with no xattr set. */
#define WR_NO_FRAGMENT      0xFFFFFFFFu
#define WR_NO_XATTR         0xFFFFFFFFu

/* The longest name the tree takes, in bytes (SquashFS's); a back end
 * whose limit is lower refuses the rest in its check_entry. */
#define WR_NAME_MAX         256

#endif
