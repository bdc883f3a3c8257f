/* SPDX-License-Identifier: MIT */
/*
 * errbuf.h - the latched error every library object carries.
 *
 * The first error recorded wins: later failures are usually consequences
 * of the first, and the first one is what the user needs to see. The
 * message carries context ("tar entry 'x': ..."); sqp_strerror() gives the
 * generic text for a bare code.
 */
#ifndef SQP_UTIL_ERRBUF_H
#define SQP_UTIL_ERRBUF_H

#include <stdarg.h>

#include "sqpack/error.h"

#define SQP_ERRMSG_MAX 512

struct sqp_errbuf {
	int code;                   /* 0 until the first error */
	char msg[SQP_ERRMSG_MAX];
};

/* Record code with a printf-style message unless an error is already
 * latched. Returns the latched code, so "return sqp_err(...)" works. */
int sqp_err(struct sqp_errbuf *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sqp_verr(struct sqp_errbuf *e, int code, const char *fmt, va_list ap);

/* Copy another object's latched error (message and code) into e, with a
 * prefix ("writing 'x': "). Returns the latched code. */
int sqp_err_wrap(struct sqp_errbuf *e, int code, const char *inner_msg,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The sqp_error for an errno value (ENOSPC -> SQP_ERR_NO_SPACE, ...). */
int sqp_errno_code(int errnum);

/* The message, or "" when no error is latched. */
static inline const char *sqp_errmsg(const struct sqp_errbuf *e)
{
	return e->code ? e->msg : "";
}

/* The error to report for a failing sqp_compress(): codecs say
 * SQP_ERR_BAD_DATA for a failing encoder, but when writing nothing was
 * decoded, so that becomes SQP_ERR_COMPRESSOR. */
static inline int sqp_compress_status(int err)
{
	return err == SQP_ERR_BAD_DATA ? SQP_ERR_COMPRESSOR : err;
}

#endif
