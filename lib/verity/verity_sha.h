/* SPDX-License-Identifier: MIT */
/*
 * verity_sha.h - libcrypto's SHA-256, loaded when a dm-verity object is
 * made rather than when libsqpack is (verity_sha.c says why).
 *
 * Each hasher and each check opens its own table and closes it when it
 * is destroyed; a table is only read once open, so the threads that
 * hash a hasher's spans share it.
 */
#ifndef SQP_VERITY_VERITY_SHA_H
#define SQP_VERITY_VERITY_SHA_H

#include <stddef.h>

#include <openssl/evp.h>

/* The EVP functions dm-verity calls, as libcrypto declares them. */
struct verity_sha {
	void *lib;                     /* dlopen's handle; NULL: not open */
	EVP_MD_CTX *(*ctx_new)(void);
	void (*ctx_free)(EVP_MD_CTX *ctx);
	int (*ctx_copy)(EVP_MD_CTX *out, const EVP_MD_CTX *in);
	const EVP_MD *(*sha256)(void);
	int (*init)(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl);
	int (*update)(EVP_MD_CTX *ctx, const void *d, size_t cnt);
	int (*final)(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s);
};

/* Load libcrypto (the soname configure linked against) into sha. 0, or
 * SQP_ERR_UNSUPPORTED with "dm-verity needs libcrypto.so.N: why" in msg
 * (and sha left closed). */
int verity_sha_open(struct verity_sha *sha, char *msg, size_t msg_len);
/* Unload it; a table never opened (all zero), or closed, is fine. */
void verity_sha_close(struct verity_sha *sha);

#endif
