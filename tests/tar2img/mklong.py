#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a tar whose paths exceed PATH_MAX, and the tree it stands for.

usage: mklong.py TAR DIR

TAR (pax) holds a chain of 70 directories with 62-byte names, so the
deepest paths are about 4.4 KB long; at the bottom a file, a symlink with
a 4000-byte target and a hard link to a file at the top. bsdtar, GNU tar
and unsquashfs cannot create such paths, so the expected tree is built
here too, in DIR (which must not exist), through directory descriptors:
what the generator meant, not what some extractor made of it. Needs root
for the owners. Deterministic.
"""
import io
import os
import sys
import tarfile

T0 = 1600000000
LEVELS = 70


def entries():
    """(path, kind, mode, uid, mtime, data or link target) in tar order."""
    out = [("top", tarfile.REGTYPE, 0o644, 0, T0, b"top file\n")]
    path = ""
    for i in range(LEVELS):
        path += ("/" if path else "") + "L%02d-" % i + "x" * 58
        out.append((path, tarfile.DIRTYPE, 0o755 if i % 3 else 0o700,
                    i * 1000, T0 + i, None))
    out.append((path + "/leaf", tarfile.REGTYPE, 0o640, 4242, T0 + 99,
                b"at the bottom\n" * 100))
    out.append((path + "/sym", tarfile.SYMTYPE, 0o777, 0, T0 + 98,
                "../" * 1333 + "t"))
    out.append((path + "/hard", tarfile.LNKTYPE, 0o644, 0, T0, "top"))
    return out


def write_tar(name):
    with tarfile.open(name, "w", format=tarfile.PAX_FORMAT) as t:
        for path, kind, mode, uid, mtime, payload in entries():
            ti = tarfile.TarInfo(path)
            ti.type, ti.mode, ti.uid, ti.gid, ti.mtime = kind, mode, uid, uid, mtime
            ti.uname = ti.gname = ""
            if kind in (tarfile.SYMTYPE, tarfile.LNKTYPE):
                ti.linkname = payload
            if kind == tarfile.REGTYPE:
                ti.size = len(payload)
                t.addfile(ti, io.BytesIO(payload))
            else:
                t.addfile(ti)


def build_tree(root):
    os.mkdir(root, 0o755)
    rootfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    dirs = [rootfd]        # open descriptors down the chain
    times = []             # directory times are set last, deepest first
    for path, kind, mode, uid, mtime, payload in entries():
        name = path.rsplit("/", 1)[-1]
        fd = dirs[path.count("/")]
        if kind == tarfile.DIRTYPE:
            os.mkdir(name, dir_fd=fd)
            dirs.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd))
            times.append((dirs[-1], mode, uid, mtime))
            continue
        if kind == tarfile.REGTYPE:
            f = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600,
                        dir_fd=fd)
            os.write(f, payload)
            os.close(f)
            os.chmod(name, mode, dir_fd=fd)
        elif kind == tarfile.SYMTYPE:
            os.symlink(payload, name, dir_fd=fd)
        else:
            os.link(payload, name, src_dir_fd=rootfd, dst_dir_fd=fd)
            continue
        os.chown(name, uid, uid, dir_fd=fd, follow_symlinks=False)
        os.utime(name, (mtime, mtime), dir_fd=fd, follow_symlinks=False)
    for fd, mode, uid, mtime in reversed(times):
        os.fchmod(fd, mode)
        os.fchown(fd, uid, uid)
        os.utime(fd, (mtime, mtime))
    for fd in dirs:
        os.close(fd)


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    write_tar(sys.argv[1])
    build_tree(sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
