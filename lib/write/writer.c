/* SPDX-License-Identifier: MIT */
/*
 * writer.c - the public image writer's life cycle: entries in, an image
 * out, in the format desc.format names. What does not depend on the
 * format is checked and set up here; the rest is the back end's
 * (struct writer_format, in lib/squashfs and lib/erofs), which the
 * caller picks: lib/formats (sqp_writer_create) knows the back ends,
 * the core none.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sqpack/error.h"
#include "sqpack/writer.h"
#include "util/abi.h"
#include "util/pool.h"
#include "util/spill.h"
#include "write/writer_impl.h"
#include "write/writer_test.h"

/* What does not depend on the format first, for every format alike; then
 * the format's own limits. */
static int check_desc(const struct sqp_writer_desc *d, const struct writer_format *fmt,
		      struct sqp_errbuf *err)
{
	if (d->format != SQP_FORMAT_SQUASHFS && d->format != SQP_FORMAT_EROFS)
		return sqp_err(err, SQP_ERR_ARG, "unknown image format %d", d->format);
	if (d->fd < 0)
		return sqp_err(err, SQP_ERR_ARG, "no output file");
	if (d->fragment_mode < SQP_FRAGMENTS_ALL || d->fragment_mode > SQP_FRAGMENTS_NONE)
		return sqp_err(err, SQP_ERR_ARG, "unknown fragment mode %d", d->fragment_mode);
	if (d->prefix != NULL && !writer_path_ok(d->prefix))
		return sqp_err(err, SQP_ERR_ARG, "prefix '%s' is not a normalised relative "
			       "path", d->prefix);
#ifndef WITH_OPENSSL
	if (d->verity != NULL)
		return sqp_err(err, SQP_ERR_UNSUPPORTED,
			       "dm-verity is not built in (configure found no libcrypto)");
#endif
	return fmt->check(d, err);
}

static int open_spill(struct sqp_writer *w)
{
	struct sqp_spill_desc sd = {
		.budget = w->desc.mem_limit, .dir = w->desc.tmp_dir, .err = &w->err,
	};
	int ret = sqp_spill_create(&sd, &w->spill);

	w->desc.tmp_dir = NULL; /* borrowed only until now */
	if (ret != 0)
		return sqp_err(&w->err, ret, "out of memory");
	return 0;
}

int writer_new(const struct sqp_writer_desc *desc, writer_pick_fn pick,
	       const struct writer_test_hooks *hooks, struct sqp_writer **out)
{
	static const struct writer_test_hooks no_hooks;
	struct sqp_writer *w = calloc(1, sizeof(*w));
	const char *prefix;
	int ret;

	*out = NULL;
	if (w == NULL)
		return SQP_ERR_NOMEM;
	*out = w;
	if (hooks == NULL)
		hooks = &no_hooks;
	ret = sqp_abi_in(&w->err, "sqp_writer_desc", &w->desc, sizeof(w->desc),
			 SQP_SIZE_TO(struct sqp_writer_desc, verity), desc);
	desc = &w->desc; /* the caller's struct only up to its size */
	if (w->desc.jobs == 0)
		w->desc.jobs = sqp_cpu_count();
	w->fmt = pick(desc->format);
	if (ret == 0)
		ret = check_desc(desc, w->fmt, &w->err);
	prefix = w->desc.prefix; /* the caller's: copied, owned from here */
	w->desc.prefix = NULL;
	if (ret == 0 && prefix != NULL && prefix[0] != '\0' &&
	    (w->desc.prefix = strdup(prefix)) == NULL)
		ret = sqp_err(&w->err, SQP_ERR_NOMEM, "out of memory");
	if (ret == 0)
		ret = imgout_init(&w->out, desc->fd, 0, &w->err);
	w->out.base = desc->offset;
	if (ret == 0)
		ret = open_spill(w);
#ifdef WITH_OPENSSL
	if (ret == 0)
		ret = writer_verity_start(w); /* its digests are the arena's */
#endif
	if (ret == 0)
		ret = fstree_init(&w->tree, &w->err, desc->warn, desc->warn_user, w->spill);
	if (ret == 0)
		ret = xattr_store_init(&w->xattrs, &w->err, desc->warn, desc->warn_user);
	w->fail_meta_job = hooks->fail_meta_job;
	if (ret == 0)
		ret = w->fmt->init(w, hooks);
	return ret;
}

void sqp_writer_destroy(struct sqp_writer *w)
{
	if (w == NULL)
		return;
	if (w->fmt != NULL)
		w->fmt->cleanup(w);
	xattr_store_cleanup(&w->xattrs);
	writer_policy_free(w);
	fstree_cleanup(&w->tree);
	imgout_cleanup(&w->out);
#ifdef WITH_OPENSSL
	writer_verity_destroy(w);
#endif
	/* The kept files of a hidden layer (writer_kept.c) hold bytes in
	 * the spill arena: the links go before it. */
	writer_links_free(w);
	sqp_spill_destroy(w->spill);
	free(w->lpath);
	free(w->ppath);
	free(w->ptarget);
	writer_rename_free(w);
	writer_ovl_free(w);
	free((char *)w->desc.prefix);
	hchain_cleanup(&w->layer_sizes);
	for (size_t i = 0; i < w->expect_count; i++)
		free(w->expect[i].repack);
	free(w->expect);
	free(w);
}

int sqp_writer_finish(struct sqp_writer *w)
{
	int ret;

	if (w->err.code != 0)
		return w->err.code;
	if (w->finished)
		return writer_fail(w, SQP_ERR_SEQUENCE, "finish called twice");
	ret = writer_links_check(w, NULL);
	if (ret == 0)
		ret = writer_ovl_apply(w);
	if (ret == 0)
		ret = writer_add_extras(w);
	if (ret != 0)
		return ret;
	w->finished = 1;
	return w->fmt->finish(w);
}

const char *sqp_writer_error(const struct sqp_writer *w)
{
	return sqp_errmsg(&w->err);
}

int sqp_writer_get_stats(const struct sqp_writer *w, struct sqp_writer_stats *st)
{
	struct sqp_writer_stats all = w->stats;
	struct sqp_spill_stats ss;

	sqp_spill_get_stats(w->spill, &ss);
	all.spilled_bytes = ss.file_bytes;
	return sqp_abi_out(NULL, "sqp_writer_stats", st, &all, sizeof(all),
			   SQP_SIZE_TO(struct sqp_writer_stats, proofs_replayed));
}

#ifndef WITH_OPENSSL
/* Without libcrypto no writer was given desc.verity (check_desc refuses
 * it); the hasher's own answers are lib/verity/verity_none.c's. */
int sqp_writer_get_verity(const struct sqp_writer *w, struct sqp_verity_result *r)
{
	(void)w;
	(void)r;
	return SQP_ERR_SEQUENCE;
}
#endif

int writer_fail(struct sqp_writer *w, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sqp_verr(&w->err, code, fmt, ap);
	va_end(ap);
	return w->err.code;
}
