/* SPDX-License-Identifier: MIT */
/*
 * error.c - error codes to text, and the latched per-object error.
 *
 * Messages are formatted into the object's own buffer, never into static
 * storage, so objects in different threads never share error state.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sqpack/error.h"
#include "util/errbuf.h"

const char *sqp_strerror(int err)
{
	switch (err) {
	case SQP_OK: return "success";
	case SQP_ERR_IO: return "input/output error";
	case SQP_ERR_NO_SPACE: return "no space left on device";
	case SQP_ERR_TRUNCATED: return "unexpected end of input";
	case SQP_ERR_NOMEM: return "out of memory";
	case SQP_ERR_CORRUPT: return "corrupt SquashFS image";
	case SQP_ERR_BAD_TAR: return "malformed tar archive";
	case SQP_ERR_BAD_DATA: return "corrupt compressed data";
	case SQP_ERR_UNSUPPORTED: return "unsupported feature";
	case SQP_ERR_NO_CODEC: return "codec not built into this sqpack";
	case SQP_ERR_ARG: return "invalid argument";
	case SQP_ERR_EXISTS: return "file exists";
	case SQP_ERR_NOT_FOUND: return "no such file or entry";
	case SQP_ERR_SEQUENCE: return "call out of sequence";
	case SQP_ERR_LIMIT: return "format limit exceeded";
	case SQP_ERR_CANCELED: return "canceled";
	case SQP_ERR_COMPRESSOR: return "the compressor failed";
	case SQP_ERR_INTERNAL: return "internal error (a bug in sqpack)";
	default: return "unknown error";
	}
}

int sqp_verr(struct sqp_errbuf *e, int code, const char *fmt, va_list ap)
{
	if (e->code != 0)
		return e->code;
	e->code = code;
	if (fmt != NULL)
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	else
		snprintf(e->msg, sizeof(e->msg), "%s", sqp_strerror(code));
	return code;
}

int sqp_err(struct sqp_errbuf *e, int code, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = sqp_verr(e, code, fmt, ap);
	va_end(ap);
	return ret;
}

int sqp_err_wrap(struct sqp_errbuf *e, int code, const char *inner_msg,
		 const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (e->code != 0)
		return e->code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	if (inner_msg == NULL || inner_msg[0] == '\0')
		inner_msg = sqp_strerror(code);
	snprintf(e->msg + n, sizeof(e->msg) - n, "%s", inner_msg);
	return code;
}

int sqp_errno_code(int errnum)
{
	switch (errnum) {
	case ENOSPC:
	case EFBIG:
	case EDQUOT:
		return SQP_ERR_NO_SPACE;
	case ENOMEM:
		return SQP_ERR_NOMEM;
	case ENOENT:
		return SQP_ERR_NOT_FOUND;
	case EEXIST:
		return SQP_ERR_EXISTS;
	default:
		return SQP_ERR_IO;
	}
}
