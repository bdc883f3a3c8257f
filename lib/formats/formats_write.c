/* SPDX-License-Identifier: MIT */
/*
 * formats_write.c - sqp_writer_create(): the writer's one place that
 * knows the back ends, as formats.c is the reader's. The core (lib/write)
 * sets up everything that does not depend on the format and asks this
 * file's pick, once, for the table (struct writer_format) of the format
 * desc.format names; it never names a back end itself.
 */
#include "config.h"

#include "erofs/erofs_writer.h"
#include "sqpack/writer.h"
#include "squashfs/sqfs_writer.h"
#include "write/writer_impl.h"
#include "write/writer_test.h"

/* An unknown format gets SquashFS's table, as it always has: the core
 * refuses the format before the table's init runs. */
static const struct writer_format *pick(int format)
{
	return format == SQP_FORMAT_EROFS ? &writer_erofs : &writer_squashfs;
}

SQP_API int sqp_writer_create(const struct sqp_writer_desc *desc,
			      struct sqp_writer **out)
{
	return writer_create_hooked(desc, NULL, out);
}

int writer_create_hooked(const struct sqp_writer_desc *desc,
			 const struct writer_test_hooks *hooks,
			 struct sqp_writer **out)
{
	return writer_new(desc, pick, hooks, out);
}
