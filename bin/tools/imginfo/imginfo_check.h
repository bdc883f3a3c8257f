/* SPDX-License-Identifier: MIT */
/*
 * imginfo_check.h - the body of "imginfo check", called by imginfo's
 * dispatcher with argv[0] = "check".
 */
#ifndef SQP_BIN_IMGINFO_CHECK_H
#define SQP_BIN_IMGINFO_CHECK_H

/* Exit status: 0 no problem, 1 problems (or the check failed), 2 usage. */
int imginfo_check_main(int argc, char **argv);

#endif
