/* SPDX-License-Identifier: MIT */
/*
 * hooked_tar2img.c - tar2img's core loop with the writer's test hooks
 * (lib/write/writer_test.h), which the shipped tool does not offer.
 *
 *   hooked_tar2img [-c CODEC] [-j N] [-H HASH_BITS] [-F FAIL_JOB] [-M FAIL_META_JOB] [-P]
 *                  [-R FAIL_LOG_READ] [-V] [-E OPTIONS] OUTPUT INPUT.tar
 *
 * -V appends a dm-verity tree (4 KiB blocks), so that the data path's
 * jobs include the hash jobs of its spans, which -F counts like the
 * others (tests/verity/hashfail.sh).
 * -P prints the dedup proofs' counters (read-backs on the proof workers,
 * refuted, files replayed, blocks and tails hashed, runs rerouted) on
 * success. -E writes EROFS (4 KiB blocks) with OPTIONS, words among
 * dedupe, ztailpacking and fragments (tar2img's --erofs-dedupe ...)
 * and chunks (--chunk-size 4K); with it, -c none stores the data as it
 * is. -R fails the Nth read of an EROFS fragment log from its file.
 * CODEC at its default level (zstd unless told, as tar2img), 128 KiB blocks, superblock
 * time 0.
 * Like tar2img it writes through sqp_outfile, so a failure leaves nothing
 * behind, prints "hooked_tar2img: OUTPUT: why" and exits 1.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sqpack/sqpack.h"
#include "write/writer_test.h"

static int usage(void)
{
	fprintf(stderr, "usage: hooked_tar2img [-c CODEC] [-j N] [-H BITS] [-F JOB] [-M JOB] [-P] [-R READ] [-V] [-E OPTIONS] OUTPUT INPUT\n");
	return 2;
}

static int pack(struct sqp_writer_desc *desc, const struct writer_test_hooks *hooks,
		const char *output, int in_fd, struct sqp_outfile *of, int show_proofs)
{
	struct sqp_writer_stats st = { .struct_size = sizeof(st) };
	struct sqp_tar_reader_desc rd = { .struct_size = sizeof(rd), .fd = in_fd, .name = "input" };
	struct sqp_tar_reader *r = NULL;
	struct sqp_writer *w = NULL;
	int ret;

	desc->fd = sqp_outfile_fd(of);
	ret = sqp_tar_reader_create(&rd, &r);
	if (ret == 0)
		ret = writer_create_hooked(desc, hooks, &w);
	if (ret == 0)
		ret = sqp_writer_add_tar(w, r);
	if (ret == 0)
		ret = sqp_writer_finish(w);
	if (ret == 0)
		ret = sqp_outfile_commit(of);
	if (ret == 0 && show_proofs && (ret = sqp_writer_get_stats(w, &st)) == 0) {
		printf("proofs: %llu on workers, %llu refuted, %llu files replayed; "
		       "%llu hashed, %llu rerouted\n",
		       (unsigned long long)st.proofs_on_workers,
		       (unsigned long long)st.dedup_rejected,
		       (unsigned long long)st.proofs_replayed,
		       (unsigned long long)st.hashed,
		       (unsigned long long)st.dedup_rerouted);
	}
	if (ret != 0)
		fprintf(stderr, "hooked_tar2img: %s: %s\n", output,
			w != NULL ? sqp_writer_error(w) :
			r != NULL ? sqp_tar_reader_error(r) : sqp_strerror(ret));
	sqp_writer_destroy(w);
	sqp_tar_reader_destroy(r);
	return ret == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct writer_test_hooks hooks = { 0 };
	struct sqp_writer_desc desc = { .struct_size = sizeof(desc), .jobs = 1 };
	struct sqp_verity_desc vd = { .struct_size = sizeof(vd), .block_size = 4096 };
	struct sqp_outfile *of = NULL;
	int c, in_fd, ret, codec = SQP_CODEC_ZSTD, show_proofs = 0;
	uint32_t block = 128 * 1024;

	while ((c = getopt(argc, argv, "c:j:H:F:M:PR:VE:")) != -1) {
		switch (c) {
		case 'c': codec = strcmp(optarg, "none") == 0 ? 0 : sqp_codec_by_name(optarg); break;
		case 'j': desc.jobs = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'H': hooks.hash_bits = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'F': hooks.fail_job = strtoull(optarg, NULL, 10); break;
		case 'M': hooks.fail_meta_job = strtoull(optarg, NULL, 10); break;
		case 'P': show_proofs = 1; break;
		case 'R': hooks.fail_log_read = strtoull(optarg, NULL, 10); break;
		case 'V': desc.verity = &vd; break;
		case 'E':
			desc.format = SQP_FORMAT_EROFS;
			block = 4096;
			desc.flags |= (strstr(optarg, "dedupe") ? SQP_WRITE_EROFS_DEDUPE : 0) |
				      (strstr(optarg, "ztailpacking") ? SQP_WRITE_EROFS_ZTAILPACKING : 0) |
				      (strstr(optarg, "fragments") ? SQP_WRITE_EROFS_FRAGMENTS : 0);
			desc.erofs_chunk_size = strstr(optarg, "chunks") ? 4096 : 0;
			break;
		default: return usage();
		}
	}
	if (argc - optind != 2 || desc.jobs == 0 || hooks.hash_bits > 63 || codec < 0)
		return usage();
	if (codec == 0) /* EROFS's data stored as it is */
		desc.codec.block_size = block;
	else if (sqp_codec_config_init(&desc.codec, codec, block) != 0)
		return 1;
	in_fd = open(argv[optind + 1], O_RDONLY | O_CLOEXEC);
	if (in_fd < 0) {
		perror(argv[optind + 1]);
		return 1;
	}
	ret = sqp_outfile_create(argv[optind], 1, &of);
	if (ret == 0)
		ret = pack(&desc, &hooks, argv[optind], in_fd, of, show_proofs);
	else
		fprintf(stderr, "hooked_tar2img: %s\n", of ? sqp_outfile_error(of) : sqp_strerror(ret));
	sqp_outfile_destroy(of);
	close(in_fd);
	return ret == 0 ? 0 : 1;
}
