/* SPDX-License-Identifier: MIT */
/*
 * tool_mode.h - a mode as ls -l writes it.
 */
#ifndef SQP_BIN_TOOL_MODE_H
#define SQP_BIN_TOOL_MODE_H

#include <stdint.h>

/* The type letter and the nine permission letters (s, S, t, T for the
 * set-id and sticky bits), terminated: 11 bytes. */
void tool_mode_string(uint32_t mode, char out[11]);

#endif
