#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write a stack of OCI image layers (tars) that exercise every rule.

usage: mklayers.py OUTDIR [CASE]

CASE "stack" (the default) writes OUTDIR/l1.tar, l2.tar, l3.tar, lowest
first: files replaced in a later layer, deleted by a whiteout
(".wh.NAME"), directories made opaque (".wh..wh..opq") with new entries
of their own, whiteouts and an opaque marker that leave their own
layer's entries alone, a file replaced by a directory and the other way, a
directory's attributes changed, hard links across layers (an upper link
to a file only a lower layer has, and to one a still higher layer then
replaces), symlinks, owners and xattrs (pax SCHILY.xattr). Every layer
lists the directories it writes into, as image builders do, except where
a directory an upper layer implies must take a lower layer's attributes.

CASE "hardlinks" writes l1.tar, l2.tar, l3.tar: hard links of a lower
layer to a file an upper layer hides, so that a topmost first pass meets
the file before the link that still needs its data. Each directory is
one shape: the upper layer replaces the file (hl/), deletes it by a
whiteout (wh/), replaces the link instead (rb/), makes the file a
directory (dir/), replaces two of three names (two/), or the chain
runs across the three layers (chain/: l2 links to l1's link, l3
replaces the file; up/: l2 links to l1's file, l3 replaces it; hid/: l2
links to l1's link, l3 replaces both l1 names), and a file hidden twice
in its layer (twice/: the later one counts).

CASE "bigdead" writes l1.tar with two 24 MiB files among small ones and
l2.tar, which replaces one and deletes the other by a whiteout: far more
dead data than tar2img reads ahead, so a reader that seeks past it reads
much less than the layers hold.

CASE "images" writes l0.tar, l1.tar, l2.tar, l3.tar, each a whole tree
that stands alone (no hard link to a lower layer; every directory it
writes into listed), for img2img's image layers (tests/layers/
images.sh), which packs each on its own: a file replaced twice, one a
later layer deletes by a whiteout, an opaque directory, a file over a
directory and a directory over a file, a file the same in three layers,
a hard link within a layer, symlinks, owners and an xattr.

CASE "opaqueedge" writes l1.tar (a directory and files in it, one in a
subdirectory) and l2.tar, which makes that directory opaque and ends
with a file in it: the lower layer's entries come right after the
upper layer's last one, in the directory tar2img looked up last.
"""
import io
import os
import random
import sys
import tarfile

T0 = 1_600_000_000


def blob(seed, size):
    return random.Random(seed).randbytes(size)


class Layer:
    def __init__(self, path):
        self.tar = tarfile.open(path, "w", format=tarfile.PAX_FORMAT)
        self.t = T0

    def _info(self, name, mode, uid, gid, xattrs):
        ti = tarfile.TarInfo(name)
        self.t += 7
        ti.mtime = self.t
        ti.mode = mode
        ti.uid, ti.gid = uid, gid
        for k, v in (xattrs or {}).items():
            ti.pax_headers["SCHILY.xattr." + k] = v
        return ti

    def dir(self, name, mode=0o755, uid=0, gid=0, xattrs=None):
        ti = self._info(name, mode, uid, gid, xattrs)
        ti.type = tarfile.DIRTYPE
        self.tar.addfile(ti)

    def file(self, name, data, mode=0o644, uid=0, gid=0, xattrs=None):
        ti = self._info(name, mode, uid, gid, xattrs)
        ti.size = len(data)
        self.tar.addfile(ti, io.BytesIO(data))

    def link(self, name, target):
        ti = self._info(name, 0o644, 0, 0, None)
        ti.type = tarfile.LNKTYPE
        ti.linkname = target
        self.tar.addfile(ti)

    def symlink(self, name, target):
        ti = self._info(name, 0o777, 0, 0, None)
        ti.type = tarfile.SYMTYPE
        ti.linkname = target
        self.tar.addfile(ti)

    def whiteout(self, name):
        self.file(name, b"")

    def close(self):
        self.tar.close()


def stack(out):
    l1 = Layer(os.path.join(out, "l1.tar"))
    l1.dir("etc")
    l1.file("etc/passwd", b"root:x:0:0 v1\n")
    l1.file("etc/hosts", b"127.0.0.1 localhost v1\n")
    l1.dir("usr")
    l1.dir("usr/lib", mode=0o750, uid=7, gid=8)
    l1.file("usr/lib/libfoo.so.1", blob(1, 300_000), mode=0o755)
    l1.file("usr/lib/libbar.so", blob(2, 70_000))
    l1.dir("usr/bin")
    l1.file("usr/bin/tool", blob(3, 5_000), mode=0o755)
    l1.link("usr/bin/tool-alias", "usr/bin/tool")
    l1.dir("var")
    l1.dir("var/cache", uid=1000, gid=1000)
    l1.file("var/cache/a", blob(4, 20_000), uid=1000, gid=1000)
    l1.file("var/cache/b", blob(5, 9_000))
    l1.dir("var/cache/sub")
    l1.file("var/cache/sub/c", blob(6, 3_000))
    l1.dir("gone")
    l1.dir("gone/deep")
    l1.file("gone/deep/file", blob(7, 40_000))
    l1.dir("x")
    l1.dir("x/inner")
    l1.file("x/inner/file", blob(8, 11_000))
    l1.file("y", blob(9, 12_000))
    l1.symlink("sym", "etc/passwd")
    l1.dir("data")
    l1.file("data/colour", b"blue\n", xattrs={"user.colour": "blue"})
    l1.file("data/blob", blob(10, 1_000_000))
    l1.close()

    l2 = Layer(os.path.join(out, "l2.tar"))
    l2.dir("etc", mode=0o750, uid=0, gid=42)
    l2.file("etc/passwd", b"root:x:0:0 v2\n")
    l2.whiteout(".wh.gone")
    l2.dir("var")
    l2.dir("var/cache", mode=0o700, uid=1000, gid=1000)
    l2.whiteout("var/cache/.wh..wh..opq")
    l2.file("var/cache/fresh", blob(11, 6_000))
    l2.file("x", blob(12, 2_000))
    l2.dir("y", mode=0o711)
    l2.file("y/new", blob(13, 4_000))
    l2.dir("usr")
    l2.dir("usr/bin")
    l2.link("usr/bin/linked", "usr/lib/libfoo.so.1")
    l2.dir("usr/lib", mode=0o750, uid=7, gid=8)
    l2.whiteout("usr/lib/.wh.libbar.so")
    l2.dir("data")
    l2.file("data/colour", b"red\n", xattrs={"user.colour": "red", "user.more": "x"})
    l2.file("data/blob", blob(14, 900_000))
    l2.symlink("sym", "etc/hosts")
    l2.close()

    l3 = Layer(os.path.join(out, "l3.tar"))
    # usr and usr/lib have no entry here: l2's attributes must stay.
    l3.file("usr/lib/libfoo.so.1", blob(15, 250_000), mode=0o755)
    l3.dir("etc", mode=0o755, uid=0, gid=0)
    l3.file("etc/passwd", b"root:x:0:0 v3\n")
    # A whiteout touches only the layers below: l3's own passwd stays.
    l3.whiteout("etc/.wh.passwd")
    l3.link("etc/passwd-hard", "etc/passwd")
    l3.link("etc/hosts-hard", "etc/hosts")
    l3.dir("y", mode=0o711)
    l3.whiteout("y/.wh.new")
    l3.file("y/newer", b"in l3\n")
    # Opaque after an entry of its own layer, which stays.
    l3.whiteout("y/.wh..wh..opq")
    l3.dir("var")
    l3.dir("var/cache", mode=0o700, uid=1000, gid=1000)
    l3.dir("var/cache/sub")
    l3.file("var/cache/sub/d", b"l3 under an opaque directory of l2\n")
    l3.close()


def hardlinks(out):
    l1 = Layer(os.path.join(out, "l1.tar"))
    for d in ("hl", "wh", "rb", "dir", "two", "chain", "up", "twice", "hid"):
        l1.dir(d)
    l1.file("hl/a", blob(20, 5_000), mode=0o755, uid=7, gid=8,
            xattrs={"user.kept": "old a"})
    l1.link("hl/b", "hl/a")
    l1.file("wh/a", blob(21, 70_000))
    l1.link("wh/b", "wh/a")
    l1.file("rb/a", blob(22, 3_000))
    l1.link("rb/b", "rb/a")
    l1.file("dir/a", blob(23, 3_000))
    l1.link("dir/b", "dir/a")
    l1.file("two/a", blob(24, 3_000))
    l1.link("two/b", "two/a")
    l1.link("two/c", "two/a")
    l1.file("chain/a", blob(25, 3_000))
    l1.link("chain/b", "chain/a")
    l1.file("up/a", blob(26, 3_000))
    l1.file("twice/a", blob(27, 3_000))
    l1.file("twice/a", blob(28, 4_000))
    l1.link("twice/b", "twice/a")
    l1.file("hid/a", blob(29, 3_000))
    l1.link("hid/b", "hid/a")
    l1.close()
    l2 = Layer(os.path.join(out, "l2.tar"))
    l2.dir("chain")
    l2.link("chain/d", "chain/b")
    l2.dir("up")
    l2.link("up/b", "up/a")
    l2.dir("hid")
    l2.link("hid/x", "hid/b")
    l2.close()
    l3 = Layer(os.path.join(out, "l3.tar"))
    for d in ("hl", "wh", "rb", "dir", "two", "chain", "up", "twice", "hid"):
        l3.dir(d)
    l3.file("hl/a", blob(30, 4_000))
    l3.whiteout("wh/.wh.a")
    l3.file("rb/b", blob(31, 2_000))
    l3.dir("dir/a")
    l3.file("dir/a/x", blob(32, 1_000))
    l3.file("two/a", blob(33, 1_000))
    l3.file("two/b", blob(34, 1_000))
    l3.file("chain/a", blob(35, 1_000))
    l3.file("up/a", blob(36, 1_000))
    l3.file("twice/a", blob(37, 1_000))
    l3.file("hid/a", blob(38, 1_000))
    l3.file("hid/b", blob(39, 1_000))
    l3.close()


def bigdead(out):
    l1 = Layer(os.path.join(out, "l1.tar"))
    l1.dir("data")
    l1.file("data/first", blob(30, 3_000))
    l1.file("data/big", blob(31, 24 << 20))
    l1.file("data/middle", blob(32, 7_000))
    l1.file("data/gone", blob(33, 24 << 20))
    l1.file("data/last", blob(34, 5_000))
    l1.close()
    l2 = Layer(os.path.join(out, "l2.tar"))
    l2.dir("data")
    l2.file("data/big", blob(35, 4_000))
    l2.whiteout("data/.wh.gone")
    l2.close()


def opaqueedge(out):
    l1 = Layer(os.path.join(out, "l1.tar"))
    l1.dir("d")
    l1.file("d/old", blob(40, 2_000))
    l1.dir("d/sub")
    l1.file("d/sub/older", blob(41, 2_000))
    l1.file("kept", blob(42, 2_000))
    l1.close()
    l2 = Layer(os.path.join(out, "l2.tar"))
    l2.dir("d")
    l2.whiteout("d/.wh..wh..opq")
    l2.dir("d/sub")
    l2.file("d/sub/new", blob(43, 2_000))
    l2.close()


def images(out):
    l0 = Layer(os.path.join(out, "l0.tar"))
    l0.dir("etc")
    l0.file("etc/conf", b"v0\n")
    l0.file("etc/gone", blob(50, 3_000))
    l0.dir("opt", uid=5, gid=6)
    l0.file("opt/big", blob(51, 400_000), uid=5, gid=6)
    l0.file("opt/small", blob(52, 700))
    l0.dir("d2f")
    l0.dir("d2f/sub")
    l0.file("d2f/sub/inner", blob(53, 5_000))
    l0.file("f2d", blob(54, 2_500))
    l0.dir("shared")
    l0.file("shared/same", blob(55, 150_000))
    l0.close()

    l1 = Layer(os.path.join(out, "l1.tar"))
    l1.dir("etc", mode=0o750, gid=42)
    l1.file("etc/conf", b"v1\n")
    l1.file("etc/new", blob(56, 9_000), xattrs={"user.layer": "one"})
    l1.link("etc/new-hard", "etc/new")
    l1.file("d2f", blob(57, 1_234))
    l1.dir("shared")
    l1.file("shared/same2", blob(55, 150_000))
    l1.symlink("sym", "etc/conf")
    l1.close()

    l2 = Layer(os.path.join(out, "l2.tar"))
    l2.dir("etc", mode=0o755)
    l2.file("etc/conf", b"v2\n", mode=0o600)
    l2.whiteout("etc/.wh.gone")
    l2.dir("f2d")
    l2.file("f2d/now-a-dir", blob(58, 40_000))
    l2.dir("opt", uid=5, gid=6)
    l2.whiteout("opt/.wh..wh..opq")
    l2.file("opt/only", blob(59, 130_000))
    l2.dir("shared")
    l2.file("shared/same3", blob(55, 150_000))
    l2.close()

    l3 = Layer(os.path.join(out, "l3.tar"))
    l3.dir("etc", mode=0o755)
    l3.file("etc/conf", b"v3, the topmost\n")
    l3.dir("f2d")
    l3.file("f2d/more", b"l3\n")
    l3.symlink("sym", "etc/new")
    l3.close()


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    case = sys.argv[2] if len(sys.argv) == 3 else "stack"
    {"stack": stack, "hardlinks": hardlinks, "bigdead": bigdead,
     "opaqueedge": opaqueedge, "images": images}[case](sys.argv[1])


main()
