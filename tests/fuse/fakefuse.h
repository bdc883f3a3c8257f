/* SPDX-License-Identifier: MIT */
/*
 * fakefuse.h - libfuse's side of the low-level API, played by the tests:
 * the reply functions and directory entry builders fs_ops calls, over a
 * struct fuse_req of our own that records the reply, so a test or a
 * fuzz harness calls fs_ops' operations directly, with no kernel and no
 * libfuse linked.
 *
 * Why it checks: a reply the kernel would refuse or misread is a bug
 * the operations must not have, so each reply is checked as it comes
 * (one per request; an errno in range; no more bytes than the request
 * allowed; entries laid out within the buffer) and any violation
 * abort()s with a line on stderr, which a fuzzer reports as a crash.
 * One request belongs to one thread; requests on different threads do
 * not share anything here.
 */
#ifndef SQP_TESTS_FAKEFUSE_H
#define SQP_TESTS_FAKEFUSE_H

#include <fuse_lowlevel.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

enum fake_kind {
	FAKE_NONE, FAKE_ERR, FAKE_ENTRY, FAKE_ATTR, FAKE_READLINK,
	FAKE_OPEN, FAKE_BUF, FAKE_XATTR, FAKE_STATFS, FAKE_LSEEK,
};

struct fuse_req {
	void *user;                  /* fuse_req_userdata's */
	size_t asked;                /* bytes a buffer reply may have */
	unsigned replies;
	enum fake_kind kind;
	int err;                     /* FAKE_ERR: the errno (0: success) */
	struct fuse_entry_param entry;
	struct stat attr;
	struct fuse_file_info fi;
	struct statvfs sv;
	char *buf;                   /* FAKE_BUF, FAKE_READLINK (its NUL */
	size_t len;                  /* counted): the bytes, malloc'd */
	size_t fd_bytes;             /* FAKE_BUF: of them, read from a
				      * descriptor (fuse_reply_data) */
	size_t xattr_size;
	off_t off;                   /* FAKE_LSEEK */
};

/* A new request for the file system user, whose buffer replies may
 * have asked bytes at most (SIZE_MAX: any). Forgets the last reply. */
void fake_req(struct fuse_req *r, void *user, size_t asked);
void fake_req_free(struct fuse_req *r);

/* abort() unless the request was answered exactly once, with one of
 * the kinds given (FAKE_NONE ends the list; FAKE_ERR is always fine). */
void fake_answered(const struct fuse_req *r, const char *op, ...);

/* An entry of a FAKE_BUF reply to readdir (plus: readdirplus). */
struct fake_dirent {
	size_t reclen;
	off_t off;
	struct fuse_entry_param e;   /* readdir: e.attr's ino and mode */
	char name[];
};
/* The entry at *pos of r's reply, *pos moved past it; NULL at the end. */
const struct fake_dirent *fake_dirent_next(const struct fuse_req *r,
					   size_t *pos);

#endif
