/* SPDX-License-Identifier: MIT */
/*
 * prefetch_ways.c - sqpack-fuse's prefetch (fuse_ahead.c) for files read
 * without an open file (the kernel's no-open: FS_NO_OPEN), where its
 * state of each file lives in a few slots found by the file's hash.
 * Four files whose hashes meet, read in order in turns, one chunk each
 * a turn (readers in parallel, as a loop's threads are): each must be
 * prefetched for. Where the slot went to the file read last, each read
 * reset the others' state and none was. A file read at random before
 * them is never prefetched for (the one loader takes the queue in
 * order: once the four are served, a chunk of it queued would have
 * been too). Run under TSan by threads.sh. Exit 0, or 1 with the
 * reasons on stderr.
 */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include "fuse_ahead.h"

#define CHUNK 4096u
#define CHUNKS 100u
#define MEET 4          /* files whose hashes meet */
#define TURNS 6

static atomic_uint loaded[MEET + 1];
static uint64_t refs[MEET + 1];

static void load(void *user, uint64_t ref, uint64_t idx, uint64_t size)
{
	(void)user;
	(void)idx;
	(void)size;
	for (unsigned i = 0; i <= MEET; i++)
		if (refs[i] == ref)
			atomic_fetch_add(&loaded[i], 1);
}

/* fuse_ahead.c's hash, its top 6 bits: files equal there met in one
 * slot before and meet in one set now. */
static unsigned top6(uint64_t ref)
{
	return (unsigned)((ref * 0x9E3779B97F4A7C15u) >> 58);
}

int main(void)
{
	struct timespec ms = { 0, 1000000 };
	struct ahead *a;
	unsigned n = 0, waited = 0, bad = 0;

	/* Refs from 2 (fuse_fs.h: node ids are refs plus 2) whose hashes
	 * meet; the random reader's in another set. */
	for (uint64_t r = 2; n < MEET; r++)
		if (top6(r) == top6(2))
			refs[n++] = r;
	for (refs[MEET] = 3; top6(refs[MEET]) >> 2 == top6(2) >> 2;)
		refs[MEET]++;
	if (ahead_create(load, NULL, 1, CHUNK, (uint64_t)1 << 30, &a) != 0 ||
	    a == NULL) {
		fprintf(stderr, "prefetch_ways: no prefetch made\n");
		return 1;
	}
	for (unsigned c = 0; c < TURNS; c++)       /* jumps: no streak */
		ahead_read(a, NULL, refs[MEET], CHUNK * CHUNKS,
			   (c * 37) % CHUNKS, (c * 37) % CHUNKS);
	for (unsigned t = 0; t < TURNS; t++)
		for (unsigned i = 0; i < MEET; i++)
			ahead_read(a, NULL, refs[i], CHUNK * CHUNKS, t, t);
	/* The loader's work, waited for: 10 s at most, where it takes
	 * microseconds. */
	for (unsigned i = 0; i < MEET; i++)
		while (atomic_load(&loaded[i]) == 0 && waited < 10000) {
			nanosleep(&ms, NULL);
			waited++;
		}
	ahead_destroy(a);
	for (unsigned i = 0; i < MEET; i++)
		if (atomic_load(&loaded[i]) == 0) {
			fprintf(stderr, "prefetch_ways: file %u of %u whose "
				"hashes meet, read in order: nothing "
				"prefetched\n", i + 1, MEET);
			bad = 1;
		}
	if (atomic_load(&loaded[MEET]) != 0) {
		fprintf(stderr, "prefetch_ways: a file read at random: %u "
			"chunks prefetched\n", atomic_load(&loaded[MEET]));
		bad = 1;
	}
	return bad;
}
