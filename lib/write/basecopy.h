/* SPDX-License-Identifier: MIT */
/*
 * basecopy.h - a base image's stored blocks into the data path as they
 * are: no decompression, no compression (sqp_writer_add_image, when the
 * codec and block size stay).
 *
 * The caller (lib/rebuild) describes each file as the base stores it;
 * the blocks take their place in the data path's order like any other,
 * so the image stays the same for any -j: copied by the kernel from the
 * base's file to the image (compress_copy), or, when converted or when a
 * tap hashes the image, read by the compressor workers (JOB_BASE_BLOCK).
 * What the base shared stays shared: a run of blocks copied once is
 * found again by its position in the base, and a fragment block is
 * copied whole, once, when a tail in it is taken (tails of files left
 * out travel with it: the price of never decompressing it). A fragment
 * block goes where it lies among the base's data blocks, so the base's
 * data, read in its order, is one run: one copy in the kernel.
 */
#ifndef SQP_WRITE_BASECOPY_H
#define SQP_WRITE_BASECOPY_H

#include <stdint.h>

#include "write/datapipe.h"

/* One regular file as the base stores it. Positions are the base
 * image's (from its superblock); the words are its size words. */
struct base_file {
	uint64_t size;
	uint64_t blocks_start;
	const uint32_t *words;
	uint32_t block_count;
	uint32_t frag_index;      /* the base's; WR_NO_FRAGMENT: no tail */
	uint32_t frag_offset;
	uint64_t frag_start;      /* that fragment block's place and word */
	uint32_t frag_word;
	/* Nominate an earlier copy of equal stored blocks by their hash
	 * (basecopy_repack_tails set, blocks copied as they are): a file
	 * whose size occurs in another image, which may hold it too. */
	int by_bytes;
};

struct basecopy;

/* For one base image: stored bytes are read from fd, image position 0
 * at file position origin; no position is used at or past end (the
 * base's bytes_used); it has frag_count fragment blocks. recode: NULL
 * to copy blocks as they are, or the base's codec (of the writer's
 * block size) to convert them: each block and fragment block is
 * decoded and compressed again on the workers, one for one, so tails
 * keep their places. fd and recode are borrowed until this returns:
 * the pipe keeps a duplicate and a copy for its workers, which
 * basecopy_sources_free (from datapipe_cleanup) releases. */
int basecopy_create(struct datapipe *p, int fd, uint64_t origin, uint64_t end,
		    uint32_t frag_count, const struct sqp_codec_config *recode,
		    struct basecopy **out);
void basecopy_destroy(struct basecopy *bc);
void basecopy_sources_free(struct datapipe *p);

/* From now on a tail in a fragment block that repack marks (one byte
 * per base fragment block, borrowed; NULL: every block) is not taken
 * with its whole block but decoded from it (the last one decoded is
 * kept) and packed anew, shared with an equal tail as any file's
 * (datapipe_place_tail): what merging the shards of one build wants
 * where a block holds tails of files read through deduplication, which
 * would otherwise be stored twice. 0, or SQP_ERR_NOMEM latched. */
int basecopy_repack_tails(struct basecopy *bc, const uint8_t *repack);

/* Queue the fragment blocks taken from the base and still held: a
 * fragment block is copied where it lies among the base's data blocks
 * (a run of the base is one copy), so it waits until the data blocks
 * copied reach it, or this, after the base's last file. 0 or an error
 * latched. */
int basecopy_end(struct basecopy *bc);

/* Whether the data path can take f as it is stored: the writer's
 * fragment mode would put its tail in a fragment (or it has none). */
int basecopy_fits(const struct datapipe *p, const struct base_file *f);

/* Store f's data for inode ino. A description that does not fit the
 * base (a size word past the block size, a block past end, a tail past
 * its fragment block) fails with SQP_ERR_CORRUPT, not latched (the
 * caller names the file); other errors are latched. */
int datapipe_add_base(struct datapipe *p, struct basecopy *bc,
		      struct fs_inode *ino, const struct base_file *f);

#endif
