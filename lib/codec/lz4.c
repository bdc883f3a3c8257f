/* SPDX-License-Identifier: MIT */
/*
 * lz4.c - the lz4 codec (SquashFS id 5), plain or high-compression.
 *
 * The options block is always written: unsquashfs refuses an lz4 image
 * without one (the kernel does not care), so an image is only readable
 * everywhere with it. The block holds the format version (1, "legacy",
 * the only one there is) and the HC flag.
 */
#include "config.h"

#include <limits.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "codec/codec_impl.h"

#define LZ4_FORMAT_LEGACY 1

struct lz4_state {
	int hc;
	int level;
	void *work; /* LZ4 or LZ4HC state, reused per block */
};

static void lz4_defaults(struct sqp_codec_config *cfg)
{
	cfg->flags = 0;
	cfg->level = LZ4HC_CLEVEL_DEFAULT;
}

/* A level is only an HC level: giving one asks for HC. */
static const struct codec_opt lz4_opts[] = {
	{ .key = "hc", .kind = CODEC_OPT_FLAG, .field = CODEC_FIELD_FLAGS,
	  .lo = SQP_LZ4_HC },
	{ .key = "level", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_LEVEL,
	  .lo = 1, .hi = LZ4HC_CLEVEL_MAX, .also_flags = SQP_LZ4_HC },
	{ .key = NULL },
};

static int lz4_encode(const struct sqp_codec_config *cfg, uint8_t *buf,
		      size_t *len)
{
	sqp_put32(buf, LZ4_FORMAT_LEGACY);
	sqp_put32(buf + 4, cfg->flags & SQP_LZ4_HC);
	*len = 8;
	return 0;
}

static int lz4_decode(struct sqp_codec_config *cfg, const uint8_t *buf,
		      size_t len)
{
	uint32_t flags;

	if (len == 0)
		return 0;
	if (len < 8 || sqp_get32(buf) != LZ4_FORMAT_LEGACY)
		return SQP_ERR_CORRUPT;
	flags = sqp_get32(buf + 4);
	if ((flags & ~(uint32_t)SQP_LZ4_HC) != 0)
		return SQP_ERR_CORRUPT;
	cfg->flags = flags;
	return 0;
}

static void lz4_destroy(void *p)
{
	struct lz4_state *s = p;

	if (s != NULL)
		free(s->work);
	free(s);
}

static int lz4_create(const struct sqp_codec_config *cfg, void **out)
{
	struct lz4_state *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->hc = (cfg->flags & SQP_LZ4_HC) != 0;
	s->level = cfg->level;
	s->work = malloc(s->hc ? (size_t)LZ4_sizeofStateHC() :
				 (size_t)LZ4_sizeofState());
	if (s->work == NULL) {
		free(s);
		return SQP_ERR_NOMEM;
	}
	*out = s;
	return 0;
}

static int lz4_compress(void *p, const uint8_t *in, size_t in_len,
			uint8_t *out, size_t out_cap)
{
	struct lz4_state *s = p;

	/* Both return 0 when the result does not fit in out_cap. */
	if (s->hc)
		return LZ4_compress_HC_extStateHC(s->work, (const char *)in,
						  (char *)out, (int)in_len,
						  (int)out_cap, s->level);
	return LZ4_compress_fast_extState(s->work, (const char *)in,
					  (char *)out, (int)in_len,
					  (int)out_cap, 1);
}

static int lz4_decompress(void *p, const uint8_t *in, size_t in_len,
			  uint8_t *out, size_t out_cap)
{
	int n = LZ4_decompress_safe((const char *)in, (char *)out, (int)in_len,
				    (int)out_cap);

	(void)p;
	return n < 0 ? SQP_ERR_BAD_DATA : n;
}

/* lz4's destSize finds the cut itself: guess is not needed. */
static int lz4_dest_compress(void *p, const uint8_t *in, size_t *in_len, size_t guess,
			     uint8_t *out, size_t out_cap)
{
	struct lz4_state *s = p;
	int taken, n;

	(void)guess;
	if (*in_len > INT_MAX || out_cap > INT_MAX)
		return SQP_ERR_ARG;
	taken = (int)*in_len;
	if (s->hc)
		n = LZ4_compress_HC_destSize(s->work, (const char *)in, (char *)out,
					     &taken, (int)out_cap, s->level);
	else
		n = LZ4_compress_destSize((const char *)in, (char *)out, &taken,
					  (int)out_cap);
	if (n <= 0)
		return SQP_ERR_COMPRESSOR;
	*in_len = (size_t)taken;
	return n;
}

/* The bytes a literal run of len takes: the token, the length's extra
 * bytes (from 15 on, one per 255 and one more), the literals. */
static size_t lit_cost(size_t len)
{
	return 1 + (len >= 15 ? 1 + (len - 15) / 255 : 0) + len;
}

/* The longest literal run that fits room bytes (lit_cost), or 0: from
 * the run that the extra bytes leave room for (one per 256 bytes of
 * room, about), a step or two either way. */
static size_t lit_fit(size_t room)
{
	size_t len = room > 2 ? room - 2 - (room - 2) / 256 : 0;

	while (len > 0 && lit_cost(len) > room)
		len--;
	while (lit_cost(len + 1) <= room)
		len++;
	return len;
}

/* The bytes a match length of ml (4 on) takes past its token: one per
 * 255 from 19 on, and one more. */
static size_t ml_cost(size_t ml)
{
	return ml >= 19 ? 1 + (ml - 19) / 255 : 0;
}

/* A length of lz4's sequence whose token's nibble (in *len) is 15 runs
 * on in the bytes at *ip, each added, up to one under 255: read them.
 * 0, or -1 where the block ends first. */
static int read_len(const uint8_t *buf, size_t n, size_t *ip, size_t *len)
{
	unsigned b;

	if (*len != 15)
		return 0;
	do {
		if (*ip >= n)
			return -1;
		b = buf[(*ip)++];
		*len += b;
	} while (b == 255);
	return 0;
}

/* The bytes of a length past its token's 15 (extra) written at ip: 255
 * while that much is left, then the rest. Returns the place after. */
static size_t put_len(uint8_t *buf, size_t ip, size_t extra)
{
	for (; extra >= 255; extra -= 255)
		buf[ip++] = 255;
	buf[ip++] = (uint8_t)extra;
	return ip;
}

/* Where a cut of lz4_dest_trim stands: the sequence whose match is cut
 * (its token's place, the end of its offset, where its match starts in
 * the input) and the match and last literals kept. */
struct lz4_cut {
	size_t token, at, from, ml, lit;
};

/* The block of all of in cut short (codec_dest.h's trim): kept up to
 * one of its matches, that match cut as short as it must be, then the
 * input from there on as the last literals, as many as fit: the cut
 * that takes the most input. Why: ztailpacking's last cluster gives a
 * part-used block back (erofs_zcut.c), and compressing the cluster
 * again into fewer blocks cost lz4hc as much as the first pass (64 KiB
 * clusters, rootfs-small: 1,944 tails, 1.19 CPU-s). A match is cut as
 * lz4's destSize cuts its last one: a run of zeros is one match whose
 * length takes a byte per 255, kept whole it left the last cluster of
 * a sparse file taking 4 blocks more. The block keeps lz4's end rules:
 * the last five bytes or more are literals, and the last match starts
 * twelve or more before the end. */
static int lz4_dest_trim(const uint8_t *in, size_t in_len, uint8_t *buf, size_t n,
			 size_t cap, size_t *take)
{
	struct lz4_cut c, best = { 0 };
	size_t ip = 0, op = 0, len, ml, room;

	while (ip < n) {
		c.token = ip;
		len = buf[ip++] >> 4;
		if (read_len(buf, n, &ip, &len) != 0 || len > n - ip || len > in_len - op)
			return SQP_ERR_CORRUPT;
		ip += len;
		op += len;
		if (ip == n)
			break;
		if (n - ip < 2)
			return SQP_ERR_CORRUPT;
		ip += 2;
		ml = buf[c.token] & 15;
		if (read_len(buf, n, &ip, &ml) != 0)
			return SQP_ERR_CORRUPT;
		ml += 4;
		if (ml > in_len - op)
			return SQP_ERR_CORRUPT;
		c.at = c.token + lit_cost(len) + 2;
		c.from = op;
		op += ml;
		/* Room past the offset for the match's length and five
		 * literals at least (lit_cost(5)); none further on. */
		if (c.at + 6 > cap)
			break;
		room = cap - c.at;
		c.ml = ml < 18 + 255 * (room - 6) ? ml : 18 + 255 * (room - 6);
		c.lit = lit_fit(room - ml_cost(c.ml));
		if (c.lit > in_len - c.from - c.ml)
			c.lit = in_len - c.from - c.ml;
		if (c.lit >= 5 && c.ml + c.lit >= 12 && c.from + c.ml + c.lit > best.from + best.ml + best.lit)
			best = c;
	}
	if (best.ml == 0)
		return 0;
	buf[best.token] = (uint8_t)((buf[best.token] & 0xf0) | (best.ml >= 19 ? 15 : best.ml - 4));
	ip = best.at;
	if (best.ml >= 19)
		ip = put_len(buf, ip, best.ml - 19);
	buf[ip++] = (uint8_t)((best.lit >= 15 ? 15 : best.lit) << 4);
	if (best.lit >= 15)
		ip = put_len(buf, ip, best.lit - 15);
	memcpy(buf + ip, in + best.from + best.ml, best.lit);
	*take = best.from + best.ml + best.lit;
	return (int)(ip + best.lit);
}

/* lz4's 64 KiB history is fixed, whatever the pcluster. */
static int lz4_dest_create(const struct sqp_codec_config *cfg,
			   uint32_t pcluster, void **out)
{
	(void)pcluster;
	return lz4_create(cfg, out);
}

static const struct codec_dest_ops lz4_dest_ops = {
	.erofs_alg = 0,
	.create = lz4_dest_create,
	.destroy = lz4_destroy,
	.compress = lz4_dest_compress,
	.trim = lz4_dest_trim,
};

static void lz4_library(char *buf, size_t size)
{
	snprintf(buf, size, "lz4 %s", LZ4_versionString());
}

const struct sqp_codec_ops sqp_codec_lz4_ops = {
	.id = SQP_CODEC_LZ4,
	.name = "lz4",
	.help = "    hc           high-compression mode (slower, smaller)\n"
		"    level=N      high-compression level 1..12 (implies hc; "
		"default 9)\n",
	.opts = lz4_opts,
	.defaults = lz4_defaults,
	.encode = lz4_encode,
	.decode = lz4_decode,
	.create = lz4_create,
	.destroy = lz4_destroy,
	.compress = lz4_compress,
	.decompress = lz4_decompress,
	.library = lz4_library,
	.dest = &lz4_dest_ops,
};
