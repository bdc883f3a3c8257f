/* SPDX-License-Identifier: MIT */
/*
 * tar2img.c - the loop that feeds a tar archive into the image writer.
 *
 * It lives in the library, not the tool, so every program gets the same
 * behaviour. When the tar reader fails (also while the writer pulls file
 * data from it), its message replaces the writer's: "truncated data of
 * 'etc/passwd'" tells the user more than "reading the file's data".
 */
#include "config.h"

#include <stdio.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "sqpack/tar.h"
#include "sqpack/writer.h"
#include "write/writer_impl.h"

static int take_tar_error(struct sqp_writer *w, struct sqp_tar_reader *r, int code)
{
	const char *msg = sqp_tar_reader_error(r);

	if (msg != NULL && msg[0] != '\0') {
		w->err.code = code;
		snprintf(w->err.msg, sizeof(w->err.msg), "%s", msg);
		return code;
	}
	return w->err.code ? w->err.code : writer_fail(w, code, "%s", sqp_strerror(code));
}

int sqp_writer_add_tar(struct sqp_writer *w, struct sqp_tar_reader *r)
{
	const struct sqp_entry *e;
	struct sqp_data_source src;
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	/* Hidden files of a layer are kept within reach through it
	 * (writer_kept.c). */
	w->layer_tar = r;
	for (;;) {
		ret = sqp_tar_next(r, &e);
		if (ret == 0)
			break;
		if (ret < 0)
			break;
		src = sqp_tar_data(r);
		w->tar_data_known = sqp_tar_data_offset(r, &w->tar_data_at);
		ret = sqp_writer_add(w, e, S_ISREG(e->mode) && !e->is_hardlink ? &src : NULL);
		if (ret < 0)
			break;
	}
	w->layer_tar = NULL;
	return ret < 0 ? take_tar_error(w, r, ret) : 0;
}
