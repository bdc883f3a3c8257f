/* SPDX-License-Identifier: MIT */
/*
 * proof_ring.c - the proof ring on a real image file and its writer
 * thread: decisions settle in order, whatever order their proofs finish
 * in, and only passed ones give their job back (a held one keeps it);
 * a refuted proof stops the settling at its decision, which hands back
 * its block and the state saved with it, and the decisions from it on
 * come back in order for the replay; a fragment fetch decompresses; and
 * when the image writer fails, the proofs waiting for it stop the job
 * with the writer's error, not a read error of their own.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "squashfs/sqfs_format.h"
#include "write/proof.h"
#include "check.h"

#define BS 4096

struct image {
	struct sqp_errbuf err;
	struct imgout out;
	struct sqp_writer_stats stats;
	struct proof_ring *ring;
	int released[32];              /* jobs given back, in order */
	int nreleased;
};

static void release(void *user, void *job)
{
	struct image *im = user;

	if (im->nreleased < 32)
		im->released[im->nreleased++] = *(int *)job;
}

static int open_image(struct image *im, int fd, const struct sqp_codec_config *cfg)
{
	struct proof_ring_desc d = {
		.workers = 2, .max_decisions = 4, .codec = cfg, .out = &im->out,
		.err = &im->err, .stats = &im->stats, .release = release, .user = im,
	};

	memset(im, 0, sizeof(*im));
	if (imgout_init(&im->out, fd, 0, &im->err) != 0 ||
	    imgout_start_async(&im->out, 16) != 0)
		return -1;
	return proof_ring_create(&d, &im->ring);
}

static void close_image(struct image *im)
{
	proof_ring_destroy(im->ring);
	imgout_stop_async(&im->out);
	imgout_cleanup(&im->out);
}

static int jobs[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };

/* A decision for block b with one proof: stored block (off, size_word)
 * holds raw. */
static void decide(struct image *im, uint32_t b, uint64_t off, uint32_t size_word,
		   const uint8_t *raw, const struct proof_undo *undo, int held)
{
	proof_begin(im->ring, b, &jobs[b], undo);
	CHECK(proof_deciding(im->ring), "decision %u open", b);
	CHECK(proof_submit(im->ring, PROOF_BLOCK, off, size_word, 0, raw, BS) == 0,
	      "submit %u", b);
	proof_end(im->ring, held);
}

static void settle_in_order(struct image *im, const uint8_t *a, uint32_t sw_a,
			    uint64_t off_a2)
{
	struct proof_undo u = { 0 }, got;
	uint32_t b;
	int i;

	for (i = 0; i < 4; ++i)
		decide(im, (uint32_t)i, i % 2 ? off_a2 : 0, sw_a, a, &u, i == 3);
	CHECK(proof_full(im->ring) && !proof_deciding(im->ring), "four open");
	CHECK(proof_settle(im->ring, 0) == 0 && im->nreleased == 1 &&
	      im->released[0] == 0, "settle one: %d released", im->nreleased);
	CHECK(proof_settle(im->ring, 1) == 0 && im->nreleased == 3 &&
	      im->released[1] == 1 && im->released[2] == 2,
	      "settle all: %d released", im->nreleased);
	CHECK(!proof_failed(im->ring, &b, &got) && !proof_full(im->ring), "all passed");
}

static void refuted(struct image *im, const uint8_t *a, const uint8_t *other,
		    uint32_t sw_a)
{
	struct proof_undo u = { 0 }, saved = { 1, 42, 5, 7, 9 }, got = { 0 };
	uint32_t b = 0;
	void *job;

	im->nreleased = 0;
	decide(im, 10, 0, sw_a, a, &u, 0);
	decide(im, 11, 0, sw_a, a, &u, 0);
	decide(im, 12, 0, sw_a, other, &saved, 0);
	decide(im, 13, 0, sw_a, a, &u, 0);
	CHECK(proof_settle(im->ring, 1) == 0 && im->nreleased == 2 &&
	      im->released[0] == 10 && im->released[1] == 11,
	      "settle stops at the refuted one: %d released", im->nreleased);
	CHECK(proof_failed(im->ring, &b, &got) && b == 12 && got.matching == 1 &&
	      got.cand == 42 && got.matched == 5 && got.rerouted == 7 &&
	      got.hashed == 9, "failed decision: block %u cand %u", b, got.cand);
	CHECK(proof_drain(im->ring) == 0, "drain");
	CHECK(proof_pop(im->ring, &b, &job) && b == 12 && job == &jobs[12], "pop 12");
	CHECK(proof_pop(im->ring, &b, &job) && b == 13 && job == &jobs[13], "pop 13");
	CHECK(!proof_pop(im->ring, &b, &job), "nothing left");
	CHECK(im->stats.proofs_on_workers == 8, "%llu proofs",
	      (unsigned long long)im->stats.proofs_on_workers);
}

static void fetch(struct image *im, const uint8_t *a, uint32_t sw_a)
{
	uint8_t *dst = malloc(BS);
	uint32_t len = 0;

	CHECK(dst != NULL && proof_fetch(im->ring, 0, sw_a, dst) == 0, "fetch");
	CHECK(proof_fetch_wait(im->ring, &len) == 0 && len == BS &&
	      memcmp(dst, a, BS) == 0 && !proof_fetch_busy(im->ring), "fetched %u", len);
	free(dst);
}

/* The image file is read-only: the writer thread fails. */
static void writer_fails(int ro_fd, const struct sqp_codec_config *cfg, const uint8_t *a)
{
	struct image im;
	struct proof_undo u = { 0 };
	int ret;

	CHECK(open_image(&im, ro_fd, cfg) == 0, "open read-only image");
	CHECK(imgout_queue(&im.out, a, BS, NULL) == 0, "queue");
	decide(&im, 0, 0, BS | SQFS_BLOCK_UNCOMPRESSED, a, &u, 0);
	ret = proof_settle(im.ring, 1);
	CHECK(ret < 0 && ret == im.err.code && im.nreleased == 0, "settle gives %d", ret);
	CHECK(strstr(im.err.msg, "writing the image") != NULL, "error: %s", im.err.msg);
	close_image(&im);
}

int main(void)
{
	char path[4096];
	const char *dir = getenv("TMPDIR");
	struct sqp_codec_config cfg;
	struct sqp_compressor *codec = NULL;
	uint8_t *a = malloc(BS), *other = malloc(BS), *packed = malloc(BS);
	struct image im;
	int id, n = 0, fd, ro_fd;
	size_t i;

	for (id = SQP_CODEC_MAX; id >= 1 && codec == NULL; --id) {
		if (sqp_codec_config_init(&cfg, id, BS) == 0 &&
		    sqp_compressor_create(&cfg, &codec) != 0)
			codec = NULL;
	}
	if (codec == NULL || a == NULL || other == NULL || packed == NULL) {
		fprintf(stderr, "skip: no codec or no memory\n");
		return 77;
	}
	for (i = 0; i < BS; ++i)
		a[i] = (uint8_t)"proofs settle in order "[i % 23];
	memcpy(other, a, BS);
	other[BS / 2] ^= 0x20;
	n = sqp_compress(codec, a, BS, packed, BS);
	snprintf(path, sizeof(path), "%s/proof_ring.XXXXXX", dir != NULL ? dir : "/tmp");
	fd = mkstemp(path);
	ro_fd = fd < 0 ? -1 : open(path, O_RDONLY);
	if (n <= 0 || fd < 0 || ro_fd < 0) {
		fprintf(stderr, "skip: no compressed block or no temporary file\n");
		return 77;
	}
	unlink(path);
	CHECK(open_image(&im, fd, &cfg) == 0, "open image");
	/* The block twice, compressed: at 0 and at n. */
	CHECK(imgout_queue(&im.out, packed, (size_t)n, NULL) == 0 &&
	      imgout_queue(&im.out, packed, (size_t)n, NULL) == 0, "queue");
	settle_in_order(&im, a, (uint32_t)n, (uint64_t)n);
	refuted(&im, a, other, (uint32_t)n);
	fetch(&im, a, (uint32_t)n);
	CHECK(im.err.code == 0, "error: %s", sqp_errmsg(&im.err));
	close_image(&im);
	writer_fails(ro_fd, &cfg, a);
	sqp_compressor_destroy(codec);
	close(fd);
	close(ro_fd);
	free(a);
	free(other);
	free(packed);
	return check_done();
}
