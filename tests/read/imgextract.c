/* SPDX-License-Identifier: MIT */
/*
 * imgextract.c - test helper: extract an image into a directory through
 * the public browsing API only (sqp_dir_*, sqp_file_*, readlink, xattrs,
 * stat), so api.sh can compare the result with what unsquashfs extracts.
 *
 * Along the way it checks what an extraction alone would not show: every
 * path looked up by name (through the directory index in big directories)
 * gives the reference the listing gave; names that sort between, before
 * and after the entries are not found; the export table (when present)
 * maps each inode number to the same reference; each file read again at
 * scattered offsets and odd lengths gives the bytes the sequential read
 * gave. Usage: imgextract IMAGE DIR. Prints "N passed, N failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "sqpack/sqpack.h"

static struct sqp_image *img;
static int out_root;
static unsigned npass, nfail;
static char *links[1 << 20];   /* inode number -> first path (test sizes) */

static void check(int ok, const char *what, const char *path)
{
	if (ok) {
		npass++;
		return;
	}
	nfail++;
	if (nfail < 30)
		fprintf(stderr, "FAIL: %s: %s (%s)\n", path, what,
			sqp_image_error(img));
}

/* Lookups of names that cannot exist beside name. */
static void check_absent(const char *path)
{
	static const char *const tails[] = { "0", "\x01", "~~" };
	uint64_t ref;
	char buf[8192];

	for (size_t i = 0; i < 3; i++) {
		snprintf(buf, sizeof(buf), "%s%s", path, tails[i]);
		if (sqp_image_lookup(img, buf, &ref) == 0) {
			/* it may exist after all: only check it is real */
			struct sqp_inode_info st = { .struct_size = sizeof(st) };

			check(sqp_image_stat(img, ref, &st) == 0, "stat", buf);
		} else {
			npass++;
		}
	}
}

static int file_out(const char *path, uint64_t ref, const struct sqp_inode_info *st)
{
	static uint8_t buf[65537], again[70000];
	struct sqp_file *f;
	uint64_t off = 0;
	size_t got;
	int fd, ok = 1;

	if (sqp_file_open(img, ref, &f) != 0)
		return -1;
	fd = openat(out_root, path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		sqp_file_close(f);
		return -1;
	}
	while (ok && off < st->size) {
		ok = sqp_file_pread(f, buf, sizeof(buf), off, &got) == 0 &&
		     got > 0 && write(fd, buf, got) == (ssize_t)got;
		off += got;
	}
	ok = ok && sqp_file_pread(f, buf, 1, st->size, &got) == 0 && got == 0;
	/* scattered re-reads, backwards: the cursor must restart */
	for (uint64_t k = 7; ok && k > 0 && st->size > 0; k--) {
		uint64_t at = st->size * k / 8 + k * 977 % (st->size | 1);
		size_t n = sizeof(again) - k * 1000;

		at %= st->size;
		ok = sqp_file_pread(f, again, n, at, &got) == 0 &&
		     got == (n < st->size - at ? n : st->size - at) &&
		     pread(fd, buf, got > sizeof(buf) ? sizeof(buf) : got,
			   (off_t)at) >= 0 &&
		     memcmp(buf, again, got > sizeof(buf) ? sizeof(buf) : got) == 0;
	}
	sqp_file_close(f);
	close(fd);
	check(ok, "file contents and re-reads agree", path);
	return 0;
}

static int attrs(const char *path, uint64_t ref, const struct sqp_inode_info *st)
{
	const struct sqp_xattr *x;
	struct timespec ts[2] = { { (time_t)st->mtime, 0 }, { (time_t)st->mtime, 0 } };
	size_t n;
	char full[8192];

	if (sqp_image_xattrs(img, ref, &x, &n) != 0)
		return -1;
	snprintf(full, sizeof(full), "/proc/self/fd/%d/%s", out_root, path);
	for (size_t i = 0; i < n; i++)
		if (lsetxattr(full, x[i].key, x[i].value, x[i].value_len, 0) != 0)
			return -1;
	if (fchownat(out_root, path, st->uid, st->gid, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	if (!S_ISLNK(st->mode) &&
	    fchmodat(out_root, path, st->mode & 07777, 0) != 0)
		return -1;
	return utimensat(out_root, path, ts, AT_SYMLINK_NOFOLLOW);
}

static int walk(const char *path, uint64_t ref);

static int entry(const char *path, uint64_t ref, uint32_t listed_type)
{
	struct sqp_inode_info st = { .struct_size = sizeof(st) };
	uint64_t looked;
	char target[8192];
	int ret = 0;

	if (sqp_image_stat(img, ref, &st) != 0)
		return -1;
	check(sqp_image_lookup(img, path, &looked) == 0 && looked == ref,
	      "lookup finds the listed inode", path);
	check((st.mode & S_IFMT) == listed_type, "listed type", path);
	if (sqp_image_inode_ref(img, st.inode_number, &looked) == 0)
		check(looked == ref, "export table", path);
	check_absent(path);
	if (!S_ISDIR(st.mode) && st.nlink > 1 && st.inode_number < (1u << 20)) {
		if (links[st.inode_number] != NULL)
			return linkat(out_root, links[st.inode_number], out_root,
				      path, 0);
		links[st.inode_number] = strdup(path);
	}
	switch (st.mode & S_IFMT) {
	case S_IFDIR:
		ret = mkdirat(out_root, path, 0700);
		if (ret == 0)
			ret = walk(path, ref);
		break;
	case S_IFREG:
		ret = file_out(path, ref, &st);
		break;
	case S_IFLNK:
		ret = sqp_image_readlink(img, ref, target, sizeof(target));
		check(ret >= 0 && (uint64_t)ret == st.size, "readlink", path);
		ret = ret < 0 ? ret : symlinkat(target, out_root, path);
		break;
	case S_IFSOCK:
		return 0;   /* unsquashfs makes them; the test tree has none */
	default:
		ret = mknodat(out_root, path, st.mode & S_IFMT,
			      makedev(st.dev_major, st.dev_minor));
	}
	return ret != 0 ? -1 : attrs(path, ref, &st);
}

static int walk(const char *path, uint64_t ref)
{
	struct sqp_dir *d;
	struct sqp_dirent e = { .struct_size = sizeof(e) };
	char sub[8192];
	int ret;

	if (sqp_dir_open(img, ref, &d) != 0)
		return -1;
	while ((ret = sqp_dir_next(d, &e)) == 1) {
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "/" : "", e.name);
		if (entry(sub, e.ref, e.type) != 0) {
			fprintf(stderr, "imgextract: %s: %s\n", sub,
				errno ? strerror(errno) : sqp_image_error(img));
			ret = -1;
			break;
		}
	}
	sqp_dir_close(d);
	return ret;
}

int main(int argc, char **argv)
{
	struct sqp_image_desc desc = { .struct_size = sizeof(desc) };
	struct sqp_inode_info root = { .struct_size = sizeof(root) };
	uint64_t ref;
	int fd, ret;

	if (argc != 3) {
		fprintf(stderr, "usage: imgextract IMAGE DIR\n");
		return 2;
	}
	desc.fd = fd = open(argv[1], O_RDONLY);
	desc.name = argv[1];
	out_root = open(argv[2], O_RDONLY | O_DIRECTORY);
	if (fd < 0 || out_root < 0 || sqp_image_create(&desc, &img) != 0) {
		fprintf(stderr, "imgextract: cannot open: %s\n",
			img != NULL ? sqp_image_error(img) : "bad arguments");
		return 1;
	}
	check(sqp_image_lookup(img, "/", &ref) == 0 && ref == sqp_image_root(img),
	      "the root by name", "/");
	check(sqp_image_lookup(img, "nonexistent/x", &ref) == SQP_ERR_NOT_FOUND,
	      "a missing path", "nonexistent/x");
	check(sqp_image_lookup(img, "..", &ref) == SQP_ERR_ARG, "..", "..");
	ret = sqp_image_stat(img, sqp_image_root(img), &root) != 0 ||
	      walk("", sqp_image_root(img)) != 0 || attrs(".", root.ref, &root) != 0;
	check(ret == 0, "extraction", argv[1]);
	/* A reference outside the inode table fails, and the failure
	 * sticks: the image refuses every later call with it. */
	ret = sqp_image_stat(img, 0xFFFFFFFF0000ull, &root);
	check(ret < 0 && sqp_image_error(img)[0] != '\0', "a wild reference", "-");
	check(sqp_image_lookup(img, "", &ref) == ret, "the error sticks", "-");
	sqp_image_destroy(img);
	close(fd);
	close(out_root);
	printf("%u passed, %u failed\n", npass, nfail);
	return nfail == 0 ? 0 : 1;
}
