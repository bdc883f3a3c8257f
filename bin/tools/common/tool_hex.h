/* SPDX-License-Identifier: MIT */
/*
 * tool_hex.h - hex digits to bytes, for the options that take them
 * (tool_hex.c).
 */
#ifndef SQP_BIN_TOOL_HEX_H
#define SQP_BIN_TOOL_HEX_H

#include <stddef.h>
#include <stdint.h>

/* The first len characters of s (len even; either case) into len / 2
 * bytes at out; 0, or -1 at the first character that is not a hex
 * digit (out then holds the bytes before it). */
int tool_hex_decode(const char *s, size_t len, uint8_t *out);

#endif
