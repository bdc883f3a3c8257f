/* SPDX-License-Identifier: MIT */
/*
 * abi.c - the size rule of the public structs, applied at the edge.
 *
 * A binary built against older headers passes a smaller struct, one
 * built against newer headers a larger one; both must keep working
 * without a new SONAME. The library therefore never reads or writes a
 * caller's struct past the size the caller gave: what comes in is copied
 * into a zeroed struct of the library's own size (missing fields read as
 * 0, their default), what goes out is copied up to the caller's size.
 * A size below the first version's is a caller that forgot to set it,
 * and is refused rather than guessed.
 */
#include <string.h>

#include "util/abi.h"

static int refuse(struct sqp_errbuf *e, int code, const char *what,
		  const char *why, size_t size, size_t limit)
{
	if (e == NULL)
		return code;
	return sqp_err(e, code, "struct %s: size %zu %s %zu (set .struct_size = sizeof(struct %s))",
		       what, size, why, limit, what);
}

int sqp_abi_in(struct sqp_errbuf *e, const char *what, void *dst,
	       size_t lib_size, size_t v0_size, const void *src)
{
	const unsigned char *bytes = src;
	size_t size;

	memset(dst, 0, lib_size);
	if (src == NULL)
		return e ? sqp_err(e, SQP_ERR_ARG, "struct %s: NULL", what) : SQP_ERR_ARG;
	memcpy(&size, src, sizeof size);
	if (size < v0_size)
		return refuse(e, SQP_ERR_ARG, what, "is below the first version's",
			      size, v0_size);
	/* Fields of newer headers left at zero ask for nothing new. */
	for (size_t i = lib_size; i < size; i++)
		if (bytes[i] != 0)
			return refuse(e, SQP_ERR_UNSUPPORTED, what,
				      "sets fields past the end this library knows,",
				      size, lib_size);
	memcpy(dst, src, size < lib_size ? size : lib_size);
	memcpy(dst, &lib_size, sizeof lib_size);
	return 0;
}

int sqp_abi_out(struct sqp_errbuf *e, const char *what, void *dst,
		const void *src, size_t lib_size, size_t v0_size)
{
	unsigned char *bytes = dst;
	size_t size;

	if (dst == NULL)
		return e ? sqp_err(e, SQP_ERR_ARG, "struct %s: NULL", what) : SQP_ERR_ARG;
	memcpy(&size, dst, sizeof size);
	if (size < v0_size)
		return refuse(e, SQP_ERR_ARG, what, "is below the first version's",
			      size, v0_size);
	if (size > lib_size) {
		memset(bytes + lib_size, 0, size - lib_size);
		size = lib_size;
	}
	memcpy(bytes + sizeof size, (const unsigned char *)src + sizeof size,
	       size - sizeof size);
	return 0;
}
