#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare two extracted file trees the way an image must preserve them.

usage: treecmp.py [--no-xattrs] [--ignore-dir-mtime] [--ignore-root-mtime]
                  [--swap-xattr-prefixes] [--skip-symlink-targets]
                  [--no-hardlinks] DIR_A DIR_B

--swap-xattr-prefixes reads DIR_A's trusted.* as security.* and back (a
squashfuse quirk); --no-hardlinks skips the hard-link groups (FUSE mounts
without use_ino report one inode number per path).

Compares names, types, permission bits (with suid/sgid/sticky), owners,
mtimes (seconds), symlink targets, device numbers, hard-link groups,
extended attributes and file contents. Exit 0 when equal, 1 listing the
differences (at most 50), 2 on bad usage.
"""
import hashlib
import os
import stat
import sys


def scan(root, opts):
    """Map relative path -> attribute tuple, and inode -> sorted paths."""
    tree, inodes = {}, {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            tree[rel] = describe(full, opts)
            st = os.lstat(full)
            if not stat.S_ISDIR(st.st_mode) and st.st_nlink > 1:
                inodes.setdefault((st.st_dev, st.st_ino), []).append(rel)
    tree["."] = describe(root, opts)
    if opts["ignore_root_mtime"]:
        tree["."].pop("mtime", None)
    groups = sorted(sorted(g) for g in inodes.values() if len(g) > 1)
    return tree, groups


def xattrs(path, opts):
    if opts["no_xattrs"]:
        return None
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError:
        return None
    out = {}
    for n in names:
        if opts["swap"]:
            if n.startswith("trusted."):
                n2 = "security." + n[len("trusted."):]
            elif n.startswith("security."):
                n2 = "trusted." + n[len("security."):]
            else:
                n2 = n
        else:
            n2 = n
        out[n2] = os.getxattr(path, n, follow_symlinks=False)
    return tuple(sorted(out.items()))


def content(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def describe(path, opts):
    st = os.lstat(path)
    mode = st.st_mode
    d = {
        "type": stat.S_IFMT(mode),
        "perm": oct(stat.S_IMODE(mode)),
        "owner": (st.st_uid, st.st_gid),
        "mtime": int(st.st_mtime),
    }
    if stat.S_ISDIR(mode) and opts["ignore_dir_mtime"]:
        del d["mtime"]
    if stat.S_ISLNK(mode):
        if not opts["skip_targets"]:
            d["target"] = os.readlink(path)
        d.pop("perm")  # symlink permissions are not meaningful
    elif stat.S_ISREG(mode):
        d["size"] = st.st_size
        d["content"] = content(path)
    elif stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        d["rdev"] = (os.major(st.st_rdev), os.minor(st.st_rdev))
    x = xattrs(path, opts)
    if x:
        d["xattrs"] = x
    return d


def main(argv):
    opts = {"no_xattrs": False, "ignore_dir_mtime": False, "swap": False,
            "skip_targets": False, "ignore_root_mtime": False, "no_hardlinks": False}
    flags = {"--no-xattrs": "no_xattrs", "--ignore-dir-mtime": "ignore_dir_mtime",
             "--swap-xattr-prefixes": "swap",
             "--skip-symlink-targets": "skip_targets",
             "--ignore-root-mtime": "ignore_root_mtime",
             "--no-hardlinks": "no_hardlinks"}
    args = []
    for a in argv[1:]:
        if a in flags:
            opts[flags[a]] = True
        elif a.startswith("-"):
            print(__doc__, file=sys.stderr)
            return 2
        else:
            args.append(a)
    if len(args) != 2 or not all(os.path.isdir(a) for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    (ta, ga) = scan(args[0], opts)
    opts["swap"] = False  # the swap describes DIR_A's reader only
    (tb, gb) = scan(args[1], opts)
    if opts["no_hardlinks"]:
        ga = gb = []
    diffs = []
    for p in sorted(set(ta) | set(tb)):
        if p not in ta:
            diffs.append("%s: only in %s" % (p, args[1]))
        elif p not in tb:
            diffs.append("%s: only in %s" % (p, args[0]))
        else:
            for k in sorted(set(ta[p]) | set(tb[p])):
                va, vb = ta[p].get(k), tb[p].get(k)
                if va != vb:
                    diffs.append("%s: %s: %r vs %r" % (p, k, va, vb))
    if ga != gb:
        diffs.append("hard-link groups differ: %r vs %r" % (ga[:5], gb[:5]))
    for d in diffs[:50]:
        print(d)
    if len(diffs) > 50:
        print("... and %d more differences" % (len(diffs) - 50))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
