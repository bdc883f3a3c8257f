/* SPDX-License-Identifier: MIT */
/*
 * verity_sha.c - load libcrypto when dm-verity is used, not with the
 * library.
 *
 * SHA-256 for dm-verity is libcrypto's (it uses the CPU's SHA
 * instructions), and dm-verity is its only user here. Linked, libcrypto
 * (4.7 MB, 21,000 relocations, bound at once) was loaded and relocated
 * by every program that loads libsqpack: 2.1 ms of the 6 to 7 ms of CPU that
 * sqpack-fuse took to be ready, and the same in every tool run, --verity
 * or not (extras/bench/README.md). So libsqpack has no DT_NEEDED on it:
 * each hasher and each check dlopens the soname configure linked its
 * test against (SQP_LIBCRYPTO_SONAME) and takes the seven functions it
 * calls. The handle and the pointers are the object's own, as lib/ keeps
 * no global state; dlopen counts references, so concurrent objects each
 * hold theirs (and libcrypto is built NODELETE: once loaded it stays,
 * and the next object's dlopen is a lookup). A libcrypto missing at
 * run time makes that object's creation fail with a message, no more.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "sqpack/error.h"
#include "verity/verity_sha.h"

/* dlsym's answer into the function pointer at fn (POSIX makes a data
 * and a function pointer the same size; memcpy keeps the types apart). */
static int take(void *lib, const char *name, void *fn, size_t size)
{
	void *p = dlsym(lib, name);

	if (p == NULL || size != sizeof(p))
		return -1;
	memcpy(fn, &p, sizeof(p));
	return 0;
}

/* The sizeof checks the field's type against libcrypto's prototype
 * (an assignment the compiler checks but never evaluates, so no
 * reference to libcrypto is linked). */
#define TAKE(field, name) \
	((void)sizeof(sha->field = name), take(sha->lib, #name, &sha->field, sizeof(sha->field)))

int verity_sha_open(struct verity_sha *sha, char *msg, size_t msg_len)
{
	const char *why;

	memset(sha, 0, sizeof(*sha));
	sha->lib = dlopen(SQP_LIBCRYPTO_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (sha->lib != NULL &&
	    TAKE(ctx_new, EVP_MD_CTX_new) == 0 && TAKE(ctx_free, EVP_MD_CTX_free) == 0 &&
	    TAKE(ctx_copy, EVP_MD_CTX_copy_ex) == 0 && TAKE(sha256, EVP_sha256) == 0 &&
	    TAKE(init, EVP_DigestInit_ex) == 0 && TAKE(update, EVP_DigestUpdate) == 0 &&
	    TAKE(final, EVP_DigestFinal_ex) == 0)
		return 0;
	why = dlerror();
	snprintf(msg, msg_len, "dm-verity needs %s: %s", SQP_LIBCRYPTO_SONAME,
		 why != NULL ? why : "not loaded");
	verity_sha_close(sha);
	return SQP_ERR_UNSUPPORTED;
}

void verity_sha_close(struct verity_sha *sha)
{
	if (sha->lib != NULL)
		dlclose(sha->lib);
	memset(sha, 0, sizeof(*sha));
}
