/* SPDX-License-Identifier: MIT */
/* imginfo_verity.h - "imginfo verity" (imginfo_verity.c). */
#ifndef IMGINFO_VERITY_H
#define IMGINFO_VERITY_H

int imginfo_verity_main(int argc, char **argv);

#endif
