# SPDX-License-Identifier: MIT
# limits.py - the input of limits.sh and the lines it compares: an entry
# per line, "path uid gid mtime_ns rdev" (rdev "major:minor", or "-"),
# in path order, for the regular files and devices of a tree.
#
#   limits.py tar FILE N   write the tar (pax: big owners, fractional times)
#   limits.py dir DIR N    make the same tree in DIR (root: chown, mknod)
#   limits.py want N       the lines both must read back as
#   limits.py walk DIR     the lines of a tree on disk (lstat)
#   limits.py untar FILE   the lines of a tar (pax times read exactly)
import io
import os
import stat
import sys
import tarfile
from decimal import Decimal

BASE = 1600000000 * 10**9
# -100 s + 0.25 s (pax "-99.75") and 2^33 + 5 s + 123456789 ns.
PAST = -100 * 10**9 + 250000000
FUTURE = (2**33 + 5) * 10**9 + 123456789
DEV = (259, 0xFFFFF)        # a 20-bit minor


def entries(n):
    """(path, uid, gid, mtime_ns, dev or None) of every regular file and device."""
    out = [("own/%05d" % i, 100000 + i, 300000 + i, BASE, None) for i in range(n)]
    out += [("past", 0, 0, PAST, None), ("future", 0, 0, FUTURE, None),
            ("dev", 0, 0, BASE, DEV)]
    return sorted(out)


def pax_time(ns):
    s = Decimal(ns) / Decimal(10**9)
    return format(s, "f")


def line(path, uid, gid, ns, dev):
    return "%s %d %d %d %s" % (path, uid, gid, ns, "%d:%d" % dev if dev else "-")


def make_tar(path, n):
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as t:
        d = tarfile.TarInfo("own")
        d.type, d.mode, d.mtime = tarfile.DIRTYPE, 0o755, BASE // 10**9
        t.addfile(d)
        for p, uid, gid, ns, dev in entries(n):
            ti = tarfile.TarInfo(p)
            ti.uid, ti.gid, ti.mode = uid, gid, 0o644
            ti.mtime = ns // 10**9
            if ns % 10**9:
                ti.pax_headers = {"mtime": pax_time(ns)}
            if dev:
                ti.type, ti.devmajor, ti.devminor = tarfile.CHRTYPE, dev[0], dev[1]
            t.addfile(ti, io.BytesIO(b""))


def make_dir(root, n):
    os.makedirs(os.path.join(root, "own"), exist_ok=True)
    for p, uid, gid, ns, dev in entries(n):
        f = os.path.join(root, p)
        if dev:
            os.mknod(f, 0o644 | stat.S_IFCHR, os.makedev(*dev))
        else:
            open(f, "w").close()
        os.chown(f, uid, gid)
        os.utime(f, ns=(ns, ns))


def walk(root):
    out = []
    for d, _, files in os.walk(root):
        for name in files:
            f = os.path.join(d, name)
            st = os.lstat(f)
            dev = None
            if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                dev = (os.major(st.st_rdev), os.minor(st.st_rdev))
            out.append(line(os.path.relpath(f, root), st.st_uid, st.st_gid,
                            st.st_mtime_ns, dev))
    return sorted(out)


def untar(path):
    out = []
    with tarfile.open(path) as t:
        for ti in t:
            if not (ti.isreg() or ti.ischr() or ti.isblk()):
                continue
            raw = ti.pax_headers.get("mtime")
            ns = int(Decimal(raw) * 10**9) if raw is not None else int(ti.mtime) * 10**9
            dev = (ti.devmajor, ti.devminor) if ti.ischr() or ti.isblk() else None
            out.append(line(ti.name.lstrip("./"), ti.uid, ti.gid, ns, dev))
    return sorted(out)


def main():
    cmd = sys.argv[1]
    if cmd == "tar":
        make_tar(sys.argv[2], int(sys.argv[3]))
    elif cmd == "dir":
        make_dir(sys.argv[2], int(sys.argv[3]))
    else:
        if cmd == "want":
            lines = [line(*e) for e in entries(int(sys.argv[2]))]
        elif cmd == "walk":
            lines = walk(sys.argv[2])
        else:
            lines = untar(sys.argv[2])
        sys.stdout.write("".join(x + "\n" for x in lines))


main()
