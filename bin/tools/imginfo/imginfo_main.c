/* SPDX-License-Identifier: MIT */
/*
 * imginfo_main.c - imginfo: look inside SquashFS and EROFS images. This
 * file only dispatches: `imginfo COMMAND ARGS` runs the command of that name from
 * the table below, and `imginfo [--json] IMAGE` (one operand, no
 * command) is short for `imginfo summary`. Each command parses its own
 * options; adding one is one line in the table.
 */
#include "config.h"

#include <string.h>

#include "imginfo.h"
#include "imginfo_check.h"
#include "imginfo_verity.h"
#include "../common/tool_args.h"
#include "../common/tool_version.h"

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *synopsis;
};

static const struct command commands[] = {
	{ "summary", imginfo_summary_main, "[--json] IMAGE" },
	{ "ls", imginfo_ls_main, "[-l] [-R] IMAGE [PATH...]" },
	{ "stat", imginfo_stat_main, "IMAGE PATH..." },
	{ "cat", imginfo_cat_main, "IMAGE PATH..." },
	{ "check", imginfo_check_main, "[-j N] [-q] IMAGE" },
	{ "diff", imginfo_diff_main, "[--ignore-mtime] [--ignore-owner] "
	  "[--ignore-xattrs] [-q] IMAGE1 IMAGE2" },
	{ "verity", imginfo_verity_main, "[--hash-offset N | --hash-file FILE] "
	  "IMAGE ROOTHASH" },
};

static void usage(FILE *f)
{
	fputs("Usage: imginfo [--offset N] [--device FILE] [--json] IMAGE\n"
	      "       imginfo [--offset N] [--device FILE] COMMAND [OPTIONS] ARGS...\n"
	      "Show what a SquashFS or EROFS image holds.\n\n"
	      "  --offset N  the image starts N bytes into each file (an AppImage)\n"
	      "  --device FILE  EROFS: the image's extra device (a --blobdev blob,\n"
	      "             a --tar=i tar), where it is not appended\n"
	      "\nCommands:\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].synopsis);
	fputs("\n'imginfo COMMAND --help' describes a command's options.\n", f);
}

/* A leading --NAME V (or --NAME=V) for name: its value into *arg, and
 * both taken out of argv. 1 when taken, 0 when not there, or 2 after a
 * usage message. */
static int take_leading(int *argc, char ***argv, const char *name, const char **arg)
{
	char **av = *argv;
	size_t n = strlen(name);
	int used;

	if (*argc < 2 || strncmp(av[1], name, n) != 0 ||
	    (av[1][n] != '\0' && av[1][n] != '='))
		return 0;
	used = av[1][n] == '=' ? 1 : 2;
	if (used == 2 && *argc < 3)
		return imginfo_bad_usage("%s needs a value", name);
	*arg = used == 1 ? av[1] + n + 1 : av[2];
	av[used] = av[0];
	*argv = av + used;
	*argc -= used;
	return 1;
}

/* Leading --offset N and --device FILE, in either order, taken out of
 * argv so the commands see their usual arguments. 0, or 2 after a
 * usage message. */
static int take_leading_options(int *argc, char ***argv)
{
	const char *arg;
	uint64_t v;
	int r;

	for (;;) {
		if ((r = take_leading(argc, argv, "--device", &arg)) == 1) {
			imginfo_set_device(arg);
			continue;
		}
		if (r == 0 && (r = take_leading(argc, argv, "--offset", &arg)) == 0)
			return 0;
		if (r != 1)
			return r;
		if (tool_offset(arg, &v) != 0)
			return imginfo_bad_usage("--offset '%s' is not a byte count", arg);
		imginfo_set_offset(v);
	}
}

int main(int argc, char **argv)
{
	int operands = 0;

	tool_set_progname("imginfo");
	if (take_leading_options(&argc, &argv) != 0)
		return 2;
	if (argc < 2)
		return imginfo_bad_usage("%s", "missing COMMAND or IMAGE");
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "-V") == 0 || strcmp(argv[1], "--version") == 0) {
		tool_print_version("imginfo");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].run(argc - 1, argv + 1);
	for (int i = 1; i < argc; i++)
		operands += argv[i][0] != '-' || argv[i][1] == '\0';
	if (operands == 1)
		return imginfo_summary_main(argc, argv);
	if (argv[1][0] != '-')
		return imginfo_bad_usage("unknown command '%s'", argv[1]);
	return imginfo_bad_usage("%s", "expected a COMMAND or one IMAGE");
}
