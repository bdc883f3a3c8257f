/* SPDX-License-Identifier: MIT */
/*
 * erofs_zip.h - what erofs_zip.c (the compressed data path),
 * erofs_seam.c (the re-cut at the seams of its segments) and
 * erofs_zidx.c (a file's index record as its clusters are stored) share:
 * a segment's job and its clusters, one cluster's cut, one cluster's
 * storing; and erofs_dedup.c's part in that storing.
 */
#ifndef SQP_WRITE_EROFS_ZIP_H
#define SQP_WRITE_EROFS_ZIP_H

#include <stdint.h>

#include "erofs/erofs_writer.h"
#include "util/pool.h"

/* The most input of a segment's last cluster that is held back for the
 * next segment's re-cut: each job's input buffer has this much room in
 * front of the segment, where the held bytes are put back. */
#define EROFS_SEAM_HOLD (1u << 20)
/* The most a segment takes in a job's own buffers; a larger one borrows
 * a big set (the writer's largest segment, e->seg bytes). */
#define EROFS_ZIP_SMALL (256u << 10)

struct erofs_pcl {
	uint32_t off, len;  /* in the segment */
	uint32_t blocks;
	uint32_t clen;      /* its bytes: compressed, or len when plain */
	int plain;
	int frag;           /* the rest of the file, to the packed inode */
	uint32_t tried;     /* plain after the codec's try: the input that
	                     * try covered (0: none) */
	int untried;        /* plain within such input, the codec not run */
};

/* The bytes of a file's last cluster p that go inline, where room bytes
 * are free after its record: all of them, or none. */
static inline uint32_t erofs_pcl_inline(const struct erofs_pcl *p, uint32_t room)
{
	return p->clen <= room ? p->clen : 0;
}

/* A job's buffers: a small set of its own, or one of the few big sets
 * that segments of more than EROFS_ZIP_SMALL bytes (and every segment of
 * a file of several) borrow. */
struct erofs_zbuf {
	uint8_t *in_buf;     /* EROFS_SEAM_HOLD bytes (big sets) before in */
	uint8_t *in, *out;
	struct erofs_pcl *pcl;
	struct erofs_zbuf *next; /* free big sets */
};

struct erofs_zjob {
	struct sqp_pool_job pj;
	struct fs_irec *ino;
	uint64_t size, off;  /* the file's size, the segment's place */
	uint32_t len, xsize, rec;
	int first, last;
	uint32_t frag;       /* last segment, fragments: the most its rest may
			      * take as one (0: no fragment) */
	uint32_t room;       /* last segment, ztailpacking: inline bytes free */
	/* last segment: the file's end after it, a fragment already at
	 * cut_off of the whole files' log (erofs_frag.c's split), not
	 * compressed (0: none) */
	uint64_t cut, cut_off;
	uint8_t *in, *out;   /* len bytes; nblk blocks (room for a pcluster more) */
	struct erofs_pcl *pcl;
	struct erofs_zbuf small; /* its own buffers */
	struct erofs_zbuf *big;  /* or a big set's, while it holds one */
	uint32_t npcl, nblk;
	/* The last cluster its cut filled (its input and compressed size;
	 * 0: none yet), where the next one's search starts: the cut runs
	 * in order within the job, so that depends on the data alone. */
	uint32_t guess_in, guess_out;
	uint64_t key;        /* dedup: the first segment's hash */
	unsigned zc;         /* the file's codec (e->zdest index) */
	uint32_t cap;        /* and the most bytes of its pclusters */
};

/* Fragments: the rest of a file goes to the packed inode when it is a
 * pcluster or less, or when it compresses whole into less than one, as
 * mkfs.erofs 1.9 decides, whatever its length (within its segment): a
 * last pcluster in part empty costs half a block on average, and the
 * packed inode compresses the rest with its neighbours' (with zstd at
 * 64 KiB on rootfs-small 0.8% of the image). Or, as before, into one
 * from at most EROFS_FRAG_TRY bytes, when the tail log has room for no
 * more (erofs_zip_add). */
#define EROFS_FRAG_TRY (16u * EROFS_W_BLOCK)

/* What one file's fragment reserves of the tail log at the least (the
 * most a tail of the rule before may take; erofs_zip.c reserves a last
 * segment's length when that fits), so that the log stays under 4 GiB. */
uint32_t erofs_frag_max(const struct erofs_wstate *e);
/* With ztailpacking, the bytes free for an inline last pcluster after
 * the record of a file of nlc logical clusters and xsize bytes of
 * xattrs (0: none, or fragments take tails instead). */
uint32_t erofs_zip_tail_room(const struct sqp_writer *w, uint64_t nlc, uint32_t xsize);

/* A compressing thread's codec, and a pcluster of room where a cut
 * keeps one result while it tries another: compressing it again would
 * cost the codec's whole run once more (lzma's tail-packing retries
 * were a third of the CPU with 1 MiB pclusters). */
struct erofs_zcodec {
	void *codec[EROFS_W_CODECS]; /* one of each of e->ncodec */
	uint8_t *spare;
};

/* erofs_zcut.c: a codec and its spare room, for e's pclusters. */
int erofs_zcodec_create(const struct erofs_wstate *e, struct erofs_zcodec *z);
void erofs_zcodec_destroy(const struct erofs_wstate *e, struct erofs_zcodec *z);

/* The most input a cluster of e's takes: --max-extent-bytes, and
 * EROFS_W_EXTENT whatever the segment. */
static inline uint32_t erofs_zip_most(const struct erofs_wstate *e)
{
	return e->max_extent < EROFS_W_EXTENT ? e->max_extent : EROFS_W_EXTENT;
}

/* until after cluster p: the end of the input its try covered when
 * that gained nothing, else as it was (erofs_zip_cut says why). */
static inline uint32_t erofs_zip_until(const struct erofs_pcl *p, uint32_t until)
{
	return p->tried > 0 ? p->off + p->tried : until;
}

/* erofs_zcut.c: one cluster of job j at pos into blk, cut with z (the
 * rules are in erofs_zip.c), where until is the end of the input that
 * the last try covered without gaining a block (erofs_zip_until). */
int erofs_zip_cut(const struct erofs_wstate *e, const struct erofs_zcodec *z,
		  struct erofs_zjob *j, uint32_t pos, uint32_t until, uint8_t *blk,
		  struct erofs_pcl *p);

/* erofs_zip.c: a compressed file of size bytes begun in f: its index
 * record allocated (its two head words zeroed) and named in f. 0 or an
 * error, latched. */
int erofs_zip_record(struct sqp_writer *w, uint64_t size, struct fs_inode *f);

/* erofs_zidx.c, for the current file (e->cur). put: store cluster p
 * that starts at byte at of the file, of input in (p->len bytes; NULL
 * when unknown): its index, then its blocks from blk (with dedup, named
 * where an equal earlier file or pcluster has them instead).
 * head_last: the index alone of the file's last cluster, whose bytes
 * go elsewhere (a fragment, an inline tail). rec: the k-th 8-byte
 * record of the file's index record. inline: the last pcluster's index,
 * its inl bytes (data is its blocks) into the tail arena, their place
 * and size into the record. finish: after the file's last cluster, the
 * indexes to its end and its blocks. */
int erofs_zip_put(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		  const uint8_t *in, const uint8_t *blk);
int erofs_zip_head_last(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p);
/* put_copy: as put, without dedup, the blocks copied from off of file
 * fd (erofs_w_copy, id its image's UUID) instead of read. */
int erofs_zip_put_copy(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		       const uint8_t *id, int fd, uint64_t off);
uint8_t *erofs_zip_rec(const struct erofs_wstate *e, uint64_t k);
int erofs_zip_inline(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		     const uint8_t *data, uint32_t inl);
int erofs_zip_finish(struct sqp_writer *w);

/* erofs_seam.c. init and cleanup: the caller's codec and buffers. hold:
 * whether segment j's last cluster (not the file's last) was kept back
 * for the next segment, instead of being stored. join: before the next
 * segment j's clusters are stored (j compressed), the held one or the
 * re-cut that replaces it and j's first clusters; *first is the first
 * of j's clusters still to store, *at_blk its first block in j->out.
 * flush: the held cluster stored as it is (j is stored as it is). */
int erofs_seam_init(struct sqp_writer *w);
void erofs_seam_cleanup(struct sqp_writer *w);
int erofs_seam_hold(struct sqp_writer *w, const struct erofs_zjob *j, uint32_t at_blk);
int erofs_seam_join(struct sqp_writer *w, struct erofs_zjob *j, uint32_t *first,
		    uint32_t *at_blk);
int erofs_seam_flush(struct sqp_writer *w);

/* erofs_dedup.c, for the current file (e->cur) as its clusters are
 * stored, whichever segment cut them (a seam's re-cut included). put:
 * whether the n blocks at blk of the cluster about to be stored are
 * those of the equal earlier file it shares with, at the same place
 * (1: its head names them and nothing is appended), else 0 (what it
 * shared so far copied first) or < 0; the file's first cluster
 * nominates that file, by its first segment's hash, size and blocks;
 * n 0: its first cluster is its last, a fragment or inline. unshare:
 * the blocks shared so far (equal to the file's own) read back and
 * appended, and its heads moved there. end: after the file's last
 * cluster and indexes: it shares when the other took as many blocks
 * under the same map (the same stored bytes under the same map decode
 * alike), else it is unshared and recorded for later files. */
int erofs_dedup_zip_put(struct sqp_writer *w, uint32_t n, const uint8_t *blk);
int erofs_dedup_zip_unshare(struct sqp_writer *w);
int erofs_dedup_zip_end(struct sqp_writer *w);

/* erofs_xdedup.c, extent dedupe. init and cleanup: its table, with
 * --erofs-dedupe. begin: a compressed file's clusters are about to be
 * stored (xsize: its xattrs' bytes). head: every head of the file as
 * its index is written, at logical cluster lcn, naming blocks from blk
 * that an earlier pcluster holds (shared) or the file's own. put: the
 * cluster p at byte at, of input in (NULL: unknown), about to be
 * stored: 1 with *found the earlier pcluster its index names instead,
 * read back and decoded to exactly in; 0 when it stores its own; < 0
 * on error. full: whether the file needs full
 * indexes (their heads do not pack), with a next head at logical cluster
 * lcn naming blk. add: p, stored from
 * block blk, recorded for later clusters. adopt: the heads so far,
 * which named another file's blocks one after the other (dedup's run),
 * are the file's shared extents from now on. */
int erofs_xdedup_init(struct sqp_writer *w);
void erofs_xdedup_cleanup(struct sqp_writer *w);
void erofs_xdedup_begin(struct erofs_wstate *e, uint32_t xsize);
void erofs_xdedup_head(struct erofs_wstate *e, uint64_t lcn, int shared, uint64_t blk,
		       uint32_t blocks);
int erofs_xdedup_put(struct sqp_writer *w, uint64_t at, const struct erofs_pcl *p,
		     const uint8_t *in, struct erofs_xrec *found);
int erofs_xdedup_full(const struct erofs_wstate *e, uint64_t lcn, uint64_t blk);
void erofs_xdedup_adopt(struct erofs_wstate *e);
int erofs_xdedup_add(struct sqp_writer *w, const struct erofs_pcl *p, const uint8_t *in,
		     uint64_t blk);

#endif
