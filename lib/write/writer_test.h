/* SPDX-License-Identifier: MIT */
/*
 * writer_test.h - fault and collision hooks into the image writer, for
 * tests only.
 *
 * Not a public header and not exported from libsqpack.so (hidden like every
 * internal symbol): tar2img cannot reach these, only programs linked with
 * the convenience library (tests/unit/hooked_tar2img.c) can. Everything
 * else about the writer behaves exactly as with sqp_writer_create().
 */
#ifndef SQP_WRITE_WRITER_TEST_H
#define SQP_WRITE_WRITER_TEST_H

#include <stdint.h>

#include "sqpack/writer.h"

struct writer_test_hooks {
	/* Keep just this many bits (1..63) of every dedup hash so that
	 * collisions become the rule; 0 = full strength. */
	unsigned hash_bits;
	/* The worker compressing the Nth block job (1-based) fails as a
	 * broken codec would; 0 = never. */
	uint64_t fail_job;
	/* The Nth metadata block job (1-based) of the inode and directory
	 * tables fails likewise; 0 = never. */
	uint64_t fail_meta_job;
	/* The Nth read of an EROFS fragment log (1-based) back from its
	 * temporary file fails as EIO would; 0 = never. */
	uint64_t fail_log_read;
};

/* sqp_writer_create() with hooks (NULL = none); same failure convention.
 * Beside it in lib/formats, which picks the back end. */
int writer_create_hooked(const struct sqp_writer_desc *desc,
			 const struct writer_test_hooks *hooks,
			 struct sqp_writer **out);

#endif
