#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check imginfo ls -lR, cat and stat of an image against judges.

Usage: browse_check.py IMGINFO IMAGE LLN REFDIR [MOUNT]
  LLN     unsquashfs -lln of the image (run with TZ=UTC)
  REFDIR  the tree unsquashfs -d extracted: cat must give its bytes
  MOUNT   the image mounted by the kernel: stat's fields must equal
          lstat's, xattrs listxattr's
Prints one line per mismatch; exits 1 when there is any.
"""
import os
import re
import stat
import subprocess
import sys

imginfo, image, lln, refdir = sys.argv[1:5]
mount = sys.argv[5] if len(sys.argv) > 5 else None
env = dict(os.environ, TZ="UTC")
bad = []


def run(*args):
    p = subprocess.run([imginfo] + list(args), env=env, capture_output=True)
    if p.returncode != 0:
        bad.append("imginfo %s: exit %d: %s" % (args[0], p.returncode,
                                                 p.stderr[:300]))
    return p.stdout


def norm(line, root):
    line = re.sub(r"(\d+),\s+(\d+)", r"\1,\2", line)
    f = line.split(None, 5)
    if len(f) < 6:
        return None
    path = f[5]
    if path.startswith(root):
        path = "/" + path[len(root):].lstrip("/")
    return f[:5] + [path]


# ls -lR against unsquashfs -lln (names, types, modes, owners, sizes, times)
ours = [norm(l, "") for l in run("ls", "-lR", image).decode(errors="replace").splitlines()]
theirs = [norm(l, "squashfs-root") for l in
          open(lln, errors="replace").read().splitlines()
          if l[:1] in "-dlbcps" and l[1:2] in "r-"]
if ours != theirs:
    for a, b in zip(ours, theirs):
        if a != b:
            bad.append("ls: %r != unsquashfs %r" % (a, b))
            break
    if len(ours) != len(theirs):
        bad.append("ls: %d lines, unsquashfs %d" % (len(ours), len(theirs)))

# cat of every regular file, in one call
def path_of(e):
    """The entry's path, relative, without a symlink's " -> target"."""
    p = e[5].split(" -> ", 1)[0] if e[0][0] == "l" else e[5]
    return p[1:]


files = [path_of(e) for e in ours if e and e[0][0] == "-"]
want = b"".join(open(os.path.join(refdir, f), "rb").read() for f in files)
if run("cat", image, *files) != want:
    bad.append("cat: output differs from the extracted files")


def esc(b, binary):
    out = []
    for c in b:
        if c == 0x5C or (binary and c == 0x22):
            out.append("\\" + chr(c))
        elif c < 0x20 or c == 0x7F or (binary and c > 0x7F):
            out.append("\\x%02x" % c)
        else:
            out.append(chr(c))
    return "".join(out)


def expected(path):
    full = os.path.join(mount, path)
    st = os.lstat(full)
    e = {"mode": "%04o" % stat.S_IMODE(st.st_mode), "uid": str(st.st_uid),
         "gid": str(st.st_gid), "mtime": str(int(st.st_mtime)),
         "inode": str(st.st_ino), "links": str(st.st_nlink)}
    if not stat.S_ISCHR(st.st_mode) and not stat.S_ISBLK(st.st_mode):
        e["size"] = str(st.st_size)
    else:
        e["device"] = "%d,%d" % (os.major(st.st_rdev), os.minor(st.st_rdev))
    if stat.S_ISLNK(st.st_mode):
        e["target"] = os.readlink(full)
    try:
        keys = os.listxattr(full, follow_symlinks=False)
    except OSError:
        keys = []       # an image without xattrs: EOPNOTSUPP
    e["xattr"] = sorted('%s="%s"' % (k, esc(os.getxattr(
        full, k, follow_symlinks=False), True)) for k in keys)
    return e


# stat of every entry against the kernel's lstat
if mount:
    paths = [path_of(e) or "/" for e in ours if e]
    out = run("stat", image, *paths).decode("utf-8", errors="surrogateescape")
    blocks = out.split("\n\n")
    if len(blocks) != len(paths):
        bad.append("stat: %d entries for %d paths" % (len(blocks), len(paths)))
    for path, blk in zip(paths, blocks):
        got = {"xattr": []}
        for line in blk.splitlines():
            k, _, v = line.partition(": ")
            if k == "xattr":
                got["xattr"].append(v)
            else:
                got[k] = v.split(" (")[0] if k in ("mode", "mtime") else v
        got["xattr"].sort()
        want_e = expected("" if path == "/" else path)
        for k, v in want_e.items():
            if got.get(k) != v:
                bad.append("stat %s: %s %r, kernel %r" % (path, k, got.get(k), v))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
