#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two extracted file trees the way an image must preserve them.

usage: treecmp.py [OPTIONS] DIR_A DIR_B

Compares, for every path (lstat, symlinks never followed, the roots
included as "."): type, permission bits with suid/sgid/sticky, uid/gid,
mtime in seconds, symlink targets, device numbers, file size and content
(SHA-256), extended attributes (user., trusted., security.; binary values
compared as bytes) and the hard-link structure (which paths share an
inode with which). Exit 0 when equal, 1 printing each difference as
"PATH: WHAT: A vs B" (at most 50 lines), 2 on bad usage.

The walk is relative to open directory descriptors, so paths longer than
PATH_MAX (4096 bytes) are compared like any other.

options:
  --no-xattrs            do not compare extended attributes
  --ignore-dir-mtime     do not compare the mtimes of directories
  --ignore-root-mtime    do not compare the mtime of the roots themselves
  --swap-xattr-prefixes  read DIR_A's trusted.* as security.* and back
                         (squashfuse reports them swapped)
  --skip-symlink-targets do not compare symlink targets
  --no-hardlinks         do not compare hard-link groups (FUSE mounts
                         without inode numbers)
  --ignore=KEY[,KEY...]  do not compare these: type perm owner mtime target
                         rdev size content xattrs hardlinks
  --exclude=GLOB         leave out paths matching GLOB (fnmatch on the path
                         relative to the root; "*" also matches "/"), in
                         both trees; may be repeated
"""
import errno
import fnmatch
import hashlib
import os
import stat
import sys

KEYS = ("type", "perm", "owner", "mtime", "target", "rdev", "size",
        "content", "xattrs", "hardlinks")
FLAGS = {"--no-xattrs": "xattrs", "--skip-symlink-targets": "target",
         "--no-hardlinks": "hardlinks"}
TYPES = {stat.S_IFREG: "file", stat.S_IFDIR: "directory",
         stat.S_IFLNK: "symlink", stat.S_IFCHR: "char device",
         stat.S_IFBLK: "block device", stat.S_IFIFO: "fifo",
         stat.S_IFSOCK: "socket"}
SWAP = {"trusted.": "security.", "security.": "trusted."}
MAX_LINES = 50


class Options:
    def __init__(self):
        self.ignore = set()
        self.ignore_dir_mtime = False
        self.ignore_root_mtime = False
        self.swap = False
        self.exclude = []


def xattrs(dirfd, name, swap):
    # listxattr has no dir_fd form; /proc/self/fd/N/NAME keeps the path
    # short whatever the depth, and follow_symlinks=False stops at NAME.
    path = "/proc/self/fd/%d/%s" % (dirfd, name) if name else \
        "/proc/self/fd/%d" % dirfd
    follow = not name  # the root itself is reached through the magic link
    try:
        names = os.listxattr(path, follow_symlinks=follow)
    except OSError as e:
        if e.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return ()
        raise
    out = {}
    for n in names:
        key = n
        for a, b in SWAP.items():
            if swap and n.startswith(a):
                key = b + n[len(a):]
        try:
            out[key] = os.getxattr(path, n, follow_symlinks=follow)
        except OSError as e:  # listed but unreadable: a difference to show
            out[key] = "<%s>" % e.strerror
    return tuple(sorted(out.items()))


def content(dirfd, name):
    h = hashlib.sha256()
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW, dir_fd=dirfd)
    with os.fdopen(fd, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def describe(dirfd, name, st, opts, is_root):
    """The compared attributes of one entry, as a dict."""
    mode = st.st_mode
    d = {"type": TYPES.get(stat.S_IFMT(mode), oct(stat.S_IFMT(mode))),
         "perm": "%04o" % stat.S_IMODE(mode),
         "owner": "%d:%d" % (st.st_uid, st.st_gid),
         "mtime": st.st_mtime_ns // 1000000000}
    if stat.S_ISDIR(mode) and opts.ignore_dir_mtime or \
            is_root and opts.ignore_root_mtime:
        del d["mtime"]
    if stat.S_ISLNK(mode):
        d["target"] = os.readlink(name, dir_fd=dirfd)
        del d["perm"]  # symlink permissions carry no meaning on Linux
    elif stat.S_ISREG(mode):
        d["size"] = st.st_size
        d["content"] = content(dirfd, name)
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        d["rdev"] = "%d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    if "xattrs" not in opts.ignore:
        d["xattrs"] = xattrs(dirfd, name if not is_root else "", opts.swap)
    for k in opts.ignore:
        d.pop(k, None)
    return d


def excluded(rel, opts):
    return any(fnmatch.fnmatchcase(rel, g) for g in opts.exclude)


def walk(dirfd, prefix, opts, tree, inodes):
    """Fill tree (path -> dict) and inodes (inode -> paths) below dirfd."""
    for name in sorted(os.listdir(dirfd)):
        rel = prefix + name
        if excluded(rel, opts):
            continue
        try:
            st = os.lstat(name, dir_fd=dirfd)
            tree[rel] = describe(dirfd, name, st, opts, False)
        except OSError as e:
            tree[rel] = {"error": "%s" % e.strerror}
            continue
        if not stat.S_ISDIR(st.st_mode):
            inodes.setdefault((st.st_dev, st.st_ino), []).append(rel)
            continue
        try:
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW,
                         dir_fd=dirfd)
        except OSError as e:
            tree[rel]["error"] = "cannot open: %s" % e.strerror
            continue
        try:
            walk(fd, rel + "/", opts, tree, inodes)
        except OSError as e:
            tree[rel]["error"] = "cannot list: %s" % e.strerror
        finally:
            os.close(fd)


def scan(root, opts):
    """Map each relative path to its attributes; "." is the root."""
    tree, inodes = {}, {}
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        tree["."] = describe(fd, ".", os.fstat(fd), opts, True)
        walk(fd, "", opts, tree, inodes)
    finally:
        os.close(fd)
    if "hardlinks" not in opts.ignore:
        for paths in inodes.values():
            group = sorted(paths)
            for p in paths:
                tree[p]["hardlinks"] = group
    return tree


def short(v, limit=120):
    s = v if isinstance(v, str) else repr(v)
    if len(s) <= limit:
        return s
    return "%s...(%d chars)...%s" % (s[:limit // 2], len(s), s[-limit // 3:])


def compare(ta, tb, names):
    """Difference lines; a subtree present on one side only is one line."""
    diffs, gone = [], None
    for p in sorted(set(ta) | set(tb)):
        if gone and p.startswith(gone):
            continue
        if p not in ta or p not in tb:
            side = names[1] if p not in ta else names[0]
            diffs.append("%s: only in %s" % (short(p), side))
            gone = p + "/"
            continue
        for k in sorted(set(ta[p]) | set(tb[p])):
            va, vb = ta[p].get(k), tb[p].get(k)
            if va != vb:
                diffs.append("%s: %s: %s vs %s" % (short(p), k, short(va),
                                                  short(vb)))
    return diffs


def parse(argv):
    opts, args = Options(), []
    for a in argv:
        if a in FLAGS:
            opts.ignore.add(FLAGS[a])
        elif a == "--ignore-dir-mtime":
            opts.ignore_dir_mtime = True
        elif a == "--ignore-root-mtime":
            opts.ignore_root_mtime = True
        elif a == "--swap-xattr-prefixes":
            opts.swap = True
        elif a.startswith("--ignore="):
            keys = set(a[len("--ignore="):].split(","))
            if not keys <= set(KEYS):
                raise ValueError("unknown key in %s (known: %s)" %
                                 (a, " ".join(KEYS)))
            opts.ignore |= keys
        elif a.startswith("--exclude="):
            opts.exclude.append(a[len("--exclude="):])
        elif a.startswith("-"):
            raise ValueError("unknown option %s" % a)
        else:
            args.append(a)
    if len(args) != 2:
        raise ValueError("need two directories")
    for a in args:
        if not os.path.isdir(a):
            raise ValueError("%s: not a directory" % a)
    return opts, args


def main(argv):
    try:
        opts, args = parse(argv[1:])
    except ValueError as e:
        print("treecmp.py: %s\n%s" % (e, __doc__), file=sys.stderr)
        return 2
    ta = scan(args[0], opts)
    opts.swap = False  # the swap describes DIR_A's reader only
    tb = scan(args[1], opts)
    diffs = compare(ta, tb, args)
    for d in diffs[:MAX_LINES]:
        print(d)
    if len(diffs) > MAX_LINES:
        print("... and %d more differences" % (len(diffs) - MAX_LINES))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
