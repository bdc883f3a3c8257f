/* SPDX-License-Identifier: MIT */
/*
 * lzma.c - the lzma codec (SquashFS id 2): each block is an LZMA_Alone
 * stream (13-byte header: properties, dictionary size, uncompressed
 * size), as squashfs-tools writes it. The kernel cannot read these; the
 * user-space readers can. There is no options block: every header
 * carries its own properties.
 *
 * The encoder does not know the size up front, so it ends the stream
 * with an end marker and the size is patched into the header afterwards,
 * like squashfs-tools does. The decoder therefore accepts a stream that
 * has both a size and an end marker: it reads the header with the size
 * field set to "unknown" and checks the size itself.
 *
 * EROFS's lzma is MicroLZMA (codec_dest.h): a raw LZMA stream whose
 * first byte is the inverted properties byte (never 0, so the kernel's
 * zero padding in front of it cannot eat it) and whose sizes are the
 * cluster's, known to the reader from the map. liblzma's MicroLZMA
 * encoder fills the cluster itself and says how much input it took. Its
 * dictionary is four pclusters, at least eight blocks (32 KiB), as
 * mkfs.erofs sizes it, and the superblock records it: the dictionary
 * does not outgrow what one cluster's input can reach, and the kernel
 * allocates it per CPU (at most 8 MiB; a 1 MiB pcluster asks 4 MiB).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "codec/codec_impl.h"
#include "codec/lzma_run.h"

#define LZMA_HEADER_SIZE 13
#define LZMA_SIZE_OFFSET 5

/* EROFS's MicroLZMA dictionary: this many pclusters, and at least this
 * many blocks. */
#define LZMA_DEST_DICT_PCLUSTERS 4
#define LZMA_DEST_DICT_BLOCKS 8

struct lzma_state {
	lzma_options_lzma opts;
	uint32_t dest_dict;  /* EROFS: the MicroLZMA dictionary */
	lzma_stream enc;
	lzma_stream dec;
};

static void lzma_defaults(struct sqp_codec_config *cfg)
{
	cfg->level = 5;
	cfg->dict_size = cfg->block_size;
}

static const struct codec_opt lzma_opts[] = {
	{ .key = "level", .kind = CODEC_OPT_UINT, .field = CODEC_FIELD_LEVEL,
	  .lo = 0, .hi = 9 },
	{ .key = "extreme", .kind = CODEC_OPT_FLAG, .field = CODEC_FIELD_FLAGS,
	  .lo = SQP_LZMA_EXTREME },
	{ .key = "dict-size", .kind = CODEC_OPT_SIZE,
	  .field = CODEC_FIELD_DICT_SIZE, .lo = 4096,
	  .hi_of = codec_opt_block_size },
	{ .key = NULL },
};

static int lzma_encode_opts(const struct sqp_codec_config *cfg, uint8_t *buf,
			    size_t *len)
{
	(void)cfg;
	(void)buf;
	*len = 0;
	return 0;
}

static int lzma_decode_opts(struct sqp_codec_config *cfg, const uint8_t *buf,
			    size_t len)
{
	(void)cfg;
	(void)buf;
	return len == 0 ? 0 : SQP_ERR_CORRUPT;
}

static void lzma_destroy(void *p)
{
	struct lzma_state *s = p;

	if (s == NULL)
		return;
	lzma_end(&s->enc);
	lzma_end(&s->dec);
	free(s);
}

static int lzma_create(const struct sqp_codec_config *cfg, void **out)
{
	struct lzma_state *s = calloc(1, sizeof(*s));
	const lzma_stream init = LZMA_STREAM_INIT;

	if (s == NULL)
		return SQP_ERR_NOMEM;
	s->enc = init;
	s->dec = init;
	if (lzma_lzma_preset(&s->opts, (uint32_t)cfg->level |
			     (cfg->flags & SQP_LZMA_EXTREME ? LZMA_PRESET_EXTREME : 0))) {
		free(s);
		return SQP_ERR_ARG;
	}
	s->opts.dict_size = cfg->dict_size;
	*out = s;
	return 0;
}

static int lzma_compress(void *p, const uint8_t *in, size_t in_len,
			 uint8_t *out, size_t out_cap)
{
	struct lzma_state *s = p;
	int n;

	switch (lzma_alone_encoder(&s->enc, &s->opts)) {
	case LZMA_OK:
		break;
	case LZMA_MEM_ERROR:
		return SQP_ERR_NOMEM;
	default:
		return SQP_ERR_ARG;
	}
	n = sqp_lzma_run(&s->enc, in, in_len, out, out_cap);
	if (n > 0 && n < LZMA_HEADER_SIZE)
		return SQP_ERR_BAD_DATA;
	if (n > 0)
		sqp_put64(out + LZMA_SIZE_OFFSET, in_len);
	return n;
}

static int lzma_decompress(void *p, const uint8_t *in, size_t in_len,
			   uint8_t *out, size_t out_cap)
{
	struct lzma_state *s = p;
	uint8_t head[LZMA_HEADER_SIZE];
	uint64_t size;
	lzma_ret ret;

	if (in_len <= LZMA_HEADER_SIZE)
		return SQP_ERR_BAD_DATA;
	size = sqp_get64(in + LZMA_SIZE_OFFSET);
	if (size == 0 || size > out_cap)
		return SQP_ERR_BAD_DATA;
	memcpy(head, in, LZMA_HEADER_SIZE);
	memset(head + LZMA_SIZE_OFFSET, 0xff, 8);
	if (lzma_alone_decoder(&s->dec, SQP_LZMA_MEMLIMIT) != LZMA_OK)
		return SQP_ERR_NOMEM;
	s->dec.next_in = head;
	s->dec.avail_in = LZMA_HEADER_SIZE;
	s->dec.next_out = out;
	s->dec.avail_out = (size_t)size;
	ret = lzma_code(&s->dec, LZMA_RUN);
	if (ret != LZMA_OK || s->dec.avail_in != 0)
		return SQP_ERR_BAD_DATA;
	/* The output window is exactly the declared size: a stream that
	 * ends early or wants to go on is corrupt. */
	s->dec.next_in = in + LZMA_HEADER_SIZE;
	s->dec.avail_in = in_len - LZMA_HEADER_SIZE;
	ret = lzma_code(&s->dec, LZMA_FINISH);
	if (s->dec.avail_out != 0 ||
	    (ret != LZMA_STREAM_END && ret != LZMA_OK))
		return SQP_ERR_BAD_DATA;
	return (int)size;
}

/* MicroLZMA stops where the output is full: guess is not needed. */
static int lzma_dest_compress(void *p, const uint8_t *in, size_t *in_len, size_t guess,
			      uint8_t *out, size_t out_cap)
{
	struct lzma_state *s = p;
	lzma_options_lzma o = s->opts;
	lzma_ret r;

	(void)guess;
	o.dict_size = s->dest_dict;
	r = lzma_microlzma_encoder(&s->enc, &o);
	if (r != LZMA_OK)
		return r == LZMA_MEM_ERROR ? SQP_ERR_NOMEM : SQP_ERR_ARG;
	s->enc.next_in = in;
	s->enc.avail_in = *in_len;
	s->enc.next_out = out;
	s->enc.avail_out = out_cap;
	/* One call: it stops when the cluster is full or the input ends;
	 * total_in is what the stream holds (it may have read ahead). */
	r = lzma_code(&s->enc, LZMA_FINISH);
	if (r != LZMA_STREAM_END)
		return r == LZMA_MEM_ERROR ? SQP_ERR_NOMEM : SQP_ERR_COMPRESSOR;
	if (s->enc.total_in == 0 || s->enc.total_in > *in_len)
		return SQP_ERR_COMPRESSOR;
	*in_len = (size_t)s->enc.total_in;
	return (int)(out_cap - s->enc.avail_out);
}

static uint32_t lzma_dest_history(const struct sqp_codec_config *cfg,
				  uint32_t pcluster)
{
	uint32_t least = LZMA_DEST_DICT_BLOCKS * cfg->block_size;

	return LZMA_DEST_DICT_PCLUSTERS * pcluster > least ?
	       LZMA_DEST_DICT_PCLUSTERS * pcluster : least;
}

static int lzma_dest_create(const struct sqp_codec_config *cfg,
			    uint32_t pcluster, void **out)
{
	int ret = lzma_create(cfg, out);

	if (ret == 0)
		((struct lzma_state *)*out)->dest_dict = lzma_dest_history(cfg, pcluster);
	return ret;
}

static const struct codec_dest_ops lzma_dest_ops = {
	.erofs_alg = 1,
	.reads_what_fits = 1,
	.costly_cut = 1,
	.create = lzma_dest_create,
	.destroy = lzma_destroy,
	.compress = lzma_dest_compress,
	.history = lzma_dest_history,
};

static void lzma_library(char *buf, size_t size)
{
	snprintf(buf, size, "liblzma %s", lzma_version_string());
}

const struct sqp_codec_ops sqp_codec_lzma_ops = {
	.id = SQP_CODEC_LZMA,
	.name = "lzma",
	.help = "    level=N      preset 0..9 (default 5)\n"
		"    extreme      the extreme preset (slower, a little smaller)\n"
		"    dict-size=N  dictionary size, 4K..block size (default: "
		"block size;\n"
		"                 EROFS: 4 pclusters, 8 blocks at least)\n",
	.opts = lzma_opts,
	.defaults = lzma_defaults,
	.encode = lzma_encode_opts,
	.decode = lzma_decode_opts,
	.create = lzma_create,
	.destroy = lzma_destroy,
	.compress = lzma_compress,
	.decompress = lzma_decompress,
	.library = lzma_library,
	.dest = &lzma_dest_ops,
};
