/* SPDX-License-Identifier: MIT */
/*
 * tool_run.c - the frame around a packer's input loop, shared by tar2img
 * and dir2img so both keep the same guarantees: a half-written image never
 * appears under OUTPUT's name (temporary file, renamed when complete; the
 * signal handlers remove it), an --offset image keeps the bytes in front of
 * it, and the summary only follows a committed image.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool_codecs.h"
#include "tool_mains.h"
#include "tool_run.h"
#include "tool_signals.h"

/* The bytes in front of the image: kept from opt->prefix_from (img2img's
 * BASE) or an existing OUTPUT (an AppImage runtime copied there first),
 * else (or with opt->prefix_zeros) zeros (a hole). */
static int offset_prefix(struct tool_run *r)
{
	uint64_t n = r->opt->desc.offset, done = 0;
	int out = sqp_outfile_fd(r->of), in;
	char buf[65536];
	ssize_t got;

	in = r->opt->prefix_zeros ? -1 :
	     open(r->opt->prefix_from ? r->opt->prefix_from : r->opt->output,
		  O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return ftruncate(out, (off_t)n) == 0 ? 0 : -1;
	while (done < n) {
		got = read(in, buf, n - done < sizeof(buf) ? (size_t)(n - done) : sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || write(out, buf, (size_t)got) != got) {
			if (got == 0)
				errno = EINVAL;
			close(in);
			return -1;
		}
		done += (uint64_t)got;
	}
	close(in);
	return 0;
}

/* A block device is written in place, and an image's superblock is
 * written last: zero where it goes first, so that a run that fails does
 * not leave an older image's superblock describing the new data. */
static int clear_device_head(struct tool_run *r)
{
	static const char zeros[4096];
	int fd = sqp_outfile_fd(r->of);
	struct stat st;

	if (fstat(fd, &st) != 0)
		return -1;
	if (!S_ISBLK(st.st_mode))
		return 0;
	return pwrite(fd, zeros, sizeof(zeros), (off_t)r->opt->desc.offset) ==
	       (ssize_t)sizeof(zeros) ? 0 : -1;
}

int tool_run_begin(struct tool_run *r, struct tool_options *opt)
{
	int ret, force = opt->force;
	struct stat st;
	char msg[200];

	memset(r, 0, sizeof(*r));
	r->opt = opt;
	r->progress.mode = PROGRESS_NONE;
	ret = tool_make_policy(opt, &r->policy);
	if (ret != 0)
		return ret;
	/* with --offset an existing OUTPUT carries the bytes in front */
	if (opt->desc.offset > 0 && opt->prefix_from == NULL &&
	    stat(opt->output, &st) == 0 && S_ISREG(st.st_mode))
		force = 1;
	snprintf(msg, sizeof(msg), "%s: interrupted; no image written", tool_progname());
	tool_signals_install(msg);
	ret = tool_signals_create_output(opt->output, force, &r->of);
	if (ret != 0) {
		fprintf(stderr, "%s: %s\n", tool_progname(),
			r->of ? sqp_outfile_error(r->of) : sqp_strerror(ret));
		return 1;
	}
	if (tool_verity_begin(&opt->verity, opt->force, &opt->desc) != 0)
		return 1;
	/* --blobdev: a second output, kept or removed with the image. */
	if (opt->blob_file != NULL) {
		ret = tool_signals_create_second(opt->blob_file, opt->force, &r->blob_of);
		if (ret != 0) {
			fprintf(stderr, "%s: %s\n", tool_progname(), r->blob_of ?
				sqp_outfile_error(r->blob_of) : sqp_strerror(ret));
			return 1;
		}
		opt->desc.erofs_blob_fd = sqp_outfile_fd(r->blob_of);
	}
	if (opt->desc.offset > 0 && offset_prefix(r) != 0) {
		fprintf(stderr, "%s: %s: the %llu bytes before the image: %s\n", tool_progname(),
			opt->output, (unsigned long long)opt->desc.offset,
			errno == EINVAL ? "OUTPUT is shorter than --offset" : strerror(errno));
		return 1;
	}
	if (clear_device_head(r) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), opt->output, strerror(errno));
		return 1;
	}
	return 0;
}

/* The memory limit of our cgroup (v2, else v1) in bytes, or 0 if none
 * can be read: a build in a container must not size itself by the
 * host's memory. */
static uint64_t cgroup_limit(void)
{
	static const char *const files[] = {
		"/sys/fs/cgroup/memory.max",
		"/sys/fs/cgroup/memory/memory.limit_in_bytes",
	};
	unsigned long long v;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); ++i) {
		FILE *f = fopen(files[i], "r");
		int n;

		if (f == NULL)
			continue;
		n = fscanf(f, "%llu", &v);
		fclose(f);
		if (n == 1)
			return v;
	}
	return 0;
}

/* mksquashfs's default too: a quarter of the memory (physical, or the
 * cgroup's limit when that is lower). */
static uint64_t default_mem_limit(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page
					     : (uint64_t)4 << 30;
	uint64_t cg = cgroup_limit();

	if (cg != 0 && cg < mem)
		mem = cg;
	return mem / 4;
}

/* --compress-hints FILE's text (NUL-terminated, the caller's to free)
 * into *out: 0, or 1 after a message. A NUL in it would cut it short
 * unseen: refused. */
static int read_hints(const char *file, char **out)
{
	FILE *f = fopen(file, "r");
	size_t n = 0, cap = 4096, got;
	char *text = malloc(cap), *more;

	while (f != NULL && text != NULL && (got = fread(text + n, 1, cap - 1 - n, f)) > 0) {
		n += got;
		if (n < cap - 1)
			continue;
		more = realloc(text, 2 * cap);
		if (more == NULL)
			free(text);
		text = more;
		cap *= 2;
	}
	if (f == NULL || text == NULL || ferror(f) || memchr(text, 0, n) != NULL) {
		fprintf(stderr, "%s: --compress-hints '%s': %s\n", tool_progname(), file,
			f == NULL || ferror(f) ? strerror(errno) : text == NULL ?
			"out of memory" : "a NUL byte in it");
		if (f != NULL)
			fclose(f);
		free(text);
		return 1;
	}
	fclose(f);
	text[n] = '\0';
	*out = text;
	return 0;
}

int tool_run_writer(struct tool_run *r)
{
	struct sqp_writer_desc d = r->opt->desc;
	char *dir = strdup(r->opt->output), *hints = NULL;
	int ret;

	if (r->opt->hints_file != NULL && read_hints(r->opt->hints_file, &hints) != 0) {
		free(dir);
		return 1;
	}
	d.erofs_hints = hints;
	d.erofs_hints_name = r->opt->hints_file;

	tool_progress_start(&r->progress, r->opt->progress, r->opt->quiet);
	d.fd = sqp_outfile_fd(r->of);
	d.warn = tool_warn;
	d.warn_user = r->opt->warnings;
	d.policy = r->policy;
	if (r->progress.mode != PROGRESS_NONE) {
		d.progress = tool_progress_update;
		d.progress_user = &r->progress;
	}
	if (d.mem_limit == 0)
		d.mem_limit = default_mem_limit();
	/* The spill file goes where the image goes: the space the user
	 * chose for it, not a /tmp that may be small or in memory; but not
	 * beside a device written in place (/dev is memory). */
	d.tmp_dir = dir != NULL && sqp_outfile_temp_path(r->of) != NULL ?
		    dirname(dir) : NULL;
	ret = sqp_writer_create(&d, &r->w);
	free(dir);
	free(hints);
	if (ret == 0 && r->opt->before_input != NULL)
		ret = r->opt->before_input(r->w, r->opt->before_input_user);
	if (ret != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
			r->w ? sqp_writer_error(r->w) : sqp_strerror(ret));
		return 1;
	}
	return 0;
}

static double cpu_seconds(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) != 0)
		return 0.0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The main thread's share of all CPU time so far, from the OS: it bounds
 * how far more -j can help. Printed before the workers stop (the writer
 * is destroyed in tool_run_end); the process clock counts every thread,
 * live or joined. */
static void print_cpu(void)
{
	double all = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
	double main_thread = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);

	printf("  cpu: %.2f s, main thread %.1f%%\n", all,
	       all > 0.0 ? 100.0 * main_thread / all : 0.0);
}

static void print_summary(const struct tool_run *r, const char *what)
{
	const struct tool_options *opt = r->opt;
	struct sqp_writer_stats st = { .struct_size = sizeof(st) };

	const char *codec = sqp_codec_name(opt->desc.codec.id);
	char erofs[48];

	if (opt->desc.format == SQP_FORMAT_EROFS) {
		/* Codec 0 is EROFS's stored data. */
		snprintf(erofs, sizeof(erofs), "EROFS, %s",
			 opt->desc.codec.id == 0 ? "uncompressed" :
			 tool_codec_name(SQP_FORMAT_EROFS, opt->desc.codec.id));
		codec = erofs;
	}
	(void)sqp_writer_get_stats(r->w, &st); /* fails only for an unsized st */
	printf("%s: %llu inodes, %llu bytes of file data (%s) -> "
	       "%llu bytes (%s, block size %u)\n", opt->output,
	       (unsigned long long)st.inodes, (unsigned long long)st.bytes_in, what,
	       (unsigned long long)st.image_bytes, codec, opt->desc.codec.block_size);
	printf("  blocks: %llu stored (%llu uncompressed, %llu of them not worth trying), "
	       "%llu sparse, %llu shared; ",
	       (unsigned long long)st.blocks_written, (unsigned long long)st.blocks_raw,
	       (unsigned long long)st.blocks_probed_raw,
	       (unsigned long long)st.blocks_sparse, (unsigned long long)st.blocks_deduped);
	/* EROFS has no fragment blocks: its fragments are one packed inode
	 * (dump.erofs's "packed nid"), made when asked and compressed; with
	 * dedup, equal tails in it are shared. */
	if (opt->desc.format == SQP_FORMAT_EROFS) {
		int packed = opt->desc.codec.id != 0 && (opt->desc.flags & SQP_WRITE_EROFS_FRAGMENTS);

		printf("fragments %s", packed ? "in the packed inode" : "none");
		if (packed && (opt->desc.flags & SQP_WRITE_EROFS_DEDUPE))
			printf(", %llu tails shared", (unsigned long long)st.tails_deduped);
		printf("; ");
	} else
		printf("%llu fragment blocks, %llu tails shared; ",
		       (unsigned long long)st.fragment_blocks,
		       (unsigned long long)st.tails_deduped);
	printf("%llu whole files shared, %llu copied as stored\n",
	       (unsigned long long)st.files_deduped, (unsigned long long)st.files_copied);
	printf("  dedup: %llu blocks and tails hashed, %llu hash matches refuted, "
	       "%llu runs continued from another copy; %llu read-backs on workers, "
	       "%llu files replayed\n",
	       (unsigned long long)st.hashed, (unsigned long long)st.dedup_rejected,
	       (unsigned long long)st.dedup_rerouted,
	       (unsigned long long)st.proofs_on_workers,
	       (unsigned long long)st.proofs_replayed);
	if (st.spilled_bytes > 0)
		printf("  memory: %llu MiB of tree and tables spilled to a temporary "
		       "file (see --mem)\n", (unsigned long long)(st.spilled_bytes >> 20));
	tool_verity_print(&opt->verity, stdout);
	print_cpu();
}

int tool_run_finish(struct tool_run *r, int ret, const char *what)
{
	if (ret == 0 && sqp_writer_finish(r->w) != 0) {
		fprintf(stderr, "%s: %s: %s\n", tool_progname(), r->opt->output,
			sqp_writer_error(r->w));
		ret = 1;
	}
	if (ret == 0 && r->blob_of != NULL && sqp_outfile_commit(r->blob_of) != 0) {
		fprintf(stderr, "%s: %s\n", tool_progname(), sqp_outfile_error(r->blob_of));
		ret = 1;
	}
	if (ret == 0 && sqp_outfile_commit(r->of) != 0) {
		fprintf(stderr, "%s: %s\n", tool_progname(), sqp_outfile_error(r->of));
		ret = 1;
	}
	if (ret == 0)
		ret = tool_verity_commit(&r->opt->verity, r->w);
	r->progress.json_extra = r->opt->verity.json;
	tool_progress_end(&r->progress, ret == 0);
	if (ret == 0 && !r->opt->quiet)
		print_summary(r, what);
	return ret == 0 ? 0 : 1;
}

void tool_run_end(struct tool_run *r)
{
	tool_progress_end(&r->progress, 0);
	sqp_writer_destroy(r->w);
	r->w = NULL;
	sqp_outfile_destroy(r->of);
	r->of = NULL;
	sqp_outfile_destroy(r->blob_of);
	r->blob_of = NULL;
	tool_verity_end(&r->opt->verity);
	tool_signals_temp(NULL);
	sqp_policy_destroy(r->policy);
	r->policy = NULL;
	tool_options_free(r->opt);
}
