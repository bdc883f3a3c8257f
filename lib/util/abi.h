/* SPDX-License-Identifier: MIT */
/*
 * abi.h - the size rule of the public structs (doc/contributing.md).
 *
 * Every struct a caller fills or receives starts with `size_t struct_size`, the
 * sizeof the caller was compiled with. A struct grows only at its end, so
 * the library and a caller built against other headers agree on every
 * field both know; these two functions handle the rest, so that each
 * entry point applies the rule in one line and then works on a copy of
 * its own size only.
 */
#ifndef SQP_UTIL_ABI_H
#define SQP_UTIL_ABI_H

#include <stddef.h>

#include "util/errbuf.h"

/* The size of the first version of a struct: up to the end of the last
 * member it had then. Smaller sizes are refused. */
#define SQP_SIZE_TO(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/*
 * A struct the caller fills: copy src (whose first member is its size)
 * into dst, lib_size bytes, zeroing the fields the caller's size does not
 * cover, so they take their defaults. Refuses (SQP_ERR_ARG) a NULL src or
 * a size below v0_size, and (SQP_ERR_UNSUPPORTED) a larger size than the
 * library's whose extra bytes are not all zero: the caller asks for
 * something this older library cannot do. The message goes to e when it
 * is not NULL; what names the struct in it.
 */
int sqp_abi_in(struct sqp_errbuf *e, const char *what, void *dst,
	       size_t lib_size, size_t v0_size, const void *src);

/*
 * A struct the library fills: copy src (lib_size bytes, the library's
 * own struct) into dst up to the size dst says it has, never the size
 * member itself; bytes of dst past lib_size become zero. Refuses a NULL
 * dst or a size below v0_size with SQP_ERR_ARG (message in e, if any),
 * leaving dst alone.
 */
int sqp_abi_out(struct sqp_errbuf *e, const char *what, void *dst,
		const void *src, size_t lib_size, size_t v0_size);

#endif
