/* SPDX-License-Identifier: MIT */
/*
 * zstd.c - the zstd codec (SquashFS id 6). One compression and one
 * decompression context per compressor, reused for every block: setting
 * a context up costs more than compressing a small block. The options
 * block (the level) is written only when the level is not mksquashfs's
 * default of 15; readers need it for nothing but display.
 *
 * EROFS's zstd (codec_dest.h) is one zstd frame per cluster, decoding to
 * exactly the cluster's input. zstd cannot compress to a fixed output
 * size, so codec_dest_search tries lengths, and what room the longest
 * fit left is filled with the input after it as a raw last block
 * (zstd_raw_tail). Each try compressed its prefix from the start, match
 * finding and all; now the input is parsed into sequences once per
 * cluster (ZSTD_generateSequences, a quarter past the first length
 * tried, and again where the tries cross a size at which zstd's
 * parameters change) and each try only encodes the parse's prefix
 * (ZSTD_compressSequences, about half a compression's time at level
 * 3), so the search goes to within 1/4096 of the cut where it used to
 * stop at 1/64 (zstd_dest_grain); level 15, whose match finding is
 * most of its time, takes half the CPU it did. The frame records no
 * content size (the cluster's index does): two bytes at 4 KiB clusters,
 * four past 64 KiB, where the window's byte that takes its place is
 * one. The window is eight pclusters (32 KiB for one-block ones)
 * rounded down to a power of two, at most the 1 MiB the kernel takes,
 * as mkfs.erofs sizes it; the superblock records it and the kernel
 * allocates it per CPU. The context's parameters for it are set on its
 * first EROFS use (the block codec passes its level per call).
 *
 * zstd picks a level's parameters by the input's size, and past 256 KiB
 * levels 13 to 18 (the default 15 among them) give up a parser: level
 * 15 searches with btlazy2 and matches of 5 bytes instead of the
 * optimal parser btopt and 3. A cluster of one block takes tens of KiB
 * of input, but a big one takes hundreds: level 15's 64 KiB clusters of
 * a text took 8.7 input bytes per compressed byte where one-block ones
 * took 10.2, and the image grew by 17%. So a cluster of several blocks
 * keeps the level's 256 KiB parameters where they parse optimally and
 * search harder than its own for large input (the window stays ours);
 * the output is bounded by the cluster, so the cost is bounded too.
 * (Where both parse lazily, levels 2 to 12, neither is better on every
 * input: level 12's text image grew 3% with the 256 KiB ones.)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* ZSTD_getCParams: a level's parameters for an input size; the
 * sequence calls, which releases after 1.5.5 mark deprecated (they stay,
 * and a newer library's warning would stop a --enable-werror build). */
#define ZSTD_STATIC_LINKING_ONLY
#define ZSTD_DISABLE_DEPRECATE_WARNINGS
#include <zstd.h>
#include <zstd_errors.h>

#include "codec/codec_dest.h"
#include "codec/codec_impl.h"

#define ZSTD_DEFAULT_LEVEL 15
/* EROFS's window: log2 of the pclusters it spans, and of the most the
 * kernel reads (Z_EROFS_ZSTD_MAX_DICT_SIZE, its largest pcluster). */
#define ZSTD_DEST_WINDOW_PCLUSTERS_LOG 3
#define ZSTD_DEST_WINDOW_MAX_LOG 20
/* The input size whose parameters a cluster of several blocks keeps,
 * and the size of a one-block cluster, which keeps the level's own. */
#define ZSTD_DEST_TABLE_SIZE (256u << 10)
#define ZSTD_DEST_BLOCK 4096u
/* The blocks a share of the search's tolerance spans (codec_dest.h):
 * the raw tail fills what room the search leaves, so past 16 KiB it
 * searches a quarter as closely as deflate. At 64 KiB clusters of
 * rootfs-small it compressed 18% fewer bytes for one block more. */
#define ZSTD_DEST_SPAN 4
/* A block header's bytes (RFC 8878, 3.1.1.2). */
#define ZSTD_BLOCK_HEADER 3
/* The most input parsed once for a cluster's tries (zstd_seq_try): one
 * zstd block, whose sequences take 700 KiB at most. A parse of several
 * blocks, which compressSequences splits itself, crashed libzstd 1.5.4
 * in free() (level 15, 64 KiB clusters). The parse also keeps the block
 * splitter off: zstd turns it on for btopt and stronger with windows of
 * 128 KiB and more (16 KiB pclusters up), and before 1.5.6 (zstd's pull
 * request 3981) generateSequences then wrote sequences past its output
 * and crashed: level 15, the default, at 16 and 32 KiB pclusters of
 * most machine code over 128 KiB. */
#define ZSTD_SEQ_MOST ((size_t)ZSTD_BLOCKSIZE_MAX)
/* How closely the search aims (codec_dest.h): to 1/ZSTD_SEQ_GRAIN of
 * the input where every try can encode a parse (clusters up to a
 * quarter of ZSTD_SEQ_MOST), which costs about half of compressing,
 * else to 1/64 of a share as deflate. */
#define ZSTD_SEQ_GRAIN 4096u
#define ZSTD_DEST_GRAIN 64u
/* A match cut short by the end of a try's input stays a match when at
 * least this much of it is left: ZSTD_MINMATCH_MAX, the longest any
 * parameters ask of a match, as compressSequences expects. */
#define ZSTD_SEQ_MATCH_MIN 7

struct zstd_state {
	ZSTD_CCtx *cctx;
	ZSTD_DCtx *dctx;
	int level;
	unsigned dest_window_log;  /* EROFS */
	int dest_big;              /* clusters of several blocks */
	int dest_ready;            /* cctx set up for it */
	uint8_t *dscratch;         /* EROFS: 4 clusters */
	size_t dscratch_cap;
	ZSTD_CCtx *gctx;           /* EROFS: parses (zstd_seq_parse) */
	ZSTD_Sequence *seq;        /* the call's parse: seq_n sequences */
	size_t seq_cap, seq_n;
	size_t seq_len;            /* the input they cover, 0: none yet */
	size_t seq_all;            /* the input offered, the most to parse */
	ZSTD_compressionParameters seq_cp; /* those the parse was made with */
	int seq_off;               /* the library's parse did not add up */
};

static void zstd_defaults(struct sqp_codec_config *cfg)
{
	cfg->level = ZSTD_DEFAULT_LEVEL;
}

/* The highest level depends on the library zstd was built as. */
static unsigned long zstd_max_level(const struct sqp_codec_config *cfg)
{
	(void)cfg;
	return (unsigned long)ZSTD_maxCLevel();
}

static const struct codec_opt zstd_opts[] = {
	{ .key = "level", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_LEVEL,
	  .lo = 1, .hi_of = zstd_max_level },
	{ .key = NULL },
};

static int zstd_encode(const struct sqp_codec_config *cfg, uint8_t *buf,
		       size_t *len)
{
	if (cfg->level == ZSTD_DEFAULT_LEVEL)
		return 0;
	sqp_put32(buf, (uint32_t)cfg->level);
	*len = 4;
	return 0;
}

static int zstd_decode(struct sqp_codec_config *cfg, const uint8_t *buf,
		       size_t len)
{
	uint32_t level;

	if (len == 0)
		return 0;
	if (len < 4)
		return SQP_ERR_CORRUPT;
	level = sqp_get32(buf);
	if (level < 1 || level > (uint32_t)ZSTD_maxCLevel())
		return SQP_ERR_CORRUPT;
	cfg->level = (int)level;
	return 0;
}

static void zstd_destroy(void *p)
{
	struct zstd_state *s = p;

	if (s == NULL)
		return;
	ZSTD_freeCCtx(s->cctx);
	ZSTD_freeCCtx(s->gctx);
	ZSTD_freeDCtx(s->dctx);
	free(s->dscratch);
	free(s->seq);
	free(s);
}

static int zstd_create(const struct sqp_codec_config *cfg, void **out)
{
	struct zstd_state *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->level = cfg->level;
	s->cctx = ZSTD_createCCtx();
	s->dctx = ZSTD_createDCtx();
	if (s->cctx == NULL || s->dctx == NULL) {
		zstd_destroy(s);
		return SQP_ERR_NOMEM;
	}
	*out = s;
	return 0;
}

static int zstd_compress(void *p, const uint8_t *in, size_t in_len,
			 uint8_t *out, size_t out_cap)
{
	struct zstd_state *s = p;
	size_t n = ZSTD_compressCCtx(s->cctx, out, out_cap, in, in_len,
				     s->level);

	if (!ZSTD_isError(n))
		return (int)n;
	if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
		return 0;
	return ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation ?
		       SQP_ERR_NOMEM : SQP_ERR_BAD_DATA;
}

static int zstd_decompress(void *p, const uint8_t *in, size_t in_len,
			   uint8_t *out, size_t out_cap)
{
	struct zstd_state *s = p;
	size_t n = ZSTD_decompressDCtx(s->dctx, out, out_cap, in, in_len);

	return ZSTD_isError(n) ? SQP_ERR_BAD_DATA : (int)n;
}

/* A library result as a try's: the size, 0 when it does not fit, or
 * < 0. */
static int zstd_result(size_t n)
{
	if (!ZSTD_isError(n))
		return (int)n;
	if (ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall)
		return 0;
	return ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation ?
		       SQP_ERR_NOMEM : SQP_ERR_COMPRESSOR;
}

/* One frame of exactly len bytes; 0 when it does not fit. */
static int zstd_try(void *p, const uint8_t *in, size_t len, uint8_t *out,
		    size_t cap)
{
	struct zstd_state *s = p;

	return zstd_result(ZSTD_compress2(s->cctx, out, cap, in, len));
}

/* The parameters for size bytes of input (0: unknown) into *cp: with
 * clusters of several blocks, the level's for 256 KiB of input when
 * they parse optimally and search harder than those for large input (a
 * stronger strategy); else the level's own for size. Returns whether
 * they are to be set (else zstd picks them per input itself). */
static int zstd_dest_cparams(const struct zstd_state *s, size_t size,
			     ZSTD_compressionParameters *cp)
{
	ZSTD_compressionParameters keep = ZSTD_getCParams(s->level, ZSTD_DEST_TABLE_SIZE, 0);

	*cp = ZSTD_getCParams(s->level, size, 0);
	if (s->dest_big && keep.strategy >= ZSTD_btopt && keep.strategy > cp->strategy) {
		*cp = keep;
		return 1;
	}
	return size > 0;
}

/* Whether parameters a and b search alike: the same strategy, match
 * length and search depth (the tables' sizes, which zstd fits to the
 * input's, aside). */
static int zstd_same_search(const ZSTD_compressionParameters *a,
			    const ZSTD_compressionParameters *b)
{
	return a->strategy == b->strategy && a->minMatch == b->minMatch &&
	       a->searchLog == b->searchLog && a->targetLength == b->targetLength;
}

/* Sets zstd_dest_cparams's parameters for size on c, if any. */
static int zstd_dest_params(struct zstd_state *s, ZSTD_CCtx *c, size_t size)
{
	ZSTD_compressionParameters cp;
	int want = zstd_dest_cparams(s, size, &cp);
	const struct { ZSTD_cParameter p; int v; } set[] = {
		{ ZSTD_c_strategy, (int)cp.strategy },
		{ ZSTD_c_minMatch, (int)cp.minMatch },
		{ ZSTD_c_searchLog, (int)cp.searchLog },
		{ ZSTD_c_targetLength, (int)cp.targetLength },
		{ ZSTD_c_hashLog, (int)cp.hashLog },
		{ ZSTD_c_chainLog, (int)cp.chainLog },
	};

	if (!want)
		return 0;
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++)
		if (ZSTD_isError(ZSTD_CCtx_setParameter(c, set[i].p, set[i].v)))
			return SQP_ERR_COMPRESSOR;
	return 0;
}

/* One frame of exactly len bytes from the parse (zstd_seq_parse) of at
 * least len bytes at in: its sequences up to len, the one across it cut
 * short, or left to the literals when less than ZSTD_SEQ_MATCH_MIN of
 * it is before len. */
static int zstd_seq_encode(struct zstd_state *s, const uint8_t *in, size_t len, uint8_t *out,
			   size_t cap)
{
	ZSTD_Sequence *q = s->seq, cut;
	size_t pos = 0, i, n, count;

	for (i = 0; i < s->seq_n && pos + q[i].litLength + q[i].matchLength <= len; i++)
		pos += q[i].litLength + q[i].matchLength;
	count = i;
	if (i < s->seq_n && pos + q[i].litLength + ZSTD_SEQ_MATCH_MIN <= len) {
		cut = q[i];
		q[i].matchLength = (unsigned)(len - pos - q[i].litLength);
		count = i + 1;
	}
	n = ZSTD_compressSequences(s->cctx, out, cap, q, count, in, len);
	if (count > i)
		q[i] = cut;
	return zstd_result(n);
}

/* The parse of len bytes at in (the match finder's work, once) into
 * s->seq: 1 when it covers them, 0 when the library's sequences do not
 * add up to them (the caller compresses instead), or < 0. */
static int zstd_seq_parse(struct zstd_state *s, const uint8_t *in, size_t len)
{
	size_t bound = ZSTD_sequenceBound(len), n, sum = 0;

	s->seq_len = 0;
	if (s->seq_cap < bound) {
		free(s->seq);
		s->seq_cap = 0;
		if ((s->seq = malloc(bound * sizeof(*s->seq))) == NULL)
			return SQP_ERR_NOMEM;
		s->seq_cap = bound;
	}
	n = ZSTD_generateSequences(s->gctx, s->seq, s->seq_cap, in, len);
	if (ZSTD_isError(n))
		return ZSTD_getErrorCode(n) == ZSTD_error_memory_allocation ? SQP_ERR_NOMEM : 0;
	for (size_t i = 0; i < n; i++)
		sum += (size_t)s->seq[i].litLength + s->seq[i].matchLength;
	/* every block ends in a delimiter, whose literals end the block */
	if (n == 0 || sum != len || s->seq[n - 1].matchLength != 0 || s->seq[n - 1].offset != 0)
		return 0;
	s->seq_n = ZSTD_mergeBlockDelimiters(s->seq, n);
	s->seq_len = len;
	return 1;
}

/* A try of codec_dest_search: one frame of exactly len bytes, encoded
 * from the call's parse, which is made (again) when it is shorter than
 * len or was made with parameters that search otherwise than zstd's
 * for len, a quarter longer than len (at most all the input offered),
 * with those for len. zstd's parameters change at 16 KiB of input
 * (level 3: matches of 5 bytes past it, 4 below), and a search's tries
 * cross it: after a try past it, the tries below encoded that parse,
 * and a 4 KiB cluster of /usr/bin/echo took 12574 bytes where
 * ZSTD_compress2 of 12674 fits. Past ZSTD_SEQ_MOST, or when the
 * library's parse does not add up, the try compresses len bytes
 * instead. 0 when it does not fit. */
static int zstd_seq_try(void *p, const uint8_t *in, size_t len, uint8_t *out, size_t cap)
{
	struct zstd_state *s = p;
	size_t g = len + len / 4 < s->seq_all ? len + len / 4 : s->seq_all;
	ZSTD_compressionParameters cp;
	int ret;

	zstd_dest_cparams(s, len, &cp);
	if ((len > s->seq_len || !zstd_same_search(&cp, &s->seq_cp)) && g <= ZSTD_SEQ_MOST &&
	    !s->seq_off) {
		if (zstd_dest_params(s, s->gctx, len) != 0)
			return SQP_ERR_COMPRESSOR;
		if ((ret = zstd_seq_parse(s, in, g)) < 0)
			return ret;
		s->seq_off = ret == 0;
		s->seq_cp = cp;
	}
	if (len > s->seq_len)
		return zstd_try(p, in, len, out, cap);
	return zstd_seq_encode(s, in, len, out, cap);
}

/* The offset of the last block's header in the frame of n bytes at f,
 * and the most a block of it may hold (*most); 0 when its blocks do not
 * end it exactly. */
static size_t zstd_last_block(const uint8_t *f, size_t n, size_t *most)
{
	ZSTD_frameHeader fh;
	size_t at, len;
	uint32_t h;

	if (ZSTD_getFrameHeader(&fh, f, n) != 0)
		return 0;
	*most = fh.blockSizeMax;
	for (at = fh.headerSize; at + ZSTD_BLOCK_HEADER <= n; at += ZSTD_BLOCK_HEADER + len) {
		h = (uint32_t)f[at] | (uint32_t)f[at + 1] << 8 | (uint32_t)f[at + 2] << 16;
		/* an RLE block holds one byte for all it repeats */
		len = ((h >> 1) & 3) == 1 ? 1 : h >> 3;
		if (h & 1)
			return at + ZSTD_BLOCK_HEADER + len == n ? at : 0;
	}
	return 0;
}

/* The room left in the cluster after the frame of n bytes, filled with
 * the input that follows what it holds (*in_len bytes of all): a last
 * block of those bytes as they are, raw, after the frame's own. The
 * search stops short of the cut by up to 3/4 of its tolerance (at 4 KiB
 * clusters 0.6% of the cluster was left empty), while mkfs.erofs 1.9
 * tries lengths until a byte or less is left, at twice our CPU: four
 * bytes or more of room take a byte or more of input here, for no try.
 * Returns the frame's new size. */
static int zstd_raw_tail(const uint8_t *in, size_t *in_len, size_t all, uint8_t *out,
			 size_t n, size_t out_cap)
{
	size_t last, most, k = out_cap - n;
	uint32_t h;

	if (k <= ZSTD_BLOCK_HEADER || *in_len == all || (last = zstd_last_block(out, n, &most)) == 0)
		return (int)n;
	k -= ZSTD_BLOCK_HEADER;
	if (k > all - *in_len)
		k = all - *in_len;
	if (k > most)
		k = most;
	/* raw (type 0), last; the frame's last block no longer is */
	h = (uint32_t)k << 3 | 1;
	out[last] &= 0xfe;
	out[n] = (uint8_t)h;
	out[n + 1] = (uint8_t)(h >> 8);
	out[n + 2] = (uint8_t)(h >> 16);
	memcpy(out + n + ZSTD_BLOCK_HEADER, in + *in_len, k);
	*in_len += k;
	return (int)(n + ZSTD_BLOCK_HEADER + k);
}

/* The search's grain for clusters of out_cap bytes: ZSTD_SEQ_GRAIN
 * spread over the shares of a cluster (ZSTD_DEST_SPAN blocks each). */
static unsigned zstd_dest_grain(size_t out_cap)
{
	size_t shares = out_cap / ZSTD_DEST_BLOCK / ZSTD_DEST_SPAN;

	if (4 * out_cap > ZSTD_SEQ_MOST)
		return ZSTD_DEST_GRAIN;
	return shares > 1 ? ZSTD_SEQ_GRAIN / (unsigned)shares : ZSTD_SEQ_GRAIN;
}

static int zstd_dest_compress(void *p, const uint8_t *in, size_t *in_len, size_t guess,
			      uint8_t *out, size_t out_cap)
{
	struct zstd_state *s = p;
	size_t all;
	int n;

	if (!s->dest_ready) {
		if (s->gctx == NULL && (s->gctx = ZSTD_createCCtx()) == NULL)
			return SQP_ERR_NOMEM;
		for (int k = 0; k < 2; k++) {
			ZSTD_CCtx *c = k ? s->gctx : s->cctx;

			if (ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, s->level)) ||
			    zstd_dest_params(s, c, 0) != 0 ||
			    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0)) ||
			    ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog,
								(int)s->dest_window_log)) ||
			    (k && ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_useBlockSplitter,
								      ZSTD_ps_disable))))
				return SQP_ERR_COMPRESSOR;
		}
		s->dest_ready = 1;
	}
	all = *in_len;
	s->seq_all = all;
	s->seq_len = 0;
	s->seq_off = 0;
	n = codec_dest_search(zstd_seq_try, s, in, in_len, guess, out, out_cap, ZSTD_DEST_SPAN,
			      zstd_dest_grain(out_cap),
			      &s->dscratch, &s->dscratch_cap);
	return n > 0 ? zstd_raw_tail(in, in_len, all, out, (size_t)n, out_cap) : n;
}

/* log2 of the window for pcluster (at least a block: 12 and more). */
static unsigned zstd_dest_window_log(uint32_t pcluster)
{
	unsigned log = ZSTD_DEST_WINDOW_PCLUSTERS_LOG;

	for (uint32_t p = pcluster; p > 1; p >>= 1)
		log++;
	return log < ZSTD_DEST_WINDOW_MAX_LOG ? log : ZSTD_DEST_WINDOW_MAX_LOG;
}

static uint32_t zstd_dest_history(const struct sqp_codec_config *cfg,
				  uint32_t pcluster)
{
	(void)cfg;
	return 1u << zstd_dest_window_log(pcluster);
}

static int zstd_dest_create(const struct sqp_codec_config *cfg,
			    uint32_t pcluster, void **out)
{
	int ret = zstd_create(cfg, out);

	if (ret == 0) {
		struct zstd_state *s = *out;

		s->dest_window_log = zstd_dest_window_log(pcluster);
		s->dest_big = pcluster > ZSTD_DEST_BLOCK;
	}
	return ret;
}

static const struct codec_dest_ops zstd_dest_ops = {
	.erofs_alg = 3,
	.reads_what_fits = 1,
	.create = zstd_dest_create,
	.destroy = zstd_destroy,
	.compress = zstd_dest_compress,
	.history = zstd_dest_history,
};

static void zstd_library(char *buf, size_t size)
{
	snprintf(buf, size, "zstd %s", ZSTD_versionString());
}

const struct sqp_codec_ops sqp_codec_zstd_ops = {
	.id = SQP_CODEC_ZSTD,
	.name = "zstd",
	.help = "    level=N      compression level 1..22 (default 15)\n",
	.opts = zstd_opts,
	.defaults = zstd_defaults,
	.encode = zstd_encode,
	.decode = zstd_decode,
	.create = zstd_create,
	.destroy = zstd_destroy,
	.compress = zstd_compress,
	.decompress = zstd_decompress,
	.library = zstd_library,
	.dest = &zstd_dest_ops,
};
