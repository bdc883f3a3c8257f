/* SPDX-License-Identifier: MIT */
/*
 * tool_hex.c - the one hex decoder of the tools: --verity-salt, --uuid's
 * digit groups and imginfo verity's ROOTHASH all take hex digits in
 * either case, and each had its own loop. lib/tar's pax decoder keeps
 * its own: bin/ may call only the exported API, and a hex decoder is not
 * worth a public symbol.
 *
 * Nothing but '0'-'9', 'a'-'f' and 'A'-'F' is a digit: no sign, no
 * "0x", no white space, and a NUL inside the span is an error, so a
 * short string never reads past its end.
 */
#include "tool_hex.h"

static int digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tool_hex_decode(const char *s, size_t len, uint8_t *out)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2) {
		int hi = digit(s[i]), lo = hi < 0 ? -1 : digit(s[i + 1]);

		if (lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return i == len ? 0 : -1;
}
