/* SPDX-License-Identifier: MIT */
/*
 * fstree_rules.c - the tree follows what extracting the tar would do:
 * implied parents, later entries replacing earlier ones, directory entries
 * only updating attributes, hard links to earlier entries only, children
 * sorted by byte order, link counts.
 */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "format/sqfs_format.h"
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

static struct fs_node *find(struct fstree *t, const char *path)
{
	size_t i;

	for (i = 0; i < t->node_count; ++i) {
		if (!t->nodes[i]->dead && strcmp(t->nodes[i]->path, path) == 0)
			return t->nodes[i];
	}
	return NULL;
}

static void test_implied_and_replace(void)
{
	struct sqp_errbuf err = { 0 };
	struct fstree t;
	struct fs_inode *ino, *first;
	struct fs_attr a;
	struct fs_node *n;

	CHECK(fstree_init(&t, &err, count_warning, NULL) == 0, "init");
	warnings = 0;
	a = attr(S_IFREG | 0644, 10);
	CHECK(fstree_add(&t, "a/b/c", &a, &ino) == 0, "deep file first");
	n = find(&t, "a/b");
	CHECK(n != NULL && S_ISDIR(n->inode->mode) && n->inode->implied, "a/b implied");
	CHECK(n != NULL && (n->inode->mode & 07777) == 0755, "implied mode 0755");

	a = attr(S_IFDIR | 0700, 20);
	CHECK(fstree_add(&t, "a/b", &a, &ino) == 0, "explicit dir later");
	CHECK(warnings == 0, "dir over implied dir does not warn (%d)", warnings);
	CHECK(ino == n->inode && (ino->mode & 07777) == 0700 && !ino->implied,
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
	struct fs_inode *ino, *f;
	struct fs_attr a = attr(S_IFREG | 0644, 1);
	struct fs_node *root;

	CHECK(fstree_init(&t, &err, count_warning, NULL) == 0, "init");
	CHECK(fstree_add(&t, "zeta", &a, &f) == 0, "file");
	CHECK(fstree_link(&t, "d/alpha", "zeta") == 0, "link into implied dir");
	CHECK(fstree_link(&t, "Beta", "zeta") == 0, "second link");
	a = attr(S_IFDIR | 0755, 1);
	CHECK(fstree_add(&t, "d/sub", &a, &ino) == 0, "subdir");
	a = attr(S_IFREG | 0644, 1);
	CHECK(fstree_add(&t, "\xc3\xa9t\xc3\xa9", &a, &ino) == 0, "utf-8 name");

	fstree_finalize(&t, 99);
	CHECK(f->nlink == 3, "file has 3 links (%u)", f->nlink);
	root = t.root;
	CHECK(root->inode->u.dir.count == 4, "root has 4 entries");
	CHECK(strcmp(root->inode->u.dir.children[0]->name, "Beta") == 0 &&
	      strcmp(root->inode->u.dir.children[1]->name, "d") == 0 &&
	      strcmp(root->inode->u.dir.children[2]->name, "zeta") == 0 &&
	      strcmp(root->inode->u.dir.children[3]->name, "\xc3\xa9t\xc3\xa9") == 0,
	      "byte order, uppercase first, UTF-8 last");
	CHECK(root->inode->nlink == 3, "root: 2 + one subdirectory (%u)", root->inode->nlink);
	CHECK(find(&t, "d")->inode->mtime == 99, "implied dir gets the image time");
	CHECK(find(&t, "d")->inode->nlink == 3, "d: 2 + sub");

	CHECK(fstree_link(&t, "x", "missing") != 0, "link to a missing entry fails");
	CHECK(strstr(err.msg, "'x'") && strstr(err.msg, "'missing'"),
	      "message names both: %s", err.msg);
	fstree_cleanup(&t);

	memset(&err, 0, sizeof(err));
	CHECK(fstree_init(&t, &err, count_warning, NULL) == 0, "init");
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
	struct fs_inode *ino;
	struct fs_attr a = attr(S_IFREG | 0644, 1);

	CHECK(fstree_init(&t, &err, count_warning, NULL) == 0, "init");
	memset(name, 'n', 256);
	name[256] = '\0';
	CHECK(fstree_add(&t, name, &a, &ino) == 0, "256-byte name fits");
	name[256] = 'n';
	name[257] = '\0';
	CHECK(fstree_add(&t, name, &a, &ino) == SQP_ERR_LIMIT, "257-byte name does not");
	fstree_cleanup(&t);
}

int main(void)
{
	test_implied_and_replace();
	test_links_and_order();
	test_long_names();
	return check_done();
}
