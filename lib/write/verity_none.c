/* SPDX-License-Identifier: MIT */
/*
 * verity_none.c - a build without libcrypto (configure --without-openssl)
 * has no dm-verity: a writer asked for it fails at create with
 * SQP_ERR_UNSUPPORTED, sqp_verity_available() says 0 so the tools can say
 * so first, and the checker refuses. imgout never holds a hasher here, so
 * its feed is never reached; it exists for the linker.
 */
#include "config.h"

#include <stdio.h>

#include "sqpack/error.h"
#include "write/verity.h"
#include "write/writer_impl.h"

int sqp_verity_available(void)
{
	return 0;
}

int writer_verity_start(struct sqp_writer *w)
{
	if (w->desc.verity == NULL)
		return 0;
	return sqp_err(&w->err, SQP_ERR_UNSUPPORTED,
		       "dm-verity is not built in (configure found no libcrypto)");
}

uint32_t writer_verity_pad(const struct sqp_writer *w)
{
	return 1;
}

int writer_verity_finish(struct sqp_writer *w, const uint8_t *super, size_t super_len)
{
	return 0;
}

void writer_verity_destroy(struct sqp_writer *w)
{
}

int verity_feed(struct verity *v, const void *data, size_t len)
{
	return SQP_ERR_INTERNAL;
}

int sqp_writer_get_verity(const struct sqp_writer *w, struct sqp_verity_result *r)
{
	return SQP_ERR_SEQUENCE;
}

int sqp_verity_check(const struct sqp_verity_check_desc *desc,
		     struct sqp_verity_bad *bad, char *msg, size_t msg_len)
{
	snprintf(msg, msg_len, "dm-verity is not built in (configure found no libcrypto)");
	return SQP_ERR_UNSUPPORTED;
}
