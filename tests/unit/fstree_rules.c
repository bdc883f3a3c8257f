/* SPDX-License-Identifier: MIT */
/*
 * fstree_rules.c - the tree follows what extracting the tar would do:
 * implied parents, later entries replacing earlier ones, directory entries
 * only updating attributes, hard links to earlier entries only, children
 * sorted by byte order, link counts.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "squashfs/sqfs_format.h"
#include "sqpack/error.h"
#include "write/fstree.h"
#include "check.h"

static int warnings;

static void count_warning(void *user, const char *msg)
{
	(void)user;
	(void)msg;
	warnings++;
}

static struct fs_attr attr(uint32_t mode, uint32_t mtime)
{
	struct fs_attr a = { .mode = mode, .uid = 1, .gid = 2, .mtime = mtime,
			     .xattr_set = SQFS_NO_XATTR };
	return a;
}

/* The inode at path, or NULL. */
static struct fs_irec *find(struct fstree *t, const char *path)
{
	struct fs_node *n = fstree_lookup(t, path);

	return n != NULL && n->inode != FS_NONE ? fstree_inode(t, n->inode) : NULL;
}

/* The name of the k-th child of dir, or "" past the end. */
static const char *child(struct fstree *t, const struct fs_irec *dir, unsigned k)
{
	uint32_t i = dir->u.dir.first;

	for (; i != FS_NONE && k > 0; --k)
		i = fstree_node(t, i)->next;
	return i == FS_NONE ? "" : fstree_name(t, fstree_node(t, i));
}

static unsigned child_count(struct fstree *t, const struct fs_irec *dir)
{
	unsigned n = 0;

	for (uint32_t i = dir->u.dir.first; i != FS_NONE; i = fstree_node(t, i)->next)
		n++;
	return n;
}

static void test_implied_and_replace(void)
{
	struct sqp_errbuf err = { 0 };
	struct fstree t;
	struct fs_irec *ino, *first, *n;
	struct fs_attr a;

	CHECK(fstree_init(&t, &err, count_warning, NULL, NULL) == 0, "init");
	warnings = 0;
	a = attr(S_IFREG | 0644, 10);
	CHECK(fstree_add(&t, "a/b/c", &a, &ino) == 0, "deep file first");
	n = find(&t, "a/b");
	CHECK(n != NULL && S_ISDIR(n->mode) && n->implied, "a/b implied");
	CHECK(n != NULL && (n->mode & 07777) == 0755, "implied mode 0755");

	a = attr(S_IFDIR | 0700, 20);
	CHECK(fstree_add(&t, "a/b", &a, &ino) == 0, "explicit dir later");
	CHECK(warnings == 0, "dir over implied dir does not warn (%d)", warnings);
	CHECK(ino == n && (ino->mode & 07777) == 0700 && !ino->implied,
	      "attributes taken, children kept");
	CHECK(find(&t, "a/b/c") != NULL, "child survives");

	a = attr(S_IFREG | 0600, 30);
	CHECK(fstree_add(&t, "a/b/c", &a, &first) == 0, "same file again");
	CHECK(warnings == 1, "replacing a file warns");

	a = attr(S_IFREG | 0644, 40);
	CHECK(fstree_add(&t, "a/b", &a, &ino) == 0, "file replaces directory");
	CHECK(find(&t, "a/b/c") == NULL, "old subtree gone");
	a = attr(S_IFREG | 0644, 50);
	CHECK(fstree_add(&t, "a/b/c", &a, &ino) != 0, "parent is now a file");
	CHECK(strstr(err.msg, "a/b") != NULL, "message names the parent: %s", err.msg);
	fstree_cleanup(&t);
}

static void test_links_and_order(void)
{
	struct sqp_errbuf err = { 0 };
	struct fstree t;
	struct fs_irec *ino, *f, *root, *d;
	struct fs_attr a = attr(S_IFREG | 0644, 1);

	CHECK(fstree_init(&t, &err, count_warning, NULL, NULL) == 0, "init");
	CHECK(fstree_add(&t, "zeta", &a, &f) == 0, "file");
	CHECK(fstree_link(&t, "d/alpha", "zeta") == 0, "link into implied dir");
	CHECK(fstree_link(&t, "Beta", "zeta") == 0, "second link");
	a = attr(S_IFDIR | 0755, 1);
	CHECK(fstree_add(&t, "d/sub", &a, &ino) == 0, "subdir");
	a = attr(S_IFREG | 0644, 1);
	CHECK(fstree_add(&t, "\xc3\xa9t\xc3\xa9", &a, &ino) == 0, "utf-8 name");

	CHECK(fstree_link(&t, "x", "missing") != 0, "link to a missing entry fails");
	CHECK(strstr(err.msg, "'x'") && strstr(err.msg, "'missing'"),
	      "message names both: %s", err.msg);
	root = find(&t, "");
	d = find(&t, "d");
	fstree_finalize(&t, 99);
	CHECK(f->nlink == 3, "file has 3 links (%u)", f->nlink);
	CHECK(child_count(&t, root) == 4, "root has 4 entries");
	CHECK(strcmp(child(&t, root, 0), "Beta") == 0 &&
	      strcmp(child(&t, root, 1), "d") == 0 &&
	      strcmp(child(&t, root, 2), "zeta") == 0 &&
	      strcmp(child(&t, root, 3), "\xc3\xa9t\xc3\xa9") == 0,
	      "byte order, uppercase first, UTF-8 last");
	CHECK(root->nlink == 3, "root: 2 + one subdirectory (%u)", root->nlink);
	CHECK(d->mtime == 99, "implied dir gets the image time");
	CHECK(d->nlink == 3, "d: 2 + sub");
	fstree_cleanup(&t);

	memset(&err, 0, sizeof(err));
	CHECK(fstree_init(&t, &err, count_warning, NULL, NULL) == 0, "init");
	a = attr(S_IFDIR | 0755, 1);
	CHECK(fstree_add(&t, "dir", &a, &ino) == 0, "dir");
	CHECK(fstree_link(&t, "l", "dir") != 0, "hard link to a directory fails");
	a = attr(S_IFREG | 0644, 1);
	CHECK(fstree_add(&t, "", &a, &ino) != 0, "root must stay a directory");
	fstree_cleanup(&t);
}

static void test_long_names(void)
{
	struct sqp_errbuf err = { 0 };
	char name[300];
	struct fstree t;
	struct fs_irec *ino;
	struct fs_attr a = attr(S_IFREG | 0644, 1);

	CHECK(fstree_init(&t, &err, count_warning, NULL, NULL) == 0, "init");
	memset(name, 'n', 256);
	name[256] = '\0';
	CHECK(fstree_add(&t, name, &a, &ino) == 0, "256-byte name fits");
	name[256] = 'n';
	name[257] = '\0';
	CHECK(fstree_add(&t, name, &a, &ino) == SQP_ERR_LIMIT, "257-byte name does not");
	fstree_cleanup(&t);
}

/* A replaced directory's paths come back: the old children stay gone,
 * the returning ones are live again, and every list stays whole. */
static void test_paths_come_back(void)
{
	struct sqp_errbuf err = { 0 };
	struct fstree t;
	struct fs_irec *ino, *d, *x;
	struct fs_attr a = attr(S_IFREG | 0644, 1);

	CHECK(fstree_init(&t, &err, count_warning, NULL, NULL) == 0, "init");
	CHECK(fstree_add(&t, "d/x/1", &a, &ino) == 0 && fstree_add(&t, "d/y", &a, &ino) == 0 &&
	      fstree_add(&t, "d/z", &a, &ino) == 0, "first d");
	a = attr(S_IFREG | 0600, 2);
	CHECK(fstree_add(&t, "d", &a, &ino) == 0, "file replaces d");
	CHECK(find(&t, "d/y") == NULL && find(&t, "d/x/1") == NULL, "subtree gone");
	a = attr(S_IFDIR | 0700, 3);
	CHECK(fstree_add(&t, "d", &a, &ino) == 0, "directory again");
	a = attr(S_IFREG | 0644, 4);
	CHECK(fstree_add(&t, "d/z", &a, &ino) == 0 && fstree_add(&t, "d/x/2", &a, &ino) == 0 &&
	      fstree_add(&t, "d/w", &a, &ino) == 0, "some paths come back");
	CHECK(find(&t, "d/y") == NULL, "y stays gone");
	CHECK(find(&t, "d/x/1") == NULL && find(&t, "d/x/2") != NULL, "x holds only 2");
	x = find(&t, "d/x");
	d = find(&t, "d");
	fstree_finalize(&t, 5);
	CHECK(d != NULL && child_count(&t, d) == 3, "d holds w, x, z");
	CHECK(d != NULL && strcmp(child(&t, d, 0), "w") == 0 &&
	      strcmp(child(&t, d, 1), "x") == 0 && strcmp(child(&t, d, 2), "z") == 0,
	      "in order");
	CHECK(x != NULL && child_count(&t, x) == 1 && x->implied, "x is implied again");
	CHECK(d != NULL && d->nlink == 3, "d: 2 + x (%u)", d != NULL ? d->nlink : 0);
	fstree_cleanup(&t);
}

/* Thousands of names in scrambled order come out sorted. */
static void test_large_sort(void)
{
	struct sqp_errbuf err = { 0 };
	struct fstree t;
	struct fs_irec *ino, *dir;
	struct fs_attr a = attr(S_IFREG | 0644, 1);
	unsigned i, n = 5000, bad = 0;
	char path[32], prev[32] = "";

	CHECK(fstree_init(&t, &err, count_warning, NULL, NULL) == 0, "init");
	for (i = 0; i < n; ++i) {
		snprintf(path, sizeof(path), "big/%u", (i * 7919u) % n);
		if (fstree_add(&t, path, &a, &ino) != 0)
			bad++;
	}
	CHECK(bad == 0, "%u adds failed", bad);
	dir = find(&t, "big");
	fstree_finalize(&t, 1);
	CHECK(dir != NULL && child_count(&t, dir) == n, "all %u there", n);
	for (i = 0; dir != NULL && i < n; ++i) {
		const char *c = child(&t, dir, i);

		if (i > 0 && strcmp(prev, c) >= 0)
			bad++;
		snprintf(prev, sizeof(prev), "%s", c);
	}
	CHECK(bad == 0, "%u names out of order", bad);
	fstree_cleanup(&t);
}

/* A directory whose entries come sorted is never indexed; a duplicate,
 * an entry out of order or a hard link into it indexes it, and finds the
 * entries that came before. */
static void test_sorted_needs_no_index(void)
{
	struct sqp_errbuf err = { 0 };
	struct fstree t;
	struct fs_irec *ino, *s, *q, *r;
	struct fs_attr a = attr(S_IFREG | 0644, 1);
	int before = warnings;

	CHECK(fstree_init(&t, &err, count_warning, NULL, NULL) == 0, "init");
	CHECK(fstree_add(&t, "s/a", &a, &ino) == 0 && fstree_add(&t, "s/b", &a, &ino) == 0 &&
	      fstree_add(&t, "s/c", &a, &ino) == 0, "sorted entries");
	s = find(&t, "s");
	CHECK(s != NULL && !s->u.dir.indexed, "a sorted leaf directory is not indexed");
	CHECK(fstree_add(&t, "s/b", &a, &ino) == 0 && warnings == before + 1,
	      "b again replaces b");
	CHECK(s != NULL && s->u.dir.indexed && child_count(&t, s) == 3,
	      "the duplicate indexed s, which still holds three");
	CHECK(fstree_add(&t, "q/m", &a, &ino) == 0 && fstree_add(&t, "q/z", &a, &ino) == 0 &&
	      fstree_link(&t, "l", "q/m") == 0, "a link to an earlier entry of q");
	q = find(&t, "q");
	CHECK(q != NULL && q->u.dir.indexed && find(&t, "l") == find(&t, "q/m"),
	      "the link found it");
	CHECK(fstree_add(&t, "r/b", &a, &ino) == 0 && fstree_add(&t, "r/a", &a, &ino) == 0,
	      "entries out of order");
	r = find(&t, "r");
	CHECK(r != NULL && child_count(&t, r) == 2 && warnings == before + 1,
	      "two entries, no warning");
	CHECK(find(&t, "r/a") != NULL && find(&t, "r/b") != NULL && find(&t, "r/c") == NULL,
	      "lookups");
	fstree_cleanup(&t);
}

int main(void)
{
	test_sorted_needs_no_index();
	test_paths_come_back();
	test_large_sort();
	test_implied_and_replace();
	test_links_and_order();
	test_long_names();
	return check_done();
}
