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
    # The headers are tarfile's own (TarInfo.tobuf), written as TarFile
    # writes them (every entry is empty: headers only, then two zero
    # blocks and a full record). The owners' plain entries differ in
    # name, uid and gid alone: each is tarfile's header of the first
    # with those fields and the checksum set (tobuf on 70,000 entries
    # took seconds); header() is checked
    # against tobuf on the second.
    enc, errs = "utf-8", "surrogateescape"

    def tobuf(p, uid, gid, ns, dev, mode=0o644, kind=tarfile.REGTYPE):
        ti = tarfile.TarInfo(p)
        ti.type, ti.uid, ti.gid, ti.mode = kind, uid, gid, mode
        ti.mtime = ns // 10**9
        if ns % 10**9:
            ti.pax_headers = {"mtime": pax_time(ns)}
        if dev:
            ti.type, ti.devmajor, ti.devminor = tarfile.CHRTYPE, dev[0], dev[1]
        return ti.tobuf(tarfile.PAX_FORMAT, enc, errs)

    template, checked = None, False

    def header(p, uid, gid):
        h = bytearray(template)
        name = p.encode(enc, errs)
        h[0:100] = name + b"\0" * (100 - len(name))
        h[108:116] = b"%07o\0" % uid
        h[116:124] = b"%07o\0" % gid
        h[148:156] = b" " * 8
        h[148:156] = b"%06o\0 " % sum(h)
        return bytes(h)

    bufs = [tobuf("own", 0, 0, BASE, None, 0o755, tarfile.DIRTYPE)]
    for p, uid, gid, ns, dev in entries(n):
        plain = (dev is None and ns % 10**9 == 0 and len(p) < 100 and
                 uid < 8**7 and gid < 8**7)
        if plain and checked:
            bufs.append(header(p, uid, gid))
            continue
        b = tobuf(p, uid, gid, ns, dev)
        if plain and template is None:
            template = b
        elif plain:
            assert header(p, uid, gid) == b, "header() is not tobuf()"
            checked = True
        bufs.append(b)
    data = b"".join(bufs) + b"\0" * (2 * tarfile.BLOCKSIZE)
    data += b"\0" * (-len(data) % tarfile.RECORDSIZE)
    with open(path, "wb") as f:
        f.write(data)


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
    # scandir's lstat, relative to each directory (os.walk stats each
    # entry again by its whole path: seconds on 70,000 files)
    out = []

    def scan(d, rel):
        with os.scandir(d) as it:
            for e in it:
                st = e.stat(follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    scan(e.path, rel + e.name + "/")
                    continue
                dev = None
                if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
                    dev = (os.major(st.st_rdev), os.minor(st.st_rdev))
                out.append(line(rel + e.name, st.st_uid, st.st_gid,
                                st.st_mtime_ns, dev))
    scan(root, "")
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
