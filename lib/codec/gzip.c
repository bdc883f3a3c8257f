/* SPDX-License-Identifier: MIT */
/*
 * gzip.c - the gzip codec (SquashFS id 1): zlib streams, as the kernel's
 * zlib_wrapper inflates them.
 *
 * libdeflate compresses and decompresses whole buffers much faster than
 * zlib and, at the same level, into fewer bytes; it is used whenever it
 * can produce what was asked for (a 32 KiB window and the default
 * strategy). zlib stays the fallback and does everything else: smaller
 * windows and the strategy list, of which each is tried and the smallest
 * result kept, as mksquashfs does. Streams are set up once per
 * compressor and reset per block.
 *
 * EROFS's deflate (codec_dest.h) is a raw deflate stream, no zlib
 * header, ended, that decodes to exactly the cluster's input. Neither
 * library compresses to a fixed output size, so codec_dest_search tries
 * lengths: libdeflate where it would serve the block codec, else zlib
 * with the first strategy listed. A stream that opens with a stored
 * block, not the last, begins with a zero byte, which the kernel would
 * take for the padding in front of the data; that byte's bits past the
 * block type are skipped by every inflater (RFC 1951, 3.2.4: a stored
 * block starts at the next byte), so one of them is set instead
 * (DEFLATE_STORED_MARK), as mkfs.erofs does, and the cluster stays
 * compressed: 96 KiB of noise before 1.1 MiB of text took 1 MiB in 1
 * MiB clusters when such a cluster was stored as it is, 224 KiB now.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef WITH_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "codec/codec_dest.h"
#include "codec/codec_impl.h"

#define GZIP_STRATEGY_COUNT 5
/* The first byte of a raw deflate stream that opens with a stored block
 * that is not the last: BFINAL 0, BTYPE 00, and bit 3, which inflaters
 * skip with the rest of the byte, set so that the byte is not zero. */
#define DEFLATE_STORED_MARK 0x08
/* How closely codec_dest_search aims (codec_dest.h): to 1/64 of a
 * share of four blocks. A share of one block searched 64 KiB clusters
 * to 1/1024 of their input: rootfs-small at level 1 tried 3.4 times the
 * input (5.5 s of CPU, 0.84x mkfs.erofs 1.9.3's); four blocks try 2.6
 * times (4.3 s) for an image no larger. One-block clusters, which
 * make one share either way, are searched as before. */
#define DEFLATE_DEST_SPAN 4
#define DEFLATE_DEST_GRAIN 64
/* ... but a cluster of DEFLATE_DEST_WHOLE blocks or more in one
 * share: to 1/64 of its input. Its blocks are counted per cluster, so
 * room left in one is room the next takes up (its input goes there,
 * and deflate's 32 KiB window loses next to nothing at the start of 2
 * to 5 MB): the image changes by the rounding of a cluster more in 64
 * or so. rootfs-small with -Efragments in 1 MiB clusters: to 1/4096
 * the search compressed 979 MB of prefixes in 403 tries (111 calls),
 * 1.14x mkfs.erofs 1.9.3's CPU; to 1/64, with regula falsi
 * (codec_dest.c), 563 MB in 226 tries, for an image of 95,477,760
 * bytes against 95,371,264 (mkfs.erofs: 104,706,048); without
 * fragments 102,879,232 against 102,858,752. */
#define DEFLATE_DEST_WHOLE 256

static unsigned deflate_span(size_t out_cap)
{
	size_t blocks = out_cap / CODEC_DEST_BLOCK;

	return blocks >= DEFLATE_DEST_WHOLE ? (unsigned)blocks : DEFLATE_DEST_SPAN;
}

/* Strategy i is the bit 1 << i of cfg->strategies (SQP_GZIP_*), in the
 * order mksquashfs tries them. */
static const char *const gzip_strategy_names[GZIP_STRATEGY_COUNT + 1] = {
	"default", "filtered", "huffman_only", "run_length_encoded", "fixed",
	NULL,
};
static const int gzip_zlib_strategy[GZIP_STRATEGY_COUNT] = {
	Z_DEFAULT_STRATEGY, Z_FILTERED, Z_HUFFMAN_ONLY, Z_RLE, Z_FIXED,
};

struct gzip_state {
	struct sqp_codec_config cfg;
	z_stream deflate[GZIP_STRATEGY_COUNT]; /* set up on first use */
	int deflate_ready[GZIP_STRATEGY_COUNT];
	z_stream inflate;
	int inflate_ready;
	uint8_t *scratch;                      /* second try when several */
	z_stream raw;                          /* EROFS: raw deflate */
	int raw_ready;
	uint8_t *dscratch;                     /* EROFS: 4 clusters */
	size_t dscratch_cap;
#ifdef WITH_LIBDEFLATE
	struct libdeflate_compressor *ld_comp;
	struct libdeflate_decompressor *ld_decomp;
#endif
};

static unsigned gzip_strategy_mask(const struct sqp_codec_config *cfg)
{
	return cfg->strategies != 0 ? cfg->strategies : SQP_GZIP_DEFAULT;
}

static void gzip_defaults(struct sqp_codec_config *cfg)
{
	cfg->level = 9;
	cfg->window = 15;
	cfg->strategies = 0;
}

static const struct codec_opt gzip_opts[] = {
	{ .key = "level", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_LEVEL,
	  .lo = 1, .hi = 9 },
	{ .key = "window", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_WINDOW,
	  .lo = 8, .hi = 15 },
	{ .key = "strategy", .kind = CODEC_OPT_BITS,
	  .field = CODEC_FIELD_STRATEGIES, .names = gzip_strategy_names,
	  .why = "unknown strategy" },
	{ .key = NULL },
};

static int gzip_encode(const struct sqp_codec_config *cfg, uint8_t *buf,
		       size_t *len)
{
	if (cfg->level == 9 && cfg->window == 15 &&
	    gzip_strategy_mask(cfg) == SQP_GZIP_DEFAULT)
		return 0;
	sqp_put32(buf, (uint32_t)cfg->level);
	sqp_put16(buf + 4, (uint16_t)cfg->window);
	sqp_put16(buf + 6, (uint16_t)cfg->strategies);
	*len = 8;
	return 0;
}

static int gzip_decode(struct sqp_codec_config *cfg, const uint8_t *buf,
		       size_t len)
{
	uint32_t level;
	uint16_t window, strategies;

	if (len == 0)
		return 0;
	if (len < 8)
		return SQP_ERR_CORRUPT;
	level = sqp_get32(buf);
	window = sqp_get16(buf + 4);
	strategies = sqp_get16(buf + 6);
	if (level < 1 || level > 9 || window < 8 || window > 15 ||
	    (strategies & ~0x1fu) != 0)
		return SQP_ERR_CORRUPT;
	cfg->level = (int)level;
	cfg->window = window;
	cfg->strategies = strategies;
	return 0;
}

static void gzip_destroy(void *p)
{
	struct gzip_state *s = p;

	if (s == NULL)
		return;
	for (int i = 0; i < GZIP_STRATEGY_COUNT; i++)
		if (s->deflate_ready[i])
			deflateEnd(&s->deflate[i]);
	if (s->inflate_ready)
		inflateEnd(&s->inflate);
	if (s->raw_ready)
		deflateEnd(&s->raw);
	free(s->dscratch);
#ifdef WITH_LIBDEFLATE
	if (s->ld_comp != NULL)
		libdeflate_free_compressor(s->ld_comp);
	if (s->ld_decomp != NULL)
		libdeflate_free_decompressor(s->ld_decomp);
#endif
	free(s->scratch);
	free(s);
}

static int gzip_create(const struct sqp_codec_config *cfg, void **out)
{
	struct gzip_state *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->cfg = *cfg;
#ifdef WITH_LIBDEFLATE
	s->ld_decomp = libdeflate_alloc_decompressor();
	if (s->ld_decomp == NULL)
		goto nomem;
	if (cfg->window == 15 && gzip_strategy_mask(cfg) == SQP_GZIP_DEFAULT) {
		s->ld_comp = libdeflate_alloc_compressor(cfg->level);
		if (s->ld_comp == NULL)
			goto nomem;
	}
#endif
	if ((gzip_strategy_mask(cfg) & (gzip_strategy_mask(cfg) - 1)) != 0) {
		s->scratch = malloc(codec_max_input(cfg));
		if (s->scratch == NULL)
			goto nomem;
	}
	*out = s;
	return 0;
nomem:
	gzip_destroy(s);
	return SQP_ERR_NOMEM;
}

/* One zlib attempt with strategy i; 0 when it does not fit. */
static int gzip_deflate_one(struct gzip_state *s, int i, const uint8_t *in,
			    size_t in_len, uint8_t *out, size_t out_cap)
{
	z_stream *z = &s->deflate[i];
	int ret;

	if (!s->deflate_ready[i]) {
		if (deflateInit2(z, s->cfg.level, Z_DEFLATED, (int)s->cfg.window,
				 8, gzip_zlib_strategy[i]) != Z_OK)
			return SQP_ERR_NOMEM;
		s->deflate_ready[i] = 1;
	} else if (deflateReset(z) != Z_OK) {
		return SQP_ERR_BAD_DATA;
	}
	z->next_in = (Bytef *)in;
	z->avail_in = (uInt)in_len;
	z->next_out = out;
	z->avail_out = (uInt)out_cap;
	ret = deflate(z, Z_FINISH);
	if (ret == Z_STREAM_END)
		return (int)(out_cap - z->avail_out);
	if (ret == Z_OK || ret == Z_BUF_ERROR)
		return 0;
	return SQP_ERR_BAD_DATA;
}

static int gzip_compress(void *p, const uint8_t *in, size_t in_len,
			 uint8_t *out, size_t out_cap)
{
	struct gzip_state *s = p;
	unsigned mask = gzip_strategy_mask(&s->cfg);
	int best = 0;

#ifdef WITH_LIBDEFLATE
	if (s->ld_comp != NULL)
		return (int)libdeflate_zlib_compress(s->ld_comp, in, in_len,
						     out, out_cap);
#endif
	for (int i = 0; i < GZIP_STRATEGY_COUNT; i++) {
		uint8_t *dst = best > 0 ? s->scratch : out;
		size_t cap = best > 0 ? (size_t)best - 1 : out_cap;
		int n;

		if (!(mask & (1u << i)))
			continue;
		n = gzip_deflate_one(s, i, in, in_len, dst, cap);
		if (n < 0)
			return n;
		if (n > 0 && dst != out)
			memcpy(out, dst, (size_t)n);
		if (n > 0)
			best = n;
	}
	return best;
}

static int gzip_decompress(void *p, const uint8_t *in, size_t in_len,
			   uint8_t *out, size_t out_cap)
{
	struct gzip_state *s = p;
#ifdef WITH_LIBDEFLATE
	size_t got;

	if (libdeflate_zlib_decompress(s->ld_decomp, in, in_len, out, out_cap,
				       &got) != LIBDEFLATE_SUCCESS)
		return SQP_ERR_BAD_DATA;
	return (int)got;
#else
	int ret;

	if (!s->inflate_ready) {
		if (inflateInit(&s->inflate) != Z_OK)
			return SQP_ERR_NOMEM;
		s->inflate_ready = 1;
	} else if (inflateReset(&s->inflate) != Z_OK) {
		return SQP_ERR_BAD_DATA;
	}
	s->inflate.next_in = (Bytef *)in;
	s->inflate.avail_in = (uInt)in_len;
	s->inflate.next_out = out;
	s->inflate.avail_out = (uInt)out_cap;
	ret = inflate(&s->inflate, Z_FINISH);
	if (ret != Z_STREAM_END)
		return SQP_ERR_BAD_DATA;
	return (int)(out_cap - s->inflate.avail_out);
#endif
}

/* Raw deflate's window: zlib's raw streams take no 256-byte window. */
static unsigned deflate_window(const struct sqp_codec_config *cfg)
{
	return cfg->window < 9 ? 9 : cfg->window;
}

/* One raw deflate stream of exactly len bytes; 0 when it does not fit. */
static int deflate_try(void *p, const uint8_t *in, size_t len, uint8_t *out,
		       size_t cap)
{
	struct gzip_state *s = p;
	unsigned mask = gzip_strategy_mask(&s->cfg);
	int i = 0, ret;

#ifdef WITH_LIBDEFLATE
	if (s->ld_comp != NULL)
		return (int)libdeflate_deflate_compress(s->ld_comp, in, len, out, cap);
#endif
	while (!(mask & (1u << i)))
		i++;
	if (!s->raw_ready) {
		if (deflateInit2(&s->raw, s->cfg.level, Z_DEFLATED,
				 -(int)deflate_window(&s->cfg), 8,
				 gzip_zlib_strategy[i]) != Z_OK)
			return SQP_ERR_NOMEM;
		s->raw_ready = 1;
	} else if (deflateReset(&s->raw) != Z_OK) {
		return SQP_ERR_COMPRESSOR;
	}
	s->raw.next_in = (Bytef *)in;
	s->raw.avail_in = (uInt)len;
	s->raw.next_out = out;
	s->raw.avail_out = (uInt)cap;
	ret = deflate(&s->raw, Z_FINISH);
	if (ret == Z_STREAM_END)
		return (int)(cap - s->raw.avail_out);
	return ret == Z_OK || ret == Z_BUF_ERROR ? 0 : SQP_ERR_COMPRESSOR;
}

static int deflate_dest_compress(void *p, const uint8_t *in, size_t *in_len, size_t guess,
				 uint8_t *out, size_t out_cap)
{
	struct gzip_state *s = p;
	int n;

	n = codec_dest_search(deflate_try, s, in, in_len, guess, out, out_cap,
			      deflate_span(out_cap), DEFLATE_DEST_GRAIN,
			      &s->dscratch, &s->dscratch_cap);
	if (n > 0 && out[0] == 0)
		out[0] = DEFLATE_STORED_MARK;
	return n;
}

/* Deflate's window is 32 KiB at most, whatever the pcluster. */
static uint32_t deflate_history(const struct sqp_codec_config *cfg,
				uint32_t pcluster)
{
	(void)pcluster;
	return 1u << deflate_window(cfg);
}

static int deflate_dest_create(const struct sqp_codec_config *cfg,
			       uint32_t pcluster, void **out)
{
	(void)pcluster;
	return gzip_create(cfg, out);
}

/* costly_cut: each cut is a search of whole compressions of its
 * prefix, 2.3 of them a cluster at 64 KiB, and deflate's cut depends
 * on the guess, so a seam's re-cut seldom falls in step with the
 * segment's and ran the whole next segment: at 64 KiB with fragments
 * on rootfs-small the packed inode's 8 seams re-cut 265 MB of prefixes
 * to save 4 blocks, 1.1 of our 6.5 CPU-s (mkfs.erofs 1.9.3: 5.6). */
static const struct codec_dest_ops deflate_dest_ops = {
	.erofs_alg = 2,
	.reads_what_fits = 1,
	.costly_cut = 1,
	.create = deflate_dest_create,
	.destroy = gzip_destroy,
	.compress = deflate_dest_compress,
	.history = deflate_history,
};

static void gzip_library(char *buf, size_t size)
{
#ifdef WITH_LIBDEFLATE
	/* libdeflate reports only the version it was built with. */
	snprintf(buf, size, "zlib %s, libdeflate %s", zlibVersion(), LIBDEFLATE_VERSION_STRING);
#else
	snprintf(buf, size, "zlib %s", zlibVersion());
#endif
}

const struct sqp_codec_ops sqp_codec_gzip_ops = {
	.id = SQP_CODEC_GZIP,
	.name = "gzip",
	.help = "    level=N      compression level 1..9 (default 9)\n"
		"    window=N     window size log2 8..15 (default 15)\n"
		"    strategy=S,..  try each of default, filtered, huffman_only,\n"
		"                 run_length_encoded, fixed; keep the smallest\n",
	.opts = gzip_opts,
	.defaults = gzip_defaults,
	.encode = gzip_encode,
	.decode = gzip_decode,
	.create = gzip_create,
	.destroy = gzip_destroy,
	.compress = gzip_compress,
	.decompress = gzip_decompress,
	.library = gzip_library,
	.dest = &deflate_dest_ops,
};
