/* SPDX-License-Identifier: MIT */
/*
 * erofs_seam.c - the seams between the segments of a compressed EROFS
 * file (erofs_w_segment): the re-cut that lets a cluster run on across
 * one.
 *
 * Why: segments are cut in parallel, so segment k's last cluster stops
 * at the seam, where a serial cut would have filled it further, and
 * segment k+1 starts a fresh one: about 0.6 block lost per seam (21 on
 * rootfs-big, whose lz4hc image was 11 blocks larger than mkfs.erofs's).
 * So k's last cluster is held back, and once k+1 is cut the caller's
 * thread cuts again from that cluster's start on through k+1's data,
 * and after each cluster tries to join k+1's own cut: at once where a
 * cluster start of k+1 is the re-cut's, else through a bridge, the
 * bytes up to k+1's next cluster start as one cluster. The first way
 * that takes fewer blocks than the held cluster and k+1's clusters it
 * replaces is stored, then k+1's clusters from there on. When k+1 ends
 * the file without an inline tail or a fragment the re-cut may run on
 * to the end. The invariant: every choice depends on the file's bytes
 * alone (k's cut, k+1's cut, the re-cut), never on -j or timing, and a
 * seam never takes more blocks than without the re-cut. Bounded: a held
 * cluster of at most EROFS_SEAM_HOLD bytes of input, a re-cut of one
 * segment at most (lzma's: recut_budget), on buffers allocated once.
 *
 * Where the re-cut stops: it saves a block only by getting a whole
 * cluster ahead of k+1's cut. Once one of its clusters ends where one
 * of k+1's does, with as many blocks, it cannot any more: from there
 * it would cut k+1's clusters again (lz4's and lzma's cut depends on
 * where it starts alone; zstd's and deflate's on the cluster before
 * too, through the guess, so theirs might differ by chance). That is
 * how most re-cuts in 4 KiB clusters end (on rootfs-big's four largest
 * files, 136 MB: lz4hc re-cut 71.4 MB of input at 12 seams before,
 * 37.2 MB since, for the same 5 blocks saved; lz4 54.8 MB, 30.7 MB).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "codec/codec_dest.h"
#include "erofs/erofs_format.h"
#include "erofs/erofs_zip.h"
#include "sqpack/error.h"
#include "write/writer_impl.h"

/* The image's block size (512 to 4096): each use has its e. */
#define BS (e->bs)

struct erofs_seam {
	struct erofs_zcodec z;  /* the caller's thread's own */
	int held;               /* a cluster is held back */
	uint64_t at;            /* its place in the file */
	uint32_t until;         /* its cut's until (erofs_zip_cut), from
	                         * its start */
	struct erofs_pcl p;
	uint8_t *in;            /* its input (EROFS_SEAM_HOLD bytes) */
	uint8_t *blk;           /* its blocks (a pcluster) */
	uint8_t *out;           /* the re-cut's blocks */
	struct erofs_pcl *pcl;  /* and clusters */
};

int erofs_seam_init(struct sqp_writer *w)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_seam *s = calloc(1, sizeof(*s));
	size_t most = (size_t)EROFS_SEAM_HOLD + e->seg;
	int ret;

	e->seam = s;
	if (s == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	if ((ret = erofs_zcodec_create(e, &s->z)) != 0)
		return writer_fail(w, ret, "EROFS: starting the compressor: %s", sqp_strerror(ret));
	s->in = malloc(EROFS_SEAM_HOLD);
	s->blk = malloc(e->pcluster);
	/* The re-cut covers at most the held input and a segment; each of
	 * its clusters takes more input than its blocks or a block as it
	 * is, but the last two (a block or less left), and the last one cut
	 * may write a pcluster past that. */
	s->out = malloc(most + 2 * BS + e->pcluster);
	s->pcl = malloc((most / BS + 2) * sizeof(*s->pcl));
	if (s->in == NULL || s->blk == NULL || s->out == NULL || s->pcl == NULL)
		return writer_fail(w, SQP_ERR_NOMEM, "out of memory");
	return 0;
}

void erofs_seam_cleanup(struct sqp_writer *w)
{
	struct erofs_seam *s = erofs_of(w)->seam;

	if (s == NULL)
		return;
	erofs_zcodec_destroy(erofs_of(w), &s->z);
	free(s->in);
	free(s->blk);
	free(s->out);
	free(s->pcl);
	free(s);
	erofs_of(w)->seam = NULL;
}

/* Holds the last of n clusters cut in a row (pcl) from until on, which
 * starts at byte at of the file, its input at in and its blocks at blk;
 * 0 when it is too long to hold. */
static int hold(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *pcl, uint32_t n,
		uint32_t until, const uint8_t *in, const uint8_t *blk)
{
	const struct erofs_wstate *e = erofs_of(w);
	struct erofs_seam *s = e->seam;
	const struct erofs_pcl *p = &pcl[n - 1];
	uint32_t i;

	if (p->len > EROFS_SEAM_HOLD)
		return 0;
	s->held = 1;
	s->at = at;
	for (i = 0; i + 1 < n; i++)
		until = erofs_zip_until(&pcl[i], until);
	s->until = until > p->off ? until - p->off : 0;
	s->p = *p;
	memcpy(s->in, in, p->len);
	memcpy(s->blk, blk, (size_t)p->blocks * BS);
	return 1;
}

/* The packed inode's seams are not re-cut with a costly cut (lzma's,
 * deflate's): there the re-cut cost much and saved little. With
 * -Eall-fragments every file's data is in the packed inode, so every
 * seam of the image is one of its seams, and in 1 MiB clusters each
 * re-cut (the held cluster's input again, a cluster of fixed output
 * that may take several MiB, bridges) ran 1 to 8 MiB through lzma:
 * CoreOS's line (lzma 6 in 1 MiB clusters, 1.08x the codec's limit)
 * on rootfs-big re-cut 9 seams, 19.2 CPU-s on the caller's thread, and
 * saved 38 blocks at one (0.05% of the image, which without them is
 * still 0.9986 of mkfs.erofs 1.9.3's, whose segments have no re-cut).
 * Deflate with all-fragments on rootfs-small, in 64 KiB and in 1 MiB
 * clusters: about 5% of the CPU, for a block each. On a worker the
 * re-cut would keep those blocks but not its cost: every core is busy
 * compressing segments, so its CPU is wall time whichever thread spends
 * it. A file's own seams are still re-cut: their re-cut stays within
 * recut_budget's share of the work, and in 4 KiB clusters it is where
 * the blocks were (this file's head). */
int erofs_seam_hold(struct sqp_writer *w, const struct erofs_zjob *j, uint32_t at_blk)
{
	const struct erofs_wstate *e = erofs_of(w);
	const struct erofs_pcl *p = &j->pcl[j->npcl - 1];

	if (e->frag.packing && e->zdest[j->zc]->costly_cut)
		return 0;
	return hold(w, j->off + p->off, j->pcl, j->npcl, 0, j->in + p->off,
		    j->out + (size_t)at_blk * BS);
}

int erofs_seam_flush(struct sqp_writer *w)
{
	struct erofs_seam *s = erofs_of(w)->seam;

	if (!s->held)
		return 0;
	s->held = 0;
	return erofs_zip_put(w, s->at, &s->p, s->in, s->blk);
}

/* A bridge: the bytes from x to y of in as one compressed cluster into
 * blk, with j's codec; 0 when they are more than a cluster may take
 * (erofs_zip_most) or do not fit one of j's pclusters in fewer blocks
 * than they span (so that two cluster starts never share a logical
 * cluster). */
static int bridge(struct sqp_writer *w, const struct erofs_zjob *j, const uint8_t *in,
		  uint32_t x, uint32_t y, uint8_t *blk, struct erofs_pcl *p)
{
	struct erofs_wstate *e = erofs_of(w);
	size_t take = y - x, span;
	int n;

	if (take > erofs_zip_most(e))
		return 0;
	n = e->zdest[j->zc]->compress(e->seam->z.codec[j->zc], in + x, &take, 0, blk, j->cap);
	if (n < 0)
		return writer_fail(w, n, "EROFS: compressing: %s", sqp_strerror(n));
	span = ((size_t)n + BS - 1) / BS * BS;
	if (n == 0 || take != y - x || take <= span)
		return 0;
	memmove(blk + span - n, blk, (size_t)n);
	memset(blk, 0, span - (size_t)n);
	*p = (struct erofs_pcl){ .off = x, .len = y - x, .blocks = (uint32_t)(span / BS),
				 .clen = (uint32_t)n };
	return 1;
}

/* The bytes that the input from x to y (offsets in the view: the held
 * input, then j's) took in the cut that the re-cut replaces, each
 * cluster's share by its input: j's first cluster at or past x is k,
 * its first at y end. A bridge over them compresses about as well (a
 * share of a cluster, alone, a little worse), so this says whether it
 * may fit at all. */
static uint64_t cut_bytes(const struct erofs_seam *s, const struct erofs_zjob *j,
			  uint32_t x, uint32_t y, uint32_t k, uint32_t end)
{
	uint32_t h = s->p.len, i = k > 0 ? k - 1 : 0, from, to;
	uint64_t sum = 0;

	if (x < h)
		sum += (uint64_t)s->p.clen * (h - x) / h;
	for (; i < end; i++) {
		from = j->pcl[i].off + h > x ? j->pcl[i].off + h : x;
		to = j->pcl[i].off + h + j->pcl[i].len < y ? j->pcl[i].off + h + j->pcl[i].len : y;
		if (to > from)
			sum += (uint64_t)j->pcl[i].clen * (to - from) / j->pcl[i].len;
	}
	return sum;
}

/* Where the re-cut stands: m clusters of nblk blocks up to x (offsets
 * in the view: the held input, then j's); j's first cluster at or past
 * x is k, and old the blocks it replaces so far (the held cluster's and
 * those of j's before k). */
struct seam_walk {
	uint32_t m, nblk, x, k, old;
};

/* The bytes that blocks take, the last cluster's (last) inline when j
 * has room for it. */
static uint64_t tail_cost(const struct erofs_wstate *e, const struct erofs_zjob *j,
			  const struct erofs_pcl *last, uint32_t blocks)
{
	uint32_t inl = erofs_pcl_inline(last, j->room);

	return (uint64_t)blocks * BS - (inl > 0 ? (uint64_t)last->blocks * BS - inl : 0);
}

/* Whether the re-cut joins j's cut at k with fewer blocks than it
 * replaces: at once when k starts at x, else through a bridge to j's
 * next cluster start a block or more away (then s->pcl[m]). At j's end
 * fewer bytes, with an inline tail either side where j has room (only
 * when it ends the file; else the bytes are the blocks). */
static int joins(struct sqp_writer *w, const struct erofs_zjob *j, const uint8_t *in,
		 struct seam_walk *a)
{
	const struct erofs_wstate *e = erofs_of(w);
	struct erofs_seam *s = e->seam;
	uint32_t h = s->p.len, k, old;
	int ret;

	for (; a->k < j->npcl && j->pcl[a->k].off + h < a->x; a->k++)
		a->old += j->pcl[a->k].blocks;
	if (a->x == h + j->len)
		return tail_cost(e, j, &s->pcl[a->m - 1], a->nblk) <
		       tail_cost(e, j, &j->pcl[j->npcl - 1], a->old);
	if (a->k < j->npcl && j->pcl[a->k].off + h == a->x)
		return a->nblk < a->old;
	for (k = a->k, old = a->old; k < j->npcl && j->pcl[k].off + h - a->x <= BS; k++)
		old += j->pcl[k].blocks;
	/* A bridge costs a block at least, and is not tried where the cut
	 * it replaces packed its input into more than the blocks it may
	 * take: each try costs the codec a bridge's input, at each step of
	 * the re-cut. With lz4hc in 1 MiB clusters and fragments the packed
	 * inode's seams tried 256 bridges of 1 MiB of input that barely
	 * compresses, 3.3 s of CPU on rootfs-small's caller's thread, 0.1 s
	 * since; in 64 KiB clusters 0.98 s became 0.69 s, the images the
	 * same. */
	if (k == j->npcl || a->nblk + 1 >= old ||
	    cut_bytes(s, j, a->x, j->pcl[k].off + h, a->k, k) > (uint64_t)(old - a->nblk - 1) * BS)
		return 0;
	ret = bridge(w, j, in, a->x, j->pcl[k].off + h, s->out + (size_t)a->nblk * BS, &s->pcl[a->m]);
	if (ret <= 0 || a->nblk + s->pcl[a->m].blocks >= old)
		return ret < 0 ? ret : 0;
	a->k = k;
	a->old = old;
	a->nblk += s->pcl[a->m].blocks;
	a->m++;
	return 1;
}

/* Whether the re-cut may run on to the file's end, replacing all of j:
 * when j ends the file without a fragment, whose cuts are j's own. An
 * inline tail the re-cut makes itself: a serial cut's last cluster may
 * be short enough to go inline where j's filled a block (cc1plus, with
 * lz4hc in 4 KiB clusters: a block more than mkfs.erofs's). */
static int to_end(const struct erofs_zjob *j)
{
	return j->last && !j->frag;
}

/* Whether the re-cut has fallen in step with j's cut: a cluster of j
 * starts where the re-cut stands, which joins() found no block ahead. */
static int in_step(const struct erofs_zjob *j, const struct seam_walk *a, uint32_t h)
{
	return a->k < j->npcl && j->pcl[a->k].off + h == a->x;
}

/* The most of j's input that the re-cut covers. A costly cut (the
 * codec table's costly_cut: lzma's) is the codec's whole cost (its
 * fixed-output call is one pass, as mkfs.erofs 1.9.3's, which has no
 * re-cut), so a re-cut spends as much again on each byte it covers,
 * for about a block in five seams: on rootfs-big's four largest files
 * in 4 KiB clusters it re-cut 63 MB of their 136 MB at 12 seams for 2
 * blocks. So it covers a share of the segment, 1/EROFS_W_SEG_PCLUSTERS
 * (256 KiB, or one 1 MiB cluster's input: a few percent of the codec's
 * time). The others' covers the whole segment where it may run on to
 * the file's end (to_end), where a serial cut ended otherwise than j's
 * (with 8 MiB segments, lz4hc in 64 KiB clusters, text of 12 MiB, which
 * mkfs.erofs cuts as one segment: a block), else a quarter of it
 * (2 MiB, lz4's 4; 8 MiB with 1 MiB pclusters): in 4 KiB clusters a
 * re-cut falls in step with j's cut well within that, in 64 KiB ones never, and ran the whole
 * segment for a block found by chance (lz4hc, rootfs-small's Packages
 * file of 50 MB: its 5 seams of 8 MiB segments re-cut 58 MB, 1.0 s of
 * CPU on the caller's thread, a sixth of the pack). */
static uint32_t recut_budget(const struct erofs_wstate *e, const struct erofs_zjob *j)
{
	uint32_t seg = erofs_w_segment(j->cap, e->zdest[j->zc]->erofs_alg);

	if (e->zdest[j->zc]->costly_cut)
		return seg / EROFS_W_SEG_PCLUSTERS;
	return to_end(j) ? seg : seg / 4;
}

/* Whether a costly cut's re-cut (recut_budget) may still save a block
 * after its first cluster: it saves one only by getting a whole cluster
 * of j's ahead of j's cut, and it stands ahead by what its first
 * cluster took past the held input (the held cluster's room, filled),
 * which the clusters after it keep about as it is: j's cut and the
 * re-cut fill clusters of the same data alike. Less than a quarter of
 * j's first cluster ahead, it goes no further. On rootfs-small's var/
 * (lzma 9 extreme in 4 KiB clusters, archiso's line) 2 of 5 seams,
 * their held clusters 518 and 633 bytes short of a block, stood 1,644
 * and 2,088 bytes ahead (a block of that text holds 12 KB and more)
 * and ran 290 KB each for nothing; the one seam that saved a block
 * stood a whole cluster ahead from the first. Measured, not estimated
 * from the held cluster's room: data that packs tighter past the seam
 * (a run of zeros) takes more of it in. The cost: a block that such a
 * re-cut finds by chance, at the file's end or where j's clusters
 * shorten (text of 8 MiB and 20,000 bytes in seams.sh: one). */
static int ahead_enough(const struct erofs_wstate *e, const struct erofs_zjob *j,
			const struct seam_walk *a, uint32_t h)
{
	return a->m != 1 || !e->zdest[j->zc]->costly_cut || j->pcl[0].plain ||
	       (a->x > h && 4 * (uint64_t)(a->x - h) >= j->pcl[0].len);
}

/* The re-cut from the held cluster's start on through j's data (the
 * held input put back in front of it) into s->out and s->pcl, a
 * cluster at a time, until it joins j's cut with a block or more saved
 * (1), or passes j's last cluster start (0; the file's end for to_end),
 * falls in step with j's cut, has covered its budget or is not ahead
 * enough to gain (0). */
static int recut(struct sqp_writer *w, struct erofs_zjob *j, struct seam_walk *a)
{
	struct erofs_wstate *e = erofs_of(w);
	struct erofs_seam *s = e->seam;
	uint32_t h = s->p.len, until = s->until;
	uint32_t most = h + recut_budget(e, j);
	struct erofs_zjob v;
	struct erofs_pcl *p;
	int ret;

	memcpy(j->in - h, s->in, h);
	/* j's data with the held input before it, as one segment with no
	 * fragment (that is tried on j's own cut), and j's inline room. */
	v = (struct erofs_zjob){ .in = j->in - h, .len = h + j->len, .off = s->at,
				 .room = to_end(j) ? j->room : 0, .zc = j->zc, .cap = j->cap };
	*a = (struct seam_walk){ .old = s->p.blocks };
	for (;;) {
		if ((ret = joins(w, j, v.in, a)) != 0)
			return ret;
		if (a->x == v.len || (a->k == j->npcl && !to_end(j)) || in_step(j, a, h) ||
		    a->x >= most || !ahead_enough(e, j, a, h))
			return 0;
		p = &s->pcl[a->m];
		ret = erofs_zip_cut(e, &s->z, &v, a->x, until, s->out + (size_t)a->nblk * BS, p);
		if (ret < 0)
			return writer_fail(w, ret, "EROFS: compressing: %s", sqp_strerror(ret));
		a->m++;
		a->nblk += p->blocks;
		a->x += p->len;
		until = erofs_zip_until(p, until);
	}
}

int erofs_seam_join(struct sqp_writer *w, struct erofs_zjob *j, uint32_t *first,
		    uint32_t *at_blk)
{
	const struct erofs_wstate *e = erofs_of(w);
	struct erofs_seam *s = e->seam;
	const uint8_t *in = j->in - s->p.len, *blk;
	uint64_t base = s->at;
	struct seam_walk a;
	uint32_t i, b = 0, inl = 0, until = s->until;
	int ret;

	*first = 0;
	*at_blk = 0;
	if (!s->held)
		return 0;
	s->held = 0;
	if ((ret = recut(w, j, &a)) < 0)
		return ret;
	if (ret == 0)
		return erofs_zip_put(w, s->at, &s->p, s->in, s->blk);
	/* Run on through all of j, the re-cut's last cluster goes inline
	 * when j ends the file and it fits, else is held for the next seam
	 * as j's own would have been. */
	if (a.k == j->npcl && j->last)
		inl = erofs_pcl_inline(&s->pcl[a.m - 1], j->room);
	for (i = 0; i < a.m; b += s->pcl[i++].blocks) {
		blk = s->out + (size_t)b * BS;
		if (i + 1 == a.m && inl > 0)
			ret = erofs_zip_inline(w, base + s->pcl[i].off, &s->pcl[i], blk, inl);
		else if (i + 1 == a.m && a.k == j->npcl && !j->last &&
			 hold(w, base + s->pcl[i].off, s->pcl, a.m, until, in + s->pcl[i].off, blk))
			ret = 0;
		else
			ret = erofs_zip_put(w, base + s->pcl[i].off, &s->pcl[i], in + s->pcl[i].off, blk);
		if (ret != 0)
			return ret;
	}
	for (i = 0; i < a.k; i++)
		*at_blk += j->pcl[i].blocks;
	*first = a.k;
	return 0;
}
