/* SPDX-License-Identifier: MIT */
/*
 * tool_options.h - the command line shared by tar2img and dir2img, parsed
 * into a writer description, a policy description and the tool's own
 * settings. One table, so an option means the same in both tools.
 */
#ifndef SQP_BIN_TOOL_OPTIONS_H
#define SQP_BIN_TOOL_OPTIONS_H

#include <stddef.h>
#include "sqpack/sqpack.h"
#include "sqpack/dirscan.h"
#include "tool_msg.h"
#include "tool_security.h"
#include "tool_verity.h"

enum tool_kind { TOOL_TAR2IMG, TOOL_DIR2IMG, TOOL_IMG2IMG };

enum progress_mode { PROGRESS_AUTO, PROGRESS_NONE, PROGRESS_TTY, PROGRESS_JSON };

enum on_change { ON_CHANGE_FAIL, ON_CHANGE_WARN };

/* Policy inputs, kept in command-line order. */
/* PARG_DELETE: img2img's --delete, a pattern for the base alone (not
 * part of the policy: img2img.c whites out what it matches). */
enum policy_arg_kind { PARG_EXCLUDE, PARG_EXCLUDE_FROM, PARG_SORT, PARG_SPEC, PARG_SPEC_LINE,
		       PARG_DELETE, PARG_EXCLUDE_REGEX };
struct policy_arg {
	int kind;
	const char *arg;
	char *own;                    /* arg when the list owns it */
};
/* A growable list of them, in the order added. */
struct tool_pargs {
	struct policy_arg *v;
	size_t n, cap;
};
/* Add one: arg is borrowed (it must outlive the list), or copied when
 * copy is set. 0, or -1 when out of memory. */
int tool_pargs_add(struct tool_pargs *l, int kind, const char *arg, int copy);
void tool_pargs_free(struct tool_pargs *l);

struct tool_options {
	int tool;                     /* enum tool_kind */
	struct sqp_writer_desc desc;  /* everything but fd, policy, progress */
	struct sqp_policy_desc policy;
	struct tool_pargs pargs;      /* see tool_options_free */

	const char *output;
	char **inputs;                /* tar2img: the layers, lowest first,
				       * into argv; none or "-" = stdin */
	size_t input_count;
	char **dirs;                  /* dir2img: into argv; img2img: LAYERs */
	size_t dir_count;
	int layers;                   /* dir2img --layers: DIRs are layers */
	/* --shard I/N (shard_index I - 1; shard_count 0: none), or
	 * --shard-plan N (shard_plan set, no OUTPUT); img2img --shards. */
	unsigned shard_index, shard_count;
	int shard_plan, shards;
	const char *plan;             /* img2img --plan: --shard-plan's output */
	int format_given;             /* --format was given */
	const char *base;             /* img2img: BASE */
	/* img2img: -c, -X and -b as given (NULL, 0: not given), resolved
	 * against the base's own once it is open (img2img.c); -b is kept
	 * for every tool, for tool_erofs_only's rule on small blocks. */
	const char *codec_name, *comp_opts;
	uint32_t block_size;
	/* Where the bytes in front of an --offset image come from (NULL:
	 * an existing OUTPUT), or with prefix_zeros none: zeros whatever
	 * OUTPUT held (sqpack-mkfs.erofs: mkfs.erofs truncates IMAGE). */
	const char *prefix_from;
	int prefix_zeros;
	/* sqpack-mksquashfs's: called with the new writer before any input
	 * (to add the image appended to): 0, or a negative error latched in
	 * the writer. NULL for none. */
	int (*before_input)(struct sqp_writer *w, void *user);
	void *before_input_user;
	/* sqpack-mksquashfs's too: called once tar2img has read every input
	 * to its end, before the image is finished and committed (the tar
	 * its pseudo-file thread writes ends when that thread fails, in a
	 * way the tar alone may not show): 0, or non-zero to fail the run,
	 * its message printed. NULL for none. */
	int (*after_input)(void *user);
	void *after_input_user;

	int force, quiet, verbose;
	/* The library's warnings go to tool_warn with this as its user
	 * pointer: NULL prints each; sqpack-mkfs.erofs --quiet points it at
	 * a quiet count, as mkfs.erofs --quiet prints errors alone. */
	struct tool_warnings *warnings;
	unsigned tar_read_flags; /* SQP_TAR_READ_* (--tar=headerball, --tar=i) */
	int progress;                 /* enum progress_mode */
	unsigned scan_flags;          /* SQP_DIRSCAN_* */
	struct tool_verity verity;    /* --verity and its options */
	struct tool_security security; /* --file-contexts, --fs-config-file... */
	const char *blob_file;        /* EROFS --blobdev: the chunks' file */
	/* EROFS --compress-hints: the file, read into desc.erofs_hints by
	 * tool_run_writer; --hint-compressor NAME[,OPTS] (sqpack-mkfs.erofs's
	 * -zX:Y sets desc.erofs_codec2 itself). */
	const char *hints_file;
	const char *codec2;
};

/* Parse argv. Returns 0 to go on, -1 to exit successfully at once (after
 * --help or --version), or 2 after a usage error (already reported). */
int tool_parse_options(int tool, int argc, char **argv, struct tool_options *opt);

/*
 * The same structure filled without a command line, as the front ends
 * for mksquashfs's and mkfs.erofs's lines do: tool_options_init sets
 * tool's defaults (no codec yet: the caller sets desc.codec), the caller
 * sets fields and adds policy inputs (tool_pargs_add on opt->pargs),
 * tool_options_finish settles what
 * depends on several of them (SOURCE_DATE_EPOCH, --clamp-mtime, verity).
 * Messages are the caller's to word: finish only reports what no front
 * end sets in its own words (a bad SOURCE_DATE_EPOCH).
 */
void tool_options_init(struct tool_options *opt, int tool);
/* 0, or the exit status after a message. */
int tool_options_finish(struct tool_options *opt);

/* The value of --shard I/N (plan 0) or --shard-plan N (plan 1) into
 * opt, for a front end that spells the option its own way: 0, or -1
 * (nothing set) when it is not one. In tool_shard.c. */
int tool_shard_set(struct tool_options *opt, int plan, const char *arg);
/* --format erofs: desc's codec from a compressor name (NULL or "none":
 * stored as it is), -X options and -b, or exit status 2 with a message
 * for what EROFS cannot take. img2img calls it once the base is open. */
int tool_erofs_options(struct tool_options *opt, const char *codec,
		       const char *comp_opts, uint32_t block_size);
/* tar2img --index and --headers-only against the other options (the
 * format, the codec as given, the inputs): 0, or exit status 2 with a
 * message. tool_erofs.c, as is tool_erofs_options. */
int tool_tar_index_check(const struct tool_options *opt, const char *codec);
/* The options only EROFS can hold (tool_erofs.c), given for another
 * format, and -b below 4K outside tar2img and dir2img's --format erofs:
 * exit status 2 with a message naming one; else 0. img2img calls it
 * once the output's format is known. */
int tool_erofs_only(const struct tool_options *opt);
void tool_options_free(struct tool_options *opt);

/* Build the policy the options describe; NULL in *out when none is needed.
 * Returns 0, or 1 or 2 (exit status) after reporting. */
int tool_make_policy(const struct tool_options *opt, struct sqp_policy **out);


#endif
