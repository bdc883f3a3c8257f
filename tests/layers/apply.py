#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Apply OCI image layers to a directory, lowest first: the reference.

usage: apply.py DEST LAYER.tar...

An independent applier for the layer tests (it shares no code with
sqpack): each layer is read with Python's tarfile and applied to DEST as
the OCI image-spec (layer.md) says. Its whiteouts first - ".wh.NAME"
removes NAME, ".wh..wh..opq" empties its directory - since they apply
only to the layers below; then its entries in order, each replacing what
is at its path (a directory over a directory only takes the new
attributes), hard links made to whatever the path names at that moment,
xattrs from the pax SCHILY.xattr records. The markers are never
extracted. Directory times are set once everything is in place, from the
last layer that has an entry for the directory. Needs root (owners).
"""
import os
import shutil
import stat
import sys
import tarfile

XATTR = "SCHILY.xattr."


def remove(path):
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def whiteouts(dest, members):
    for m in members:
        d, base = os.path.split(m.name)
        if base == ".wh..wh..opq":
            top = os.path.join(dest, d)
            if os.path.isdir(top):
                for name in os.listdir(top):
                    remove(os.path.join(top, name))
        elif base.startswith(".wh."):
            remove(os.path.join(dest, d, base[4:]))


def attrs(path, m):
    os.lchown(path, m.uid, m.gid)
    if not m.issym():
        os.chmod(path, m.mode)
    for k, v in m.pax_headers.items():
        if k.startswith(XATTR):
            os.setxattr(path, k[len(XATTR):], v.encode("utf-8", "surrogateescape"),
                        follow_symlinks=False)
    os.utime(path, (m.mtime, m.mtime), follow_symlinks=False)


def clear_xattrs(path):
    for k in os.listxattr(path, follow_symlinks=False):
        if k.startswith("user."):
            os.removexattr(path, k, follow_symlinks=False)


def entry(tar, dest, m, dir_times):
    path = os.path.join(dest, m.name)
    os.makedirs(os.path.dirname(path) or dest, exist_ok=True)
    if m.isdir():
        if os.path.lexists(path) and not (os.path.isdir(path) and not os.path.islink(path)):
            remove(path)
        os.makedirs(path, exist_ok=True)
        clear_xattrs(path)
        attrs(path, m)
        dir_times[path] = m.mtime
        return
    remove(path)
    if m.islnk():
        os.link(os.path.join(dest, m.linkname), path, follow_symlinks=False)
        return
    if m.issym():
        os.symlink(m.linkname, path)
    elif m.isreg():
        with open(path, "wb") as f:
            shutil.copyfileobj(tar.extractfile(m), f)
    else:
        sys.exit("apply.py: %s: type %r not used by the tests" % (m.name, m.type))
    attrs(path, m)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    dest = sys.argv[1]
    os.makedirs(dest, exist_ok=True)
    dir_times = {}
    for layer in sys.argv[2:]:
        with tarfile.open(layer) as tar:
            members = tar.getmembers()
            whiteouts(dest, members)
            for m in members:
                if not os.path.basename(m.name).startswith(".wh."):
                    entry(tar, dest, m, dir_times)
    for path in sorted(dir_times, key=len, reverse=True):
        if os.path.isdir(path):
            os.utime(path, (dir_times[path], dir_times[path]), follow_symlinks=False)


main()
