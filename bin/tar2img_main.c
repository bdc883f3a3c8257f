/* SPDX-License-Identifier: MIT */
/*
 * main.c - tar2img: a tar stream in, a SquashFS image out.
 *
 * The tool only wires the library together and reports. The image is
 * written to a temporary file beside OUTPUT and renamed into place only
 * when complete; SIGINT, SIGTERM and SIGHUP remove the temporary file, so
 * a build system never finds a half-written image.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tar2img_options.h"
#include "tool_signals.h"

static void on_warning(void *user, const char *msg)
{
	(void)user;
	fprintf(stderr, "tar2img: warning: %s\n", msg);
}

static double cpu_seconds(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) != 0)
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The main thread's share of all CPU time so far, from the OS: it bounds
 * how far more -j can help. Printed before the workers stop; the process
 * clock counts every thread, live or joined. */
static void print_cpu(void)
{
	double all = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
	double main_thread = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);

	printf("  cpu: %.2f s, main thread %.1f%%\n", all,
	       all > 0.0 ? 100.0 * main_thread / all : 0.0);
}

static void print_summary(const struct tar2img_options *opt, struct sqp_writer *w,
			  struct sqp_tar_reader *r)
{
	struct sqp_writer_stats st;

	sqp_writer_get_stats(w, &st);
	printf("%s: %llu inodes, %llu bytes of file data (tar compression: %s) -> "
	       "%llu bytes (%s, block size %u)\n", opt->output,
	       (unsigned long long)st.inodes,
	       (unsigned long long)st.bytes_in, sqp_tar_reader_compression(r),
	       (unsigned long long)st.image_bytes, sqp_codec_name(opt->desc.codec.id),
	       opt->desc.codec.block_size);
	printf("  blocks: %llu stored (%llu uncompressed, %llu of them not worth trying), "
	       "%llu sparse, %llu shared; %llu fragment blocks, %llu tails shared; "
	       "%llu whole files shared\n",
	       (unsigned long long)st.blocks_written, (unsigned long long)st.blocks_raw,
	       (unsigned long long)st.blocks_probed_raw,
	       (unsigned long long)st.blocks_sparse, (unsigned long long)st.blocks_deduped,
	       (unsigned long long)st.fragment_blocks, (unsigned long long)st.tails_deduped,
	       (unsigned long long)st.files_deduped);
	printf("  dedup: %llu blocks and tails hashed, %llu hash matches refuted, "
	       "%llu runs continued from another copy\n",
	       (unsigned long long)st.hashed, (unsigned long long)st.dedup_rejected,
	       (unsigned long long)st.dedup_rerouted);
	print_cpu();
}

static int open_input(const char *input, int *fd)
{
	if (input == NULL || strcmp(input, "-") == 0) {
		*fd = STDIN_FILENO;
		return 0;
	}
	*fd = open(input, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		fprintf(stderr, "tar2img: %s: %s\n", input, strerror(errno));
		return 1;
	}
	return 0;
}

/* The whole job once the output file exists; returns the exit status. */
static int pack(struct tar2img_options *opt, int in_fd, struct sqp_outfile *of)
{
	struct sqp_tar_reader_desc rd = {
		.fd = in_fd,
		.name = opt->input && strcmp(opt->input, "-") != 0 ? opt->input : "stdin",
		.warn = on_warning,
	};
	struct sqp_tar_reader *r = NULL;
	struct sqp_writer *w = NULL;
	int ret;

	opt->desc.fd = sqp_outfile_fd(of);
	opt->desc.warn = on_warning;
	ret = sqp_tar_reader_create(&rd, &r);
	if (ret != 0) {
		fprintf(stderr, "tar2img: %s: %s\n", rd.name,
			r ? sqp_tar_reader_error(r) : sqp_strerror(ret));
		goto out;
	}
	ret = sqp_writer_create(&opt->desc, &w);
	if (ret == 0)
		ret = sqp_writer_add_tar(w, r);
	if (ret == 0)
		ret = sqp_writer_finish(w);
	if (ret != 0) {
		fprintf(stderr, "tar2img: %s: %s\n", opt->output,
			w ? sqp_writer_error(w) : sqp_strerror(ret));
		goto out;
	}
	ret = sqp_outfile_commit(of);
	if (ret != 0) {
		fprintf(stderr, "tar2img: %s\n", sqp_outfile_error(of));
		goto out;
	}
	if (!opt->quiet)
		print_summary(opt, w, r);
out:
	sqp_writer_destroy(w);
	sqp_tar_reader_destroy(r);
	return ret == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct tar2img_options opt;
	struct sqp_outfile *of = NULL;
	int in_fd, ret;

	ret = tar2img_parse_options(argc, argv, &opt);
	if (ret != 0)
		return ret < 0 ? 0 : ret;
	if (open_input(opt.input, &in_fd) != 0)
		return 1;

	tool_signals_install("tar2img: interrupted; no image written");
	ret = sqp_outfile_create(opt.output, opt.force, &of);
	if (ret != 0) {
		fprintf(stderr, "tar2img: %s\n", of ? sqp_outfile_error(of) : sqp_strerror(ret));
		sqp_outfile_destroy(of);
		return 1;
	}
	tool_signals_temp(sqp_outfile_temp_path(of));

	ret = pack(&opt, in_fd, of);
	sqp_outfile_destroy(of);
	tool_signals_temp(NULL);
	if (in_fd != STDIN_FILENO)
		close(in_fd);
	return ret;
}
