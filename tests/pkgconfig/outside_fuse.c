/* SPDX-License-Identifier: MIT */
/*
 * outside_fuse.c - a program as a user of libsqpack-fuse writes it: only
 * <sqpack/fuse.h>, built with nothing but what `pkg-config sqpack-fuse`
 * (or `--static`) says. outside_fuse IMAGE: IMAGE is opened and checked
 * (nothing is mounted), and /dev/null is refused with a message that
 * names it; exit 0 only then.
 */
#include <stdio.h>
#include <string.h>

#include <sqpack/fuse.h>

int main(int argc, char **argv)
{
	struct sqp_fuse_desc d = { .struct_size = sizeof(d) };
	struct sqp_fuse *f = NULL;
	int ok;

	if (argc != 2)
		return 2;
	d.image = argv[1];
	ok = sqp_fuse_create(&d, &f) == 0;
	if (!ok)
		fprintf(stderr, "outside_fuse: %s\n", sqp_fuse_error(f));
	sqp_fuse_destroy(f);
	d.image = "/dev/null";
	if (sqp_fuse_create(&d, &f) == 0 ||
	    strstr(sqp_fuse_error(f), "/dev/null") == NULL) {
		fprintf(stderr, "outside_fuse: /dev/null was not refused\n");
		ok = 0;
	}
	sqp_fuse_destroy(f);
	return ok ? 0 : 1;
}
