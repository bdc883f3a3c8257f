/* SPDX-License-Identifier: MIT */
/*
 * verity_none.c - the library's dm-verity interface in a build without
 * libcrypto (configure --without-openssl).
 *
 * The exported functions are the same whatever configure found, so that
 * a program linked against libsqpack.so.0 runs with either build and the
 * symbols file holds for both; here each answers that dm-verity is not
 * built in (the writer's sqp_writer_get_verity answers in writer.c).
 * Nothing else of dm-verity is compiled: the writer refuses desc.verity
 * in its own argument check (writer.c) and has no hasher, and the tools
 * ask sqp_verity_available() first, to refuse --verity and `imginfo
 * verity` as bad usage.
 */
#include "config.h"

#include <stdio.h>

#include "sqpack/error.h"
#include "sqpack/verity.h"

int sqp_verity_available(void)
{
	return 0;
}

int sqp_verity_check(const struct sqp_verity_check_desc *desc,
		     struct sqp_verity_bad *bad, char *msg, size_t msg_len)
{
	(void)desc;
	(void)bad;
	snprintf(msg, msg_len, "dm-verity is not built in (configure found no libcrypto)");
	return SQP_ERR_UNSUPPORTED;
}
