/* SPDX-License-Identifier: MIT */
/*
 * tool_mains.h - the packers as functions, so one program can run another
 * in-process (sqpack-mksquashfs translates its command line and calls
 * dir2img_main or tar2img_main). Each returns the exit status: 0 ok, 1
 * failure, 2 bad usage. Messages start with the program name set by
 * tool_set_progname() (the programs' main() set their own).
 */
#ifndef SQP_BIN_TOOL_MAINS_H
#define SQP_BIN_TOOL_MAINS_H

int dir2img_main(int argc, char **argv);
int tar2img_main(int argc, char **argv);
int img2img_main(int argc, char **argv);

/* The name messages start with ("tar2img", "sqpack-mksquashfs"...). */
void tool_set_progname(const char *name);
const char *tool_progname(void);

#endif
