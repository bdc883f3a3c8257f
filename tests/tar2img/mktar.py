#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the edge-case test archive (POSIX pax) to the file named by argv[1].

Deterministic (fixed seed). Holds every entry type and the cases tar2img
must get right: sizes around the block size, MiB of random and of zero
bytes, files with zero islands, 255-byte names, a 2000-byte path,
a 3000-entry directory, a 4000-byte symlink target, hard-link groups
across directories, fifos, devices with big numbers, xattrs of three
namespaces (binary and large values), ids above 65535, mtimes in 1970
and 2100, suid/sgid/sticky, duplicate files and tails, and a path given
twice (the later entry wins, as on extraction).
"""
import io
import random
import sys
import tarfile

BS = 131072
rng = random.Random(20261123)
T0 = 1700000000


def rand_bytes(n):
    return bytes(rng.getrandbits(8) for _ in range(n)) if n < 4096 else \
        rng.getrandbits(8 * n).to_bytes(n, "little")


def text_bytes(n, seed):
    r = random.Random(seed)
    words = [b"squash", b"inode", b"block", b"tail", b"frag", b"dir\n"]
    out = bytearray()
    while len(out) < n:
        out += r.choice(words) + b" "
    return bytes(out[:n])


class Writer:
    def __init__(self, path):
        self.tar = tarfile.open(path, "w", format=tarfile.PAX_FORMAT)

    def add(self, name, kind=tarfile.REGTYPE, data=b"", mode=0o644,
            uid=0, gid=0, mtime=T0, link="", dev=(0, 0), xattrs=None):
        ti = tarfile.TarInfo(name)
        ti.type = kind
        ti.mode = mode
        ti.uid, ti.gid = uid, gid
        ti.uname = ti.gname = ""
        ti.mtime = mtime
        ti.linkname = link
        ti.devmajor, ti.devminor = dev
        if xattrs:
            ti.pax_headers = {"SCHILY.xattr." + k: v for k, v in xattrs.items()}
        if kind == tarfile.REGTYPE:
            ti.size = len(data)
            self.tar.addfile(ti, io.BytesIO(data))
        else:
            self.tar.addfile(ti)

    def close(self):
        self.tar.close()


def main():
    w = Writer(sys.argv[1])
    D = tarfile.DIRTYPE
    w.add("./", D, mode=0o755, mtime=T0 + 5)
    w.add("sizes", D, mode=0o755)
    for n in (0, 1, BS - 1, BS, BS + 1, 2 * BS + 17):
        w.add("sizes/text-%d" % n, data=text_bytes(n, n))
        w.add("sizes/rand-%d" % n, data=rand_bytes(n))
    w.add("big", D, mode=0o700, uid=70000, gid=70001)
    w.add("big/random", data=rand_bytes(3 * 1024 * 1024 + 333))
    w.add("big/zeros", data=bytes(4 * 1024 * 1024))
    island = bytearray(5 * BS + 100)
    island[BS + 10:BS + 4000] = text_bytes(3990, 7)
    island[4 * BS:4 * BS + 50] = b"x" * 50
    w.add("big/islands", data=bytes(island))
    # names and depth
    w.add("names", D)
    w.add("names/" + "n" * 255, data=b"long name\n")
    w.add("names/" + "é" * 127, data=b"utf-8 name\n")  # 254 bytes
    w.add("names/with space and\ttab", data=b"odd\n")
    deep = "deep"
    w.add(deep, D)
    for i in range(40):
        deep += "/" + ("d%02d" % i) * 16
        w.add(deep, D, mode=0o750)
    w.add(deep + "/leaf", data=b"at the bottom\n")
    # a big directory (needs a directory index)
    w.add("many", D)
    for i in range(3000):
        w.add("many/entry-%05d" % i, data=b"%d\n" % (i % 7))
    # links and special files
    w.add("links", D)
    w.add("links/target", data=text_bytes(5000, 11))
    w.add("links/sym-rel", tarfile.SYMTYPE, link="target")
    w.add("links/sym-long", tarfile.SYMTYPE, link="t/" * 2000)
    w.add("links/sym-abs", tarfile.SYMTYPE, link="/etc/passwd")
    w.add("links/sym-dangling", tarfile.SYMTYPE, link="../nowhere")
    w.add("links/hard-1", tarfile.LNKTYPE, link="links/target")
    w.add("links/hard-2", tarfile.LNKTYPE, link="links/target")
    w.add("names/hard-cross", tarfile.LNKTYPE, link="sizes/text-1")
    w.add("links/hard-empty", tarfile.LNKTYPE, link="sizes/text-0")
    w.add("dev", D)
    w.add("dev/fifo", tarfile.FIFOTYPE, mode=0o600)
    w.add("dev/null", tarfile.CHRTYPE, mode=0o666, dev=(1, 3))
    w.add("dev/bigchr", tarfile.CHRTYPE, dev=(4000, 300000))
    w.add("dev/sda", tarfile.BLKTYPE, mode=0o660, gid=6, dev=(8, 0))
    # attributes
    w.add("attr", D, xattrs={"user.dir": "on a directory"})
    w.add("attr/x", data=b"xattrs\n", xattrs={
        "user.one": "1", "user.two": "two", "trusted.t": "tv",
        "security.s": "sv", "user.bin": "\x01\x02\xff"})
    w.add("attr/bigx", data=b"big xattr\n",
          xattrs={"user.big": "v" * 3000})
    w.add("attr/shared1", data=b"a\n", xattrs={"user.same": "s"})
    w.add("attr/shared2", data=b"b\n", xattrs={"user.same": "s"})
    w.add("attr/symx", tarfile.SYMTYPE, link="x", xattrs={"trusted.l": "k"})
    w.add("attr/suid", data=b"#!/bin/sh\n", mode=0o4755)
    w.add("attr/sgid", D, mode=0o2775)
    w.add("attr/sticky", D, mode=0o1777)
    w.add("attr/old", data=b"old\n", mtime=86400)
    w.add("attr/future", data=b"future\n", mtime=4102444800)
    w.add("attr/ids", data=b"ids\n", uid=65536 + 7, gid=4000000000)
    # duplicates: whole files, tails, a run of blocks, far apart
    dup = text_bytes(3 * BS + 999, 99)
    w.add("dup", D)
    w.add("dup/a", data=dup)
    w.add("dup/tail-1", data=rand_bytes(1000))
    w.add("dup/b", data=dup)
    w.add("dup/run", data=dup[:2 * BS])
    w.add("dup/tail-2", data=dup[-999:])
    w.add("dup/replaced", data=b"first version\n")
    w.add("dup/replaced", data=b"second version wins\n", mode=0o600)
    w.add("zz-far-copy", data=dup)
    w.close()


if __name__ == "__main__":
    main()
