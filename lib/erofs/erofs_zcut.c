/* SPDX-License-Identifier: MIT */
/*
 * erofs_zcut.c - one compressed EROFS cluster's cut (erofs_zip_cut), on
 * a pool worker for its segment or on the caller's thread for a seam's
 * re-cut (erofs_zip.c says the rules), and the codec with its spare
 * room that each of those threads cuts with.
 *
 * Why a file of its own: the cut's tries (a window at a time, into the
 * inline room, into one block fewer) are where the codec's time goes,
 * apart from how segments become jobs and jobs become blocks.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "erofs/erofs_format.h"
#include "erofs/erofs_writer.h"
#include "erofs/erofs_zip.h"
#include "sqpack/error.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)

int erofs_zcodec_create(const struct erofs_wstate *e, struct erofs_zcodec *z)
{
	void *codec;
	unsigned i;
	int ret;

	z->spare = malloc(e->pcluster);
	if (z->spare == NULL)
		return SQP_ERR_NOMEM;
	for (i = 0; i < e->ncodec; i++) {
		codec = NULL;
		if ((ret = e->zdest[i]->create(&e->zcfg[i], e->pcluster, &codec)) != 0)
			return ret;
		z->codec[i] = codec;
	}
	return 0;
}

void erofs_zcodec_destroy(const struct erofs_wstate *e, struct erofs_zcodec *z)
{
	unsigned i;

	for (i = 0; i < e->ncodec; i++) {
		if (z->codec[i] != NULL)
			e->zdest[i]->destroy(z->codec[i]);
		z->codec[i] = NULL;
	}
	free(z->spare);
	z->spare = NULL;
}

static int frag_rest(struct erofs_pcl *p, uint32_t pos, uint32_t left)
{
	*p = (struct erofs_pcl){ .off = pos, .len = left, .frag = 1 };
	return 0;
}

/* A cluster of at most cap bytes from the *take bytes at in, offered to
 * the codec a window at a time: lz4's destSize scans on for a match past
 * what fits, so offered the rest of an incompressible 8 MiB segment it
 * read megabytes per 4 KiB cluster (lz4hc: 7.3 s of CPU for gcc-12's
 * 19 MB .deb, 0.4 s in windows). A window taken whole may not have been
 * enough, so it is offered again four times larger, up to all of it:
 * the cut still depends on the data alone (and the guess, the cluster
 * before in the job's cut: codec_dest.h). The first window is four
 * pclusters, or twice the guess where that is more: text that fills a
 * cluster from more took the first window whole, and that pass was
 * lost (lz4hc in 64 KiB clusters: 26 of rootfs-small's 3,117 clusters,
 * 6.6 MB read again). Where the guess is a pcluster or less (the
 * cluster before did not compress: .gz, .xz, images), the window is a
 * pcluster and a sixteenth: such input never fills a cluster from more
 * than it, and in four pclusters the scan for a match past what fits
 * ran on through most of the other three (lz4hc in 64 KiB clusters on
 * rootfs-small: 1,007 such tries, 125 MB offered for 42.6 MB taken, 1.21
 * CPU-s in liblz4; 55 MB and 0.76 s after, the same image). Only up to
 * NARROW_MAX: in larger clusters input that did not compress is more
 * often followed by a cluster that does, which takes the narrow window
 * whole and is compressed again from a wide one (lz4hc in 1 MiB
 * clusters: 8% more CPU than the wide window; at 64 KiB 7% less).
 * What a window offers past the cut costs lz4hc little: its parser
 * checks the room only when it emits a match, so it reads on to the
 * first match past a full cluster and no further (liblz4 1.9.4, its
 * state's nextToUpdate after each try, rootfs-small: at 1 MiB 240.8 MB
 * offered, 194.6 MB taken, 194.9 MB read, erofs-baseline's pass 194.5
 * MB; at 64 KiB 340 MB, 218 MB, 222.6 MB, of which 2.7 MB past the cut
 * of first windows that did not compress, 1.8 MB of narrow ones and
 * 2.2 MB in windows taken whole and tried again; most of the rest of
 * the 28 MB over erofs-baseline's 194.5 MB is erofs_seam.c's re-cut:
 * 70 MB read for the 50 MB of apt's Packages). */
#define NARROW_MAX 65536
static int zcompress(const struct codec_dest_ops *d, void *codec, const uint8_t *in,
		     size_t *take, size_t guess, uint8_t *out, size_t cap)
{
	size_t left = *take, w = 2 * guess > 4 * cap ? 2 * guess : 4 * cap;
	int n;

	if (guess > 0 && guess <= cap && cap <= NARROW_MAX)
		w = cap + cap / 16;
	if (w > left || d->reads_what_fits)
		w = left;
	for (;;) {
		*take = w;
		n = d->compress(codec, in, take, guess, out, cap);
		if (n < 0 || *take < w || w == left)
			return n;
		w = 4 * w < left ? 4 * w : left;
	}
}

/* The input expected to fill cap: as much as the job's last cluster
 * cut short by its room took for its size (0: none yet). */
static size_t zguess(const struct erofs_zjob *j, size_t cap)
{
	return j->guess_out > 0 ? (size_t)((uint64_t)j->guess_in * cap / j->guess_out) : 0;
}

/* ztailpacking: a cluster that took the whole rest of the file (n bytes
 * into blk, *take bytes of input) and uses its last block in part gives
 * that block back: compressed again into one block fewer, it leaves the
 * rest of the file for an inline tail, as mkfs.erofs does (on
 * rootfs-small with 64 KiB clusters the difference was 1.2% of the
 * image). A codec that can cut its block short (trim: lz4) does that
 * instead of compressing again. Returns the compressed size kept, or
 * < 0. */
static int shrink_last(const struct erofs_wstate *e, const struct erofs_zcodec *z,
		       const struct erofs_zjob *j, uint32_t pos, uint8_t *blk, size_t *take, int n)
{
	const struct codec_dest_ops *d = e->zdest[j->zc];
	uint32_t left = j->len - pos, blocks = ((uint32_t)n + BS - 1) / BS;
	size_t fewer = (size_t)(blocks - 1) * BS, t = left;
	int m;

	if (j->room == 0 || *take != left || blocks < 2 || (uint32_t)n % BS == 0)
		return n;
	/* Tried beside the first result, which stays in blk unless this
	 * one gains. */
	if (d->trim != NULL) {
		memcpy(z->spare, blk, (size_t)n);
		m = d->trim(j->in + pos, left, z->spare, (size_t)n, fewer, &t);
	} else {
		m = d->compress(z->codec[j->zc], j->in + pos, &t, *take * fewer / (size_t)n,
				z->spare, fewer);
	}
	if (m > 0 && t > fewer && t < left) {
		memcpy(blk, z->spare, (size_t)m);
		*take = t;
		return m;
	}
	return m < 0 ? m : n;
}

/* ztailpacking with deflate or zstd, whose search stops within 1/64:
 * a rest taken all but 1/32 is tried whole into the inline room. */
static int near_whole(const struct erofs_wstate *e, const struct erofs_zcodec *z,
		      const struct erofs_zjob *j, uint32_t pos, uint32_t cap, uint8_t *blk,
		      size_t *take, int n)
{
	size_t left = j->len - pos, t = left;

	if (n <= 0 || *take == left || j->room == 0 || left - *take > left / 32 ||
	    left > erofs_zip_most(e))
		return n;
	n = e->zdest[j->zc]->compress(z->codec[j->zc], j->in + pos, &t, 0, blk, j->room);
	if (n == 0 || (n > 0 && t < left))
		return zcompress(e->zdest[j->zc], z->codec[j->zc], j->in + pos, take,
				 zguess(j, cap), blk, cap);
	*take = t;
	return n;
}

/* One cluster at pos, of at most a pcluster: compressed if that takes
 * more input than its blocks, else the next block as it is. A try that
 * gains nothing says so of the input it covered (p->tried: what the
 * codec took, a pcluster when it took none): while a block or more of
 * that is left (up to until), the next block is stored as it is,
 * untried, as mkfs.erofs 1.9 stores such a try's input. A block's try
 * after each plain cluster instead, with a pcluster's again at runs of
 * 1, 2, 4, 8 and every 16, spent sixteen pclusters' tries on each
 * pcluster of incompressible input: lzma at 1 MiB took 20.7 s of CPU on
 * usr/share/doc's .gz files, mkfs.erofs 1.9.3 4.6 s. The file's last
 * bytes (a block or less) are stored as they are unless they cross into
 * another logical cluster: the kernel maps a PLAIN cluster up to the
 * end of the logical cluster where the file ends, which must stay
 * within its one block, so they are compressed whole, or cut at the
 * boundary. With ztailpacking a cluster taking the rest into the inline
 * room goes inline. */
int erofs_zip_cut(const struct erofs_wstate *e, const struct erofs_zcodec *z,
		  struct erofs_zjob *j, uint32_t pos, uint32_t until, uint8_t *blk,
		  struct erofs_pcl *p)
{
	uint32_t left = j->len - pos, room = BS - (uint32_t)((j->off + pos) % BS);
	/* most: erofs_zip_most; no cluster takes more, nor does a try
	 * that gains nothing cover more */
	uint32_t cap = j->cap, tried = 0, most = left < erofs_zip_most(e) ? left : erofs_zip_most(e);
	size_t take = most, span;
	int n = 0, untried = left > BS && until > pos && until - pos >= BS;

	p->off = pos;
	p->frag = 0;
	p->tried = 0;
	p->untried = 0;
	/* Every cluster before a fragment took more than its blocks' input
	 * or ended on a block boundary, so the fragment's head starts a
	 * logical cluster of its own, as an index needs. */
	if (j->frag && left <= j->cap)
		return frag_rest(p, pos, left);
	if (!untried && (left > BS || left > room)) {
		n = zcompress(e->zdest[j->zc], z->codec[j->zc], j->in + pos, &take,
			      zguess(j, cap), blk, cap);
		if (n > 0 && take < most) {
			j->guess_in = (uint32_t)take;
			j->guess_out = (uint32_t)n;
		}
		n = near_whole(e, z, j, pos, cap, blk, &take, n);
		if (n > 0 && take == left && left <= j->frag &&
		    ((uint32_t)n < cap || left <= EROFS_FRAG_TRY))
			return frag_rest(p, pos, left);
		if (n > 0)
			n = shrink_last(e, z, j, pos, blk, &take, n);
		tried = n > 0 ? (uint32_t)take : most < cap ? most : cap;
	} else if (left <= BS && j->room > 0) {
		n = e->zdest[j->zc]->compress(z->codec[j->zc], j->in + pos, &take, 0, blk,
					      j->room);
		if (n > 0 && (take < left || (uint32_t)n >= left))
			n = 0;
	}
	if (n < 0)
		return n;
	p->blocks = ((uint32_t)n + BS - 1) / BS;
	span = (size_t)p->blocks * BS;
	if (n > 0 && (take > span || (take == left && p->blocks == 1))) {
		memmove(blk + span - n, blk, (size_t)n);
		memset(blk, 0, span - (size_t)n);
		p->len = (uint32_t)take;
		p->clen = (uint32_t)n;
		p->plain = 0;
		return 0;
	}
	p->tried = tried;
	p->untried = untried;
	p->blocks = 1;
	p->len = left > BS ? BS : left < room ? left : room;
	memcpy(blk, j->in + pos, p->len);
	memset(blk + p->len, 0, BS - p->len);
	p->clen = p->len;
	p->plain = 1;
	return 0;
}
