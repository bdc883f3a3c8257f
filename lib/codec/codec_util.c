/* SPDX-License-Identifier: MIT */
/*
 * codec_util.c - option-value helpers shared by the codec files, so every
 * codec reports a bad option in the same words and with its help text.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "codec/codec_impl.h"

int codec_bad_option(const struct sqp_codec_ops *ops, const char *key,
		     const char *why, char *msg, size_t msg_size)
{
	if (msg_size > 0)
		snprintf(msg, msg_size, "%s: %s '%s'; valid options:\n%s",
			 ops->name, why, key, ops->help);
	return SQP_ERR_ARG;
}

int codec_parse_uint(const char *key, const char *value, unsigned long lo,
		     unsigned long hi, int sizes, unsigned long *out,
		     char *msg, size_t msg_size)
{
	unsigned long v;
	char *end;

	if (value == NULL || value[0] < '0' || value[0] > '9')
		goto bad;
	errno = 0;
	v = strtoul(value, &end, 10);
	if (errno != 0)
		goto bad;
	if (sizes && (*end == 'K' || *end == 'k') && v <= (hi >> 10)) {
		v <<= 10;
		end++;
	} else if (sizes && (*end == 'M' || *end == 'm') && v <= (hi >> 20)) {
		v <<= 20;
		end++;
	}
	if (*end != '\0' || v < lo || v > hi)
		goto bad;
	*out = v;
	return 0;
bad:
	if (msg_size > 0)
		snprintf(msg, msg_size, "option '%s': '%s' is not a number in "
			 "%lu..%lu", key, value ? value : "", lo, hi);
	return SQP_ERR_ARG;
}
