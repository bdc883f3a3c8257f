/* SPDX-License-Identifier: MIT */
/*
 * codec-baseline.c - the "pure codec time" reference of the tar2img
 * benchmark.
 *
 * It reads a tar, cuts every regular file into block-size chunks, packs
 * the tails into fragment-sized blocks in order of appearance (as a
 * SquashFS packer would), and compresses all of them with N threads
 * through the public codec API, with the same defaults tar2img uses. Only
 * compression is timed: blocks are gathered into a bounded batch first,
 * then the batch is compressed by N threads while nothing else runs. The
 * sum of those phases is the wall time a perfect packer could not beat at
 * that thread count (short of deduplicating or skipping blocks), so the
 * benchmark can say how far over pure codec time tar2img is.
 *
 * Invariant: the batch never holds more than BATCH_BYTES of input, so
 * memory stays bounded for any tar; every block is compressed exactly once.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "bench_common.h"

#define BATCH_BYTES (64u << 20)

/* Blocks waiting to be compressed: cap slots of block_size bytes. */
struct batch {
	uint8_t *data;
	uint32_t *len;
	size_t count, cap;
	uint32_t block_size;
	atomic_size_t next;         /* next slot a worker takes */
};

struct worker {
	struct batch *batch;
	struct sqp_compressor *comp;
	uint8_t *out;
	uint64_t out_bytes;
	double cpu_s;
	int err;
};

struct totals {
	uint64_t blocks, frag_blocks, in_bytes, out_bytes;
	double cpu_s, wall_s;
};

/* Each thread is new per batch, so its CPU clock covers this batch only. */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct batch *b = w->batch;
	size_t i;

	while ((i = atomic_fetch_add(&b->next, 1)) < b->count) {
		int r = sqp_compress(w->comp, b->data + i * (size_t)b->block_size,
				     b->len[i], w->out, b->block_size);
		if (r < 0) {
			w->err = r;
			break;
		}
		w->out_bytes += r > 0 ? (uint64_t)r : b->len[i];
	}
	w->cpu_s = bench_now(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static int compress_batch(struct batch *b, struct worker *w, unsigned jobs,
			  struct totals *t)
{
	double start = bench_now(CLOCK_MONOTONIC);
	unsigned k, started = 0;
	int err = 0;

	atomic_store(&b->next, 0);
	for (k = 0; k < jobs; k++) {
		w[k].batch = b;
		w[k].out_bytes = 0;
		w[k].err = 0;
	}
	started = bench_run_threads(work, w, sizeof(*w), jobs);
	for (k = 0; k < started; k++) {
		t->out_bytes += w[k].out_bytes;
		t->cpu_s += w[k].cpu_s;
		if (w[k].err != 0 && err == 0)
			err = w[k].err;
	}
	t->wall_s += bench_now(CLOCK_MONOTONIC) - start;
	if (started == 0) {
		fprintf(stderr, "codec-baseline: cannot start a thread\n");
		return -1;
	}
	if (err != 0) {
		fprintf(stderr, "codec-baseline: compress: %s\n", sqp_strerror(err));
		return -1;
	}
	t->blocks += b->count;
	b->count = 0;
	return 0;
}

/* A slot for the next block, compressing the batch first when it is full. */
static uint8_t *take_slot(struct batch *b, uint32_t len, struct worker *w,
			  unsigned jobs, struct totals *t)
{
	if (b->count == b->cap && compress_batch(b, w, jobs, t) != 0)
		return NULL;
	b->len[b->count] = len;
	t->in_bytes += len;
	return b->data + b->count++ * (size_t)b->block_size;
}

struct packer {
	struct batch batch;
	uint8_t *frag;              /* the open fragment block */
	uint32_t frag_fill;
	struct worker *w;
	unsigned jobs;
	struct totals t;
};

static int flush_frag(struct packer *p)
{
	uint8_t *slot;

	if (p->frag_fill == 0)
		return 0;
	slot = take_slot(&p->batch, p->frag_fill, p->w, p->jobs, &p->t);
	if (slot == NULL)
		return -1;
	memcpy(slot, p->frag, p->frag_fill);
	p->frag_fill = 0;
	p->t.frag_blocks++;
	return 0;
}

static int read_data(struct sqp_data_source *src, void *buf, size_t n,
		     const char *path)
{
	int r = src->read(src->user, buf, n);

	if (r < 0)
		fprintf(stderr, "codec-baseline: %s: %s\n", path, sqp_strerror(r));
	return r;
}

static int pack_file(struct packer *p, struct sqp_tar_reader *rd,
		     const struct sqp_entry *e)
{
	struct sqp_data_source src = sqp_tar_data(rd);
	uint32_t bs = p->batch.block_size;
	uint64_t left = e->size;
	uint32_t tail = (uint32_t)(e->size % bs);

	for (; left >= bs; left -= bs) {
		uint8_t *slot = take_slot(&p->batch, bs, p->w, p->jobs, &p->t);
		if (slot == NULL || read_data(&src, slot, bs, e->path) < 0)
			return -1;
	}
	if (tail == 0)
		return 0;
	if (p->frag_fill + tail > bs && flush_frag(p) != 0)
		return -1;
	if (read_data(&src, p->frag + p->frag_fill, tail, e->path) < 0)
		return -1;
	p->frag_fill += tail;
	return 0;
}

static int pack_tar(struct packer *p, int fd, const char *name)
{
	struct sqp_tar_reader_desc d = { .struct_size = sizeof(d), .fd = fd, .name = name };
	struct sqp_tar_reader *rd = NULL;
	const struct sqp_entry *e;
	int r;

	r = sqp_tar_reader_create(&d, &rd);
	if (r != 0) {
		fprintf(stderr, "codec-baseline: %s: %s\n", name,
			rd != NULL ? sqp_tar_reader_error(rd) : sqp_strerror(r));
		sqp_tar_reader_destroy(rd);
		return -1;
	}
	while ((r = sqp_tar_next(rd, &e)) == 1) {
		if (!S_ISREG(e->mode) || e->is_hardlink || e->size == 0)
			continue;
		if (pack_file(p, rd, e) != 0)
			break;
	}
	if (r < 0)
		fprintf(stderr, "codec-baseline: %s\n", sqp_tar_reader_error(rd));
	sqp_tar_reader_destroy(rd);
	if (r != 0)
		return -1;
	if (flush_frag(p) != 0)
		return -1;
	return p->batch.count > 0 ? compress_batch(&p->batch, p->w, p->jobs, &p->t) : 0;
}

static int usage(const char *why)
{
	fprintf(stderr, "codec-baseline: %s\n"
		"usage: codec-baseline [-c CODEC] [-X OPTS] [-b SIZE] [-j N] [TAR]\n"
		"Compress every file block and packed tail of TAR (default stdin)\n"
		"with N threads; print key=value figures for the compression alone.\n",
		why);
	return 2;
}

static int parse_args(int argc, char **argv, struct sqp_codec_config *cfg,
		      unsigned *jobs, const char **input)
{
	struct bench_args a = { .codec = "zstd" };
	unsigned long bs = 128 * 1024;
	char *end;
	int r;

	if ((r = bench_parse_args(argc, argv, 'b', &a, usage)) != 0)
		return r;
	if (a.size != NULL) {
		bs = strtoul(a.size, &end, 10);
		if (*end == 'K' || *end == 'k')
			bs <<= 10, end++;
		else if (*end == 'M' || *end == 'm')
			bs <<= 20, end++;
		if (*end != '\0' || bs > (1u << 20))
			return usage("block size is not a number up to 1M");
	}
	*input = a.input;
	*jobs = a.jobs;
	return bench_codec_config(&a, a.codec, (uint32_t)bs, cfg, usage);
}

static void report(const struct sqp_codec_config *cfg, unsigned jobs,
		   const struct totals *t)
{
	printf("codec=%s level=%d block_size=%u jobs=%u blocks=%llu frag_blocks=%llu "
	       "in_bytes=%llu out_bytes=%llu cpu_s=%.3f wall_s=%.3f\n",
	       sqp_codec_name(cfg->id), cfg->level, cfg->block_size, jobs,
	       (unsigned long long)t->blocks, (unsigned long long)t->frag_blocks,
	       (unsigned long long)t->in_bytes, (unsigned long long)t->out_bytes,
	       t->cpu_s, t->wall_s);
}

int main(int argc, char **argv)
{
	struct sqp_codec_config cfg;
	struct packer p = { 0 };
	const char *input = "-";
	unsigned k;
	int fd = STDIN_FILENO, status = 1;

	if ((status = parse_args(argc, argv, &cfg, &p.jobs, &input)) != 0)
		return status;
	status = 1;
	if (strcmp(input, "-") != 0 && (fd = open(input, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "codec-baseline: %s: %s\n", input, strerror(errno));
		return 1;
	}
	p.batch.block_size = cfg.block_size;
	p.batch.cap = BATCH_BYTES / cfg.block_size;
	p.batch.data = malloc(p.batch.cap * (size_t)cfg.block_size);
	p.batch.len = calloc(p.batch.cap, sizeof(*p.batch.len));
	p.frag = malloc(cfg.block_size);
	p.w = calloc(p.jobs, sizeof(*p.w));
	if (p.batch.data == NULL || p.batch.len == NULL || p.frag == NULL || p.w == NULL) {
		fprintf(stderr, "codec-baseline: out of memory\n");
		goto fail;
	}
	for (k = 0; k < p.jobs; k++) {
		int r = sqp_compressor_create(&cfg, &p.w[k].comp);
		p.w[k].out = malloc(cfg.block_size);
		if (r != 0 || p.w[k].out == NULL) {
			fprintf(stderr, "codec-baseline: compressor: %s\n",
				sqp_strerror(r != 0 ? r : SQP_ERR_NOMEM));
			goto fail;
		}
	}
	if (pack_tar(&p, fd, strcmp(input, "-") == 0 ? "stdin" : input) == 0) {
		report(&cfg, p.jobs, &p.t);
		status = 0;
	}
fail:
	for (k = 0; p.w != NULL && k < p.jobs; k++) {
		sqp_compressor_destroy(p.w[k].comp);
		free(p.w[k].out);
	}
	free(p.w);
	free(p.frag);
	free(p.batch.len);
	free(p.batch.data);
	if (fd != STDIN_FILENO)
		close(fd);
	return status;
}
