/* SPDX-License-Identifier: MIT */
/*
 * codec_dest.h - compression to a fixed output size, for the formats
 * whose physical clusters have one (EROFS): the codec takes as much of
 * the input as fits the cluster, and says how much it took.
 *
 * A codec serves EROFS exactly when its ops carry these (ops->dest).
 * The state is the block codec's own (its create and destroy), so a
 * level, the HC flag or lzma's extreme flag is read from the parsed
 * configuration in one place for both modes.
 */
#ifndef SQP_CODEC_CODEC_DEST_H
#define SQP_CODEC_CODEC_DEST_H

#include <stddef.h>
#include <stdint.h>

#include "sqpack/codec.h"

struct codec_dest_ops {
	int erofs_alg;  /* EROFS's algorithm number (h_algorithmtype) */
	/* The codec reads no further than what fills the cluster, so it is
	 * offered all the input at once (not in windows, which a cluster
	 * that takes a whole one must compress again). */
	int reads_what_fits;
	/* A cut costs the codec's whole time over its input (one pass, no
	 * cheaper search to reuse): a seam re-cut that covers a byte spends
	 * as much again on it (erofs_seam.c's recut_budget). */
	int costly_cut;
	/* pcluster: the most bytes of one cluster (the image's pcluster
	 * size, a multiple of the block size up to 1 MiB), which sizes the
	 * history as history() says. */
	int (*create)(const struct sqp_codec_config *cfg, uint32_t pcluster,
		      void **state);
	void (*destroy)(void *state);
	/* Compress a prefix of in into at most out_cap bytes: *in_len
	 * (the bytes offered) becomes the bytes taken. guess: the input
	 * that the caller expects to fill out_cap (from the cluster cut
	 * before this one), 0 for none; a codec that searches starts
	 * there, the others ignore it. Returns the compressed size
	 * (1..out_cap), or < 0. The output depends only on the input, the
	 * configuration, out_cap and guess; 0: nothing worth it fits (the
	 * caller stores the input as it is). */
	int (*compress)(void *state, const uint8_t *in, size_t *in_len, size_t guess,
			uint8_t *out, size_t out_cap);
	/* Optional: buf holds n bytes, what compress made of all of in
	 * (in_len bytes); rewrite them in place as the longest prefix of in
	 * that fits cap (< n) bytes, from the same parse cut short, instead
	 * of compressing again. *take becomes the prefix's length. Returns
	 * the new size (1..cap), 0 when no prefix fits, or < 0. */
	int (*trim)(const uint8_t *in, size_t in_len, uint8_t *buf, size_t n, size_t cap,
		    size_t *take);
	/* The history the decoder must keep for cfg and pcluster, in bytes:
	 * what the image's compression configuration records (EROFS's lzma
	 * dictionary, deflate and zstd window, these two a power of two),
	 * and what the kernel allocates per CPU. A bigger pcluster takes
	 * more input, whose matches reach further back. NULL for lz4, whose
	 * 64 KiB is fixed and whose images need no record. */
	uint32_t (*history)(const struct sqp_codec_config *cfg, uint32_t pcluster);
};

/*
 * codec_dest.c, for a codec with no destSize call of its own: compress
 * the longest prefix of in (*in_len offered) that fits out_cap, found
 * by trying lengths from guess (as ops->compress; 0: none) on, and set
 * *in_len to it. try compresses exactly len bytes into out (cap bytes)
 * and returns the size, 0 when it does not fit, or < 0. *scratchp
 * (*scratch_cap bytes, the caller's to free) is grown to 4 * out_cap
 * bytes when smaller. The lengths tried depend on the input, guess,
 * span and grain alone, so the result does too; it may take about
 * 1/grain of a share less than the longest prefix that would fit. A
 * share is the prefix over the blocks of out_cap (CODEC_DEST_BLOCK
 * each) taken span (1 or more) at a time, one share at least: a codec
 * that fills the room left by other means searches less closely with a
 * larger span, one whose tries cost less more closely with a larger
 * grain (64 searches to 1/64 of a one-block cluster's input).
 * A prefix no longer than out_cap is not looked for unless it is all
 * of in (stored as it is, it takes the same room), nor is anything once
 * a try did not shrink its input at all. Returns the size in out, or 0
 * when no prefix longer than out_cap (or the whole input) fits.
 */
#define CODEC_DEST_BLOCK 4096u
typedef int (*codec_dest_try)(void *state, const uint8_t *in, size_t len,
			      uint8_t *out, size_t cap);
int codec_dest_search(codec_dest_try try, void *state, const uint8_t *in,
		      size_t *in_len, size_t guess, uint8_t *out, size_t out_cap,
		      unsigned span, unsigned grain, uint8_t **scratchp, size_t *scratch_cap);

/* Codec id's fixed-output ops: NULL when it has none or is not built. */
const struct codec_dest_ops *codec_dest_of(int id);

#endif
