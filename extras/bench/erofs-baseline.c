/* SPDX-License-Identifier: MIT */
/*
 * erofs-baseline.c - the codec's own time for the clusters an EROFS
 * image stores: the limit erofs-bench.sh and mkfs-lines-bench.sh print
 * beside each row.
 *
 * From a tar, it cuts every regular file in 8 MiB segments (as the
 * EROFS writer does) into physical clusters with the codec's
 * fixed-output mode (sqpack/codec_fixed.h), each cluster from where the
 * one before ended, a block stored as it is where nothing gains, and
 * then compresses every cluster once more, offered exactly its input:
 * one pass of the codec over what the image stores, which is all an
 * EROFS packer must spend on it (lz4's and lzma's fixed-output calls
 * are that pass; zstd and deflate, which search for the cut, take one
 * try). A stored block counts too: the cheapest writer still spends
 * one try of the codec over it to learn that it does not gain (every
 * EROFS packer does: mkfs.erofs and ours). Only that second pass is
 * the limit; the cut is timed apart (cut_cpu_s: what the search costs).
 * Both run on N threads over the segments of a batch of at most
 * BATCH_BYTES, with nothing else running.
 *
 * From an EROFS image (the input is one when the reader opens it), the
 * clusters are the image's own, read from its compressed indexes
 * (sqp_file_span: each compressed extent, each run of stored blocks),
 * every file's and the packed inode's once, and nothing is cut: a line
 * whose clusters come out of a search no tar replays (fragments packed
 * together, inline tails, dedupe) gets the limit of what it stores. A
 * stored run costs one try per pcluster of it, as a stored block does.
 *
 * The second pass offers each cluster exactly the input the cut gave
 * it, and times that call whatever it takes: LZ4's end-of-block rules
 * (the last bytes literals, no match starting near the end) parse an
 * input that ends at the cut differently from one that runs on, so
 * lz4hc may take a little less of it, or not fit, at the same cost;
 * zstd's cluster may end in a raw block (zstd.c), which as one frame
 * need not fit. Such clusters are counted (refits).
 *
 * The decode limit (decode_cpu_s): each cluster compressed once more
 * into a store (not timed), then every stored cluster decoded on N
 * threads, timed - the codec's decode time of what the image stores,
 * the floor an extraction (img2dir, img2tar, fsck.erofs) stands on.
 * lz4's clusters (a raw block) and zstd's (a frame) are what the
 * library's own decoders read; lzma's are MicroLZMA and deflate's raw
 * deflate, which the library's one-shot decoders do not read, so those
 * are decoded here as the EROFS reader does (lib/codec/erofs_unz.c):
 * liblzma's MicroLZMA decoder, one stream per thread set up again per
 * cluster with the reader's dictionary, and libdeflate's raw deflate
 * (zlib's without libdeflate). A cluster that does not decode to the
 * input it took is counted (undecoded).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef WITH_LZMA
#include <lzma.h>
#endif
#ifdef WITH_LIBDEFLATE
#include <libdeflate.h>
#elif defined(WITH_GZIP)
#include <zlib.h>
#endif

#include "sqpack/sqpack.h"
#include "bench_common.h"

#define BATCH_BYTES (64u << 20)
#define SEGMENT (8u << 20)
#define BLOCK 4096u
/* The EROFS reader's MicroLZMA dictionary (lib/codec/erofs_unz.c). */
#define LZMA_DICT_MAX (8u << 20)

/* A cluster stored as it is (cut[]'s flag beside its bytes). */
#define RAW 0x80000000u

/* Segments of files waiting to be cut and compressed. Segment k's
 * clusters are cut[first[k] ...], at most len / BLOCK + 1 of them (each
 * takes more than a block, or a block), each its input's bytes, RAW
 * for a stored one. An image's segment is one cluster, cut as read. */
struct batch {
	uint8_t *data;
	size_t used, nseg, segs_cap;
	size_t *off, *len, *first, *count;
	uint32_t *cut;
	uint8_t *zdata;             /* the store: segment k's clusters at off[k] */
	uint32_t *zlen;             /* each cluster's stored bytes (0: none) */
	uint32_t *ztake;            /* and the input they hold */
	atomic_size_t next;
	int pass;                   /* enum pass */
	int cut_known;              /* the image's: no cut pass */
};

/* The passes over a batch: the cut, the timed compression, the store
 * and the timed decode (the last two where the codec decodes). */
enum pass { P_CUT, P_PRESS, P_STORE, P_DECODE };

/* A thread's decoder of EROFS clusters: the library's for lz4 and
 * zstd, the EROFS reader's libraries' for lzma and deflate. */
struct decoder {
	enum sqp_codec_id id;
	struct sqp_compressor *dc;
#ifdef WITH_LZMA
	lzma_stream lzma;
	int lzma_live;
#endif
#ifdef WITH_LIBDEFLATE
	struct libdeflate_decompressor *inflate;
#endif
};

struct worker {
	struct batch *b;
	struct sqp_fixed_compressor *fc;
	struct decoder *dc;         /* NULL: no decode pass */
	uint8_t *out, *dout;        /* dout: SEGMENT bytes */
	uint32_t pcluster;
	uint64_t clusters, in_bytes, out_bytes, refits, stored, stored_bytes;
	uint64_t decoded, undecoded;
	double cpu_s;
	int err;
};

struct totals {
	uint64_t clusters, in_bytes, out_bytes, refits, stored, stored_bytes;
	uint64_t decoded, undecoded;
	double cut_cpu_s, cpu_s, wall_s, decode_cpu_s, decode_wall_s;
};

/* Segment k cut into clusters, each search started from the ratio of
 * the one before, as the writer's cut does. A try that fits but gains
 * nothing covers the whole blocks of the input it took: they are
 * stored as they are, untried, as the writer (and mkfs.erofs 1.9)
 * stores them, and count as one stored cluster, one try (a block at a
 * time after it, a 1 MiB cluster's try per 4 KiB stored cost 256
 * passes over incompressible input). */
static int cut_segment(struct worker *w, size_t k)
{
	struct batch *b = w->b;
	const uint8_t *in = b->data + b->off[k];
	size_t pos = 0, len = b->len[k], guess = 0, *count = &b->count[k];

	*count = 0;
	while (len - pos > BLOCK) {
		size_t take = len - pos;
		int n = sqp_compress_fixed(w->fc, in + pos, &take, guess, w->out, w->pcluster);

		if (n < 0)
			return n;
		if (n > 0 && take > ((size_t)n + BLOCK - 1) / BLOCK * BLOCK) {
			b->cut[b->first[k] + (*count)++] = (uint32_t)take;
			if (take < len - pos)
				guess = take * w->pcluster / (size_t)n;
			pos += take;
		} else {
			size_t covered = n > 0 && take > BLOCK ? take / BLOCK * BLOCK : BLOCK;

			b->cut[b->first[k] + (*count)++] = RAW | (uint32_t)covered;
			pos += covered;
		}
	}
	return 0;
}

/* Segment k's clusters compressed once each, offered exactly their
 * input; a stored one too, timed and counted apart (the try that
 * finds it does not gain), but never kept. P_STORE: the same, each
 * cluster that compressed kept in the store with the input it took (a
 * refit's may be less than its cut's), in the segment's own place
 * while it has room (a cluster's compressed bytes are fewer than its
 * input's: it always does). */
static int press_segment(struct worker *w, size_t k)
{
	struct batch *b = w->b;
	const uint8_t *in = b->data + b->off[k];
	uint8_t *store = b->zdata + b->off[k];
	size_t pos = 0;

	for (size_t i = 0; i < b->count[k]; i++) {
		uint32_t cut = b->cut[b->first[k] + i];
		size_t want = cut & ~RAW, take = want;
		uint32_t *zlen = &b->zlen[b->first[k] + i];
		int n;

		*zlen = 0;
		if ((cut & RAW) && b->pass == P_STORE) {
			pos += want;
			continue;
		}
		n = sqp_compress_fixed(w->fc, in + pos, &take, SIZE_MAX, w->out, w->pcluster);
		if (n < 0)
			return n;
		if (cut & RAW) {
			w->stored++;
			w->stored_bytes += want;
			pos += want;
			continue;
		}
		if (b->pass == P_STORE) {
			if (n > 0 && (size_t)(store - (b->zdata + b->off[k])) +
			    (size_t)n <= b->len[k]) {
				memcpy(store, w->out, (size_t)n);
				*zlen = (uint32_t)n;
				b->ztake[b->first[k] + i] = (uint32_t)take;
				store += n;
			}
			pos += want;
			continue;
		}
		if (n == 0 || take != want)
			w->refits++;
		w->clusters++;
		w->in_bytes += want;
		w->out_bytes += n > 0 ? (uint64_t)n : w->pcluster;
		pos += want;
	}
	return 0;
}

/* A decoder for codec id, or SQP_ERR_UNSUPPORTED when this build
 * cannot read its EROFS clusters. */
static int decoder_create(const struct sqp_codec_config *cfg, struct decoder **out)
{
	struct decoder *d = calloc(1, sizeof(*d));
	int r = 0;

	*out = NULL;
	if (d == NULL)
		return SQP_ERR_NOMEM;
	d->id = cfg->id;
	switch (cfg->id) {
	case SQP_CODEC_LZ4:
	case SQP_CODEC_ZSTD:
		r = sqp_compressor_create(cfg, &d->dc);
		break;
#ifdef WITH_LZMA
	case SQP_CODEC_LZMA: {
		lzma_stream init = LZMA_STREAM_INIT;

		d->lzma = init;
		break;
	}
#endif
#if defined(WITH_LIBDEFLATE) || defined(WITH_GZIP)
	case SQP_CODEC_GZIP:
#ifdef WITH_LIBDEFLATE
		if ((d->inflate = libdeflate_alloc_decompressor()) == NULL)
			r = SQP_ERR_NOMEM;
#endif
		break;
#endif
	default:
		r = SQP_ERR_UNSUPPORTED;
	}
	if (r != 0) {
		free(d);
		return r;
	}
	*out = d;
	return 0;
}

static void decoder_destroy(struct decoder *d)
{
	if (d == NULL)
		return;
	sqp_compressor_destroy(d->dc);
#ifdef WITH_LZMA
	if (d->lzma_live)
		lzma_end(&d->lzma);
#endif
#ifdef WITH_LIBDEFLATE
	libdeflate_free_decompressor(d->inflate);
#endif
	free(d);
}

/* Cluster in (len bytes) decoded into out (take bytes of room, what it
 * must fill): take, or -1. */
static long decode_one(struct decoder *d, const uint8_t *in, size_t len,
		       uint8_t *out, size_t take)
{
#ifdef WITH_LZMA
	lzma_ret lr;
#endif
#ifdef WITH_LIBDEFLATE
	size_t got;
#elif defined(WITH_GZIP)
	z_stream z = { 0 };
	int zr;
#endif

	switch (d->id) {
#ifdef WITH_LZMA
	case SQP_CODEC_LZMA:
		/* As the reader: the kept stream set up again in place. */
		lr = lzma_microlzma_decoder(&d->lzma, len, take, 0, LZMA_DICT_MAX);
		d->lzma_live = 1;
		if (lr != LZMA_OK)
			return -1;
		d->lzma.next_in = in;
		d->lzma.avail_in = len;
		d->lzma.next_out = out;
		d->lzma.avail_out = take;
		lr = lzma_code(&d->lzma, LZMA_FINISH);
		return lr == LZMA_STREAM_END && d->lzma.avail_out == 0 ? (long)take : -1;
#endif
#ifdef WITH_LIBDEFLATE
	case SQP_CODEC_GZIP:
		return libdeflate_deflate_decompress(d->inflate, in, len, out, take, &got) ==
		       LIBDEFLATE_SUCCESS && got == take ? (long)take : -1;
#elif defined(WITH_GZIP)
	case SQP_CODEC_GZIP:
		if (inflateInit2(&z, -15) != Z_OK)
			return -1;
		z.next_in = (Bytef *)in;
		z.avail_in = (uInt)len;
		z.next_out = out;
		z.avail_out = (uInt)take;
		zr = inflate(&z, Z_SYNC_FLUSH);
		inflateEnd(&z);
		return (zr == Z_OK || zr == Z_STREAM_END) && z.avail_out == 0 ? (long)take : -1;
#endif
	default:
		return sqp_decompress(d->dc, in, len, out, SEGMENT);
	}
}

/* Segment k's stored clusters decoded, each into dout. */
static int decode_segment(struct worker *w, size_t k)
{
	struct batch *b = w->b;
	const uint8_t *in = b->data + b->off[k], *store = b->zdata + b->off[k];
	size_t pos = 0;

	for (size_t i = 0; i < b->count[k]; i++) {
		size_t want = b->cut[b->first[k] + i] & ~RAW;
		uint32_t zlen = b->zlen[b->first[k] + i];
		size_t take = b->ztake[b->first[k] + i];

		if (zlen != 0) {
			long n = decode_one(w->dc, store, zlen, w->dout, take);

			if (n >= 0 && (size_t)n == take && memcmp(w->dout, in + pos, take) == 0)
				w->decoded++;
			else
				w->undecoded++;
			store += zlen;
		}
		pos += want;
	}
	return 0;
}

/* Each thread is new per pass, so its CPU clock covers that pass. */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct batch *b = w->b;
	size_t k;

	while (w->err == 0 && (k = atomic_fetch_add(&b->next, 1)) < b->nseg)
		w->err = b->pass == P_CUT ? cut_segment(w, k) :
			 b->pass == P_DECODE ? decode_segment(w, k) : press_segment(w, k);
	w->cpu_s = bench_now(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

static int run_pass(struct batch *b, struct worker *w, unsigned jobs, struct totals *t)
{
	double start = bench_now(CLOCK_MONOTONIC), cpu = 0;
	unsigned k, started = 0;
	int err = 0;

	atomic_store(&b->next, 0);
	for (k = 0; k < jobs; k++) {
		w[k].b = b;
		w[k].err = 0;
	}
	started = bench_run_threads(work, w, sizeof(*w), jobs);
	for (k = 0; k < started; k++) {
		cpu += w[k].cpu_s;
		if (w[k].err != 0 && err == 0)
			err = w[k].err;
	}
	if (b->pass == P_PRESS) {
		t->cpu_s += cpu;
		t->wall_s += bench_now(CLOCK_MONOTONIC) - start;
	} else if (b->pass == P_DECODE) {
		t->decode_cpu_s += cpu;
		t->decode_wall_s += bench_now(CLOCK_MONOTONIC) - start;
	} else if (b->pass == P_CUT) {
		t->cut_cpu_s += cpu;
	}
	if (started == 0 || err != 0) {
		fprintf(stderr, "erofs-baseline: %s\n",
			started == 0 ? "cannot start a thread" : sqp_strerror(err));
		return -1;
	}
	return 0;
}

static int flush_batch(struct batch *b, struct worker *w, unsigned jobs, struct totals *t)
{
	int passes = w[0].dc != NULL ? P_DECODE + 1 : P_STORE;

	for (b->pass = b->cut_known ? P_PRESS : P_CUT; b->pass < passes; b->pass++)
		if (b->nseg > 0 && run_pass(b, w, jobs, t) != 0)
			return -1;
	b->used = 0;
	b->nseg = 0;
	return 0;
}

/* A file's data read into the batch, segment by segment. */
static int add_file(struct batch *b, struct sqp_tar_reader *rd, const struct sqp_entry *e,
		    struct worker *w, unsigned jobs, struct totals *t)
{
	struct sqp_data_source src = sqp_tar_data(rd);
	uint64_t left = e->size;

	while (left > 0) {
		size_t len = left < SEGMENT ? (size_t)left : SEGMENT;
		int r;

		if ((b->used + len > BATCH_BYTES || b->nseg == b->segs_cap) &&
		    flush_batch(b, w, jobs, t) != 0)
			return -1;
		if ((r = src.read(src.user, b->data + b->used, len)) < 0) {
			fprintf(stderr, "erofs-baseline: %s: %s\n", e->path, sqp_strerror(r));
			return -1;
		}
		b->off[b->nseg] = b->used;
		b->len[b->nseg] = len;
		b->first[b->nseg] = b->used / BLOCK + b->nseg;
		b->nseg++;
		b->used += len;
		left -= len;
	}
	return 0;
}

static int read_tar(struct batch *b, int fd, const char *name, struct worker *w,
		    unsigned jobs, struct totals *t)
{
	struct sqp_tar_reader_desc d = { .struct_size = sizeof(d), .fd = fd, .name = name };
	struct sqp_tar_reader *rd = NULL;
	const struct sqp_entry *e;
	int r = sqp_tar_reader_create(&d, &rd);

	if (r != 0) {
		fprintf(stderr, "erofs-baseline: %s: %s\n", name,
			rd != NULL ? sqp_tar_reader_error(rd) : sqp_strerror(r));
		sqp_tar_reader_destroy(rd);
		return -1;
	}
	while ((r = sqp_tar_next(rd, &e)) == 1)
		if (S_ISREG(e->mode) && !e->is_hardlink && e->size > 0 &&
		    add_file(b, rd, e, w, jobs, t) != 0)
			break;
	if (r < 0)
		fprintf(stderr, "erofs-baseline: %s\n", sqp_tar_reader_error(rd));
	sqp_tar_reader_destroy(rd);
	return r == 0 ? flush_batch(b, w, jobs, t) : -1;
}

/* One cluster of image file f: len bytes at off (raw: stored as they
 * are), read into the batch as a segment of its own. */
static int add_cluster(struct batch *b, struct sqp_file *f, uint64_t off, size_t len, int raw,
		       const char *name, struct worker *w, unsigned jobs, struct totals *t)
{
	size_t got = 0;
	int r;

	if (len > SEGMENT) {
		fprintf(stderr, "erofs-baseline: %s: an extent of %zu bytes at %llu: "
			"over %u\n", name, len, (unsigned long long)off, SEGMENT);
		return -1;
	}
	if ((b->used + len > BATCH_BYTES || b->nseg == b->segs_cap) &&
	    flush_batch(b, w, jobs, t) != 0)
		return -1;
	if ((r = sqp_file_pread(f, b->data + b->used, len, off, &got)) != 0 || got != len) {
		fprintf(stderr, "erofs-baseline: %s: %s\n", name,
			r != 0 ? sqp_strerror(r) : "a file shorter than its inode says");
		return -1;
	}
	b->off[b->nseg] = b->used;
	b->len[b->nseg] = len;
	b->first[b->nseg] = b->used / BLOCK + b->nseg;
	b->count[b->nseg] = 1;
	b->cut[b->first[b->nseg]] = (raw ? RAW : 0) | (uint32_t)len;
	b->nseg++;
	b->used += len;
	return 0;
}

/* The stored run of image file f from off, len bytes: one try per
 * pcluster of it, where the writer learns it does not gain; the last
 * bytes of a file, less than a block, cannot gain a block and are not
 * tried (the writer stores them so). */
static int stored_run(struct batch *b, struct sqp_file *f, uint64_t off, uint64_t len,
		      uint64_t size, const char *name, struct worker *w, unsigned jobs,
		      struct totals *t)
{
	uint32_t pc = w[0].pcluster;

	for (uint64_t at = 0; at < len; at += pc) {
		uint64_t piece = len - at < pc ? len - at : pc;

		if (piece < BLOCK && off + at + piece == size)
			break;
		if (add_cluster(b, f, off + at, (size_t)piece, 1, name, w, jobs, t) != 0)
			return -1;
	}
	return 0;
}

/* Image file ref's clusters, as its index lays them out: each
 * compressed extent one, each run of stored spans (a rotated
 * pcluster's two parts are two) tried as stored_run says; what lies in
 * the packed inode is taken there. */
static int image_file(struct batch *b, struct sqp_image *img, uint64_t ref, const char *name,
		      struct worker *w, unsigned jobs, struct totals *t)
{
	struct sqp_inode_info st = { .struct_size = sizeof(st) };
	struct sqp_file_span sp;
	struct sqp_file *f = NULL;
	uint64_t off, raw = 0, raw_len = 0;
	int r;

	if ((r = sqp_image_stat(img, ref, &st)) != 0 || (r = sqp_file_open(img, ref, &f)) != 0) {
		fprintf(stderr, "erofs-baseline: %s: %s\n", name, sqp_image_error(img));
		return -1;
	}
	for (off = 0; off < st.size && r == 0; off += sp.len) {
		if ((r = sqp_file_span(f, off, st.size - off, &sp)) != 0) {
			fprintf(stderr, "erofs-baseline: %s: %s\n", name, sqp_image_error(img));
			break;
		}
		if (sp.kind == SQP_SPAN_STORED) {
			raw = raw_len == 0 ? off : raw;
			raw_len += sp.len;
			continue;
		}
		if (raw_len > 0)
			r = stored_run(b, f, raw, raw_len, st.size, name, w, jobs, t);
		raw_len = 0;
		if (r == 0 && sp.kind != SQP_SPAN_PACKED)
			r = add_cluster(b, f, off, (size_t)sp.len, 0, name, w, jobs, t);
	}
	if (r == 0 && raw_len > 0)
		r = stored_run(b, f, raw, raw_len, st.size, name, w, jobs, t);
	sqp_file_close(f);
	return r != 0 ? -1 : 0;
}

/* The clusters of EROFS image img: every regular file's once (not
 * again for its hard links), then the packed inode's. */
static int read_image(struct batch *b, struct sqp_image *img, struct worker *w, unsigned jobs,
		      struct totals *t)
{
	struct sqp_image_info info = { .struct_size = sizeof(info) };
	struct sqp_walk_desc d = { .struct_size = sizeof(d), .img = img };
	struct sqp_walk_entry e = { .struct_size = sizeof(e) };
	struct sqp_walk *walk = NULL;
	int r;

	b->cut_known = 1;
	if ((r = sqp_image_get_info(img, &info)) != 0 || (r = sqp_walk_create(&d, &walk)) != 0) {
		fprintf(stderr, "erofs-baseline: %s\n",
			walk != NULL ? sqp_walk_error(walk) : sqp_image_error(img));
		sqp_walk_destroy(walk);
		return -1;
	}
	while ((r = sqp_walk_next(walk, &e)) == 1)
		if (S_ISREG(e.info.mode) && !e.hardlink && e.info.size > 0 &&
		    image_file(b, img, e.info.ref, e.path, w, jobs, t) != 0)
			break;
	if (r < 0)
		fprintf(stderr, "erofs-baseline: %s\n", sqp_walk_error(walk));
	sqp_walk_destroy(walk);
	if (r != 0 || (info.packed_ref != 0 &&
		       image_file(b, img, info.packed_ref, "(packed inode)", w, jobs, t) != 0))
		return -1;
	return flush_batch(b, w, jobs, t);
}

static int usage(const char *why)
{
	fprintf(stderr, "erofs-baseline: %s\n"
		"usage: erofs-baseline [-c CODEC] [-X OPTS] [-C PCLUSTER] [-j N] [TAR|IMAGE]\n"
		"Cut every file of TAR (default stdin) into EROFS clusters of PCLUSTER\n"
		"bytes (default 4096), or take an EROFS IMAGE's clusters, and time one\n"
		"pass of the codec over them on N threads; print key=value figures.\n", why);
	return 2;
}

static int parse_args(int argc, char **argv, struct sqp_codec_config *cfg,
		      uint32_t *pcluster, unsigned *jobs, const char **input)
{
	struct bench_args a = { .codec = "lz4" };
	unsigned long p = BLOCK;
	char *end;
	int r;

	if ((r = bench_parse_args(argc, argv, 'C', &a, usage)) != 0)
		return r;
	if (a.size != NULL) {
		p = strtoul(a.size, &end, 10);
		if (*end != '\0' || p == 0 || p % BLOCK != 0 || p > (1u << 20))
			return usage("PCLUSTER: a multiple of 4096 up to 1048576");
	}
	*input = a.input;
	*jobs = a.jobs;
	*pcluster = (uint32_t)p;
	/* EROFS's name for the gzip codec's raw deflate; a codec's block
	 * is 4 KiB, as the writer sets it (erofs_zip.c): lzma's least
	 * dictionary is 8 blocks, and at 128 KiB its 1 MiB hash tables,
	 * cleared for every cluster, cost the limit more than the pack. */
	return bench_codec_config(&a, strcmp(a.codec, "deflate") == 0 ? "gzip" : a.codec,
				  BLOCK, cfg, usage);
}

/* *img: input (fd) opened as an EROFS image, or NULL where it is none
 * (a tar; stdin is always read as one). -1: a SquashFS image. */
static int open_image(int fd, const char *input, struct sqp_image **img)
{
	struct sqp_image_desc d = { .struct_size = sizeof(d), .fd = fd, .name = input };
	struct sqp_image_info info = { .struct_size = sizeof(info) };

	*img = NULL;
	if (strcmp(input, "-") == 0 || sqp_image_create(&d, img) != 0) {
		sqp_image_destroy(*img);
		*img = NULL;
		return 0;
	}
	if (sqp_image_get_info(*img, &info) != 0 || info.format != SQP_FORMAT_EROFS) {
		fprintf(stderr, "erofs-baseline: %s: not an EROFS image\n", input);
		return -1;
	}
	return 0;
}

static int batch_init(struct batch *b)
{
	b->segs_cap = BATCH_BYTES / BLOCK;
	b->data = malloc(BATCH_BYTES);
	b->off = calloc(b->segs_cap, sizeof(*b->off));
	b->len = calloc(b->segs_cap, sizeof(*b->len));
	b->first = calloc(b->segs_cap, sizeof(*b->first));
	b->count = calloc(b->segs_cap, sizeof(*b->count));
	b->cut = calloc(BATCH_BYTES / BLOCK + b->segs_cap, sizeof(*b->cut));
	b->zdata = malloc(BATCH_BYTES);
	b->zlen = calloc(BATCH_BYTES / BLOCK + b->segs_cap, sizeof(*b->zlen));
	b->ztake = calloc(BATCH_BYTES / BLOCK + b->segs_cap, sizeof(*b->ztake));
	return b->data && b->off && b->len && b->first && b->count && b->cut &&
	       b->zdata && b->zlen && b->ztake ? 0 : -1;
}

static void batch_free(struct batch *b)
{
	free(b->data);
	free(b->off);
	free(b->len);
	free(b->first);
	free(b->count);
	free(b->cut);
	free(b->zdata);
	free(b->zlen);
	free(b->ztake);
}

int main(int argc, char **argv)
{
	struct sqp_codec_config cfg, dcfg;
	struct batch b = { 0 };
	struct totals t = { 0 };
	struct worker *w = NULL;
	struct sqp_image *img = NULL;
	const char *input = "-";
	uint32_t pcluster = BLOCK;
	unsigned jobs = 1, k;
	int fd = STDIN_FILENO, status;

	if ((status = parse_args(argc, argv, &cfg, &pcluster, &jobs, &input)) != 0)
		return status;
	status = 1;
	dcfg = cfg;
	dcfg.block_size = 1u << 20;
	if (strcmp(input, "-") != 0 && (fd = open(input, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "erofs-baseline: %s: %s\n", input, strerror(errno));
		return 1;
	}
	if (batch_init(&b) != 0 || (w = calloc(jobs, sizeof(*w))) == NULL) {
		fprintf(stderr, "erofs-baseline: out of memory\n");
		goto fail;
	}
	for (k = 0; k < jobs; k++) {
		int r = sqp_fixed_compressor_create(&cfg, pcluster, &w[k].fc);

		w[k].pcluster = pcluster;
		w[k].out = malloc(pcluster);
		/* A codec this build cannot decode has no decode pass; its
		 * decoder's block is the largest, as a cluster's output
		 * may be (lz4's decoder refuses more than its block). */
		if (r == 0 && (r = decoder_create(&dcfg, &w[k].dc)) == SQP_ERR_UNSUPPORTED)
			r = 0;
		else if (r == 0 && (w[k].dout = malloc(SEGMENT)) == NULL)
			r = SQP_ERR_NOMEM;
		if (r != 0 || w[k].out == NULL) {
			fprintf(stderr, "erofs-baseline: compressor: %s\n",
				sqp_strerror(r != 0 ? r : SQP_ERR_NOMEM));
			goto fail;
		}
	}
	if (open_image(fd, input, &img) != 0)
		goto fail;
	if ((img != NULL ? read_image(&b, img, w, jobs, &t) :
	     read_tar(&b, fd, strcmp(input, "-") == 0 ? "stdin" : input, w, jobs, &t)) == 0) {
		for (k = 0; k < jobs; k++) {
			t.clusters += w[k].clusters;
			t.in_bytes += w[k].in_bytes;
			t.out_bytes += w[k].out_bytes;
			t.refits += w[k].refits;
			t.stored += w[k].stored;
			t.stored_bytes += w[k].stored_bytes;
			t.decoded += w[k].decoded;
			t.undecoded += w[k].undecoded;
		}
		printf("codec=%s level=%d pcluster=%u jobs=%u clusters=%llu in_bytes=%llu "
		       "out_bytes=%llu refits=%llu stored=%llu stored_bytes=%llu "
		       "cut_cpu_s=%.3f cpu_s=%.3f wall_s=%.3f\n",
		       sqp_codec_name(cfg.id), cfg.level, pcluster, jobs,
		       (unsigned long long)t.clusters, (unsigned long long)t.in_bytes,
		       (unsigned long long)t.out_bytes, (unsigned long long)t.refits,
		       (unsigned long long)t.stored, (unsigned long long)t.stored_bytes,
		       t.cut_cpu_s, t.cpu_s, t.wall_s);
		if (w[0].dc != NULL)
			printf("decoded=%llu undecoded=%llu decode_cpu_s=%.3f decode_wall_s=%.3f\n",
			       (unsigned long long)t.decoded, (unsigned long long)t.undecoded,
			       t.decode_cpu_s, t.decode_wall_s);
		status = 0;
	}
fail:
	for (k = 0; w != NULL && k < jobs; k++) {
		sqp_fixed_compressor_destroy(w[k].fc);
		decoder_destroy(w[k].dc);
		free(w[k].out);
		free(w[k].dout);
	}
	free(w);
	batch_free(&b);
	sqp_image_destroy(img);
	if (fd != STDIN_FILENO)
		close(fd);
	return status;
}
