/* SPDX-License-Identifier: MIT */
/*
 * fuzz_codec.c - libFuzzer harness for every codec's decompress entry in
 * the plugin table, and its options-block decoder. Byte 0 picks the
 * codec, byte 1 the block size; the rest is the compressed stream (and
 * its first bytes, the options payload).
 */
#include <stdint.h>
#include <stdlib.h>

#include "sqpack/sqpack.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t out[1 << 20];
	struct sqp_codec_config cfg;
	struct sqp_compressor *c = NULL;
	int id;
	uint32_t bs;

	if (size < 3)
		return 0;
	id = data[0] % SQP_CODEC_MAX + 1;
	bs = 4096u << (data[1] % 9);
	if (!sqp_codec_available(id))
		return 0;
	sqp_codec_options_decode(&cfg, id, bs, data + 2,
				 size - 2 < SQP_CODEC_OPTIONS_MAX ? size - 2 :
				 SQP_CODEC_OPTIONS_MAX);
	if (sqp_codec_config_init(&cfg, id, bs) != 0 ||
	    sqp_compressor_create(&cfg, &c) != 0)
		return 0;
	sqp_decompress(c, data + 2, size - 2, out, bs);
	sqp_compressor_destroy(c);
	return 0;
}
