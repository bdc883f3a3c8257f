/* SPDX-License-Identifier: MIT */
/*
 * verity.h - the dm-verity hasher: the image's bytes, whatever its
 * format, taken in image order as the writer's imgout takes them,
 * appended bytes hashed at once, the data blocks' noted in spans that
 * the pool's workers hash in place; finish patches the image's first
 * blocks with their final bytes (the superblock), hashes them and
 * builds the levels above (verity.c, verity_tree.c).
 */
#ifndef SQP_VERITY_VERITY_H
#define SQP_VERITY_VERITY_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/verity.h"
#include "util/errbuf.h"
#include "verity/verity_sha.h"

struct verity;
struct sqp_spill;

/* The lowest level of the tree: block k's digest at byte 32 * k of the
 * chunks laid end to end. A chunk is a whole number of hash blocks for
 * every block size (2048 digests; at most 2048 fit one 64 KiB block), so
 * a hash block never straddles two; fresh chunks read as zeros, which is
 * the padding of the level's last block. */
#define VERITY_CHUNK_DIGESTS 2048
#define VERITY_CHUNK_BYTES ((size_t)VERITY_CHUNK_DIGESTS * SQP_VERITY_DIGEST_SIZE)
struct verity_digests {
	uint8_t **chunks;
	size_t count, cap;
};

/* Start the hasher, with libcrypto of its own (verity_sha.h; missing:
 * SQP_ERR_UNSUPPORTED and why in err). derive: bytes that name the image's options, hashed
 * into the salt when desc gives none. hold: how many of the image's
 * first bytes may still change until finish (kept aside, rounded up to
 * whole blocks, at least one; hashed only there). The digests are allocated from
 * spill (NULL: the heap). Errors are latched in err. */
int verity_create(const struct sqp_verity_desc *desc, const void *derive, size_t derive_len,
		  size_t hold, struct sqp_spill *spill, struct sqp_errbuf *err,
		  struct verity **out);
void verity_destroy(struct verity *v);

uint32_t verity_block_size(const struct verity *v);

/* The next len bytes of the image, appended by the writer's
 * orchestrator (the only thread that feeds or places), hashed before the
 * call returns. 0, or an error latched in err. */
int verity_feed(struct verity *v, const void *data, size_t len);

/* The next len bytes of the image, queued from a buffer that stays
 * untouched until span is hashed: taken in image order like a feed (on
 * the orchestrator), but the whole blocks they hold are only noted in
 * span (verity_span_size() bytes, the caller's), and a block that they
 * complete from the carry is copied there. Returns 1 when span has
 * blocks to hash, 0 when not (the bytes went to the carry), or an error
 * latched in err. Up to 2048 blocks at once (1 MiB at 512 bytes). */
struct verity_span;
size_t verity_span_size(const struct verity *v);
int verity_place(struct verity *v, const void *data, size_t len, struct verity_span *span);
/* Hash what verity_place noted into the blocks' slots, on any thread and
 * beside other spans (each block has its own slot). 0 or a negative
 * sqp_error, latched by nobody here: the caller latches it on the
 * orchestrator. Every span must be hashed before verity_finish. */
int verity_span_hash(struct verity_span *span);

/* Everything is fed (a whole number of blocks); head: the final bytes of
 * the image's start (the superblock, or a format's whole first block),
 * which replace what was fed there; at most hold bytes, and no more than
 * were fed.
 * Builds the levels above the digests and the root hash. */
int verity_finish(struct verity *v, const void *head, size_t head_len);

/* After finish: hands the whole hash area to put, in order, in pieces. */
typedef int (*verity_put_fn)(void *ctx, const void *data, size_t len);
int verity_write_tree(struct verity *v, verity_put_fn put, void *ctx);

/* After finish: what was built (hash_offset left 0 for the caller). */
void verity_get_result(const struct verity *v, struct sqp_verity_result *r);

/* verity_tree.c. The hash area but its lowest level (the digests), top
 * first: *top (from spill, *top_len bytes or 1 when that is 0) holds the
 * superblock and the upper levels (1/127 of the digests at 4 KiB, 1/15
 * at 512 bytes), and the root hash; sha, salted and work as verity_hash
 * takes. */
struct verity_geom;
int verity_tree_top(const struct verity_geom *g, const struct verity_digests *d,
		    const struct verity_sha *sha, const EVP_MD_CTX *salted, EVP_MD_CTX *work,
		    const struct sqp_verity_desc *desc, const uint8_t uuid[16],
		    struct sqp_spill *spill, uint8_t **top, size_t *top_len,
		    uint8_t root[SQP_VERITY_DIGEST_SIZE], struct sqp_errbuf *err);
/* top, then the lowest level from the chunks, to put; the arena is
 * checked between chunks so that reading them back stays in its budget. */
int verity_tree_write(const struct verity_geom *g, const struct verity_digests *d,
		      const uint8_t *top, size_t top_len, struct sqp_spill *spill,
		      verity_put_fn put, void *ctx);

#endif
