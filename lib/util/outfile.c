/* SPDX-License-Identifier: MIT */
/*
 * outfile.c - write to a temporary file, rename into place on success.
 *
 * A build system that sees OUTPUT must be able to trust it is complete: the
 * data goes to ".NAME.XXXXXX.tmp" in OUTPUT's own directory (so rename() is
 * atomic), and only commit puts it in place. Without force, commit uses
 * link() + unlink(), which fails instead of clobbering a file that appeared
 * in the meantime.
 *
 * A device is never replaced (root writing to /dev/null must not leave a
 * regular file there): a block device, with force, is written in place
 * as mkfs.erofs and mksquashfs do, opened O_EXCL so that a mounted one is
 * refused; a character device or a FIFO takes a stream's output
 * (SQP_OUTFILE_STREAM, img2tar) and is refused otherwise, since an image
 * is read back as it is written.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sqpack/error.h"
#include "sqpack/outfile.h"
#include "util/errbuf.h"

/* What an outfile written in place is: a block device must be synced
 * before the tool says it is done; a character device or a FIFO only
 * needs closing. */
enum { IN_PLACE_NO, IN_PLACE_BLOCK, IN_PLACE_STREAM };

struct sqp_outfile {
	char *path;
	char *temp_path;
	int fd;
	int force;
	int in_place;           /* written directly, no temporary: IN_PLACE_* */
	int temp_exists;        /* the temporary file is on disk under temp_path */
	struct sqp_errbuf err;
};

/* Directory part and base name of path, as two new strings. */
static int split_path(const char *path, char **dir, char **base)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL) {
		*dir = strdup(".");
		*base = strdup(path);
	} else {
		*dir = strndup(path, (size_t)(slash - path) + (slash == path));
		*base = strdup(slash + 1);
	}
	if (*dir == NULL || *base == NULL) {
		free(*dir);
		free(*base);
		return SQP_ERR_NOMEM;
	}
	return 0;
}

static int open_temp(struct sqp_outfile *o, const char *dir, const char *base)
{
	struct timespec ts;
	unsigned attempt;
	size_t len = strlen(dir) + strlen(base) + 40;

	o->temp_path = malloc(len);
	if (o->temp_path == NULL)
		return sqp_err(&o->err, SQP_ERR_NOMEM, "%s: out of memory", o->path);

	clock_gettime(CLOCK_REALTIME, &ts);
	for (attempt = 0; attempt < 100; ++attempt) {
		/* The name only has to be unique, not secret: O_EXCL
		 * guarantees we never open someone else's file. */
		snprintf(o->temp_path, len, "%s/.%s.%ld.%lx.tmp", dir, base,
			 (long)getpid(), (unsigned long)(ts.tv_nsec + attempt));
		o->fd = open(o->temp_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (o->fd >= 0) {
			o->temp_exists = 1;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return sqp_err(&o->err, sqp_errno_code(errno),
		       "%s: cannot create a temporary file in '%s': %s",
		       o->path, dir, strerror(errno));
}

/* Whether what path names (links followed) is a device, a FIFO or a
 * socket; 1 and the open descriptor in o->fd when it is taken in place,
 * 0 when path is no such thing, negative when it is refused. */
static int open_in_place(struct sqp_outfile *o, int flags)
{
	struct stat st;
	int fl = O_WRONLY | O_CLOEXEC, kind = IN_PLACE_STREAM;

	if (stat(o->path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return 0;
	if (S_ISBLK(st.st_mode)) {
		if (!(flags & SQP_OUTFILE_FORCE))
			return sqp_err(&o->err, SQP_ERR_EXISTS, "%s: is a block device "
				       "(use --force to write the image into it)", o->path);
		/* read and written, as any image; O_EXCL: not if mounted */
		fl = O_RDWR | O_EXCL | O_CLOEXEC;
		kind = IN_PLACE_BLOCK;
	} else if (!(flags & SQP_OUTFILE_STREAM) || S_ISSOCK(st.st_mode)) {
		return sqp_err(&o->err, SQP_ERR_ARG, "%s: is a %s, not a file or a "
			       "block device to write an image to", o->path,
			       S_ISCHR(st.st_mode) ? "character device" :
			       S_ISFIFO(st.st_mode) ? "FIFO" : "socket");
	}
	o->fd = open(o->path, fl);
	if (o->fd < 0)
		return sqp_err(&o->err, sqp_errno_code(errno), "%s: %s", o->path,
			       errno == EBUSY ? "device is busy (mounted?)" : strerror(errno));
	o->in_place = kind;
	return 1;
}

int sqp_outfile_create(const char *path, int flags, struct sqp_outfile **out)
{
	struct sqp_outfile *o;
	char *dir = NULL, *base = NULL;
	struct stat st;
	int ret, force = (flags & SQP_OUTFILE_FORCE) != 0;

	*out = NULL;
	if (path == NULL || path[0] == '\0')
		return SQP_ERR_ARG;
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return SQP_ERR_NOMEM;
	o->fd = -1;
	o->force = force;
	o->path = strdup(path);
	if (o->path == NULL) {
		free(o);
		return SQP_ERR_NOMEM;
	}
	ret = open_in_place(o, flags);
	if (ret != 0) {
		*out = o;
		return ret < 0 ? ret : 0;
	}

	/* A directory is refused whatever force says: --force cannot help
	 * there (arguments swapped, most likely), so the message must not
	 * suggest it. */
	if (lstat(path, &st) == 0 && (S_ISDIR(st.st_mode) || !force)) {
		sqp_err(&o->err, SQP_ERR_EXISTS, S_ISDIR(st.st_mode) ?
			"%s: is a directory" :
			"%s: file exists (use --force to replace it)", path);
		ret = SQP_ERR_EXISTS;
		goto out;
	}
	ret = split_path(path, &dir, &base);
	if (ret == 0)
		ret = open_temp(o, dir, base);
out:
	free(dir);
	free(base);
	*out = o;
	return ret;
}

int sqp_outfile_fd(const struct sqp_outfile *o)
{
	return o->fd;
}

const char *sqp_outfile_temp_path(const struct sqp_outfile *o)
{
	return o->temp_path;
}

static int commit_in_place(struct sqp_outfile *o)
{
	int ret = 0;

	if (o->in_place == IN_PLACE_BLOCK && fsync(o->fd) != 0)
		ret = -1;
	if (close(o->fd) != 0)
		ret = -1;
	o->fd = -1;
	if (ret != 0)
		return sqp_err(&o->err, sqp_errno_code(errno), "%s: %s",
			       o->path, strerror(errno));
	o->in_place = IN_PLACE_NO;
	return 0;
}

int sqp_outfile_commit(struct sqp_outfile *o)
{
	if (o->err.code != 0)
		return o->err.code;
	if (o->fd >= 0 && o->in_place)
		return commit_in_place(o);
	if (o->fd < 0 || !o->temp_exists)
		return sqp_err(&o->err, SQP_ERR_SEQUENCE, "%s: not open", o->path);

	if (close(o->fd) != 0) {
		o->fd = -1;
		return sqp_err(&o->err, sqp_errno_code(errno), "%s: %s",
			       o->path, strerror(errno));
	}
	o->fd = -1;

	if (o->force) {
		if (rename(o->temp_path, o->path) != 0)
			return sqp_err(&o->err, sqp_errno_code(errno),
				       "%s: cannot rename into place: %s",
				       o->path, strerror(errno));
	} else if (link(o->temp_path, o->path) == 0) {
		unlink(o->temp_path);
	} else {
		struct stat st;

		/* Some file systems have no hard links; there, check and
		 * rename, accepting the tiny race. */
		if (errno == EEXIST || lstat(o->path, &st) == 0)
			return sqp_err(&o->err, SQP_ERR_EXISTS,
				       "%s: file exists (use --force to replace it)",
				       o->path);
		if (rename(o->temp_path, o->path) != 0)
			return sqp_err(&o->err, sqp_errno_code(errno),
				       "%s: cannot move into place: %s",
				       o->path, strerror(errno));
	}
	o->temp_exists = 0;
	return 0;
}

void sqp_outfile_destroy(struct sqp_outfile *o)
{
	if (o == NULL)
		return;
	if (o->fd >= 0)
		close(o->fd);
	if (o->temp_exists)
		unlink(o->temp_path);
	free(o->temp_path);
	free(o->path);
	free(o);
}

const char *sqp_outfile_error(const struct sqp_outfile *o)
{
	return sqp_errmsg(&o->err);
}
