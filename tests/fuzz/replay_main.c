/* SPDX-License-Identifier: MIT */
/*
 * replay_main.c - the main() of a fuzz harness in builds without
 * libFuzzer: runs LLVMFuzzerTestOneInput once on each file named on the
 * command line, as a libFuzzer binary does when given files, so each
 * corpus input (every crash ever found among them) is a regression case
 * under the plain and sanitizer builds. A crash is the failure; an input
 * that cannot be read is one too (exit 1), never silently skipped.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *exact;
	size_t len = 0, cap = 0;

	if (f == NULL)
		goto fail;
	for (;;) {
		if (len == cap) {
			uint8_t *p = realloc(buf, cap ? cap * 2 : 65536);

			if (p == NULL) {
				errno = ENOMEM;
				goto fail;
			}
			buf = p;
			cap = cap ? cap * 2 : 65536;
		}
		len += fread(buf + len, 1, cap - len, f);
		if (ferror(f))
			goto fail;
		if (feof(f))
			break;
	}
	fclose(f);
	f = NULL;
	/* exactly the input's size, so that ASan sees a read past its end */
	exact = realloc(buf, len ? len : 1);
	if (exact == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
fail:
	fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
	if (f != NULL)
		fclose(f);
	free(buf);
	return 1;
}

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 1; i < argc; i++)
		status |= replay(argv[i]);
	return status;
}
