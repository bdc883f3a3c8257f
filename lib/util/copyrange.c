/* SPDX-License-Identifier: MIT */
/*
 * copyrange.c - a file range copied in the kernel, or through a buffer
 * where the kernel will not (copyrange.h).
 *
 * Why a pipe of our own: on a file system without a copy of its own,
 * copy_file_range is the kernel's generic splice through a pipe of 16
 * pages, so each round writes 64 KiB; through a 1 MiB pipe the rounds
 * are 16 times fewer, and the kernel's cost per page written falls
 * with them (ext4, Linux 6.18 here).
 * Copying small.tar's 4 SquashFS shards (86 MB, page cache warm) took
 * 25-26 ms of CPU so against 34-35 by copy_file_range and 36 by cat's
 * read and write; big.tar's (367 MB) 106 ms against 150 and 157 (best
 * of 8, load 7.5; extras/bench/shard-bench.sh measures the merge).
 * Where the file system has a copy of its own (NFS's on the server,
 * XFS's and btrfs's shared extents) copy_file_range keeps it.
 *
 * Each way may copy less than asked (a signal, a file system's own
 * chunking): the loop goes on from where it stopped. Reading 0 bytes
 * is the end of the input, which the caller sized from what the image
 * said it holds: a truncated input. A refusal midway (a file system
 * that takes some ranges and not others) moves the copier to the next
 * way from the offsets the output reached, so nothing is lost: what
 * the pipe still held is read again from the input.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#ifdef HAVE_SPLICE
#include <sys/vfs.h>
#endif

#include "sqpack/error.h"
#include "util/copyrange.h"
#include "util/errbuf.h"
#include "util/fileio.h"

/* The fallback's buffer: large enough that pread and pwrite are few. */
#define COPY_BUF_SIZE (1u << 20)

/* What the pipe is asked to hold: /proc/sys/fs/pipe-max-size's default,
 * the most an unprivileged process may ask for. */
#define COPY_PIPE_SIZE (1 << 20)

/* statfs's f_type of the file systems that copy through the pipe
 * (linux/magic.h's EXT4_SUPER_MAGIC, shared by ext2 and ext3, and
 * TMPFS_MAGIC): neither copies on its own. */
#define EXT_SUPER_MAGIC 0xEF53
#define TMPFS_SUPER_MAGIC 0x01021994

/* The way after splice: copy_file_range where there is one. */
#ifdef HAVE_COPY_FILE_RANGE
#define AFTER_SPLICE SQP_COPY_KERNEL
#else
#define AFTER_SPLICE SQP_COPY_BUFFERED
#endif

#if defined(HAVE_COPY_FILE_RANGE) || defined(HAVE_SPLICE)
/* Whether errno from the kernel's copy means "not here", not a failure. */
static int refused(int e)
{
	return e == EXDEV || e == ENOSYS || e == EINVAL || e == EOPNOTSUPP;
}
#endif

#ifdef HAVE_SPLICE
/* The pipe closed; the next copy decides anew. */
static void drop_pipe(struct sqp_copier *c)
{
	close(c->pipe[0]);
	close(c->pipe[1]);
	c->pipe_size = 0;
	c->how = SQP_COPY_UNDECIDED;
}

/* The pipe, on a file system that copies through one. A pipe that
 * cannot grow copies at its default size: as copy_file_range would. */
static int want_pipe(struct sqp_copier *c, int out)
{
	struct statfs sf;
	int size;

	if (fstatfs(out, &sf) != 0 ||
	    (sf.f_type != EXT_SUPER_MAGIC && sf.f_type != TMPFS_SUPER_MAGIC) ||
	    pipe2(c->pipe, O_CLOEXEC) != 0)
		return 0;
	/* refused (EPERM, EBUSY) over the user's or the system's limit */
	(void)fcntl(c->pipe[1], F_SETPIPE_SZ, COPY_PIPE_SIZE);
	if ((size = fcntl(c->pipe[1], F_GETPIPE_SZ)) <= 0) {
		drop_pipe(c);
		return 0;
	}
	c->pipe_size = (size_t)size;
	return 1;
}

/*
 * Rounds of up to pipe_size bytes: the input's page-cache pages lent to
 * the pipe, then written from it to the output. The offsets and len
 * follow what the output took. 0, 1 when the kernel refused (the caller
 * goes on another way from there), or a negative sqp_error.
 */
static int copy_spliced(struct sqp_copier *c, int in, uint64_t *in_off, int out,
			uint64_t *out_off, uint64_t *len)
{
	while (*len > 0) {
		loff_t i = (loff_t)*in_off, o;
		size_t ask = *len < c->pipe_size ? (size_t)*len : c->pipe_size;
		ssize_t got = splice(in, &i, c->pipe[1], NULL, ask, 0), put;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return refused(errno) ? 1 : sqp_errno_code(errno);
		if (got == 0)
			return SQP_ERR_TRUNCATED;
		while (got > 0) {
			o = (loff_t)*out_off;
			put = splice(c->pipe[0], NULL, out, &o, (size_t)got, 0);
			if (put < 0 && errno == EINTR)
				continue;
			if (put <= 0) {
				int e = put < 0 ? errno : EIO;

				/* bytes left in the pipe would land in the
				 * next copy: the pipe goes with them */
				drop_pipe(c);
				return refused(e) ? 1 : sqp_errno_code(e);
			}
			*in_off += (uint64_t)put;
			*out_off += (uint64_t)put;
			*len -= (uint64_t)put;
			got -= put;
		}
	}
	return 0;
}
#endif

static enum sqp_copy_how decide(struct sqp_copier *c, int out)
{
#ifdef HAVE_SPLICE
	if (want_pipe(c, out))
		return SQP_COPY_SPLICE;
#else
	(void)c;
	(void)out;
#endif
#ifdef HAVE_COPY_FILE_RANGE
	return SQP_COPY_KERNEL;
#else
	return SQP_COPY_BUFFERED;
#endif
}

static int copy_buffered(struct sqp_copier *c, int in, uint64_t in_off, int out,
			 uint64_t out_off, uint64_t len)
{
	size_t n;
	int ret;

	if (c->buf == NULL) {
		if ((c->buf = sqp_iobuf_alloc(COPY_BUF_SIZE)) == NULL)
			return SQP_ERR_NOMEM;
		c->cap = COPY_BUF_SIZE;
	}
	while (len > 0) {
		n = len < c->cap ? (size_t)len : c->cap;
		if ((ret = sqp_pread_full(in, in_off, c->buf, n)) != 0 ||
		    (ret = sqp_pwrite_full(out, out_off, c->buf, n)) != 0)
			return ret;
		in_off += n;
		out_off += n;
		len -= n;
	}
	return 0;
}

int sqp_copy_range(struct sqp_copier *c, int in, uint64_t in_off, int out,
		   uint64_t out_off, uint64_t len)
{
	if (c->how == SQP_COPY_UNDECIDED)
		c->how = decide(c, out);
#ifdef HAVE_SPLICE
	if (c->how == SQP_COPY_SPLICE) {
		int ret = copy_spliced(c, in, &in_off, out, &out_off, &len);

		if (ret != 1)
			return ret;
		if (c->pipe_size > 0)
			drop_pipe(c);
		c->how = AFTER_SPLICE;
	}
#endif
#ifdef HAVE_COPY_FILE_RANGE
	while (len > 0 && c->how == SQP_COPY_KERNEL) {
		off_t i = (off_t)in_off, o = (off_t)out_off;
		size_t ask = len < ((size_t)1 << 30) ? (size_t)len : (size_t)1 << 30;
		ssize_t n = copy_file_range(in, &i, out, &o, ask, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && refused(errno)) {
			c->how = SQP_COPY_BUFFERED;
			break;
		}
		if (n < 0)
			return sqp_errno_code(errno);
		if (n == 0)
			return SQP_ERR_TRUNCATED;
		in_off += (uint64_t)n;
		out_off += (uint64_t)n;
		len -= (uint64_t)n;
	}
#endif
	return len > 0 ? copy_buffered(c, in, in_off, out, out_off, len) : 0;
}

void sqp_copier_cleanup(struct sqp_copier *c)
{
#ifdef HAVE_SPLICE
	if (c->pipe_size > 0)
		drop_pipe(c);
#endif
	c->how = SQP_COPY_UNDECIDED;
	free(c->buf);
	c->buf = NULL;
	c->cap = 0;
}
